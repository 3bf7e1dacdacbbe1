/* eslint-disable @typescript-eslint/no-misused-spread -- client-node models are plain-data classes: objects from the wire and object literals are never instances, and spreading them is how they are built. */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Website } from '../../../examples/website-operator/website.js';

/** A stored Website as the API server returns it (uid, generation, resourceVersion set). */
export function storedWebsite(
  overrides: Partial<Website['spec']> = {},
  labels: Record<string, string> = {},
): Website {
  return {
    apiVersion: 'demo.reconcilekit.io/v1',
    kind: 'Website',
    metadata: {
      name: 'hello',
      namespace: 'demo',
      uid: '6f1c2d3e-0000-4000-8000-000000000001',
      generation: 3,
      resourceVersion: '42',
      labels,
    },
    spec: { title: 'Hello <world>', content: 'First paragraph.\n\nSecond & last.', ...overrides },
  };
}

/** What a server adds to an object on create: identity, version, timestamps. */
export function asStored<T extends KubernetesObject>(obj: T, resourceVersion = '7'): T {
  return {
    ...obj,
    metadata: {
      ...obj.metadata,
      uid: 'child-uid',
      resourceVersion,
      creationTimestamp: new Date('2026-01-01T00:00:00Z'),
    },
  };
}
