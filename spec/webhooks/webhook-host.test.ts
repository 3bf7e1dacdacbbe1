// The webhook server in the hosts: startTestEnvironment serves and registers the operator's handlers
// (loopback TLS, a test CA) so a defaulter and a validator act on writes in a test with no setup; an
// Operator with `webhooks` starts the server before its controllers with a self-signed CA (node-forge),
// writes its webhook configuration with that caBundle, and reports the server in /readyz.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../lib/controller/controller.js';
import { InvalidConfigError } from '../../lib/errors/invalid-config-error.js';
import { silentLogger } from '../../lib/observability/logger-silent.js';
import { Operator } from '../../lib/operator/operator.js';
import { startTestEnvironment, type TestEnvironment } from '../../lib/testing/index.js';
import {
  AdmissionRejectedError,
  SelfSignedCertificates,
  WebhookCertificateIssuer,
  defaulter,
  validator,
} from '../../lib/webhooks/index.js';

type ConfigMap = {
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
};

const stamp = defaulter<ConfigMap>({
  group: '',
  versions: ['v1'],
  resource: 'configmaps',
  objectSelector: { matchLabels: { 'webhook-test': 'yes' } },
  default: (_ctx, cm) => {
    cm.data = { ...cm.data, stamped: 'true' };
    return cm;
  },
});
const noSecrets = validator<ConfigMap>({
  group: '',
  versions: ['v1'],
  resource: 'configmaps',
  objectSelector: { matchLabels: { 'webhook-test': 'yes' } },
  validateCreate: (_ctx, cm) => {
    if (cm.data?.password !== undefined) {
      throw AdmissionRejectedError.invalid([{ field: 'data.password', message: 'Forbidden: use a Secret' }]);
    }
    return undefined;
  },
});

let env: TestEnvironment;
const uniqueConfigName = `operator-test-${Math.random().toString(36).slice(2, 8)}`;

beforeAll(async () => {
  env = await startTestEnvironment({ webhooks: [stamp, noSecrets] });
});
afterAll(async () => {
  await env.close();
});

const configMap = (name: string, data: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', labels: { 'webhook-test': 'yes' } },
  data,
});

describe('webhooks in the test environment and the operator', () => {
  it('registers the handlers of startTestEnvironment: a defaulter stamps, a validator rejects', async () => {
    expect(env.webhookServer?.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    let created: ConfigMap | undefined;
    // A real kube-apiserver sees new webhook configurations after its informer catches up.
    for (let i = 0; i < 100 && created?.data?.stamped === undefined; i++) {
      created = await env.client.create(configMap(`stamped-${i}`, { a: '1' }));
      if (created.data?.stamped === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    expect(created?.data).toEqual({ a: '1', stamped: 'true' });
    await expect(env.client.create(configMap('leaky', { password: 'x' }))).rejects.toThrow(
      /admission webhook "configmaps-validate.reconcilekit.io" denied the request: .*data.password: Forbidden: use a Secret/,
    );
  });

  it('starts an Operator’s webhook server with a self-signed CA, registers it and reports it ready', async () => {
    const issuer = new WebhookCertificateIssuer('operator-test-ca');
    const operator = new Operator({
      kubeConfig: env.kubeConfig,
      healthServer: { host: '127.0.0.1', port: 0 },
      webhooks: {
        handlers: [
          validator<ConfigMap>({
            group: '',
            versions: ['v1'],
            resource: 'configmaps',
            name: 'operator-check.reconcilekit.io',
            objectSelector: { matchLabels: { 'operator-test': 'yes' } },
            validateCreate: () => {
              throw new AdmissionRejectedError('the operator says no');
            },
          }),
        ],
        host: '127.0.0.1',
        port: 0,
        certificates: new SelfSignedCertificates({ issuer, hosts: ['127.0.0.1'] }),
        configurationName: uniqueConfigName,
        register: true,
      },
    });
    await operator.start();
    try {
      expect(operator.webhooks?.caBundle).toBe(issuer.cert);
      expect(operator.webhooks?.notReadyReason).toBeUndefined();
      const config = (await env.client.get({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        name: uniqueConfigName,
      })) as unknown as { webhooks: { clientConfig: { url: string; caBundle: string } }[] };
      expect(config.webhooks[0]?.clientConfig.url).toBe(
        `${operator.webhooks?.server.url}/validate/core/configmaps`,
      );
      expect(Buffer.from(config.webhooks[0]?.clientConfig.caBundle ?? '', 'base64').toString()).toBe(
        issuer.cert,
      );
      let error: unknown;
      for (let i = 0; i < 100; i++) {
        error = await env.client
          .create({
            ...configMap(`op-${i}`, {}),
            metadata: { name: `op-${i}`, namespace: 'default', labels: { 'operator-test': 'yes' } },
          })
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        if (error !== undefined) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(String(error)).toContain(
        'admission webhook "operator-check.reconcilekit.io" denied the request: the operator says no',
      );
    } finally {
      await operator.stop();
      await env.client
        .delete({
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          name: uniqueConfigName,
        })
        .catch(() => undefined);
    }
    expect(operator.webhooks?.notReadyReason).toBe('webhook server stopping');
  });

  it('serves the webhooks of a Controller started alone: registered, checked in /readyz, stopped with it', async () => {
    const configurationName = `${uniqueConfigName}-alone`;
    const issuer = new WebhookCertificateIssuer('alone-test-ca');
    const reconciled: string[] = [];
    const controller = new Controller<ConfigMap & { apiVersion?: string; kind?: string }>({
      name: 'alone',
      kubeConfig: env.kubeConfig,
      logger: silentLogger(),
      finalizer: false,
      resource: { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: 'default' },
      healthServer: { host: '127.0.0.1', port: 0 },
      reconciler: async (_ctx, { object }) => void reconciled.push(object.metadata.name),
      webhooks: {
        handlers: [
          validator<ConfigMap>({
            group: '',
            versions: ['v1'],
            resource: 'configmaps',
            name: 'alone-check.reconcilekit.io',
            objectSelector: { matchLabels: { 'alone-test': 'yes' } },
            validateCreate: () => {
              throw new AdmissionRejectedError('the controller alone says no');
            },
          }),
        ],
        host: '127.0.0.1',
        port: 0,
        certificates: new SelfSignedCertificates({ issuer, hosts: ['127.0.0.1'] }),
        configurationName,
        register: true,
      },
    });
    expect(controller.webhooks).toBeUndefined();
    await controller.start();
    try {
      expect(controller.webhooks?.server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const readyz = await fetch(`${controller.healthUrl ?? ''}/readyz?verbose`);
      expect(await readyz.text()).toContain('[+]webhooks ok');
      let error: unknown;
      for (let i = 0; i < 100 && error === undefined; i++) {
        error = await env.client
          .create({
            ...configMap(`alone-${i}`, {}),
            metadata: { name: `alone-${i}`, namespace: 'default', labels: { 'alone-test': 'yes' } },
          })
          .then(
            async () => {
              await new Promise((r) => setTimeout(r, 100));
              return undefined;
            },
            (e: unknown) => e,
          );
      }
      expect(String(error)).toContain(
        'admission webhook "alone-check.reconcilekit.io" denied the request: the controller alone says no',
      );
    } finally {
      await controller.stop();
      await env.client
        .delete({
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          name: configurationName,
        })
        .catch(() => undefined);
    }
    expect(controller.webhooks?.notReadyReason).toBe('webhook server stopping');
  });

  it('refuses webhooks without handlers when the controller is built, and a controller with its own in an Operator', () => {
    const base = {
      name: 'refused',
      resource: { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' },
      kubeConfig: env.kubeConfig,
      reconciler: async () => {},
    };
    expect(() => new Controller({ ...base, webhooks: { handlers: [] } })).toThrow(
      /new Controller\(config\): webhooks must be \{ handlers: \[.*at least one handler/,
    );
    const withWebhooks = new Controller({ ...base, webhooks: { handlers: [stamp], port: 0 } });
    const operator = new Operator({ kubeConfig: env.kubeConfig });
    expect(() => {
      operator.addController(withWebhooks);
    }).toThrow(InvalidConfigError);
    expect(() => {
      operator.addController(withWebhooks);
    }).toThrow(/controller "refused" has webhooks of its own.*new Operator\(\{ webhooks/);
  });
});
