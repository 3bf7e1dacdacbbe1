import { DEBUG_PAGE_ENV } from '../debug/history-recorder.js';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../apiserver/index.js';
import { loadKubeConfig } from '../kube/kube-config.js';
import { ObjectClient } from '../kube/object-client.js';
import { installCrds } from '../testing/install-crds.js';
import { installDevCrds } from './dev-crds.js';
import { readManifests } from '../testing/manifests.js';
import type { CommandIo } from './apiserver-command.js';
import { isUsageError, UsageError } from './apiserver-command.js';
import { randomToken } from '../util/random-token.js';
import { unknownFlagMessage } from './suggest.js';
import { DEV_WEBHOOKS_ENV } from '../webhooks/webhook-host.js';

/** Where `reconcilekit dev` writes the embedded server's kubeconfig, relative to the working directory. */
export const DEV_KUBECONFIG_PATH = '.reconcilekit/kubeconfig';

const USAGE = `usage: reconcilekit dev <entry.js> [--crds FILE]... [--cluster [--replace-crds] | --embedded] [--port P]
                       [-- ARGS...]

Runs your operator's entry point (compiled JavaScript) the way it runs in production, for a local loop:
  - with KUBECONFIG set (or --cluster): against that cluster;
  - otherwise (or --embedded): against an embedded API server on 127.0.0.1, whose kubeconfig is written to
    ${DEV_KUBECONFIG_PATH}.
The CRDs of --crds (default deploy/crd.yaml when it exists) are installed first (on a cluster: a missing CRD
is created, one that already matches is kept, one that differs stops dev unless --replace-crds); then it prints the
kubectl command to try the operator. Ctrl-C stops the operator gracefully (SIGTERM), then the server. The live view (debugPage) is on: open
/debug/ on the operator's health server. On the embedded server an Operator's webhooks (option webhooks)
are served on 127.0.0.1 with a CA of their own and registered with it: no certificates or tunnels.
  --crds FILE   a YAML file of CustomResourceDefinitions (repeatable)
  --cluster     use KUBECONFIG / ~/.kube/config even when KUBECONFIG is unset
  --embedded    use an embedded API server even when KUBECONFIG is set
  --replace-crds  on a cluster, replace CRDs that differ from the files (they change for every user of the cluster)
  --port P      port of the embedded server (default 0: any free port)
  -- ARGS       passed to the entry point
`;

interface DevOptions {
  entry: string;
  crds: string[];
  mode: 'cluster' | 'embedded';
  replaceCrds: boolean;
  port: number;
  args: string[];
}

/** Parses the arguments of `reconcilekit dev`; a bad one is a {@link UsageError}. */
export function parseDevArgs(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): DevOptions | 'help' {
  let entry: string | undefined;
  const crds: string[] = [];
  let mode: DevOptions['mode'] = env.KUBECONFIG ? 'cluster' : 'embedded';
  let port = 0;
  let replaceCrds = false;
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') break;
    if (arg === '--help' || arg === '-h') return 'help';
    if (arg === '--cluster' || arg === '--embedded') {
      mode = arg === '--cluster' ? 'cluster' : 'embedded';
      continue;
    }
    if (arg === '--replace-crds') {
      replaceCrds = true;
      continue;
    }
    if (!arg.startsWith('--')) {
      if (entry !== undefined) throw new UsageError(`one entry point only, got "${entry}" and "${arg}"`);
      entry = arg;
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || value === '') throw new UsageError(`${flag} needs a value`);
    if (flag === '--crds') crds.push(resolve(cwd, value));
    else if (flag === '--port') {
      port = Number(value);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new UsageError(`--port must be 0..65535, got "${value}"`);
    } else
      throw new UsageError(
        unknownFlagMessage(flag, ['--help', '--cluster', '--embedded', '--replace-crds', '--crds', '--port']),
      );
  }
  if (entry === undefined) throw new UsageError('which entry point? e.g. reconcilekit dev dist/src/main.js');
  const absolute = resolve(cwd, entry);
  if (!existsSync(absolute)) {
    throw new UsageError(
      `entry point ${entry} does not exist: build first (npm run build), or check the path`,
    );
  }
  if (crds.length === 0 && existsSync(join(cwd, 'deploy/crd.yaml'))) crds.push(join(cwd, 'deploy/crd.yaml'));
  for (const crd of crds) {
    if (!existsSync(crd)) throw new UsageError(`--crds ${relative(cwd, crd)} does not exist`);
  }
  if (replaceCrds && mode === 'embedded') {
    throw new UsageError(
      '--replace-crds is for a cluster (KUBECONFIG or --cluster): the embedded server starts empty',
    );
  }
  return { entry: absolute, crds, mode, replaceCrds, port, args: args.slice(i + 1) };
}

/** `kubectl get <plural>` of the first CRD, as a hint of what to try. */
function kubectlHint(crds: readonly KubernetesObject[], kubeconfig: string | undefined): string {
  const spec = (crds[0] as { spec?: { names?: { plural?: string } } } | undefined)?.spec;
  const what = spec?.names?.plural ?? 'all';
  const flag = kubeconfig === undefined ? '' : ` --kubeconfig ${kubeconfig}`;
  return `kubectl${flag} get ${what} -A`;
}

/**
 * `reconcilekit dev`: starts an embedded API server (or uses KUBECONFIG's cluster), installs the project's
 * CRDs, prints the kubectl command, runs the entry point with KUBECONFIG set, and forwards Ctrl-C to it.
 * Returns the entry point's exit code.
 */
export async function runDevCommand(args: readonly string[], io: CommandIo): Promise<number> {
  let options: DevOptions | 'help';
  try {
    options = parseDevArgs(args);
  } catch (e) {
    if (!isUsageError(e)) throw e;
    io.stderr(`reconcilekit dev: ${e.message}\n`);
    return 2;
  }
  if (options === 'help') {
    io.stdout(USAGE);
    return 0;
  }
  let server: ApiServer | undefined;
  // The live view (/debug/ on the health server) is on by default in dev; `debugPage: false` still wins.
  const childEnv: NodeJS.ProcessEnv = { [DEBUG_PAGE_ENV]: '1', ...process.env };
  let kubeconfigPath: string | undefined;
  try {
    let kubeConfig: KubeConfig;
    if (options.mode === 'cluster') {
      kubeConfig = loadKubeConfig();
      io.stdout(
        `cluster ${kubeConfig.getCurrentCluster()?.server ?? '?'} (context ${kubeConfig.getCurrentContext()})\n`,
      );
    } else {
      // Only holders of the written kubeconfig (0600) reach it: other local users and processes get 401.
      // Over TLS, because kubectl (client-go) sends a kubeconfig's token only over HTTPS.
      server = await startApiServer({
        host: '127.0.0.1',
        port: options.port,
        token: randomToken(),
        tls: true,
      });
      mkdirSync('.reconcilekit', { recursive: true });
      kubeconfigPath = DEV_KUBECONFIG_PATH;
      server.writeKubeconfig(kubeconfigPath);
      childEnv.KUBECONFIG = resolve(kubeconfigPath);
      // An Operator with \`webhooks\` serves them on loopback and registers them with this server.
      childEnv[DEV_WEBHOOKS_ENV] = '1';
      kubeConfig = new KubeConfig();
      kubeConfig.loadFromString(server.kubeconfig);
      io.stdout(`embedded API server on ${server.url} (kubeconfig: ${kubeconfigPath})\n`);
    }
    const crds: KubernetesObject[] = [];
    const files = new Map<KubernetesObject, string>();
    for (const file of options.crds) {
      for (const crd of await readManifests(file)) {
        crds.push(crd);
        files.set(crd, relative(process.cwd(), file));
      }
    }
    if (crds.length > 0) {
      const client = new ObjectClient({ kubeConfig });
      try {
        if (options.mode === 'cluster') {
          const outcomes = await installDevCrds(client, crds, {
            replace: options.replaceCrds,
            source: (crd) => files.get(crd) ?? 'its file',
            signal: io.stopSignal,
          });
          io.stdout(`CRDs: ${outcomes.map((o) => `${o.name} ${o.action}`).join(', ')}\n`);
        } else {
          await installCrds(client, crds, { signal: io.stopSignal });
          io.stdout(`installed ${crds.map((c) => c.metadata?.name ?? '?').join(', ')}\n`);
        }
      } finally {
        client.close();
      }
    }
    io.stdout(`try: ${kubectlHint(crds, kubeconfigPath)}\n\n`);
  } catch (e) {
    await server?.close();
    io.stderr(`reconcilekit dev: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  const child = spawn(process.execPath, [options.entry, ...options.args], {
    env: childEnv,
    stdio: 'inherit',
  });
  const forward = (): void => {
    child.kill('SIGTERM');
  };
  io.stopSignal.addEventListener('abort', forward);
  const code = await new Promise<number>((done) => {
    child.on('exit', (exitCode, signal) => {
      done(exitCode ?? (signal === null ? 1 : 128 + 15));
    });
    child.on('error', (err) => {
      io.stderr(`reconcilekit dev: cannot run ${options.entry}: ${err.message}\n`);
      done(1);
    });
  });
  io.stopSignal.removeEventListener('abort', forward);
  await server?.close();
  return code;
}
