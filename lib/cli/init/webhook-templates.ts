// `init --webhooks`: a defaulter, a validator and a converter (the kind's older version to and from its
// storage version) for the scaffolded kind, their test on
// startTestEnvironment({ webhooks }), main.ts running them under an Operator, and the Service and RBAC
// they need in a cluster (docs/webhooks.md).
import type { ProjectNames } from './project-names.js';
import { olderVersion } from './source-templates.js';

/** Port of the webhook server in the pod (DEFAULT_WEBHOOK_PORT); the Service maps 443 to it. */
export const WEBHOOK_PORT = 9443;

export function webhooksFile(n: ProjectNames): string {
  const older = olderVersion(n.version);
  return `import { AdmissionRejectedError, converter, defaulter, validator, type WebhookHandler } from 'reconcilekit';
import type { ${n.kind} } from './${n.singular}.js';

/** Longest message accepted (the CRD allows more; the operator's rule is stricter). */
export const MAX_MESSAGE_LENGTH = 200;
export const DEFAULT_MESSAGE = 'Hello!';

/**
 * Mutating webhook: a ${n.kind} without a message gets DEFAULT_MESSAGE. It runs before the API server
 * validates the schema, so a ${n.kind} created without the (required) message is accepted with it.
 */
export const default${n.kind} = defaulter<${n.kind}>({
  group: '${n.group}',
  versions: ['${n.version}'],
  resource: '${n.plural}',
  default: (_ctx, ${n.camel}) => {
    const message = ${n.camel}.spec?.message?.trim() ?? '';
    ${n.camel}.spec = { ...${n.camel}.spec, message: message === '' ? DEFAULT_MESSAGE : message };
    return ${n.camel};
  },
});

/**
 * Validating webhook: a message longer than MAX_MESSAGE_LENGTH is refused, naming the field (kubectl prints
 * it); one in capitals only is let through with a warning (kubectl prints it on stderr).
 */
export const validate${n.kind} = validator<${n.kind}>({
  group: '${n.group}',
  versions: ['${n.version}'],
  resource: '${n.plural}',
  validateCreate: (ctx, ${n.camel}) => check(${n.camel}, ctx.warn),
  validateUpdate: (ctx, _old, ${n.camel}) => check(${n.camel}, ctx.warn),
});

function check(${n.camel}: ${n.kind}, warn: (text: string) => void): undefined {
  const message = ${n.camel}.spec.message;
  if (message.length > MAX_MESSAGE_LENGTH) {
    throw AdmissionRejectedError.invalid([
      { field: 'spec.message', message: \`Too long: may not be longer than \${MAX_MESSAGE_LENGTH}\` },
    ]);
  }
  if (/[A-Z]/.test(message) && message === message.toUpperCase()) warn('spec.message is all capitals');
  return undefined;
}

/**
 * Conversion webhook: ${older} calls the message \`text\`. The API server stores ${n.version} and asks this
 * webhook for ${older} whenever a client reads or writes it (hub and spoke: ${n.version} is the hub).
 */
export const convert${n.kind} = converter({
  group: '${n.group}',
  kind: '${n.kind}',
  resource: '${n.plural}',
  hub: '${n.version}',
  spokes: {
    '${older}': {
      toHub: ({ spec, ...rest }) => {
        const { text, ...others } = (spec ?? {}) as { text?: string };
        return { ...rest, spec: { ...others, message: text } };
      },
      fromHub: ({ spec, ...rest }) => {
        const { message, ...others } = (spec ?? {}) as { message?: string };
        return { ...rest, spec: { ...others, text: message } };
      },
    },
  },
});

/** Every webhook of the operator: main.ts serves them, test/webhooks.test.ts registers them. */
export const webhooks: WebhookHandler[] = [default${n.kind}, validate${n.kind}, convert${n.kind}];
`;
}

export function webhooksTestFile(n: ProjectNames): string {
  return `import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import { startTestEnvironment, type TestEnvironment } from 'reconcilekit/testing';
import { DEFAULT_MESSAGE, MAX_MESSAGE_LENGTH, webhooks } from '../src/webhooks.js';
import { ${n.kind} } from '../src/${n.singular}.js';

const CRD = fileURLToPath(new URL('../../deploy/crd.yaml', import.meta.url));

let env: TestEnvironment;

before(async () => {
  // The webhooks are served on 127.0.0.1 with a test CA and registered with the API server: no setup.
  env = await startTestEnvironment({ crds: [CRD], webhooks });
});

after(async () => {
  await env.close();
});

const ${n.camel} = (name: string, spec: Record<string, unknown>) =>
  ({ apiVersion: '${n.apiVersion}', kind: '${n.kind}', metadata: { name, namespace: 'default' }, spec }) as KubernetesObject;

test('defaults a missing message', async () => {
  const created = (await env.client.create(${n.camel}('defaulted', {}))) as ${n.kind};
  assert.equal(created.spec.message, DEFAULT_MESSAGE);
});

test('refuses a message that is too long, naming the field', async () => {
  await assert.rejects(
    env.client.create(${n.camel}('too-long', { message: 'x'.repeat(MAX_MESSAGE_LENGTH + 1) })),
    /denied the request: .*spec\\.message: Too long/,
  );
});

test('converts: written as ${olderVersion(n.version)} (text), read as ${n.version} (message), and back', async () => {
  await env.client.of(${n.kind}.versions['${olderVersion(n.version)}'], 'default').create({
    metadata: { name: 'older' },
    spec: { text: 'from ${olderVersion(n.version)}' },
  });
  const stored = await env.client.of(${n.kind}, 'default').get('older');
  assert.equal(stored.spec.message, 'from ${olderVersion(n.version)}');
  await env.client.of(${n.kind}, 'default').patch('older', { spec: { message: 'from ${n.version}' } });
  const older = await env.client.of(${n.kind}.versions['${olderVersion(n.version)}'], 'default').get('older');
  assert.equal(older.spec.text, 'from ${n.version}');
});
`;
}

/** src/main.ts of a project with webhooks: the operator runs under an Operator that serves them. */
export function webhookMainFile(_n: ProjectNames): string {
  return `import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { createLogger, Operator, runUntilSignal } from 'reconcilekit';
import { createOperator, OPERATOR_NAME } from './operator.js';
import { webhooks } from './webhooks.js';

const logger = createLogger({ defaultMeta: { operator: OPERATOR_NAME } });

// HEALTH_ADDRESS (host:port, set in deploy/operator.yaml) serves /healthz, /readyz and /metrics; off when unset.
const [host, port] = (process.env['HEALTH_ADDRESS'] ?? '').split(':');
// POD_NAMESPACE (set in deploy/operator.yaml) turns on leader election: one replica reconciles at a time.
const namespace = process.env['POD_NAMESPACE'];
const identity = process.env['POD_NAME'];

// Exported, not started: \`reconcilekit plan dist/src/main.js\` imports this module to plan what it would change.
export const operator = new Operator({
  logger,
  healthServer: host && port ? { host, port: Number(port) } : false,
  leaderElection: namespace ? { leaseName: OPERATOR_NAME, namespace, ...(identity ? { identity } : {}) } : false,
  // The webhook server (port ${WEBHOOK_PORT}) behind the Service of deploy/webhooks.yaml: the operator makes a CA,
  // a certificate for the Service's names, and writes its webhook configurations with that CA at start.
  // Under \`reconcilekit dev\` it serves on 127.0.0.1 and registers with the embedded API server instead.
  webhooks: { handlers: webhooks, service: { name: OPERATOR_NAME, namespace: namespace ?? OPERATOR_NAME } },
});
operator.addController(createOperator({ logger }));

// Run as the process (node dist/src/main.js): start, and on SIGTERM/SIGINT stop taking work, let in-flight
// reconciles finish, release the Lease, exit 0.
const main = process.argv[1];
if (main !== undefined && import.meta.url === pathToFileURL(realpathSync(main)).href) {
  await runUntilSignal(operator, { logger });
}
`;
}

/** deploy/webhooks.yaml: the Service the API server calls, and the RBAC to register the webhooks. */
export function webhookDeployFile(n: ProjectNames): string {
  return `# The webhook server (docs/webhooks.md): the API server calls it through this Service; the operator
# writes its Mutating- and ValidatingWebhookConfiguration (named ${n.name}-webhooks) at start, with the CA
# it made as caBundle.
apiVersion: v1
kind: Service
metadata:
  name: ${n.name}
  namespace: ${n.name}
spec:
  selector:
    app.kubernetes.io/name: ${n.name}
  ports:
    - name: webhooks
      port: 443
      targetPort: webhooks
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ${n.name}-webhooks
rules:
  # Server-side apply of the operator's webhook configurations: create the first time, patch after.
  - apiGroups: [admissionregistration.k8s.io]
    resources: [mutatingwebhookconfigurations, validatingwebhookconfigurations]
    verbs: [create, patch]
  # The converter: the CRD's spec.conversion points at this Service, with the CA (a merge patch at start).
  - apiGroups: [apiextensions.k8s.io]
    resources: [customresourcedefinitions]
    resourceNames: [${n.plural}.${n.group}]
    verbs: [patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: ${n.name}-webhooks
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: ${n.name}-webhooks
subjects:
  - kind: ServiceAccount
    name: ${n.name}
    namespace: ${n.name}
`;
}
