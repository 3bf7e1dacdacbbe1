/**
 * The OpenAPI v3 subset a CustomResourceDefinition's `openAPIV3Schema` holds, in wire form (the field
 * names kube-apiserver reads, `x-kubernetes-*` included).
 * @category Kinds
 */
export interface CrdSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  title?: string;
  format?: string;
  properties?: Record<string, CrdSchema>;
  required?: string[];
  items?: CrdSchema;
  additionalProperties?: CrdSchema | true;
  enum?: unknown[];
  default?: unknown;
  example?: unknown;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: CelRule[];
}

/**
 * One CEL validation rule (`x-kubernetes-validations` entry): `rule` must evaluate to true for the value
 * it sits on (`self`; `oldSelf` on update).
 * @category Kinds
 */
export interface CelRule {
  /** The CEL expression, e.g. `self.minReplicas <= self.maxReplicas`. */
  rule: string;
  /** Message shown when the rule fails. Default: `failed rule: <rule>`. */
  message?: string;
  /** A CEL expression producing the message (wins over `message`). */
  messageExpression?: string;
  /** `FieldValueInvalid` (default), `FieldValueForbidden`, `FieldValueRequired` or `FieldValueDuplicate`. */
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  /** Path, relative to the value, the failure is reported at (`.spec.replicas`). */
  fieldPath?: string;
  /** Run a transition rule on create too, with `oldSelf` an optional. */
  optionalOldSelf?: boolean;
}

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
