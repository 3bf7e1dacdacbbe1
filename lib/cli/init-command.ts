import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deploymentFile, namespaceFile } from './init/deploy-templates.js';
import { scaffoldManifests } from './init/scaffold-manifests.js';
import {
  dockerfile,
  dockerignoreFile,
  gitignoreFile,
  packageJsonFile,
  readmeFile,
  tsconfigFile,
  type DependencyRanges,
} from './init/project-templates.js';
import { projectNames, type ProjectNames } from './init/project-names.js';
import {
  controllerOperatorFile,
  crudResourceFile,
  kindTypeFile,
  mainFile,
  manifestsTestFile,
  operatorFile,
  reconcilerFile,
  shardingTestFile,
  testFile,
} from './init/source-templates.js';
import { isUsageError, UsageError } from './apiserver-command.js';
import { unknownFlagMessage } from './suggest.js';
import {
  webhookDeployFile,
  webhookMainFile,
  webhooksFile,
  webhooksTestFile,
} from './init/webhook-templates.js';

/** Kind, group and version of a project scaffolded without flags. */
export const DEFAULT_INIT_KIND = 'Greeting';
export const DEFAULT_INIT_GROUP = 'example.com';
export const DEFAULT_INIT_VERSION = 'v1';
/** Replicas of a sharded project's Deployment unless `--replicas` says otherwise. */
export const DEFAULT_SHARDED_REPLICAS = 3;

const USAGE = `usage: reconcilekit init <dir> [--kind K] [--group G] [--api-version V] [--name N] [--controller]
                         [--webhooks] [--sharded [--replicas N]] [--reconcilekit SPEC] [--force]

Scaffolds a new operator project in <dir>: package.json (ESM; build, test, start, dev), tsconfig.json,
a CRD with a schema, an operator with one CRUD resource, a test on reconcilekit/testing, a Dockerfile
and deploy manifests (CRD, least-privilege RBAC, Deployment with probes and leader election).
  --kind K           the custom resource's kind (default ${DEFAULT_INIT_KIND})
  --group G          its API group (default ${DEFAULT_INIT_GROUP})
  --api-version V    its version (default ${DEFAULT_INIT_VERSION})
  --name N           project, namespace and image name (default: the directory's name)
  --controller       a reconcile function (Controller, as controller-runtime) instead of a CRUD resource
  --webhooks         a defaulter, a validator and a converter from an older version of the kind (src/webhooks.ts),
                     their test, main.ts serving them under an Operator, and their Service and RBAC
                     (deploy/webhooks.yaml)
  --sharded          scale out: every replica reconciles its share of the objects (docs/sharding.md) — main.ts
                     turns the sharding option on, deploy/ runs N replicas with POD_NAME as each one's
                     identity and grants the shard Leases and the shard labels (not with --webhooks)
  --replicas N       replicas of the sharded Deployment (default ${DEFAULT_SHARDED_REPLICAS}; with --sharded)
  --reconcilekit S   how package.json depends on reconcilekit (default ^<this version>; a tarball path or git URL work)
  --force            write into a directory that is not empty (existing files are overwritten)
`;

/** What `init` was asked to do. */
export interface InitOptions {
  dir: string;
  names: ProjectNames;
  reconcilekitSpec: string | undefined;
  force: boolean;
  /** \`framework\`: one CRUD resource (default); \`controller\`: a reconcile function. */
  frontEnd: 'framework' | 'controller';
  /** Scaffold admission webhooks (a defaulter and a validator) too. */
  webhooks: boolean;
  /** \`--sharded\`: the Deployment's replicas (each reconciles its share); undefined: leader election. */
  sharded?: number | undefined;
  /**
   * The local tarball `--reconcilekit` names (absolute), copied into the project's `vendor/` so that
   * `npm install` and the Dockerfile's build context both find it; undefined for a range or git URL.
   */
  reconcilekitTarball?: string | undefined;
}

interface OwnPackage {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

function ownPackage(): OwnPackage {
  // dist/lib/cli/init-command.js (or lib/cli/init-command.ts) → the package root.
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as OwnPackage;
}

/** Parses the arguments of `reconcilekit init`; a bad one is a {@link UsageError}. */
export function parseInitArgs(args: readonly string[], cwd = process.cwd()): InitOptions | 'help' {
  let dir: string | undefined;
  const values = { kind: DEFAULT_INIT_KIND, group: DEFAULT_INIT_GROUP, version: DEFAULT_INIT_VERSION };
  let name: string | undefined;
  let reconcilekitSpec: string | undefined;
  let force = false;
  let frontEnd: InitOptions['frontEnd'] = 'framework';
  let webhooks = false;
  let sharded = false;
  let replicas: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--help' || arg === '-h') return 'help';
    if (arg === '--force') {
      force = true;
      continue;
    }
    if (arg === '--controller') {
      frontEnd = 'controller';
      continue;
    }
    if (arg === '--webhooks') {
      webhooks = true;
      continue;
    }
    if (arg === '--sharded') {
      sharded = true;
      continue;
    }
    if (!arg.startsWith('--')) {
      if (dir !== undefined) throw new UsageError(`one directory only, got "${dir}" and "${arg}"`);
      dir = arg;
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || value === '') throw new UsageError(`${flag} needs a value`);
    if (flag === '--kind') values.kind = value;
    else if (flag === '--group') values.group = value;
    else if (flag === '--api-version') values.version = value;
    else if (flag === '--name') name = value;
    else if (flag === '--reconcilekit') reconcilekitSpec = value;
    else if (flag === '--replicas') {
      if (!/^\d{1,3}$/.test(value) || Number(value) < 1 || Number(value) > 100) {
        throw new UsageError(`--replicas "${value}" must be a whole number from 1 to 100, e.g. --replicas 3`);
      }
      replicas = Number(value);
    } else
      throw new UsageError(
        unknownFlagMessage(flag, [
          '--help',
          '--force',
          '--controller',
          '--webhooks',
          '--sharded',
          '--replicas',
          '--kind',
          '--group',
          '--api-version',
          '--name',
          '--reconcilekit',
        ]),
      );
  }
  if (dir === undefined) throw new UsageError('which directory? e.g. reconcilekit init my-operator');
  if (replicas !== undefined && !sharded) {
    throw new UsageError(
      '--replicas sets the replicas of a sharded Deployment: add --sharded (without it, two replicas elect a leader)',
    );
  }
  if (sharded && webhooks) {
    throw new UsageError(
      '--sharded and --webhooks are not scaffolded together yet (the webhook server runs as one replica with a CA of its own): pick one, and see docs/sharding.md for adding sharding by hand',
    );
  }
  const absolute = resolve(cwd, dir);
  const names = projectNames({ name: name ?? basename(absolute), ...values });
  const reconcilekitTarball = localTarball(reconcilekitSpec, cwd);
  return {
    dir: absolute,
    names,
    reconcilekitSpec,
    force,
    frontEnd,
    webhooks,
    sharded: sharded ? (replicas ?? DEFAULT_SHARDED_REPLICAS) : undefined,
    reconcilekitTarball,
  };
}

/**
 * The absolute path of a local tarball spec (`./reconcilekit-0.1.0.tgz`, `file:/tmp/x.tgz`), else
 * undefined (a range, a git or https URL). A tarball that does not exist is a usage error now, not an
 * `npm install` failure later.
 */
function localTarball(spec: string | undefined, cwd: string): string | undefined {
  if (spec === undefined || !/\.(?:tgz|tar\.gz)$/.test(spec)) return undefined;
  if (/^(?:https?|git(?:\+\w+)?):/.test(spec)) return undefined;
  const path = resolve(cwd, spec.startsWith('file:') ? spec.slice('file:'.length) : spec);
  if (!existsSync(path) || !statSync(path).isFile()) {
    throw new UsageError(
      `--reconcilekit ${spec}: no such file ${path} (build it with npm pack in a reconcilekit clone)`,
    );
  }
  return path;
}

/** The files of a new project, by path relative to its directory. */
export function scaffoldFiles(
  names: ProjectNames,
  deps: DependencyRanges,
  frontEnd: InitOptions['frontEnd'] = 'framework',
  webhooks = false,
  vendored = false,
  sharded?: number,
): Map<string, string> {
  const logic: [string, string][] =
    frontEnd === 'controller'
      ? [
          ['src/reconciler.ts', reconcilerFile(names)],
          ['src/operator.ts', controllerOperatorFile(names, sharded !== undefined)],
        ]
      : [
          [`src/${names.singular}-configmap.ts`, crudResourceFile(names)],
          ['src/operator.ts', operatorFile(names, sharded !== undefined)],
        ];
  return new Map([
    ['package.json', packageJsonFile(names, deps)],
    ['tsconfig.json', tsconfigFile()],
    ['.gitignore', gitignoreFile()],
    ['.dockerignore', dockerignoreFile()],
    ['README.md', readmeFile(names, sharded)],
    ['Dockerfile', dockerfile(names, vendored)],
    [`src/${names.singular}.ts`, kindTypeFile(names, webhooks)],
    ...logic,
    ...(webhooks ? [['src/webhooks.ts', webhooksFile(names)] as [string, string]] : []),
    ['src/main.ts', webhooks ? webhookMainFile(names) : mainFile(names, frontEnd, sharded !== undefined)],
    ['test/operator.test.ts', testFile(names, frontEnd)],
    ...(webhooks ? [['test/webhooks.test.ts', webhooksTestFile(names)] as [string, string]] : []),
    ...(sharded === undefined
      ? []
      : [['test/sharding.test.ts', shardingTestFile(names, frontEnd)] as [string, string]]),
    ['test/manifests.test.ts', manifestsTestFile(names, sharded !== undefined)],
    ['deploy/namespace.yaml', namespaceFile(names)],
    ['deploy/operator.yaml', deploymentFile(names, webhooks, sharded)],
    ...(webhooks ? [['deploy/webhooks.yaml', webhookDeployFile(names)] as [string, string]] : []),
    ...scaffoldManifests(names, frontEnd, webhooks, sharded !== undefined),
  ]);
}

/** Writes the project; refuses a non-empty directory unless `force`. Returns the paths written. */
export function writeProject(options: InitOptions): string[] {
  if (existsSync(options.dir) && readdirSync(options.dir).length > 0 && !options.force) {
    throw new UsageError(`${options.dir} is not empty: choose a new directory, or pass --force to overwrite`);
  }
  const own = ownPackage();
  const vendored =
    options.reconcilekitTarball === undefined ? undefined : `vendor/${basename(options.reconcilekitTarball)}`;
  const deps: DependencyRanges = {
    reconcilekit:
      vendored !== undefined ? `file:${vendored}` : (options.reconcilekitSpec ?? `^${own.version}`),
    clientNode: own.peerDependencies?.['@kubernetes/client-node'] ?? '^2.0.1',
    typescript: own.devDependencies['typescript'] ?? '^6.0.0',
    typesNode: own.devDependencies['@types/node'] ?? '^22.19.0',
  };
  const written: string[] = [];
  const files = scaffoldFiles(
    options.names,
    deps,
    options.frontEnd,
    options.webhooks,
    vendored !== undefined,
    options.sharded,
  );
  for (const [path, content] of files) {
    const target = join(options.dir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
    written.push(path);
  }
  if (vendored !== undefined && options.reconcilekitTarball !== undefined) {
    mkdirSync(join(options.dir, 'vendor'), { recursive: true });
    copyFileSync(options.reconcilekitTarball, join(options.dir, vendored));
    written.push(vendored);
  }
  return written;
}

/** `reconcilekit init <dir>`: scaffolds a project and prints what to run next. */
export function runInitCommand(
  args: readonly string[],
  io: { stdout: (t: string) => void; stderr: (t: string) => void },
): number {
  let options: InitOptions | 'help';
  try {
    options = parseInitArgs(args);
    if (options === 'help') {
      io.stdout(USAGE);
      return 0;
    }
    const written = writeProject(options);
    const fromCwd = relative(process.cwd(), options.dir);
    const rel = fromCwd === '' ? '.' : fromCwd.startsWith('..') ? options.dir : fromCwd;
    const tarball = options.reconcilekitTarball;
    const vendorNote =
      tarball === undefined
        ? ''
        : `\ncopied ${tarball} to vendor/${basename(tarball)}: package.json depends on reconcilekit as ` +
          `"file:vendor/${basename(tarball)}", and the Dockerfile copies vendor/ into the build, so ` +
          `npm install and docker build both find it (commit vendor/ with the project)\n`;
    io.stdout(
      `created ${options.names.name} (${options.names.kind}, ${options.names.apiVersion}) in ${rel}:\n` +
        written.map((f) => `  ${f}\n`).join('') +
        vendorNote +
        `\nnext:\n  cd ${rel}\n  npm install\n  npm test       # the operator against an embedded API server\n` +
        `  npm run dev    # run it locally; prints the kubectl command to try it\n`,
    );
    return 0;
  } catch (e) {
    if (!isUsageError(e)) throw e;
    io.stderr(`reconcilekit init: ${e.message}\n`);
    return 2;
  }
}
