import Type, {
  type Static,
  type TArrayOptions,
  type TObject,
  type TSchema,
  type TSchemaOptions,
  type TUnsafe,
} from 'typebox';

/** Keys of an object schema's static type whose values are scalars (what a list-map may be keyed by). */
type ScalarKeys<T extends TSchema> = {
  [K in keyof Static<T>]-?: Static<T>[K] extends string | number | boolean | undefined ? K : never;
}[keyof Static<T>] &
  string;

/**
 * A Kubernetes condition (`metav1.Condition`), as the `conditions` of a status hold it.
 * @category Kinds
 */
export interface KubeCondition {
  /** Condition type in CamelCase, e.g. `Ready`. */
  type: string;
  /** `True`, `False` or `Unknown`. */
  status: 'True' | 'False' | 'Unknown';
  /** When `status` last changed (RFC 3339). */
  lastTransitionTime: string;
  /** CamelCase reason for the status. */
  reason: string;
  /** Human-readable detail. */
  message: string;
  /** The `metadata.generation` the condition was computed for. */
  observedGeneration?: number;
}

/**
 * Schema builders for what Kubernetes adds to JSON Schema, for use beside TypeBox's `Type`: each returns a
 * TypeBox schema (so `Static` types follow) carrying the `x-kubernetes-*` extension the API server reads.
 * Any TypeBox option also takes the extensions directly, e.g.
 * `Type.Object({...}, { 'x-kubernetes-validations': [{ rule: 'self.min <= self.max' }] })`.
 * @category Kinds
 */
export const KubeType = {
  /**
   * A list of objects merged by key (`x-kubernetes-list-type: map`): server-side apply merges items with
   * the same key instead of replacing the list. Each key must be a required (or defaulted) scalar of the
   * items.
   */
  ListMap<T extends TObject>(items: T, keys: readonly ScalarKeys<T>[], options: TArrayOptions = {}) {
    return Type.Array(items, {
      ...options,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': [...keys],
    });
  },
  /** A list of unique scalars (`x-kubernetes-list-type: set`): apply merges by value. */
  ListSet<T extends TSchema>(items: T, options: TArrayOptions = {}) {
    return Type.Array(items, { ...options, 'x-kubernetes-list-type': 'set' });
  },
  /** A list replaced as a whole by apply (`x-kubernetes-list-type: atomic`). */
  ListAtomic<T extends TSchema>(items: T, options: TArrayOptions = {}) {
    return Type.Array(items, { ...options, 'x-kubernetes-list-type': 'atomic' });
  },
  /** An integer or a string (Kubernetes' IntOrString: a port number or name, a count or a percentage). */
  IntOrString(options: TSchemaOptions = {}): TUnsafe<number | string> {
    return Type.Unsafe<number | string>({ ...options, 'x-kubernetes-int-or-string': true });
  },
  /** An object whose fields the API server keeps as sent (no schema below it, no pruning). */
  PreserveUnknownFields(options: TSchemaOptions = {}): TUnsafe<Record<string, unknown>> {
    return Type.Unsafe<Record<string, unknown>>({
      ...options,
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    });
  },
  /** A whole Kubernetes object inside this one (apiVersion, kind and metadata checked by the server). */
  EmbeddedResource(options: TSchemaOptions = {}): TUnsafe<{
    apiVersion: string;
    kind: string;
    metadata?: Record<string, unknown>;
    [key: string]: unknown;
  }> {
    return Type.Unsafe({
      ...options,
      type: 'object',
      'x-kubernetes-embedded-resource': true,
      'x-kubernetes-preserve-unknown-fields': true,
    });
  },
  /**
   * The standard `conditions` list of a status (`metav1.Condition` items keyed by `type`), as the engine's
   * status writer and `kubectl wait --for=condition=Ready` expect it.
   */
  Conditions(options: TArrayOptions = {}): TUnsafe<KubeCondition[]> {
    const condition = Type.Object({
      type: Type.String({ minLength: 1, maxLength: 316 }),
      status: Type.Union([Type.Literal('True'), Type.Literal('False'), Type.Literal('Unknown')]),
      lastTransitionTime: Type.String({ format: 'date-time' }),
      reason: Type.String({ maxLength: 1024 }),
      message: Type.String({ maxLength: 32768 }),
      observedGeneration: Type.Optional(Type.Integer({ minimum: 0, format: 'int64' })),
    });
    return Type.Unsafe<KubeCondition[]>(
      Type.Array(condition, {
        ...options,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
    );
  },
};
