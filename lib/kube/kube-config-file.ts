import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { Cluster, Context, User } from '@kubernetes/client-node';
import { load } from 'js-yaml';
import { KubeConfigLoadError } from './kube-config-load-error.js';
import type { KubeconfigUserExtras } from './kubeconfig-extras.js';

/** One kubeconfig file's entries, in client-node's shapes, with paths made absolute. */
export interface KubeconfigParts {
  clusters: Cluster[];
  users: User[];
  contexts: Context[];
  /** Empty when the file sets none. */
  currentContext: string;
  /** The user fields client-node drops, by user name. */
  extras: Map<string, KubeconfigUserExtras>;
}

type Entry = Record<string, unknown>;

/** A field of the kubeconfig that is wrong; the loader turns it into a KubeConfigLoadError. */
class InvalidEntry extends Error {}

function isRecord(value: unknown): value is Entry {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;

/** `list[i].<key>`, which must be a mapping: client-node's checks and messages. */
function named(list: string, i: number, entry: unknown, key: string): { name: string; body: Entry } {
  const e = isRecord(entry) ? entry : {};
  const name = text(e.name);
  if (name === undefined) throw new InvalidEntry(`${list}[${i}].name is missing`);
  const body = e[key];
  if (key !== 'user' && !isRecord(body)) throw new InvalidEntry(`${list}[${i}].${key} is missing`);
  return { name, body: isRecord(body) ? body : {} };
}

function absolute(baseDir: string, path: string | undefined): string | undefined {
  return path === undefined || isAbsolute(path) ? path : resolve(baseDir, path);
}

function parseCluster(entry: unknown, i: number, baseDir: string): Cluster {
  const { name, body: c } = named('clusters', i, entry, 'cluster');
  const server = text(c.server);
  if (server === undefined) throw new InvalidEntry(`clusters[${i}].cluster.server is missing`);
  const caFile = absolute(baseDir, text(c['certificate-authority']));
  const caData = text(c['certificate-authority-data']);
  const tlsServerName = text(c['tls-server-name']);
  const proxyUrl = text(c['proxy-url']);
  return {
    name,
    server: server.replace(/\/$/, ''),
    skipTLSVerify: c['insecure-skip-tls-verify'] === true,
    ...(caFile !== undefined ? { caFile } : {}),
    ...(caData !== undefined ? { caData } : {}),
    ...(tlsServerName !== undefined ? { tlsServerName } : {}),
    ...(proxyUrl !== undefined ? { proxyUrl } : {}),
  };
}

function parseUser(entry: unknown, i: number, baseDir: string): { user: User; extras: KubeconfigUserExtras } {
  const { name, body: u } = named('users', i, entry, 'user');
  const fields: Record<string, unknown> = {
    certData: text(u['client-certificate-data']),
    certFile: absolute(baseDir, text(u['client-certificate'])),
    keyData: text(u['client-key-data']),
    keyFile: absolute(baseDir, text(u['client-key'])),
    token: text(u.token),
    username: text(u.username),
    password: typeof u.password === 'string' ? u.password : undefined,
    impersonateUser: text(u.as),
    exec: isRecord(u.exec) ? u.exec : undefined,
    authProvider: isRecord(u['auth-provider']) ? u['auth-provider'] : undefined,
  };
  const user = { name } as Record<string, unknown>;
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) user[key] = value;
  const extras: KubeconfigUserExtras = {};
  const tokenFile = absolute(baseDir, text(u['token-file']));
  if (tokenFile !== undefined) extras.tokenFile = tokenFile;
  const groups = strings(u['as-groups']);
  if (groups !== undefined) extras.asGroups = groups;
  if (typeof u['as-uid'] === 'string') extras.asUid = u['as-uid'];
  const extra = u['as-user-extra'];
  if (isRecord(extra)) {
    extras.asUserExtra = {};
    for (const [key, values] of Object.entries(extra)) extras.asUserExtra[key] = strings(values) ?? [];
  }
  return { user: user as unknown as User, extras };
}

function parseContext(entry: unknown, i: number): Context {
  const { name, body: c } = named('contexts', i, entry, 'context');
  const cluster = text(c.cluster);
  if (cluster === undefined) throw new InvalidEntry(`contexts[${i}].context.cluster is missing`);
  const user = text(c.user);
  const namespace = text(c.namespace);
  return {
    name,
    cluster,
    ...(user !== undefined ? { user } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
  } as Context;
}

/**
 * Parses kubeconfig YAML as client-node does (the same fields, the same checks), keeping the user fields
 * client-node drops; relative certificate, key and token-file paths resolve against `baseDir`. Throws
 * {@link KubeConfigLoadError} naming `file` and the problem.
 */
export function parseKubeconfig(
  yaml: string,
  file: string,
  source: string,
  baseDir = dirname(file),
): KubeconfigParts {
  let doc: unknown;
  try {
    doc = load(yaml);
  } catch (e) {
    const first = (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '';
    throw new KubeConfigLoadError(file, `is not valid YAML: ${first}`, source, { cause: e });
  }
  if (!isRecord(doc)) throw new KubeConfigLoadError(file, 'is not a valid kubeconfig: not a mapping', source);
  const list = (key: string): unknown[] => (Array.isArray(doc[key]) ? doc[key] : []);
  try {
    const extras = new Map<string, KubeconfigUserExtras>();
    const users = list('users').map((entry, i) => {
      const parsed = parseUser(entry, i, baseDir);
      if (!extras.has(parsed.user.name)) extras.set(parsed.user.name, parsed.extras);
      return parsed.user;
    });
    return {
      clusters: list('clusters').map((entry, i) => parseCluster(entry, i, baseDir)),
      users,
      contexts: list('contexts').map((entry, i) => parseContext(entry, i)),
      currentContext: text(doc['current-context']) ?? '',
      extras,
    };
  } catch (e) {
    if (!(e instanceof InvalidEntry)) throw e;
    throw new KubeConfigLoadError(file, `is not a valid kubeconfig: ${e.message}`, source, { cause: e });
  }
}

/**
 * Reads and parses one kubeconfig file ({@link parseKubeconfig}), turning a missing, unreadable or empty
 * file into a {@link KubeConfigLoadError} naming the file and the problem.
 */
export function readKubeConfigFile(file: string, source: string): KubeconfigParts {
  let yaml: string;
  try {
    yaml = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const problem =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES'
          ? 'is not readable (permission denied)'
          : (e as Error).message;
    throw new KubeConfigLoadError(file, problem, source, { cause: e });
  }
  if (yaml.trim() === '') throw new KubeConfigLoadError(file, 'is empty', source);
  return parseKubeconfig(yaml, file, source);
}
