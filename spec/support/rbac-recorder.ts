// What RBAC a process needs, measured: a recording HTTP proxy in front of an API server notes the RBAC
// attributes (group, resource, verb, namespace) of every request, and `checkRbac` compares them with the
// rules of an rbac.yaml — requests the rules deny, and granted verbs never used.
import { createServer, request, type Server } from 'node:http';
import type { KubernetesObject } from '@kubernetes/client-node';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}
export interface Access {
  group: string;
  resource: string;
  verb: string;
  namespace: string | undefined;
}

/** Maps a request to the RBAC attributes kube-apiserver would check; undefined for discovery. */
export function accessOf(method: string, url: string): Access | undefined {
  const { pathname, searchParams } = new URL(url, 'http://x');
  const parts = pathname.split('/').filter((p) => p !== '');
  let group: string;
  let rest: string[];
  if (parts[0] === 'api') [group, rest] = ['', parts.slice(2)];
  else if (parts[0] === 'apis') [group, rest] = [parts[1] ?? '', parts.slice(3)];
  else return undefined;
  if (rest.length === 0) return undefined; // discovery
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) [namespace, rest] = [rest[1], rest.slice(2)];
  const [resource = '', name, subresource] = rest;
  const watch = searchParams.get('watch') === 'true' || searchParams.get('watch') === '1';
  const verb =
    method === 'GET'
      ? name !== undefined
        ? 'get'
        : watch
          ? 'watch'
          : 'list'
      : ({
          POST: 'create',
          PUT: 'update',
          PATCH: 'patch',
          DELETE: name === undefined ? 'deletecollection' : 'delete',
        }[method] ?? method);
  return {
    group,
    resource: subresource === undefined ? resource : `${resource}/${subresource}`,
    verb,
    namespace,
  };
}

/** A proxy on 127.0.0.1 forwarding to `upstream`, recording each request's {@link Access} in `seen`. */
export async function startRecordingProxy(
  upstream: URL,
): Promise<{ url: string; seen: Access[]; close: () => Promise<void> }> {
  const seen: Access[] = [];
  const proxy: Server = createServer((req, res) => {
    const access = accessOf(req.method ?? 'GET', req.url ?? '/');
    if (access !== undefined) seen.push(access);
    const forward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders(); // watches: clients wait for the headers before the first event
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    seen,
    close: async () => {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}

/**
 * Compares recorded requests with the ClusterRole and (in its own namespace) Role rules of `rbac`:
 * `denied` lists requests no rule allows, `unused` granted verbs that were never requested and are not in
 * `notExercised` (keys like `core/events:patch`).
 */
export function checkRbac(
  rbac: readonly KubernetesObject[],
  seen: readonly Access[],
  notExercised: ReadonlyMap<string, string> = new Map(),
): { denied: string[]; unused: string[] } {
  const rulesOf = (kind: string) =>
    rbac.filter((o) => o.kind === kind).flatMap((o) => (o as KubernetesObject & { rules: Rule[] }).rules);
  const roleNamespace = rbac.find((o) => o.kind === 'Role')?.metadata?.namespace;
  const grants = (rule: Rule, a: Access) =>
    rule.apiGroups.includes(a.group) && rule.resources.includes(a.resource) && rule.verbs.includes(a.verb);
  const allowed = (a: Access) =>
    rulesOf('ClusterRole').some((r) => grants(r, a)) ||
    (a.namespace === roleNamespace && rulesOf('Role').some((r) => grants(r, a)));
  const key = (group: string, resource: string, verb: string) =>
    `${group === '' ? 'core' : group}/${resource}:${verb}`;
  const denied = [
    ...new Set(
      seen
        .filter((a) => !allowed(a))
        .map((a) => `${key(a.group, a.resource, a.verb)} in ${a.namespace ?? 'cluster'}`),
    ),
  ];
  const used = new Set(seen.map((a) => key(a.group, a.resource, a.verb)));
  // A watch uses list too: a watcher's initial list is a LIST on a server without watch-list.
  for (const a of seen) if (a.verb === 'watch') used.add(key(a.group, a.resource, 'list'));
  const granted = [...rulesOf('ClusterRole'), ...rulesOf('Role')].flatMap((r) =>
    r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => key(g, res, v)))),
  );
  const unused = [...new Set(granted.filter((g) => !used.has(g) && !notExercised.has(g)))];
  return { denied, unused };
}
