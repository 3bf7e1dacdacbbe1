/**
 * Where a reconcile failure happened: the resource and its CRUD step (`newUpdatePatch`), or the
 * reconciler function (`reconcile`, `cleanup`) of a `Controller`.
 * @category Errors
 */
export interface FailureSite {
  /** The resource's name (CRUD front end); undefined for a reconcile function. */
  resource?: string;
  /** The CRUD step's method name, `ensureCreated`/`ensureDeleted` of a plain resource, or the reconciler's. */
  step: string;
}

const sites = new WeakMap<object, FailureSite>();

/**
 * Records where `err` was thrown, unless an inner layer already did (the innermost site wins). The error
 * itself is not wrapped or changed: your errors reach you as you threw them.
 */
export function noteFailureSite(err: unknown, site: FailureSite): void {
  if (typeof err === 'object' && err !== null && !sites.has(err)) sites.set(err, site);
}

/**
 * Where `err` was thrown, when the engine saw it leave a resource step or a reconciler.
 * @category Errors
 */
export function failureSite(err: unknown): FailureSite | undefined {
  return typeof err === 'object' && err !== null ? sites.get(err) : undefined;
}

/**
 * `resource "configmap" step newUpdatePatch`, or `reconciler.cleanup`.
 * @category Errors
 */
export function describeFailureSite(site: FailureSite): string {
  return site.resource === undefined
    ? `reconciler.${site.step}`
    : `resource "${site.resource}" step ${site.step}`;
}
