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

/** What a failing list or watch was for: the kind, its plural when known, and its namespace (none: all). */
export interface ListTarget {
  apiVersion: string;
  kind: string;
  plural?: string | undefined;
  namespace?: string | undefined;
}

/**
 * One line naming what a failed list/watch of `target` means and what to fix, as a person reading the log
 * or `/readyz` needs it: the kind, the scope, the status code and the action — e.g. `Greeting
 * (example.com/v1) in namespace team-a: 403 Forbidden: RBAC forbids list and watch of greetings.example.com
 * in namespace team-a: grant the verbs list and watch on resource "greetings" of API group "example.com" (a
 * Role in team-a or a ClusterRole; reconcilekit generate rbac writes it) (server: …)`.
 */
export function explainListFailure(err: unknown, target: ListTarget): string {
  const slash = target.apiVersion.lastIndexOf('/');
  const group = slash < 0 ? '' : target.apiVersion.slice(0, slash);
  const scope = target.namespace === undefined ? 'in all namespaces' : `in namespace ${target.namespace}`;
  const what = `${target.kind} (${target.apiVersion}) ${scope}`;
  const resource = target.plural ?? `the plural of ${target.kind}`;
  const qualified =
    target.plural === undefined ? target.kind : group === '' ? target.plural : `${target.plural}.${group}`;
  const code = (err as { code?: unknown } | null)?.code;
  const reason = (err as { reason?: unknown } | null)?.reason;
  const server = serverMessage(err);
  const status =
    typeof code === 'number' && code > 0
      ? `${code} ${typeof reason === 'string' ? reason : ''}`.trim()
      : undefined;
  if (isForbidden(err)) {
    const where =
      target.namespace === undefined
        ? 'a ClusterRole with a ClusterRoleBinding, as the operator watches all namespaces'
        : `a Role in ${target.namespace} or a ClusterRole`;
    return `${what}: ${status ?? '403 Forbidden'}: RBAC forbids list and watch of ${qualified} ${scope === 'in all namespaces' ? 'at the cluster scope' : scope}: grant the verbs list and watch on resource "${resource}" of API group "${group}" to the operator's identity (${where}; reconcilekit generate rbac writes it) (server: ${server})`;
  }
  if (isUnauthorized(err)) {
    return `${what}: ${status ?? '401 Unauthorized'}: the API server rejected the credentials: check the user of KUBECONFIG's current context, or the service account token (server: ${server})`;
  }
  if (isNotFound(err)) {
    return `${what}: ${status ?? '404 NotFound'}: ${qualified} is not served: install its CustomResourceDefinition (kubectl apply -f <crd>.yaml) or fix apiVersion/kind (server: ${server})`;
  }
  if (code === 0 || typeof code === 'string') {
    return `${what}: the API server is unreachable (${server}): check KUBECONFIG's server address and that the server runs`;
  }
  if (typeof code === 'number' && code >= 500) {
    return `${what}: ${status ?? code}: the API server failed the request; it is retried (server: ${server})`;
  }
  return `${what}: ${status === undefined ? '' : `${status}: `}${server}`;
}

/** The server's own words: a Status message, else the error message. */
function serverMessage(err: unknown): string {
  const status = (err as { status?: { message?: unknown } } | null)?.status;
  if (typeof status?.message === 'string' && status.message !== '') return status.message;
  return err instanceof Error ? err.message : String(err);
}
