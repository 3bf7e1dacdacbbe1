import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { dump } from 'js-yaml';
import type { ResolvedCoreConfig } from '../engine/resolve-core-config.js';
import { FrontEnd } from '../host/front-end.js';
import { isKind } from '../kinds/define-kind.js';
import type { RbacDeclaration } from '../kinds/rbac-declaration.js';
import { installHttpGuard, type GuardScope } from '../plan/http-guard.js';
import type { CommandIo } from './apiserver-command.js';
import { closest, unknownFlagMessage } from './suggest.js';
import {
  declaredGrants,
  engineGrants,
  GenerateError,
  renderRbac,
  type Grant,
  type KindLike,
} from './generate/derive-rbac.js';
import { renderHelmChart } from './generate/helm-chart.js';

type GenerateIo = Pick<CommandIo, 'stdout' | 'stderr'>;

const WHAT = ['all', 'crd', 'rbac', 'helm'] as const;
type What = (typeof WHAT)[number];

const USAGE = `usage: reconcilekit generate [all|crd|rbac|helm] <entry.js> [--out DIR] [--name NAME] [--namespace NS] [--leader-election] [--image IMAGE] [--check]

Writes the manifests of the operator whose entry module is <entry.js> (built JavaScript), from what it exports:
  crd   DIR/crd.yaml: the CustomResourceDefinition of every kind it exports (defineKind)
  rbac  DIR/rbac.yaml: ServiceAccount, ClusterRole and Roles with bindings — least privilege, derived from
        its Framework/Controller/Operator's configuration (the engine's requests) and its \`rbac\` export
        (the requests of your own code: { uses: [{ apiVersion, plural, verbs }] })
  helm  DIR/chart/: a Helm chart (CRDs, RBAC, Deployment; values: image, replicas, resources, leader
        election, namespace scope) from the same data
  all   crd (when it exports kinds), rbac and helm (the default)

  --out DIR           where to write (default deploy)
  --name NAME         ServiceAccount, roles and chart name (default: the controller's name)
  --namespace NS      the operator's namespace: its ServiceAccount, its Lease (default: NAME)
  --leader-election   grant the leader-election Lease in NS even when the loaded configuration elects none
                      (election is often switched on by the pod's environment, e.g. POD_NAMESPACE)
  --image IMAGE       the chart's default image (default NAME:latest)
  --check             write nothing; exit 1 when a file differs from what would be written (stale manifests)

The entry is imported, not started (as for reconcilekit plan): export the Framework, Controller or Operator
as \`framework\`, \`controller\`, \`operator\` or default, and start it only when run as the main module.
Nothing talks to a cluster: the import sees a placeholder kubeconfig, and any request is refused.

Exit codes: 0 written (or up to date), 1 an error or a stale file (--check), 2 a usage error.
`;

interface GenerateArgs {
  what: What;
  entry: string;
  out: string;
  name?: string;
  namespace?: string;
  leaderElection: boolean;
  image?: string;
  check: boolean;
}

/** Parses `reconcilekit generate` arguments; a string is the usage error. */
export function parseGenerateArgs(argv: readonly string[]): GenerateArgs | string {
  const out: Partial<GenerateArgs> = { out: 'deploy', leaderElection: false, check: false };
  const rest = [...argv];
  if (WHAT.includes(rest[0] as What)) out.what = rest.shift() as What;
  else if (rest[0] !== undefined && /^[a-z]+$/.test(rest[0])) {
    // A bare word is not an entry module (those end in .js): a misspelt target.
    return `unknown target "${rest[0]}"${closest(rest[0], WHAT) === undefined ? '' : ` (did you mean ${closest(rest[0], WHAT) ?? ''}?)`}: give one of ${WHAT.join(', ')}, or the entry module`;
  }
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] ?? '';
    const value = (): string | undefined => {
      const v = rest[++i];
      return v === undefined || v.startsWith('--') ? undefined : v;
    };
    if (arg === '--out' || arg === '--name' || arg === '--namespace' || arg === '--image') {
      const v = value();
      if (v === undefined || v === '') return `${arg} needs a value`;
      out[arg.slice(2) as 'out' | 'name' | 'namespace' | 'image'] = v;
    } else if (arg === '--leader-election') out.leaderElection = true;
    else if (arg === '--check') out.check = true;
    else if (arg.startsWith('-'))
      return unknownFlagMessage(
        arg,
        ['--out', '--name', '--namespace', '--image', '--leader-election', '--check', '--help'],
        'option',
      );
    else if (out.entry !== undefined) return `one entry module only, got "${out.entry}" and "${arg}"`;
    else out.entry = arg;
  }
  if (out.entry === undefined) return 'give the entry module: reconcilekit generate dist/src/main.js';
  out.what ??= 'all';
  for (const [flag, v] of [
    ['--name', out.name],
    ['--namespace', out.namespace],
  ] as const) {
    if (v !== undefined && !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(v))
      return `${flag} must be a DNS label (lower-case letters, digits, '-'); got "${v}"`;
  }
  return out as GenerateArgs;
}

/** What an entry module exports that generate uses. */
export interface LoadedEntry {
  kinds: KindLike[];
  configs: ResolvedCoreConfig[];
  rbac: RbacDeclaration | undefined;
}

const PLACEHOLDER_KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{ name: generate, cluster: { server: 'https://127.0.0.1:9' } }]
users: [{ name: generate, user: { token: none } }]
contexts: [{ name: generate, context: { cluster: generate, user: generate } }]
current-context: generate
`;

/** Imports `path` with a placeholder kubeconfig and every request refused; collects kinds and configs. */
export async function loadEntry(path: string): Promise<LoadedEntry> {
  const dir = mkdtempSync(join(tmpdir(), 'reconcilekit-generate-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, PLACEHOLDER_KUBECONFIG, { mode: 0o600 });
  const previous = process.env.KUBECONFIG;
  process.env.KUBECONFIG = kubeconfig;
  const refuseAll: GuardScope = { apiServer: '', refused: [] };
  const uninstall = installHttpGuard(refuseAll);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (err) {
    throw new GenerateError(`loading ${path} failed: ${(err as Error).message}`);
  } finally {
    uninstall();
    if (previous === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = previous;
    rmSync(dir, { recursive: true, force: true });
  }
  // By shape, not instanceof: the entry may load another copy of reconcilekit than this CLI's.
  const values = [...new Set(Object.values(mod))];
  const kinds = values.filter(looksLikeKind);
  const configs: ResolvedCoreConfig[] = [];
  for (const v of values) {
    const config = frontEndConfig(v);
    if (config !== undefined) configs.push(config);
    const controllers = (v as { controllers?: unknown } | null)?.controllers;
    if (
      Array.isArray(controllers) &&
      typeof (v as { addController?: unknown }).addController === 'function'
    ) {
      for (const c of controllers as unknown[]) {
        const inner = frontEndConfig(c);
        if (inner !== undefined) configs.push(inner);
      }
    }
  }
  const rbac: unknown = mod.rbac;
  if (rbac !== undefined && (typeof rbac !== 'object' || rbac === null)) {
    throw new GenerateError(`${path} exports rbac, but not as an object ({ uses: [...] })`);
  }
  return { kinds, configs, rbac: rbac as RbacDeclaration | undefined };
}

function looksLikeKind(value: unknown): value is KindLike {
  if (isKind(value)) return true;
  const v = value as Partial<Record<'crd' | 'storageVersion' | 'group' | 'kind', unknown>> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.crd === 'function' &&
    typeof v.storageVersion === 'string' &&
    typeof v.group === 'string' &&
    typeof v.kind === 'string'
  );
}

/** The resolved configuration of a front end (Framework, Controller, InformerController, …). */
function frontEndConfig(value: unknown): ResolvedCoreConfig | undefined {
  if (value instanceof FrontEnd) return value.config as ResolvedCoreConfig;
  const v = value as { config?: Partial<ResolvedCoreConfig>; core?: unknown } | null;
  const config = typeof v === 'object' && v !== null ? v.config : undefined;
  if (
    config === undefined ||
    typeof v?.core !== 'object' ||
    typeof config.name !== 'string' ||
    !Array.isArray(config.owns) ||
    !Array.isArray(config.watches)
  )
    return undefined;
  return config as ResolvedCoreConfig;
}

/** crd.yaml: every kind's CustomResourceDefinition, one YAML document each. */
export function renderCrds(kinds: readonly KindLike[]): string {
  const header =
    '# Generated by reconcilekit generate crd from the kinds the entry module exports. Do not edit; regenerate.\n';
  return header + kinds.map((k) => dump(k.crd(), { noRefs: true, lineWidth: 120 })).join('---\n');
}

/** `reconcilekit generate`: 0 written (or up to date with --check), 1 errors or stale files, 2 usage errors. */
export async function runGenerateCommand(argv: readonly string[], io: GenerateIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout(USAGE);
    return 0;
  }
  const args = parseGenerateArgs(argv);
  if (typeof args === 'string') {
    io.stderr(`reconcilekit generate: ${args}\n${USAGE}`);
    return 2;
  }
  const path = resolve(args.entry);
  if (!existsSync(path)) {
    io.stderr(`reconcilekit generate: entry module ${path} does not exist (build your operator first?)\n`);
    return 1;
  }
  let files: Map<string, string>;
  try {
    files = generateFiles(args, await loadEntry(path));
  } catch (err) {
    if (err instanceof GenerateError) {
      io.stderr(`reconcilekit generate: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  const outDir = resolve(args.out);
  if (args.check) {
    const stale = [...files].filter(([file, text]) => {
      const at = join(outDir, file);
      return !existsSync(at) || readFileSync(at, 'utf8') !== text;
    });
    for (const [file] of stale) io.stderr(`reconcilekit generate: ${join(args.out, file)} is stale\n`);
    if (stale.length > 0) {
      io.stderr(`reconcilekit generate: run it without --check to refresh ${args.out}/\n`);
      return 1;
    }
    io.stdout(`${files.size} file(s) in ${args.out}/ up to date\n`);
    return 0;
  }
  for (const [file, text] of files) {
    const at = join(outDir, file);
    mkdirSync(resolve(at, '..'), { recursive: true });
    writeFileSync(at, text);
    io.stdout(`wrote ${join(args.out, file)}\n`);
  }
  return 0;
}

/** The files `generate` writes, by path under --out. */
export function generateFiles(args: GenerateArgs, entry: LoadedEntry): Map<string, string> {
  const files = new Map<string, string>();
  const wantCrd = args.what === 'crd' || args.what === 'all';
  const wantRbac = args.what === 'rbac' || args.what === 'all';
  const wantHelm = args.what === 'helm' || args.what === 'all';
  if (args.what === 'crd' && entry.kinds.length === 0) {
    throw new GenerateError(
      `${args.entry} exports no kind: export the kinds you define (export const Website = defineKind({...}))`,
    );
  }
  if (wantCrd && entry.kinds.length > 0) files.set('crd.yaml', renderCrds(entry.kinds));
  if (!wantRbac && !wantHelm) return files;
  if (entry.configs.length === 0) {
    throw new GenerateError(
      `${args.entry} exports no Framework, Controller or Operator: add \`export const framework = new Framework({...})\` (or controller, operator, default) — RBAC is derived from its configuration`,
    );
  }
  const name = args.name ?? entry.configs[0]?.name ?? '';
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name)) {
    throw new GenerateError(`the controller name "${name}" is no DNS label: give --name`);
  }
  const namespace = args.namespace ?? name;
  const options = { namespace, leaderElection: args.leaderElection };
  const grants: Grant[] = [
    ...entry.configs.flatMap((c) => engineGrants(c, entry.kinds, options)),
    ...declaredGrants(entry.rbac),
  ];
  if (wantRbac) files.set('rbac.yaml', renderRbac(name, namespace, grants));
  if (wantHelm) {
    const chart = renderHelmChart({
      name,
      image: args.image ?? `${name}:latest`,
      crds: entry.kinds.map((k) => dump(k.crd(), { noRefs: true, lineWidth: 120 })),
      grants,
      leaderElection: grants.some((g) => g.resource === 'leases'),
      sharded: entry.configs.some((c) => c.sharding !== undefined),
      namespace,
    });
    for (const [file, text] of chart) files.set(join('chart', file), text);
  }
  return files;
}
