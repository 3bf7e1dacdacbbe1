/** The OpenAPI v3 subset CRDs use in `spec.versions[].schema.openAPIV3Schema`. */
export interface JSONSchemaProps {
  type?: string;
  description?: string;
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

/** One `x-kubernetes-validations` entry: a CEL rule and how its failure is reported. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  /** FieldValueInvalid (default), FieldValueForbidden, FieldValueRequired or FieldValueDuplicate. */
  reason?: string;
  /** JSONPath-like path, relative to the rule's node, the failure is reported at (`.spec.x`, `['a.b']`). */
  fieldPath?: string;
  /** Evaluate the transition rule on create too, with `oldSelf` an optional (none when absent). */
  optionalOldSelf?: boolean;
}
