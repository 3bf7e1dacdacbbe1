import type { KubernetesObject } from '@kubernetes/client-node';
import { ERROR_KIND, hasCause, hasKind } from '../errors/has-cause.js';

function groupOf(apiVersion: string | undefined): string {
  if (apiVersion === undefined) return '';
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * A `TypedReconciler`'s type guard rejected the object (grafana's `CannotCastError`): it names the
 * object so the author can find what did not have the expected shape.
 * @category Informer controller (grafana-app-sdk)
 */
export class CannotCastError extends Error {
  readonly [ERROR_KIND] = 'CannotCast';
  readonly namespace: string;
  /** The object's name (grafana's `Name` field; this shadows `Error.name`). */
  override readonly name: string;
  readonly group: string;
  readonly kind: string;

  constructor(obj: KubernetesObject) {
    const namespace = obj.metadata?.namespace ?? '';
    const name = obj.metadata?.name ?? '';
    const group = groupOf(obj.apiVersion);
    const kind = obj.kind ?? '';
    super(
      `cannot cast ${group}:${kind} (${namespace === '' ? name : `${namespace}/${name}`}) into the reconciler's type: its type guard rejected the object; fix the object or the guard`,
    );
    this.name = name;
    this.namespace = namespace;
    this.group = group;
    this.kind = kind;
  }
}

/**
 * Whether `err` (or a cause) is a {@link CannotCastError}.
 * @category Informer controller (grafana-app-sdk)
 */
export function isCannotCast(err: unknown): err is CannotCastError {
  return hasCause(err, (e) => e instanceof CannotCastError || hasKind(e, 'CannotCast'));
}

/**
 * An informer event or handler call carried no object (grafana's `ErrNilObject`).
 * @category Informer controller (grafana-app-sdk)
 */
export class NilObjectError extends Error {
  readonly [ERROR_KIND] = 'NilObject';

  constructor(what = 'object') {
    super(`${what} cannot be null or undefined`);
    this.name = 'NilObjectError';
  }
}

/**
 * Whether `err` (or a cause) is a {@link NilObjectError}.
 * @category Informer controller (grafana-app-sdk)
 */
export function isNilObject(err: unknown): err is NilObjectError {
  return hasCause(err, (e) => e instanceof NilObjectError || hasKind(e, 'NilObject'));
}

/**
 * The same informer (the same `Informer` instance, or a source with the same apiVersion, kind,
 * namespace and selectors) was added twice for one kind (grafana declared `ErrInformerAlreadyAdded`
 * but never returned it).
 * @category Informer controller (grafana-app-sdk)
 */
export class InformerAlreadyAddedError extends Error {
  readonly [ERROR_KIND] = 'InformerAlreadyAdded';

  constructor(readonly resourceKind: string) {
    super(
      `an informer for the same source was already added for kind "${resourceKind}"; add it once (several informers per kind must differ in namespace or selectors)`,
    );
    this.name = 'InformerAlreadyAddedError';
  }
}

/**
 * Whether `err` (or a cause) is an {@link InformerAlreadyAddedError}.
 * @category Informer controller (grafana-app-sdk)
 */
export function isInformerAlreadyAdded(err: unknown): err is InformerAlreadyAddedError {
  return hasCause(err, (e) => e instanceof InformerAlreadyAddedError || hasKind(e, 'InformerAlreadyAdded'));
}
