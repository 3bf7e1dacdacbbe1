import type { JSONSchemaProps, ValidationRule } from '../apiserver/index.js';

/**
 * The OpenAPI v3 subset a CustomResourceDefinition's `openAPIV3Schema` holds, in wire form (the field
 * names kube-apiserver reads, `x-kubernetes-*` included): the embedded API server's own declaration.
 * @category Kinds
 */
export type CrdSchema = JSONSchemaProps;

/**
 * One CEL validation rule (`x-kubernetes-validations` entry): `rule` must evaluate to true for the value
 * it sits on (`self`; `oldSelf` on update).
 * @category Kinds
 */
export type CelRule = ValidationRule;

/**
 * One `kubectl get` column (`additionalPrinterColumns` entry).
 * @category Kinds
 */
export interface PrinterColumn {
  /** Column header, e.g. `Replicas`. */
  name: string;
  /** `string`, `integer`, `number`, `boolean` or `date` (shown as an age). */
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  /** Simple JSONPath into the object, e.g. `.spec.replicas`. */
  jsonPath: string;
  /** Shown by `kubectl explain` and OpenAPI. */
  description?: string;
  /** OpenAPI format hint (`int32`, `name`, …). */
  format?: string;
  /** 0 (default): always shown; higher: only with `-o wide`. */
  priority?: number;
}

/**
 * The scale subresource: where `kubectl scale` and the HorizontalPodAutoscaler read and write replicas.
 * @category Kinds
 */
export interface ScaleSubresource {
  /** Desired replicas, e.g. `.spec.replicas` (an integer field under `.spec`). */
  specReplicasPath: string;
  /** Observed replicas, e.g. `.status.replicas` (an integer field under `.status`). */
  statusReplicasPath: string;
  /** Label selector string for the HPA, e.g. `.status.selector` (a string field). */
  labelSelectorPath?: string;
}

/**
 * One entry of a CRD's `spec.versions`, in wire form.
 * @category Kinds
 */
export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema: { openAPIV3Schema: CrdSchema };
  subresources?: { status?: Record<string, never>; scale?: ScaleSubresource };
  additionalPrinterColumns?: PrinterColumn[];
}

/**
 * A CustomResourceDefinition (`apiextensions.k8s.io/v1`) in wire form, as `defineKind` generates it.
 * @category Kinds
 */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    group: string;
    scope: 'Namespaced' | 'Cluster';
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames?: string[];
      categories?: string[];
    };
    versions: CrdVersion[];
  };
}
