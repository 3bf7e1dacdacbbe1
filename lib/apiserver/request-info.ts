/** Verbs of the Kubernetes API, derived from method and path as kube-apiserver's request-info parser does. */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** What a resource request addresses. */
export interface ResourceRequest {
  verb: Verb;
  /** '' for the core group. */
  group: string;
  version: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
}

/** The result of parsing a path: a resource request, or undefined for non-resource paths. */
export function parseResourceRequest(
  method: string,
  path: string,
  query: URLSearchParams,
): ResourceRequest | undefined {
  const parts = path.split('/').filter((p) => p !== '');
  let rest: string[];
  let group: string;
  let version: string;
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    version = parts[1] ?? '';
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1] ?? '';
    version = parts[2] ?? '';
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  let watchPrefix = false;
  if (rest[0] === 'watch') {
    watchPrefix = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    namespace = rest[1];
    if (rest.length >= 3 && rest[2] !== 'status' && rest[2] !== 'finalize') {
      rest = rest.slice(2);
    } else {
      // The Namespace object itself (or its status/finalize subresource).
      rest = ['namespaces', ...rest.slice(1)];
      namespace = undefined;
    }
  }
  if (rest.length === 0 || rest.length > 3) return undefined;
  const [resource, name, subresource] = rest;
  if (resource === undefined || resource === '') return undefined;
  const info: ResourceRequest = { verb: 'get', group, version, resource };
  if (namespace !== undefined) info.namespace = namespace;
  if (name !== undefined) info.name = name;
  if (subresource !== undefined) info.subresource = subresource;
  info.verb = verbOf(method, name !== undefined, watchPrefix || isWatchParam(query.get('watch')));
  return info;
}

function isWatchParam(value: string | null): boolean {
  return value !== null && value !== 'false' && value !== '0';
}

function verbOf(method: string, named: boolean, watch: boolean): Verb {
  switch (method) {
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    default:
      if (watch) return 'watch';
      return named ? 'get' : 'list';
  }
}
