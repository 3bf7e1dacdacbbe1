/**
 * The declarative operator spec (dcontroller's `OperatorSpec`): controllers written as data — sources to
 * watch, a pipeline that joins, filters and reshapes them, and a target kind to write the result to. The
 * same shape is read from YAML ({@link loadOperatorSpec}) or given as an object.
 */

/**
 * A JSON value read as an expression: a literal, a `"$.json.path"` string, or `{ "@op": args }`.
 * @category Declarative operators
 */
export type Expression = unknown;

/**
 * Names a kind. Without `apiGroup` it is a view kind of the operator (group `<operator>.view.reconcilekit.io`).
 * @category Declarative operators
 */
export interface ResourceSpec {
  /** API group; `''` is the core group (`v1`). Omitted: a view kind of this operator. */
  apiGroup?: string;
  /** Version. Default: the view version `v1alpha1` for views; for other kinds the server's preferred version. */
  version?: string;
  /** Kind, e.g. `ConfigMap`. Required. */
  kind: string;
}

/**
 * A serialisable watch predicate (controller-runtime's predicates, as dcontroller spells them).
 * @category Declarative operators
 */
export type PredicateSpec =
  | { GenerationChanged: Record<string, never> | null }
  | { ResourceVersionChanged: Record<string, never> | null }
  | { LabelChanged: Record<string, never> | null }
  | { AnnotationChanged: Record<string, never> | null }
  | { And: PredicateSpec[] }
  | { Or: PredicateSpec[] }
  | { Not: PredicateSpec };

/**
 * A label selector in its Kubernetes object form.
 * @category Declarative operators
 */
export interface LabelSelectorSpec {
  matchLabels?: Record<string, string>;
  matchExpressions?: {
    key: string;
    operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
    values?: string[];
  }[];
}

/**
 * A watched kind whose objects feed the pipeline.
 * @category Declarative operators
 */
export interface SourceSpec extends ResourceSpec {
  /** Only objects of this namespace. Default: every namespace. */
  namespace?: string;
  /** Only objects matching this selector. Default: every object. */
  labelSelector?: LabelSelectorSpec;
  /** Filters update events before they trigger a pass. Default: every change. */
  predicate?: PredicateSpec;
}

/**
 * Where a controller writes its pipeline's output.
 * @category Declarative operators
 */
export interface TargetSpec extends ResourceSpec {
  /**
   * `Updater` (default): create or update, replacing every field but metadata; labels and annotations are
   * merged, never removed; an output that disappears deletes the object. `Patcher`: a merge patch of exactly
   * the emitted fields onto an existing object; an output that disappears nulls exactly those fields.
   */
  type?: 'Updater' | 'Patcher';
}

/**
 * One aggregation stage. `@demux` is a later name of `@unwind`, `@mux` of `@gather`.
 * @category Declarative operators
 */
export type Stage =
  | { '@select': Expression }
  | { '@project': Expression }
  | { '@unwind': string }
  | { '@demux': string }
  | { '@gather': [key: Expression, value: Expression] }
  | { '@mux': [key: Expression, value: Expression] };

/**
 * A pipeline: an optional `@join` (required with more than one source) and the aggregation stages run on
 * every joined document, in order. A bare list of stages is the later flat form of `{ '@aggregate': […] }`.
 * @category Declarative operators
 */
export type PipelineSpec = { '@join'?: Expression; '@aggregate'?: Stage[] } | Stage[];

/**
 * One declarative controller.
 * @category Declarative operators
 */
export interface ControllerSpec {
  /** Unique within the operator; names the controller in status and errors. Required. */
  name: string;
  /** At least one. Two sources of one kind are an error: the joined document is keyed by kind. */
  sources: SourceSpec[];
  /** Default: none, every source object is written as is (only valid with one source). */
  pipeline?: PipelineSpec;
  /** Required. */
  target: TargetSpec;
}

/**
 * A declarative operator: 1–255 controllers.
 * @category Declarative operators
 */
export interface OperatorSpec {
  controllers: ControllerSpec[];
}

/**
 * Fewest and most controllers an operator spec may hold (dcontroller's CRD bounds).
 * @category Declarative operators
 */
export const MIN_CONTROLLERS = 1;
/** @category Declarative operators */
export const MAX_CONTROLLERS = 255;

/**
 * Most bytes of YAML (or JSON) text one operator spec may be: a larger text is refused before parsing.
 * @category Declarative operators
 */
export const MAX_SPEC_BYTES = 1024 * 1024;

/**
 * Most YAML aliases (`*name`) a spec may expand, weighted by the size of what each one repeats (the
 * `yaml` library's `maxAliasCount`): a few aliases of small anchors pass; an alias bomb is refused.
 * @category Declarative operators
 */
export const MAX_SPEC_ALIAS_COUNT = 100;

/**
 * Most values (scalars, lists and objects, each repeat counted) one spec may hold once read: larger specs
 * are refused before any expression is compiled, also when built in TypeScript with shared sub-objects.
 * @category Declarative operators
 */
export const MAX_SPEC_NODES = 200_000;

/**
 * Deepest nesting of lists and objects a spec may have (an expression inside a pipeline inside a controller).
 * @category Declarative operators
 */
export const MAX_SPEC_DEPTH = 128;

/**
 * Most documents one `@join` may produce in a pass (before its condition filters them). A join past it
 * fails the pass with an `ExpressionError` naming the join, the sources' sizes and the bound; the
 * controller's status reports it and the pass is retried with backoff.
 * @category Declarative operators
 */
export const MAX_JOIN_DOCUMENTS = 100_000;
