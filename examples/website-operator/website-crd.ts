import type { KubernetesObject } from '@kubernetes/client-node';
import { WebsiteKind } from './website-kind.js';

/**
 * The Website CustomResourceDefinition, from its kind definition (website-kind.ts; `deploy/crd.yaml` is the
 * same object, written by `make manifests`), in wire form.
 */
export function loadWebsiteCrd(): KubernetesObject {
  return WebsiteKind.crd();
}
