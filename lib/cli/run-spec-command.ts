import { existsSync, mkdirSync } from 'node:fs';
import { basename, extname, relative, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../apiserver/index.js';
import { OperatorGroup } from '../declarative/operator-group.js';
import { isDeclarativeSpecError } from '../declarative/declarative-spec-error.js';
import { loadKubeConfig } from '../kube/kube-config.js';
import { sleep } from '../util/sleep.js';
import type { CommandIo } from './apiserver-command.js';
import { isUsageError, UsageError } from './apiserver-command.js';
import { randomToken } from '../util/random-token.js';
import { unknownFlagMessage } from './suggest.js';

/** Where `reconcilekit run-spec` writes the view server's kubeconfig, relative to the working directory. */
export const VIEWS_KUBECONFIG_PATH = '.reconcilekit/views.kubeconfig';

/** How often controller statuses are checked for a change to print. */
const STATUS_POLL_MS = 250;

const USAGE = `usage: reconcilekit run-spec <operator.yaml>... [--kubeconfig FILE | --embedded] [--port P]

Runs declarative operators (docs/declarative.md) from YAML files until SIGINT/SIGTERM. Each file is one
operator, named after the file (views.yaml → operator "views", views in views.view.reconcilekit.io).
  - Kinds with an apiGroup are read and written in the cluster of --kubeconfig, else KUBECONFIG or
    ~/.kube/config; with none of them (or --embedded) the embedded view server serves every kind.
  - View objects live in an embedded API server on 127.0.0.1; its kubeconfig is written to
    ${VIEWS_KUBECONFIG_PATH}, so kubectl works on them.
Prints each controller's status whenever it changes. A bad controller does not stop the others: its
status says what is wrong and where.
  --kubeconfig FILE  the cluster of non-view kinds
  --embedded         no cluster: the embedded server serves every kind (even when KUBECONFIG is set)
  --port P           port of the embedded server (default 0: any free port)
`;

interface RunSpecOptions {
  files: string[];
  kubeconfig: string | undefined;
  embedded: boolean;
  port: number;
}

/** Parses the arguments of `reconcilekit run-spec`; a bad one is a {@link UsageError}. */
export function parseRunSpecArgs(args: readonly string[], cwd = process.cwd()): RunSpecOptions | 'help' {
  const files: string[] = [];
  let kubeconfig: string | undefined;
  let embedded = false;
  let port = 0;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--help' || arg === '-h') return 'help';
    if (arg === '--embedded') {
      embedded = true;
      continue;
    }
    if (!arg.startsWith('--')) {
      files.push(resolve(cwd, arg));
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    if (flag !== '--kubeconfig' && flag !== '--port')
      throw new UsageError(unknownFlagMessage(flag, ['--help', '--embedded', '--kubeconfig', '--port']));
    const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || value === '') throw new UsageError(`${flag} needs a value`);
    if (flag === '--kubeconfig') kubeconfig = resolve(cwd, value);
    else {
      port = Number(value);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new UsageError(`--port must be 0..65535, got "${value}"`);
    }
  }
  if (files.length === 0) {
    throw new UsageError('which operator spec? e.g. reconcilekit run-spec operator.yaml');
  }
  if (kubeconfig !== undefined && embedded) {
    throw new UsageError('--kubeconfig and --embedded exclude each other: pick one');
  }
  for (const file of files) {
    if (!existsSync(file)) throw new UsageError(`${relative(cwd, file) || file} does not exist`);
  }
  if (kubeconfig !== undefined && !existsSync(kubeconfig)) {
    throw new UsageError(`--kubeconfig ${relative(cwd, kubeconfig) || kubeconfig} does not exist`);
  }
  const names = files.map(operatorName);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) {
    throw new UsageError(`two files give the operator name "${twice}": rename one (the name is the file's)`);
  }
  return { files, kubeconfig, embedded, port };
}

/**
 * The operator name of a spec file: its base name without extension, lower-cased, every character that a
 * DNS label cannot hold replaced by `-` (it becomes part of the view group `<name>.view.reconcilekit.io`).
 */
export function operatorName(file: string): string {
  const stem = basename(file, extname(file)).toLowerCase();
  const name = stem
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63);
  return name === '' ? 'operator' : name;
}

/** The cluster of non-view kinds, and how to describe it; undefined: the view server serves every kind. */
function clusterOf(options: RunSpecOptions): { kubeConfig: KubeConfig; what: string } | undefined {
  if (options.embedded) return undefined;
  if (options.kubeconfig !== undefined) {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(options.kubeconfig);
    return { kubeConfig, what: `--kubeconfig ${options.kubeconfig}` };
  }
  try {
    const kubeConfig = loadKubeConfig();
    return { kubeConfig, what: `context ${kubeConfig.getCurrentContext()}` };
  } catch {
    return undefined; // no kubeconfig anywhere: the embedded server alone, as documented
  }
}

/** One line per controller: `operator/controller Ready=True (Ready): message`, and the last error when not ready. */
function statusLines(group: OperatorGroup): string[] {
  const lines: string[] = [];
  for (const name of group.listOperators()) {
    const op = group.getOperator(name);
    if (op === undefined) continue;
    for (const c of op.getStatus(1).controllers) {
      const ready = c.conditions.find((x) => x.type === 'Ready');
      let line = `${name}/${c.name} Ready=${ready?.status ?? 'Unknown'} (${ready?.reason ?? '-'}): ${ready?.message ?? ''}`;
      const last = c.lastErrors?.at(-1);
      if (ready?.status !== 'True' && last !== undefined) line += ` — ${last}`;
      lines.push(line);
    }
  }
  return lines;
}

/**
 * `reconcilekit run-spec`: loads each YAML operator spec into one {@link OperatorGroup} sharing an embedded
 * view server, starts it, prints controller statuses as they change, and stops gracefully on the stop
 * signal. Exit code 0 after a graceful stop, 1 when a spec file cannot be loaded, 2 for bad arguments.
 */
export async function runRunSpecCommand(args: readonly string[], io: CommandIo): Promise<number> {
  let options: RunSpecOptions | 'help';
  try {
    options = parseRunSpecArgs(args);
  } catch (e) {
    if (!isUsageError(e)) throw e;
    io.stderr(`reconcilekit run-spec: ${e.message}\n`);
    return 2;
  }
  if (options === 'help') {
    io.stdout(USAGE);
    return 0;
  }
  let server: ApiServer | undefined;
  let group: OperatorGroup | undefined;
  try {
    // Only holders of the written kubeconfig (0600) reach the views and, with --embedded, the Secrets;
    // over TLS, because kubectl (client-go) sends a kubeconfig's token only over HTTPS.
    server = await startApiServer({ host: '127.0.0.1', port: options.port, token: randomToken(), tls: true });
    mkdirSync('.reconcilekit', { recursive: true });
    server.writeKubeconfig(VIEWS_KUBECONFIG_PATH);
    const cluster = clusterOf(options);
    const viewKubeConfig = new KubeConfig();
    viewKubeConfig.loadFromString(server.kubeconfig);
    group = new OperatorGroup({ apiServer: server, kubeConfig: cluster?.kubeConfig ?? viewKubeConfig });
    io.stdout(`view server on ${server.url} (kubeconfig: ${VIEWS_KUBECONFIG_PATH})\n`);
    io.stdout(
      cluster === undefined
        ? 'no cluster: the embedded server serves every kind\n'
        : `cluster ${cluster.kubeConfig.getCurrentCluster()?.server ?? '?'} (${cluster.what})\n`,
    );
    for (const file of options.files) {
      try {
        const op = await group.addOperatorFromFile(operatorName(file), file);
        io.stdout(
          `operator ${op.name} from ${relative(process.cwd(), file) || file}: views in ${op.viewGroup}\n`,
        );
      } catch (e) {
        if (!isDeclarativeSpecError(e)) throw e;
        io.stderr(`reconcilekit run-spec: ${(e as Error).message}\n`);
        return 1;
      }
    }
    await group.start();
    let printed = new Set<string>();
    while (!io.stopSignal.aborted) {
      const lines = statusLines(group);
      for (const line of lines) if (!printed.has(line)) io.stdout(`${line}\n`);
      printed = new Set(lines);
      await sleep(STATUS_POLL_MS, io.stopSignal).catch(() => undefined);
    }
    io.stdout('stopping\n');
    return 0;
  } finally {
    await group?.stop();
    await server?.close();
  }
}
