/**
 * The OpenAPI v3 subset CRDs use in `spec.versions[].schema.openAPIV3Schema`, in wire form (the field names
 * kube-apiserver reads, `x-kubernetes-*` included). The one declaration of it: the server validates with it
 * and kinds (`CrdSchema`) generate it.
 */
export interface JSONSchemaProps {
  /** `object`, `array`, `string`, `integer`, `number` or `boolean` (wire data may hold anything: checked). */
  type?: string;
  description?: string;
  title?: string;
  example?: unknown;
  properties?: Record<string, JSONSchemaProps>;
  items?: JSONSchemaProps;
  required?: string[];
  enum?: unknown[];
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
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  format?: string;
  nullable?: boolean;
  default?: unknown;
  additionalProperties?: JSONSchemaProps | boolean;
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: ValidationRule[];
}

/**
 * One CEL validation rule (`x-kubernetes-validations` entry): `rule` must evaluate to true for the value it
 * sits on (`self`; `oldSelf` on update), and how its failure is reported.
 */
export interface ValidationRule {
  /** The CEL expression, e.g. `self.minReplicas <= self.maxReplicas`. */
  rule: string;
  /** Message shown when the rule fails. Default: `failed rule: <rule>`. */
  message?: string;
  /** A CEL expression producing the message (wins over `message`). */
  messageExpression?: string;
  /** `FieldValueInvalid` (default), `FieldValueForbidden`, `FieldValueRequired` or `FieldValueDuplicate`. */
  reason?: string;
  /** JSONPath-like path, relative to the rule's node, the failure is reported at (`.spec.x`, `['a.b']`). */
  fieldPath?: string;
  /** Evaluate the transition rule on create too, with `oldSelf` an optional (none when absent). */
  optionalOldSelf?: boolean;
}
