import { randomBytes } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import { REAL_BACKEND } from '../../real/real-backend.js';

// On the shared kube-apiserver of `make test-real` the Gadget gets a group of its own per run of a spec
// process; child operator processes inherit it through the environment.
const GROUP_ENV = 'RELIABILITY_GADGET_GROUP';
if (REAL_BACKEND && process.env[GROUP_ENV] === undefined) {
  process.env[GROUP_ENV] = `r${randomBytes(3).toString('hex')}.reliability.reconcilekit.io`;
}

/**
 * The Gadget: the custom resource of the reliability scenarios' test operator. Its CRD keeps unknown
 * fields and has no schema, on purpose: objects with wrong types or missing fields reach the operator
 * (as objects written before a schema was tightened do), which must fail them one by one.
 */
export const GADGET_GROUP = process.env[GROUP_ENV] ?? 'reliability.reconcilekit.io';
export const GADGET_API_VERSION = `${GADGET_GROUP}/v1`;
export const GADGET_KIND = 'Gadget';
export const GADGET_PLURAL = 'gadgets';
export const GADGET = { apiVersion: GADGET_API_VERSION, kind: GADGET_KIND, plural: GADGET_PLURAL } as const;
/** Label on every child, naming its Gadget. */
export const GADGET_LABEL = `${GADGET_GROUP}/gadget`;
/** Largest `spec.value` the operator accepts (bigger is bad input, not something to copy around). */
export const MAX_VALUE_LENGTH = 16 * 1024;

export const GADGET_CRD: KubernetesObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${GADGET_PLURAL}.${GADGET_GROUP}` },
  spec: {
    group: GADGET_GROUP,
    scope: 'Namespaced',
    names: { plural: GADGET_PLURAL, singular: 'gadget', kind: GADGET_KIND, listKind: 'GadgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
} as KubernetesObject;

/**
 * What a Gadget asks for. `value` is copied into a child ConfigMap and an external file; `secret`
 * (optional) into a child Secret; `labels` onto the children; `mode` makes its reconcile misbehave.
 */
export interface GadgetSpec {
  value?: unknown;
  secret?: unknown;
  labels?: unknown;
  mode?: 'throw' | 'hang' | 'hang-ignoring-signal';
}

export interface GadgetCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime?: string;
}

export interface Gadget extends KubernetesObject {
  spec?: GadgetSpec;
  status?: { observedGeneration?: number; value?: string; conditions?: GadgetCondition[] };
}

/** Name of a Gadget's child ConfigMap (and Secret). */
export function childName(name: string): string {
  return `${name}-gadget`;
}

/** The content of the external file and the ConfigMap's `value` for a Gadget with `value`. */
export function renderValue(name: string, value: string): string {
  return `gadget ${name}: ${value}`;
}

/** A valid Gadget in `namespace`. */
export function gadget(name: string, value: string, namespace = 'default', spec: GadgetSpec = {}): Gadget {
  return {
    apiVersion: GADGET_API_VERSION,
    kind: GADGET_KIND,
    metadata: { name, namespace },
    spec: { value, ...spec },
  };
}

/** A Gadget with exactly `spec` (for bad input: anything goes). */
export function rawGadget(name: string, spec: GadgetSpec, namespace = 'default'): Gadget {
  return { apiVersion: GADGET_API_VERSION, kind: GADGET_KIND, metadata: { name, namespace }, spec };
}

/** The reference of one Gadget. */
export function gadgetRef(name: string, namespace = 'default') {
  return { ...GADGET, namespace, name };
}
