// The TypeScript a scaffolded project starts with: the kind's type, one CRUD resource (a ConfigMap per
// object), the operator factory shared by main and the test, main, and the test on reconcilekit/testing.
import type { RbacUse } from '../../kinds/rbac-declaration.js';
import type { ProjectNames } from './project-names.js';

/**
 * The requests of the scaffold's own code (its \`rbac\` export, for \`reconcilekit generate rbac\`): the
 * CRUD resource reads the ConfigMap through the context client (an informer cache started on the first
 * read: list+watch), creates, replaces and deletes it; the reconcile function reads its owned ConfigMaps
 * from the cache of \`owns\`, creates and updates them (the garbage collector deletes them with their owner).
 */
export function scaffoldRbacUses(frontEnd: 'framework' | 'controller'): RbacUse[] {
  return frontEnd === 'controller'
    ? [
        {
          apiVersion: 'v1',
          plural: 'configmaps',
          verbs: ['create', 'update'],
          reason: 'the reconciler: creates and updates the ConfigMap',
        },
      ]
    : [
        {
          apiVersion: 'v1',
          plural: 'configmaps',
          verbs: ['list', 'watch', 'create', 'update', 'delete'],
          reason:
            'the CRUD resource: reads the ConfigMap (cached: list, watch), creates, replaces and deletes it',
        },
      ];
}

function rbacExport(frontEnd: 'framework' | 'controller'): string {
  const uses = scaffoldRbacUses(frontEnd)
    .map(
      (u) =>
        `    { apiVersion: '${u.apiVersion}', plural: '${u.plural}', verbs: [${u.verbs.map((v) => `'${v}'`).join(', ')}], reason: '${u.reason ?? ''}' },`,
    )
    .join('\n');
  return `export const rbac: RbacDeclaration = {\n  uses: [\n${uses}\n  ],\n};\n`;
}

/**
 * The older version a project with webhooks also serves (its converter's spoke): \`v1\` → \`v1alpha1\`,
 * \`v2beta1\` → \`v2alpha1\`, \`v1alpha2\` → \`v1alpha1\`; \`<version>-old\` when there is none before it.
 */
export function olderVersion(version: string): string {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(version);
  if (m === null) return `${version}-old`;
  const [, major = '1', level, minor = '1'] = m;
  if (level === undefined || level === 'beta') return `v${major}alpha1`;
  return Number(minor) > 1 ? `v${major}alpha${String(Number(minor) - 1)}` : `${version}-old`;
}

/** The older version's entry in the kind (a project with webhooks): the message is called \`text\` there. */
function olderVersionSource(n: ProjectNames): string {
  return `
    // An older version that calls the message \`text\`: still served, converted to and from ${n.version} by the
    // conversion webhook (src/webhooks.ts), never stored.
    '${olderVersion(n.version)}': {
      served: true,
      storage: false,
      spec: Type.Object({ text: Type.String({ maxLength: 1024 }) }),
      status,
      subresources: { status: true },
      printerColumns: [{ name: 'Text', type: 'string', jsonPath: '.spec.text' }],
    },`;
}

export function kindTypeFile(n: ProjectNames, webhooks = false): string {
  return `import { defineKind, KubeType, Type, type ObjectOf } from 'reconcilekit/kinds';

const status = Type.Object({
  observedGeneration: Type.Optional(Type.Integer()),
  conditions: Type.Optional(KubeType.Conditions()),
});

/**
 * The custom resource this operator reconciles, defined once: its TypeScript type (below), its
 * CustomResourceDefinition (deploy/crd.yaml, written by \`npm run generate\`), its validation and typed client.
 */
export const ${n.kind} = defineKind({
  group: '${n.group}',
  kind: '${n.kind}',
  plural: '${n.plural}',
  singular: '${n.singular}',
  versions: {
    ${n.version}: {
      served: true,
      storage: true,
      spec: Type.Object({
        message: Type.String({ maxLength: 1024, description: 'Written into the ConfigMap <name>-${n.singular}.' }),
      }),
      status,
      subresources: { status: true },
      printerColumns: [
        { name: 'Message', type: 'string', jsonPath: '.spec.message' },
        { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      ],
    },${webhooks ? olderVersionSource(n) : ''}
  },
});

/** A ${n.kind} object: spec and status typed from the schemas above. */
export type ${n.kind} = ObjectOf<typeof ${n.kind}>;
`;
}

export function crudResourceFile(n: ProjectNames): string {
  return `import type { V1ConfigMap } from '@kubernetes/client-node';
import { clientKey, isNotFound, Patch, type CRUDResourceOps, type ReconcileContext } from 'reconcilekit';
import type { ${n.kind} } from './${n.singular}.js';

type State = V1ConfigMap | undefined;

/** The ConfigMap a ${n.kind} owns: \`<name>-${n.singular}\` in its namespace. */
function configMapRef(${n.camel}: ${n.kind}) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    plural: 'configmaps',
    namespace: ${n.camel}.metadata?.namespace ?? 'default',
    name: \`\${${n.camel}.metadata?.name ?? ''}-${n.singular}\`,
  };
}

const client = (ctx: ReconcileContext) => ctx.get(clientKey)!;

/**
 * One CRUD resource: what exists (current), what should exist (desired), the difference (a patch), and how
 * to apply it. The engine runs it for every ${n.kind}, on every change and periodic resync.
 */
export const ${n.camel}ConfigMap: CRUDResourceOps<${n.kind}, State, V1ConfigMap> = {
  name: '${n.singular}-configmap',
  async getCurrentState(ctx, ${n.camel}) {
    try {
      return await client(ctx).get<V1ConfigMap>(configMapRef(${n.camel}), { signal: ctx.signal });
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  },
  getDesiredState(_ctx, ${n.camel}) {
    const { namespace, name } = configMapRef(${n.camel});
    return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name }, data: { message: ${n.camel}.spec.message } };
  },
  newUpdatePatch(_ctx, _${n.camel}, current, desired) {
    if (desired === undefined) return undefined;
    if (current === undefined) return new Patch<V1ConfigMap>().setCreateChange(desired);
    if (current.data?.['message'] === desired.data?.['message']) return undefined;
    return new Patch<V1ConfigMap>().setUpdateChange({ ...current, data: desired.data });
  },
  newDeletePatch(_ctx, _${n.camel}, current) {
    return current === undefined ? undefined : new Patch<V1ConfigMap>().setDeleteChange(current);
  },
  async applyCreateChange(ctx, _${n.camel}, configMap) {
    await client(ctx).create(configMap, { signal: ctx.signal });
  },
  async applyDeleteChange(ctx, ${n.camel}) {
    try {
      await client(ctx).delete(configMapRef(${n.camel}), { signal: ctx.signal });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  },
  async applyUpdateChange(ctx, _${n.camel}, configMap) {
    await client(ctx).replace(configMap, { signal: ctx.signal });
  },
};
`;
}

export function operatorFile(n: ProjectNames, sharded = false): string {
  return `import type { KubeConfig } from '@kubernetes/client-node';
import { CRUDResource, Framework, ResourceSet, type FrameworkConfig, type Logger } from 'reconcilekit';
import { ${n.camel}ConfigMap } from './${n.singular}-configmap.js';
import { ${n.kind} } from './${n.singular}.js';

export const OPERATOR_NAME = '${n.name}';

/** Everything but the operator's logic: where it connects, logs, serves health, elects a leader${sharded ? ' or shards' : ''}. */
export interface OperatorOptions {
  /** Default: KUBECONFIG, ~/.kube/config, or the in-cluster service account. */
  kubeConfig?: KubeConfig;
  logger?: Logger;
  healthServer?: FrameworkConfig['healthServer'];
  leaderElection?: FrameworkConfig['leaderElection'];${sharded ? "\n  /** Every replica reconciles its share of the objects (docs/sharding.md). */\n  sharding?: FrameworkConfig['sharding'];" : ''}
}

/** The operator: main.ts runs it, test/operator.test.ts runs it against the embedded API server. */
export function createOperator(options: OperatorOptions = {}): Framework<${n.kind}> {
  return new Framework<${n.kind}>({
    name: OPERATOR_NAME,
    resource: ${n.kind},
    resourceSets: [new ResourceSet<${n.kind}>({ resources: [new CRUDResource({ ops: ${n.camel}ConfigMap })] })],
    ...options,
  });
}
`;
}

/**
 * src/main.ts: builds the operator and exports it (`framework` or `controller`, for `reconcilekit plan`),
 * and runs it only when it is the process's main module.
 */
export function mainFile(
  n: ProjectNames,
  frontEnd: 'framework' | 'controller' = 'framework',
  sharded = false,
): string {
  const scaleOut = sharded
    ? `// Sharding: every replica reconciles its share of the ${n.plural}, each holding a Lease of its own in
// POD_NAMESPACE (set in deploy/operator.yaml; unset — npm run dev, npm run generate — the operator's name),
// placed on the ring by POD_NAME. One replica also labels the objects with their shard (docs/sharding.md).
const namespace = process.env['POD_NAMESPACE'] ?? OPERATOR_NAME;
const identity = process.env['POD_NAME'];

// Exported, not started: \`reconcilekit plan dist/src/main.js\` imports this module to plan what it would change.
export const ${frontEnd} = createOperator({
  logger,
  healthServer: host && port ? { host, port: Number(port) } : false,
  sharding: { leaseNamespace: namespace, ...(identity ? { identity } : {}) },
});

// Run as the process (node dist/src/main.js): start, and on SIGTERM/SIGINT stop taking work, let in-flight
// reconciles finish, hand this replica's objects over to the others, release its shard Lease, exit 0.`
    : `// POD_NAMESPACE (set in deploy/operator.yaml) turns on leader election: one replica reconciles at a time.
const namespace = process.env['POD_NAMESPACE'];
const identity = process.env['POD_NAME'];

// Exported, not started: \`reconcilekit plan dist/src/main.js\` imports this module to plan what it would change.
export const ${frontEnd} = createOperator({
  logger,
  healthServer: host && port ? { host, port: Number(port) } : false,
  leaderElection: namespace ? { leaseName: OPERATOR_NAME, namespace, ...(identity ? { identity } : {}) } : false,
});

// Run as the process (node dist/src/main.js): start, and on SIGTERM/SIGINT stop taking work, let in-flight
// reconciles finish, release the Lease, exit 0.`;
  return `import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { createLogger, runUntilSignal, type RbacDeclaration } from 'reconcilekit';
import { createOperator, OPERATOR_NAME } from './operator.js';

// For \`npm run generate\` (deploy/crd.yaml, rbac.yaml, chart/): the kind, and the requests of this
// operator's own code — the engine's (watches, finalizer, status, Events, ${sharded ? 'shard Leases and labels' : 'Lease'}) come from its configuration.
export { ${n.kind} } from './${n.singular}.js';
${rbacExport(frontEnd)}
const logger = createLogger({ defaultMeta: { operator: OPERATOR_NAME } });

// HEALTH_ADDRESS (host:port, set in deploy/operator.yaml) serves /healthz, /readyz and /metrics; off when unset.
const [host, port] = (process.env['HEALTH_ADDRESS'] ?? '').split(':');
${scaleOut}
const main = process.argv[1];
if (main !== undefined && import.meta.url === pathToFileURL(realpathSync(main)).href) {
  await runUntilSignal(${frontEnd}, { logger });
}
`;
}

export function testFile(n: ProjectNames, frontEnd: 'framework' | 'controller' = 'framework'): string {
  const v = n.camel;
  const type = frontEnd === 'controller' ? 'Controller' : 'Framework';
  return `import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import type { KubernetesObject, V1ConfigMap } from '@kubernetes/client-node';
import { isNotFound, silentLogger, type ${type} } from 'reconcilekit';
import { startTestEnvironment, waitFor, type TestEnvironment } from 'reconcilekit/testing';
import { createOperator } from '../src/operator.js';
import type { ${n.kind} } from '../src/${n.singular}.js';

// Compiled to dist/test/, so the CRD is two levels up.
const CRD = fileURLToPath(new URL('../../deploy/crd.yaml', import.meta.url));
const ${v}Ref = { apiVersion: '${n.apiVersion}', kind: '${n.kind}', plural: '${n.plural}', namespace: 'default', name: 'hello' };
const configMapRef = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: 'default', name: 'hello-${n.singular}' };

let env: TestEnvironment;
let operator: ${type}<${n.kind}>;

before(async () => {
  // An embedded Kubernetes-compatible API server with the CRD installed: no cluster needed.
  env = await startTestEnvironment({ crds: [CRD] });
  operator = createOperator({ kubeConfig: env.kubeConfig, logger: silentLogger() });
  await operator.start();
});

after(async () => {
  await operator.stop();
  await env.close();
});

test('creates, updates and deletes the ConfigMap of a ${n.kind}', async () => {
  await env.client.create({
    apiVersion: '${n.apiVersion}',
    kind: '${n.kind}',
    metadata: { name: 'hello', namespace: 'default' },
    spec: { message: 'Hello!' },
  } as KubernetesObject);

  const created = await waitFor(() => env.client.get<V1ConfigMap>(configMapRef), { timeoutMs: 10_000 });
  assert.deepEqual(created.data, { message: 'Hello!' });

  await env.client.patch(${v}Ref, { spec: { message: 'Hi again' } }, 'merge');
  await waitFor(async () => (await env.client.get<V1ConfigMap>(configMapRef)).data?.['message'] === 'Hi again');

  await env.client.delete(${v}Ref);
  const gone = (ref: typeof configMapRef) => env.client.get<${n.kind} | V1ConfigMap>(ref).then(() => false, (e: unknown) => isNotFound(e));
  await waitFor(() => gone(configMapRef));
  await waitFor(() => gone(${v}Ref));
});
`;
}

/** `init --controller`: the reconcile-function front end instead of a CRUD resource. */
export function reconcilerFile(n: ProjectNames): string {
  return `import type { V1ConfigMap } from '@kubernetes/client-node';
import { clientKey, createOrUpdate, setControllerReference, type Reconciler } from 'reconcilekit';
import type { ${n.kind} } from './${n.singular}.js';

/**
 * The reconcile function: called with the latest ${n.kind} on every change (and periodic resync); makes
 * the world match it. Idempotent: it creates or updates the ConfigMap \`<name>-${n.singular}\`, which the
 * ${n.kind} owns, so Kubernetes' garbage collector deletes it with the ${n.kind}.
 */
export const ${n.camel}Reconciler: Reconciler<${n.kind}> = {
  async reconcile(ctx, { object: ${n.camel} }) {
    const client = ctx.get(clientKey)!;
    const configMap: V1ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: ${n.camel}.metadata?.namespace ?? 'default', name: \`\${${n.camel}.metadata?.name ?? ''}-${n.singular}\` },
    };
    const { result } = await createOrUpdate(client, configMap, (cm) => {
      cm.data = { message: ${n.camel}.spec.message };
      setControllerReference(${n.camel}, cm);
    });
    if (result !== 'unchanged') ctx.logger.info(\`ConfigMap \${result}\`, { configMap: configMap.metadata?.name });
  },
};
`;
}

export function controllerOperatorFile(n: ProjectNames, sharded = false): string {
  return `import type { KubeConfig } from '@kubernetes/client-node';
import { Controller, type ControllerConfig, type Logger } from 'reconcilekit';
import { ${n.camel}Reconciler } from './reconciler.js';
import { ${n.kind} } from './${n.singular}.js';

export const OPERATOR_NAME = '${n.name}';

/** Everything but the operator's logic: where it connects, logs, serves health, elects a leader${sharded ? ' or shards' : ''}. */
export interface OperatorOptions {
  /** Default: KUBECONFIG, ~/.kube/config, or the in-cluster service account. */
  kubeConfig?: KubeConfig;
  logger?: Logger;
  healthServer?: ControllerConfig<${n.kind}>['healthServer'];
  leaderElection?: ControllerConfig<${n.kind}>['leaderElection'];${sharded ? `\n  /** Every replica reconciles its share of the objects (docs/sharding.md). */\n  sharding?: ControllerConfig<${n.kind}>['sharding'];` : ''}
}

/** The operator: main.ts runs it, test/operator.test.ts runs it against the embedded API server. */
export function createOperator(options: OperatorOptions = {}): Controller<${n.kind}> {
  return new Controller<${n.kind}>({
    name: OPERATOR_NAME,
    resource: ${n.kind},
    // A change to (or deletion of) an owned ConfigMap wakes its ${n.kind}: drift is repaired.
    owns: [{ apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' }],
    reconciler: ${n.camel}Reconciler,
    ...options,
  });
}
`;
}

/** The arguments of \`reconcilekit generate\` in the scaffold's \`npm run generate\` (and its staleness test). */
export function generateArgs(n: ProjectNames, sharded = false): string[] {
  return [
    'all',
    'dist/src/main.js',
    '--out',
    'deploy',
    '--namespace',
    n.name,
    // Sharded, the shard Leases come from the configuration (the sharding option is always on).
    ...(sharded ? [] : ['--leader-election']),
    '--image',
    `${n.name}:0.1.0`,
  ];
}

/** test/manifests.test.ts: fails while deploy/ differs from what \`npm run generate\` writes. */
export function manifestsTestFile(n: ProjectNames, sharded = false): string {
  return `import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// Compiled to dist/test/: the project is two levels up.
const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(dirname(fileURLToPath(import.meta.resolve('reconcilekit/package.json'))), 'bin/reconcilekit.js');

test('deploy/ is what npm run generate writes (run it after changing the kind or what the operator does)', async () => {
  const args = ${JSON.stringify(generateArgs(n, sharded)).replace(/"/g, "'").replace(/,/g, ', ')};
  const { stdout } = await promisify(execFile)(process.execPath, [cli, 'generate', ...args, '--check'], { cwd: root });
  assert.match(stdout, /up to date/);
});
`;
}

/**
 * test/sharding.test.ts of a sharded project (`init --sharded`): two replicas of the operator, sharded, on
 * one embedded API server — every object reconciled, each labelled with one of the two shards, and after
 * one replica stops the other reconciles them all.
 */
export function shardingTestFile(
  n: ProjectNames,
  frontEnd: 'framework' | 'controller' = 'framework',
): string {
  const type = frontEnd === 'controller' ? 'Controller' : 'Framework';
  return `import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import type { KubernetesObject, V1ConfigMap } from '@kubernetes/client-node';
import { silentLogger, type ${type} } from 'reconcilekit';
import { startTestEnvironment, waitFor, type TestEnvironment } from 'reconcilekit/testing';
import { createOperator, OPERATOR_NAME } from '../src/operator.js';
import type { ${n.kind} } from '../src/${n.singular}.js';

const CRD = fileURLToPath(new URL('../../deploy/crd.yaml', import.meta.url));
const ${n.camel}s = { apiVersion: '${n.apiVersion}', kind: '${n.kind}', plural: '${n.plural}', namespace: 'default' };
const configMaps = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: 'default' };
// The label the sharder writes: which replica's shard reconciles the object.
const SHARD_LABEL = \`shard.reconcilekit.io/\${OPERATOR_NAME}\`;
const NAMES = Array.from({ length: 20 }, (_, i) => \`s\${String(i)}\`);

let env: TestEnvironment;
const replicas: ${type}<${n.kind}>[] = [];

before(async () => {
  env = await startTestEnvironment({ crds: [CRD] });
  // Two replicas, as two pods would be (each its own identity); short Leases keep the test quick.
  for (const identity of ['replica-a', 'replica-b']) {
    const replica = createOperator({
      kubeConfig: env.kubeConfig,
      logger: silentLogger(),
      sharding: { leaseNamespace: 'default', identity, leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 },
    });
    await replica.start();
    replicas.push(replica);
  }
});

after(async () => {
  for (const replica of replicas) await replica.stop();
  await env.close();
});

async function messages(): Promise<Map<string, string | undefined>> {
  const list = await env.client.list<V1ConfigMap>(configMaps);
  return new Map(list.items.map((c) => [c.metadata?.name ?? '', c.data?.['message']]));
}

test('two sharded replicas split the ${n.plural}, and one takes all when the other stops', async () => {
  for (const name of NAMES) {
    await env.client.create({ ...${n.camel}s, metadata: { name, namespace: 'default' }, spec: { message: 'one' } } as KubernetesObject);
  }
  await waitFor(async () => {
    const seen = await messages();
    return NAMES.every((name) => seen.get(\`\${name}-${n.singular}\`) === 'one');
  }, { timeoutMs: 60_000, description: 'a ConfigMap for every ${n.kind}' });
  const labelled = await env.client.list<${n.kind}>(${n.camel}s);
  const shards = new Set(labelled.items.map((g) => g.metadata?.labels?.[SHARD_LABEL]));
  assert.equal(shards.size, 2, \`two shards share the ${n.plural}: \${[...shards].join(', ')}\`);

  // A graceful stop hands the stopped replica's objects to the other, which reconciles every change.
  await replicas[0]?.stop();
  for (const name of NAMES) await env.client.patch({ ...${n.camel}s, name }, { spec: { message: 'two' } }, 'merge');
  await waitFor(async () => {
    const seen = await messages();
    return NAMES.every((name) => seen.get(\`\${name}-${n.singular}\`) === 'two');
  }, { timeoutMs: 60_000, description: 'every ConfigMap updated by the remaining replica' });
});
`;
}
