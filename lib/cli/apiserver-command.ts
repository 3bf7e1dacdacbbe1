import { readFileSync } from 'node:fs';
import { isLoopbackHost, startApiServer, type ApiServerOptions } from '../apiserver/index.js';
import { unknownFlagMessage } from './suggest.js';

/** Output streams and process hooks of a command; injected so tests can drive it. */
export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Resolves when the command should stop (SIGINT/SIGTERM in the real CLI). */
  stopSignal: AbortSignal;
}

/** The CLI port default: 6443, kube-apiserver's usual port (0 = any free port). */
export const DEFAULT_CLI_PORT = 6443;

/** Environment variable holding the bearer token (keeps it out of `ps`, unlike `--token`). */
export const TOKEN_ENV = 'RECONCILEKIT_APISERVER_TOKEN';

const USAGE = `usage: reconcilekit apiserver [--host H] [--port P] [--token-file PATH] [--tls [--client-certificates]]
                              [--kubeconfig PATH] [--data FILE] [--namespace-defaults] [--deployment-status]
                              [--insecure]

Runs the embedded Kubernetes-compatible API server until SIGINT/SIGTERM.
  --host H          interface to bind (default 127.0.0.1); a non-loopback one needs a token or
                    client certificates, or --insecure
  --port P          port (default ${DEFAULT_CLI_PORT}; 0 = any free port)
  --token-file PATH require "Authorization: Bearer <first line of PATH>" (or set ${TOKEN_ENV});
                    implies --tls: kubectl (client-go) sends a kubeconfig's token only over HTTPS
  --token T         the same with the token inline (visible to other users in ps: prefer the above)
  --tls             serve HTTPS with a CA and certificate generated at start (the kubeconfig trusts the CA)
  --client-certificates
                    (implies --tls) accept client certificates of that CA; the kubeconfig gets an admin one
  --kubeconfig PATH write a kubeconfig for kubectl and client-node
  --data FILE       persist objects in FILE, mode 0600 (fsynced log + snapshot: acknowledged
                    writes survive a restart, even a SIGKILL)
  --namespace-defaults
                    a "default" ServiceAccount and a "kube-root-ca.crt" ConfigMap in every namespace,
                    as kube-controller-manager keeps them
  --deployment-status
                    write Deployments' status (observedGeneration, Available) as the deployment
                    controller would with no Pods running: kubectl rollout status finishes at 0 replicas
  --insecure        allow a non-loopback --host without authentication: anyone who reaches it may
                    read and write everything (a warning is printed)
`;

/** Thrown for bad command-line arguments (exit code 2). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function isUsageError(e: unknown): e is UsageError {
  return e instanceof UsageError;
}

interface ParsedArgs {
  options: ApiServerOptions;
  kubeconfig?: string;
  help: boolean;
}

/** Parses `--flag value` and `--flag=value` arguments of the apiserver command. */
export function parseApiServerArgs(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): ParsedArgs {
  const parsed: ParsedArgs = { options: { port: DEFAULT_CLI_PORT }, help: false };
  const fromEnv = env[TOKEN_ENV];
  if (fromEnv !== undefined) {
    // Fail closed: an empty variable is a token that went missing, not a wish for an open server.
    if (fromEnv.trim() === '') {
      throw new UsageError(
        `${TOKEN_ENV} is set but empty: set it to the token, or unset it for a server without authentication`,
      );
    }
    parsed.options.token = fromEnv;
  }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--help' || arg === '-h') {
      parsed.help = true;
      continue;
    }
    if (arg === '--tls' || arg === '--client-certificates') {
      const current = typeof parsed.options.tls === 'object' ? parsed.options.tls : {};
      parsed.options.tls = arg === '--tls' ? current : { ...current, clientCertificates: true };
      continue;
    }
    if (arg === '--namespace-defaults') {
      parsed.options.namespaceDefaults = true;
      continue;
    }
    if (arg === '--deployment-status') {
      parsed.options.deploymentStatus = true;
      continue;
    }
    if (arg === '--insecure') {
      parsed.options.insecure = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined) throw new UsageError(`${flag} needs a value`);
    switch (flag) {
      case '--host':
        parsed.options.host = value;
        break;
      case '--port': {
        const port = Number(value);
        if (!Number.isInteger(port) || port < 0 || port > 65535)
          throw new UsageError(`--port must be 0..65535, got "${value}"`);
        parsed.options.port = port;
        break;
      }
      case '--token':
        if (value.trim() === '')
          throw new UsageError('--token is empty: give the token, or leave the flag out');
        parsed.options.token = value;
        break;
      case '--token-file': {
        let text: string;
        try {
          text = readFileSync(value, 'utf8');
        } catch (e) {
          throw new UsageError(`--token-file ${value}: ${e instanceof Error ? e.message : String(e)}`);
        }
        const token = text.split(/\r?\n/)[0]?.trim() ?? '';
        if (token === '') throw new UsageError(`--token-file ${value}: the first line is empty`);
        parsed.options.token = token;
        break;
      }
      case '--kubeconfig':
        parsed.kubeconfig = value;
        break;
      case '--data':
        parsed.options.dataFile = value;
        break;
      default:
        throw new UsageError(
          unknownFlagMessage(flag, [
            '--help',
            '--tls',
            '--client-certificates',
            '--namespace-defaults',
            '--deployment-status',
            '--host',
            '--port',
            '--token',
            '--token-file',
            '--kubeconfig',
            '--data',
            '--insecure',
          ]),
        );
    }
  }
  // Over plain http client-go never sends the kubeconfig's bearer token, so every kubectl call would be
  // 401: token mode serves HTTPS, and the kubeconfig carries the token and the CA.
  if (parsed.options.token !== undefined && parsed.options.tls === undefined) parsed.options.tls = {};
  if (!authenticated(parsed.options) && !isLoopbackHost(parsed.options.host ?? '127.0.0.1')) {
    if (parsed.options.insecure !== true) {
      throw new UsageError(
        `--host ${parsed.options.host ?? ''} is not loopback and no authentication is set: anyone reaching ` +
          'it could read and write everything. Add --token-file (or --client-certificates), or --insecure',
      );
    }
  } else delete parsed.options.insecure; // nothing insecure to allow
  return parsed;
}

function authenticated(options: ApiServerOptions): boolean {
  const tls = typeof options.tls === 'object' ? options.tls : undefined;
  return options.token !== undefined || tls?.clientCertificates === true;
}

/** `reconcilekit apiserver`: starts the server, prints `listening on <url>`, runs until stopped. */
export async function runApiServerCommand(args: readonly string[], io: CommandIo): Promise<number> {
  let parsed: ParsedArgs;
  try {
    parsed = parseApiServerArgs(args);
  } catch (e) {
    if (!isUsageError(e)) throw e;
    io.stderr(`reconcilekit apiserver: ${e.message}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.help) {
    io.stdout(USAGE);
    return 0;
  }
  let server: Awaited<ReturnType<typeof startApiServer>>;
  try {
    server = await startApiServer(parsed.options);
  } catch (e) {
    io.stderr(`reconcilekit apiserver: cannot start: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  if (parsed.kubeconfig !== undefined) server.writeKubeconfig(parsed.kubeconfig);
  if (parsed.options.insecure === true) {
    io.stderr(
      `reconcilekit apiserver: WARNING: ${server.url} has no authentication (--insecure): anyone who reaches ` +
        'it may read and write everything\n',
    );
  }
  io.stdout(`listening on ${server.url}\n`);
  if (parsed.kubeconfig !== undefined) io.stdout(`kubeconfig written to ${parsed.kubeconfig}\n`);
  await new Promise<void>((resolve) => {
    if (io.stopSignal.aborted) resolve();
    io.stopSignal.addEventListener('abort', () => {
      resolve();
    });
  });
  await server.close();
  return 0;
}
