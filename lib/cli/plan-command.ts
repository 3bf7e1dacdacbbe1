import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';
import { Controller } from '../controller/controller.js';
import { Framework } from '../crud/framework.js';
import { beginPlanLoading, isStartDuringPlanError } from '../engine/plan-loading.js';
import { loadKubeConfig } from '../kube/kube-config.js';
import { Operator } from '../operator/operator.js';
import { plan, type Plan, type Plannable } from '../plan/plan.js';
import { apiServerHost, installHttpGuard, refusedOtherHost, type GuardScope } from '../plan/http-guard.js';
import { startDryRunProxy, type DryRunProxyThread, type RefusedWrite } from '../plan/dry-run-proxy.js';
import { renderDiff } from '../plan/render-diff.js';
import type { CommandIo } from './apiserver-command.js';
import { unknownFlagMessage } from './suggest.js';

type PlanIo = Pick<CommandIo, 'stdout' | 'stderr'>;

const USAGE = `usage: reconcilekit plan <entry.js> [--kubeconfig FILE] [-n NAMESPACE] [-l SELECTOR] [-o table|json|diff] [--color|--no-color]

Loads your operator's entry module without starting it and prints what it would change, object by object.
The module must export its Operator, Framework or Controller as \`operator\`, \`framework\` or
\`controller\` (or as the default export) and start it only when run as the main module. -o diff prints a unified diff of each changed object's YAML, colored when stdout is a
terminal (or with --color). Exit code: 0 nothing would change, 2 changes are planned, 1 errors.
`;

interface PlanArgs {
  entry: string;
  kubeconfig?: string;
  namespace?: string;
  selector?: string;
  output: 'table' | 'json' | 'diff';
  color?: boolean;
}

function parse(argv: readonly string[]): PlanArgs | string {
  const out: Partial<PlanArgs> = { output: 'table' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--kubeconfig') out.kubeconfig = value();
    else if (arg === '-n' || arg === '--namespace') out.namespace = value();
    else if (arg === '-l' || arg === '--selector') out.selector = value();
    else if (arg === '-o' || arg === '--output') {
      const o = value();
      if (o !== 'table' && o !== 'json' && o !== 'diff') return `-o must be table, json or diff, got "${o}"`;
      out.output = o;
    } else if (arg === '--color') out.color = true;
    else if (arg === '--no-color') out.color = false;
    else if (arg.startsWith('-'))
      return unknownFlagMessage(
        arg,
        ['--help', '--kubeconfig', '--namespace', '--selector', '--output', '--color', '--no-color'],
        'option',
      );
    else if (out.entry !== undefined) return `one entry module only, got "${out.entry}" and "${arg}"`;
    else out.entry = arg;
  }
  if (out.entry === undefined) return 'give the entry module: reconcilekit plan ./dist/main.js';
  return out as PlanArgs;
}

function table(result: Plan): string {
  const rows = [['OBJECT', 'SET', 'RESOURCE', 'CREATE', 'UPDATE', 'DELETE', 'NOTE']];
  for (const o of result.objects) {
    const name = o.namespace === undefined ? o.name : `${o.namespace}/${o.name}`;
    const set = o.resourceSet !== undefined ? String(o.resourceSet) : (o.controller ?? '');
    if (o.error !== undefined) rows.push([name, set, '', '', '', '', `error: ${o.error}`]);
    if (o.skipped !== undefined) rows.push([name, set, '', '', '', '', `skipped: ${o.skipped}`]);
    for (const r of o.resources) {
      const count = (p: string): string => String(r.parts.filter((x) => x.part === p).length);
      const note = r.notPlannable === undefined ? '' : `not plannable: ${r.notPlannable}`;
      rows.push([name, set, r.resource, count('create'), count('update'), count('delete'), note]);
    }
  }
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  const lines = rows.map((r) =>
    r
      .map((cell, c) => cell.padEnd(widths[c] ?? 0))
      .join('  ')
      .trimEnd(),
  );
  lines.push(
    `Plan: ${result.changes} change(s) over ${result.objects.length} object(s), ${result.errors} with errors.`,
  );
  return `${lines.join('\n')}\n`;
}

/** `reconcilekit plan`: returns 0 (no changes), 2 (changes planned) or 1 (errors). */
export async function runPlanCommand(argv: readonly string[], io: PlanIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout(USAGE);
    return 0;
  }
  let args: PlanArgs | string;
  try {
    args = parse(argv);
  } catch (err) {
    args = (err as Error).message;
  }
  if (typeof args === 'string') {
    io.stderr(`reconcilekit plan: ${args}\n${USAGE}`);
    return 1;
  }
  const path = resolve(args.entry);
  if (!existsSync(path)) {
    io.stderr(`reconcilekit plan: entry module ${path} does not exist (build your operator first?)\n`);
    return 1;
  }
  // The entry builds its Framework at import, which reads KUBECONFIG: point it at --kubeconfig first.
  if (args.kubeconfig !== undefined) process.env.KUBECONFIG = resolve(args.kubeconfig);
  // The real credentials stay with a local dry-run proxy; this process, and every child process and
  // worker it starts, sees only the proxy's kubeconfig: a write without dryRun=All is refused there
  // however the code opens its connection.
  // Without any kubeconfig there are no credentials to keep away: the plan itself says what is missing.
  let real: KubeConfig | undefined;
  try {
    real = loadKubeConfig();
  } catch {
    real = undefined;
  }
  let proxy: DryRunProxyThread | undefined;
  try {
    proxy = real === undefined ? undefined : await startDryRunProxy(real);
  } catch (err) {
    io.stderr(`reconcilekit plan: ${(err as Error).message}\n`);
    return 1;
  }
  const dir = mkdtempSync(join(tmpdir(), 'reconcilekit-plan-'));
  const realKubeconfig = process.env.KUBECONFIG;
  if (proxy !== undefined) {
    const proxyKubeconfig = join(dir, 'kubeconfig');
    writeFileSync(proxyKubeconfig, proxy.kubeconfig, { mode: 0o600 });
    process.env.KUBECONFIG = proxyKubeconfig;
  }
  let proxyRefused: RefusedWrite[] = [];
  // In this process also: a mutating request that is not a dry-run write to the API server (the proxy)
  // is refused before it is sent, also outside the plan proper (an entry that starts its operator on import),
  // and so is every request or connection to another host (a GET with side effects, http2, a socket).
  const outside: GuardScope = { apiServer: apiServerOf(), refused: [] };
  const uninstall = installHttpGuard(outside, { refuseOtherHosts: true });
  let target: Plannable | undefined;
  try {
    const code = await planEntry(path, args, io, (t) => (target = t));
    proxyRefused = (await proxy?.close()) ?? [];
    proxy = undefined;
    return outside.refused.length > 0 || proxyRefused.length > 0 ? 1 : code;
  } finally {
    if (proxy !== undefined) proxyRefused = await proxy.close();
    if (refusedOtherHost(outside.refused)) {
      io.stderr(
        `reconcilekit plan: refused ${outside.refused.length} request(s) made outside the plan's objects, e.g. ${outside.refused[0] ?? ''} — nothing was sent. A plan reaches only the API server, with reads and dry-run writes (see docs/plan.md)\n`,
      );
    } else if (outside.refused.length > 0) {
      io.stderr(
        `reconcilekit plan: refused ${outside.refused.length} write(s) made outside the plan, e.g. ${outside.refused[0] ?? ''} — nothing was sent. Does ${path} start its operator when imported? Start it only when it is the main module (see docs/plan.md)\n`,
      );
    }
    if (proxyRefused.length > 0) {
      io.stderr(
        `reconcilekit plan: the dry-run proxy refused ${proxyRefused.length} request(s) that bypassed the plan's client — nothing was sent:\n${proxyRefused
          .map((r) => `  ${r.method} ${r.object}: ${r.reason}\n`)
          .join('')}`,
      );
    }
    if (outside.refused.length > 0 || proxyRefused.length > 0) {
      const running = target as { stop?: () => Promise<void>; synced?: boolean } | undefined;
      await running?.stop?.().catch(() => undefined);
    }
    uninstall();
    rmSync(dir, { recursive: true, force: true });
    if (realKubeconfig === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = realKubeconfig;
  }
}

/** The API server's host of the kubeconfig the entry will use ('' when there is none: nothing allowed). */
function apiServerOf(): string {
  try {
    const server = loadKubeConfig().getCurrentCluster()?.server;
    return server === undefined ? '' : apiServerHost(new URL(server));
  } catch {
    return '';
  }
}

async function planEntry(
  path: string,
  args: PlanArgs,
  io: PlanIo,
  loaded: (target: Plannable) => void,
): Promise<number> {
  // Until the plan is done nothing may start: an entry that starts its operator when imported is told so
  // once, instead of running inside the plan (its start() rejects, awaited or not).
  const loading = beginPlanLoading();
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    if (!isStartDuringPlanError(reason)) unhandled.push(reason);
  };
  process.on('unhandledRejection', onUnhandled);
  try {
    let mod: Record<string, unknown> = {};
    try {
      mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
    } catch (err) {
      if (!isStartDuringPlanError(err)) {
        io.stderr(`reconcilekit plan: loading ${path} failed: ${(err as Error).message}\n`);
        return 1;
      }
    }
    // A start() nobody awaited rejects after the import settled.
    await new Promise((settled) => setImmediate(settled));
    const refused = loading.refused();
    if (refused.length > 0) {
      io.stderr(
        `reconcilekit plan: ${path} starts its operator when imported (it called ${refused[0] ?? 'start()'}), so plan started nothing and planned nothing. Export the operator (\`export const framework = new Framework({...})\`) and start it only when the module is the main module: \`if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runUntilSignal(framework);\` (see docs/plan.md)\n`,
      );
      return 1;
    }
    if (unhandled.length > 0) {
      io.stderr(`reconcilekit plan: loading ${path} failed: ${errorText(unhandled[0])}\n`);
      return 1;
    }
    return await planModule(mod, path, args, io, loaded);
  } finally {
    process.off('unhandledRejection', onUnhandled);
    loading.end();
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function planModule(
  mod: Record<string, unknown>,
  path: string,
  args: PlanArgs,
  io: PlanIo,
  loaded: (target: Plannable) => void,
): Promise<number> {
  const target = [mod.operator, mod.framework, mod.controller, mod.default].find(
    (v) => v instanceof Operator || v instanceof Framework || v instanceof Controller,
  ) as Plannable | undefined;
  if (target === undefined) {
    io.stderr(
      `reconcilekit plan: ${path} exports no Operator, Framework or Controller: add \`export const operator = new Operator({...})\` (or \`export const framework\`, \`export const controller\`, or a default export)\n`,
    );
    return 1;
  }
  loaded(target);
  try {
    const options: Parameters<typeof plan>[1] = {};
    // The proxy's kubeconfig (KUBECONFIG now names it), whatever --kubeconfig said.
    options.kubeConfig = loadKubeConfig();
    if (args.namespace !== undefined) options.namespace = args.namespace;
    if (args.selector !== undefined) options.labelSelector = args.selector;
    const result = await plan(target, options);
    if (args.output === 'json') io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    else if (args.output === 'diff') {
      const color = args.color ?? (process.stdout.isTTY && process.env.NO_COLOR === undefined);
      io.stdout(renderDiff(result, { color }));
    } else io.stdout(table(result));
    if (result.errors > 0) return 1;
    return result.changes > 0 ? 2 : 0;
  } catch (err) {
    io.stderr(`reconcilekit plan: ${(err as Error).message}\n`);
    return 1;
  }
}
