import { InvalidConfigError } from '../errors/invalid-config-error.js';

/**
 * The kind a finalizer is made for.
 * @category Informer controller (grafana-app-sdk)
 */
export interface FinalizerKind {
  /** API group (`''` for the core group). */
  group: string;
  /** API version, e.g. `v1`. */
  version: string;
  /** Kind, e.g. `Widget`. */
  kind: string;
}

/**
 * Makes the finalizer name for a kind (grafana's `FinalizerSupplier`).
 * @category Informer controller (grafana-app-sdk)
 */
export type FinalizerSupplier = (kind: FinalizerKind) => string;

// A finalizer is a qualified name: optional DNS prefix and '/', then a name of ≤ 63 characters.
const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const PREFIX = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * Checks that `finalizer` is a name the API server accepts: an optional DNS-subdomain prefix and `/`,
 * then at most 63 letters, digits, `-`, `_` or `.`, starting and ending alphanumeric. Throws
 * {@link InvalidConfigError} saying what is wrong; returns the name.
 * @category Informer controller (grafana-app-sdk)
 */
export function checkFinalizerName(finalizer: string, field = 'finalizer'): string {
  if (typeof finalizer !== 'string' || finalizer === '') {
    throw new InvalidConfigError(`${field} must be a non-empty string like "example.com/my-operator"`);
  }
  const slash = finalizer.indexOf('/');
  const prefix = slash < 0 ? undefined : finalizer.slice(0, slash);
  const name = slash < 0 ? finalizer : finalizer.slice(slash + 1);
  if (prefix !== undefined && (prefix.length > 253 || !PREFIX.test(prefix))) {
    throw new InvalidConfigError(
      `${field} "${finalizer}": the part before '/' must be a lowercase DNS subdomain (e.g. example.com)`,
    );
  }
  if (name.length > 63) {
    throw new InvalidConfigError(
      `${field} "${finalizer}": the name part has ${name.length} characters; at most 63 are allowed (pass a shorter finalizer)`,
    );
  }
  if (!NAME.test(name)) {
    throw new InvalidConfigError(
      `${field} "${finalizer}": the name part must be letters, digits, '-', '_' or '.', starting and ending alphanumeric`,
    );
  }
  return finalizer;
}

/**
 * grafana's default finalizer `operator.{version}.{kind}.{group}` (e.g. `operator.v1.Widget.example.com`),
 * checked: a kind or group making it invalid or longer than 63 characters throws
 * {@link InvalidConfigError} (grafana ≥ v0.32 checks the length too; the seed version did not).
 * @category Informer controller (grafana-app-sdk)
 */
export const defaultFinalizerSupplier: FinalizerSupplier = ({ group, version, kind }) =>
  checkFinalizerName(
    group === '' ? `operator.${version}.${kind}` : `operator.${version}.${kind}.${group}`,
    'defaultFinalizerSupplier',
  );

/** The group and version of an apiVersion (`v1` → core group). */
export function finalizerKindOf(apiVersion: string, kind: string): FinalizerKind {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion, kind }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind };
}
