import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type https from 'node:https';
import type { OutgoingHttpHeaders } from 'node:http';
import type { KubeConfig, User } from '@kubernetes/client-node';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { kubeconfigUserExtras, type KubeconfigUserExtras } from './kubeconfig-extras.js';
import { asClientNode, type LoadedKubeConfig } from './loaded-kube-config.js';

/** How long a `token-file` token is used before the file is read again (client-go: 1 minute). */
export const DEFAULT_TOKEN_FILE_REFRESH_MS = 60_000;
/** An exec credential is renewed this long before its `expirationTimestamp`. */
export const DEFAULT_EXEC_EXPIRY_SKEW_MS = 10_000;

/** The credential of one request: headers plus, for client-certificate auth, the TLS material. */
export interface Credential {
  readonly headers: OutgoingHttpHeaders;
  readonly cert?: string | Buffer;
  readonly key?: string | Buffer;
}

interface ExecCredentialStatus {
  token?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  expirationTimestamp?: string;
}

interface Cached<T> {
  value: T;
  /** ms epoch after which it is fetched again; Infinity = only after a 401. */
  until: number;
}

/**
 * The kubeconfig user's credential, kept current: a `token-file` re-read every minute and after a 401
 * (rotation), an exec plugin run once and again when its `expirationTimestamp` passes — or, with none,
 * only after a 401 — whether it returns a token or a client certificate, OIDC and other auth providers
 * through client-node (loaded only for them), and impersonation with user, groups, uid and extra. Nothing is read synchronously
 * per request: the CA and static client certificate are the transport's, read once.
 */
export class KubeCredentials {
  private readonly kc: KubeConfig | LoadedKubeConfig;
  private readonly user: User | null;
  private readonly extras: KubeconfigUserExtras;
  private readonly tokenFile: string | undefined;
  private token: Cached<string> | undefined;
  private exec: Cached<ExecCredentialStatus> | undefined;
  private pending: Promise<Credential> | undefined;
  private readonly impersonation: OutgoingHttpHeaders;

  constructor(kc: KubeConfig | LoadedKubeConfig) {
    this.kc = kc;
    this.user = kc.getCurrentUser();
    this.extras = kubeconfigUserExtras(kc, this.user?.name);
    const provider = this.user?.authProvider as { config?: Record<string, unknown> } | undefined;
    const providerFile = provider?.config?.tokenFile;
    this.tokenFile = this.extras.tokenFile ?? (typeof providerFile === 'string' ? providerFile : undefined);
    this.impersonation = impersonationHeaders(this.user, this.extras);
  }

  /** Whether the credential can change at run time (else it is computed once). */
  get dynamic(): boolean {
    return this.tokenFile !== undefined || this.user?.exec != null || this.user?.authProvider != null;
  }

  /** The credential to send now (shared by concurrent callers while it is being fetched). */
  current(): Promise<Credential> {
    if (this.pending !== undefined) return this.pending;
    const p = this.build();
    this.pending = p;
    const clear = (): void => {
      if (this.pending === p) this.pending = undefined;
    };
    p.then(clear, clear);
    return p;
  }

  /**
   * After a 401: forget what may have been rotated (token-file contents, the exec credential) so the next
   * {@link current} fetches again. Returns whether anything was forgotten (worth one retry).
   */
  invalidate(): boolean {
    const had = this.token !== undefined || this.exec !== undefined;
    this.token = undefined;
    this.exec = undefined;
    return had;
  }

  private async build(): Promise<Credential> {
    const headers: OutgoingHttpHeaders = { ...this.impersonation };
    const user = this.user;
    let cert: string | undefined;
    let key: string | undefined;
    if (user?.exec != null) {
      const status = await this.execCredential();
      if (status.token !== undefined) headers.Authorization = `Bearer ${status.token}`;
      if (status.clientCertificateData !== undefined && status.clientKeyData !== undefined) {
        cert = status.clientCertificateData;
        key = status.clientKeyData;
      }
    } else if (this.tokenFile !== undefined) {
      headers.Authorization = `Bearer ${await this.fileToken(this.tokenFile)}`;
    } else if (user?.authProvider != null) {
      // OIDC, azure, gcp: client-node's providers refresh the token themselves.
      const opts: https.RequestOptions = { headers: {} };
      await asClientNode(this.kc).applyToHTTPSOptions(opts);
      const auth = (opts.headers as OutgoingHttpHeaders | undefined)?.Authorization;
      if (auth !== undefined) headers.Authorization = auth;
    } else if (user?.token != null && user.token !== '') {
      headers.Authorization = `Bearer ${user.token}`;
    } else if (user?.username != null && user.username !== '') {
      headers.Authorization = `Basic ${Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64')}`;
    }
    return { headers, ...(cert !== undefined ? { cert } : {}), ...(key !== undefined ? { key } : {}) };
  }

  private async fileToken(path: string): Promise<string> {
    if (this.token !== undefined && this.token.until > Date.now()) return this.token.value;
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      throw new InvalidConfigError(`cannot read the kubeconfig token file ${path}: ${String(e)}`, {
        cause: e,
      });
    }
    this.token = { value: text.trim(), until: Date.now() + DEFAULT_TOKEN_FILE_REFRESH_MS };
    return this.token.value;
  }

  private async execCredential(): Promise<ExecCredentialStatus> {
    if (this.exec !== undefined && this.exec.until > Date.now()) return this.exec.value;
    const status = await runExecPlugin(this.user?.exec as ExecConfig);
    const expiry = status.expirationTimestamp === undefined ? NaN : Date.parse(status.expirationTimestamp);
    this.exec = {
      value: status,
      until: Number.isNaN(expiry) ? Infinity : expiry - DEFAULT_EXEC_EXPIRY_SKEW_MS,
    };
    return status;
  }
}

interface ExecConfig {
  command?: string;
  args?: string[] | null;
  env?: { name: string; value: string }[] | null;
  apiVersion?: string;
}

/** Runs a client-go credential plugin and returns its ExecCredential status. */
export function runExecPlugin(exec: ExecConfig): Promise<ExecCredentialStatus> {
  if (exec.command === undefined || exec.command === '') {
    return Promise.reject(new InvalidConfigError('kubeconfig user.exec needs a command'));
  }
  const command = exec.command;
  const apiVersion = exec.apiVersion ?? 'client.authentication.k8s.io/v1';
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    KUBERNETES_EXEC_INFO: JSON.stringify({
      apiVersion,
      kind: 'ExecCredential',
      spec: { interactive: false },
    }),
  };
  for (const { name, value } of exec.env ?? []) env[name] = value;
  return new Promise((resolve, reject) => {
    const child = spawn(command, exec.args ?? [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', (e) => {
      reject(
        new InvalidConfigError(`kubeconfig exec plugin ${command} could not run: ${e.message}`, { cause: e }),
      );
    });
    child.on('close', (code) => {
      if (code !== 0) {
        reject(
          new InvalidConfigError(`kubeconfig exec plugin ${command} exited ${String(code)}: ${err.trim()}`),
        );
        return;
      }
      try {
        const parsed = JSON.parse(out) as { status?: ExecCredentialStatus };
        if (parsed.status === undefined) throw new Error('no status');
        resolve(parsed.status);
      } catch (e) {
        reject(
          new InvalidConfigError(
            `kubeconfig exec plugin ${command} printed no ExecCredential with a status`,
            {
              cause: e,
            },
          ),
        );
      }
    });
  });
}

/** Impersonate-* headers of the user (`as`, `as-groups`, `as-uid`, `as-user-extra`). */
function impersonationHeaders(user: User | null, extras: KubeconfigUserExtras): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  if (user?.impersonateUser != null && user.impersonateUser !== '') {
    headers['Impersonate-User'] = user.impersonateUser;
  }
  if (extras.asGroups !== undefined && extras.asGroups.length > 0)
    headers['Impersonate-Group'] = extras.asGroups;
  if (extras.asUid !== undefined) headers['Impersonate-Uid'] = extras.asUid;
  for (const [key, values] of Object.entries(extras.asUserExtra ?? {})) {
    // Header names cannot hold every character of an extra key: percent-encode, as client-go does.
    headers[`Impersonate-Extra-${encodeURIComponent(key)}`] = values;
  }
  return headers;
}
