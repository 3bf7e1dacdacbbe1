import { isForbidden, isNotFound, isUnauthorized } from './api-error.js';

/**
 * A one-line description of an API failure with the fix, for the log line an operator author sees
 * first: missing CRD, RBAC, credentials, or an unreachable server.
 */
export function explainApiError(err: unknown, what: string): string {
  const message = err instanceof Error ? err.message : String(err);
  if (isNotFound(err)) {
    return `${what}: not found (${message}); install its CustomResourceDefinition (kubectl apply -f <crd>.yaml) or pass config.crd; retrying`;
  }
  if (isForbidden(err)) {
    return `${what}: forbidden by RBAC (${message}); grant this controller's ServiceAccount get, list, watch and patch on the kind; retrying`;
  }
  if (isUnauthorized(err)) {
    return `${what}: unauthorized (${message}); check the credentials in KUBECONFIG or the service account token; retrying`;
  }
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 0 || typeof code === 'string') {
    return `${what}: cannot reach the API server (${message}); check KUBECONFIG's server address and that the server runs; retrying`;
  }
  return `${what}: ${message}; retrying`;
}
