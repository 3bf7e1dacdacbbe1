// The kinds operators manage, served and stored with their schemas, `kubectl apply --prune`, and the review
// APIs behind `kubectl auth can-i` / `kubectl auth whoami`. Runs on the embedded server and, under
// RECONCILEKIT_E2E (make test-real), on kube-apiserver v1.34 with the same expectations, except where the
// embedded server's allow-all authorizer differs from RBAC (skipped there, named below).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeApi, type KubeApi } from '../support/kube-api.js';
import { E2E, kubectl, startTarget, uniqueName, type Target } from '../support/target.js';

let target: Target;
let api: KubeApi;
const ns = uniqueName('kinds');
const suffix = ns.slice('kinds-'.length);

beforeAll(async () => {
  // Client certificates: the kubeconfig carries the admin certificate, as the real backend's does.
  target = await startTarget({ tls: { clientCertificates: true } });
  api = kubeApi(target);
  const r = await kubectl(target, ['create', 'namespace', ns]);
  expect(r.stderr).toBe('');
}, 30_000);

afterAll(async () => {
  await kubectl(target, ['delete', '-f', '-', '--ignore-not-found', '--wait=false'], manifests(), 60_000);
  // kube-apiserver's StorageObjectInUseProtection admission put pvc-/pv-protection finalizers on them, which
  // only kube-controller-manager removes: drop them so a shared real server keeps no Terminating volumes.
  for (const args of [
    ['persistentvolumeclaim', 'claim', '-n', ns],
    ['persistentvolume', `volume-${suffix}`],
  ]) {
    await kubectl(target, ['patch', ...args, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
  }
  await kubectl(target, ['delete', 'namespace', ns, '--wait=false']);
  await target.close();
}, 90_000);

const container = { name: 'c', image: 'busybox' };
const labels = { app: 'kinds' };

/** One valid object per kind (kube-apiserver validates each); cluster-scoped names carry the run's suffix. */
function objects(): Record<string, unknown>[] {
  const meta = (name: string) => ({ name, namespace: ns });
  const cluster = (name: string) => ({ name: `${name}-${suffix}` });
  return [
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: meta('claim'),
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    },
    {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: cluster('volume'),
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/v' } },
    },
    {
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: meta('rc'),
      spec: {
        replicas: 0,
        selector: labels,
        template: { metadata: { labels }, spec: { containers: [container] } },
      },
    },
    { apiVersion: 'v1', kind: 'Node', metadata: cluster('node') },
    {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: meta('cron'),
      spec: {
        schedule: '*/5 * * * *',
        jobTemplate: {
          spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [container] } } },
        },
      },
    },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: meta('ing'),
      spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
    },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: cluster('ingclass'),
      spec: { controller: 'example.com/ingress' },
    },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: meta('netpol'),
      spec: { podSelector: {} },
    },
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: meta('pdb'),
      spec: { minAvailable: 1, selector: { matchLabels: labels } },
    },
    {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: meta('hpa'),
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: 1,
        maxReplicas: 3,
        metrics: [
          {
            type: 'Resource',
            resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } },
          },
        ],
      },
    },
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: cluster('sc'),
      provisioner: 'example.com/none',
    },
    {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: cluster('prio'),
      value: 1000,
    },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: meta('slice'),
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.1'] }],
      ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
    },
    ...['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'].map((kind) => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind,
      metadata: cluster(kind.toLowerCase()),
      // Matches no request: the shared real server must not call a webhook that does not exist.
      webhooks: [
        {
          name: 'never.example.com',
          clientConfig: { url: 'https://example.com/hook' },
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Ignore',
          rules: [
            {
              operations: ['CREATE'],
              apiGroups: ['never.example.com'],
              apiVersions: ['v1'],
              resources: ['nothings'],
            },
          ],
        },
      ],
    })),
  ];
}

function manifests(): string {
  return objects()
    .map((o) => JSON.stringify(o))
    .join('\n');
}

const RESOURCES: Record<string, string> = {
  PersistentVolumeClaim: 'persistentvolumeclaims',
  PersistentVolume: 'persistentvolumes',
  ReplicationController: 'replicationcontrollers',
  Node: 'nodes',
  CronJob: 'cronjobs.batch',
  Ingress: 'ingresses.networking.k8s.io',
  IngressClass: 'ingressclasses.networking.k8s.io',
  NetworkPolicy: 'networkpolicies.networking.k8s.io',
  PodDisruptionBudget: 'poddisruptionbudgets.policy',
  HorizontalPodAutoscaler: 'horizontalpodautoscalers.autoscaling',
  StorageClass: 'storageclasses.storage.k8s.io',
  PriorityClass: 'priorityclasses.scheduling.k8s.io',
  EndpointSlice: 'endpointslices.discovery.k8s.io',
  MutatingWebhookConfiguration: 'mutatingwebhookconfigurations.admissionregistration.k8s.io',
  ValidatingWebhookConfiguration: 'validatingwebhookconfigurations.admissionregistration.k8s.io',
};

describe('the kinds operators manage', () => {
  it('are in discovery (kubectl api-resources), with the review APIs as create-only', async () => {
    const r = await kubectl(target, ['api-resources', '-o', 'name']);
    expect(r.code, r.stderr).toBe(0);
    const names = r.stdout.split('\n');
    for (const name of Object.values(RESOURCES)) expect(names, name).toContain(name);
    const wide = await kubectl(target, ['api-resources', '--api-group=authorization.k8s.io', '-o', 'wide']);
    for (const review of ['selfsubjectaccessreviews', 'selfsubjectrulesreviews', 'subjectaccessreviews']) {
      expect(wide.stdout).toMatch(new RegExp(`^${review}\\s.*\\screate\\s*$`, 'm'));
    }
    const authn = await kubectl(target, ['api-resources', '--api-group=authentication.k8s.io', '-o', 'name']);
    expect(authn.stdout.split('\n')).toEqual(
      expect.arrayContaining([
        'selfsubjectreviews.authentication.k8s.io',
        'tokenreviews.authentication.k8s.io',
      ]),
    );
  });

  it('are stored with their schemas: kubectl apply creates each, get reads it back', async () => {
    const applied = await kubectl(target, ['apply', '-f', '-'], manifests(), 60_000);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    for (const o of objects() as { kind: string; metadata: { name: string; namespace?: string } }[]) {
      const args = ['get', `${RESOURCES[o.kind]}/${o.metadata.name}`, '-o', 'json'];
      if (o.metadata.namespace !== undefined) args.push('-n', o.metadata.namespace);
      const got = await kubectl(target, args);
      expect(got.code, `${o.kind}: ${got.stderr}`).toBe(0);
      expect(JSON.parse(got.stdout)).toMatchObject({ kind: o.kind, metadata: { name: o.metadata.name } });
    }
    // The schema applies: strict field validation rejects a field PersistentVolumeClaimSpec does not have.
    const strict = await kubectl(
      target,
      ['apply', '--validate=strict', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'strict', namespace: ns },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, sise: 1 },
      }),
    );
    expect(strict.code).not.toBe(0);
    expect(strict.stderr).toContain('unknown field "spec.sise"');
  }, 60_000);

  it('kubectl apply --prune deletes what left the manifest set', async () => {
    const app = uniqueName('prune');
    const doc = (kind: string, name: string, extra: Record<string, unknown>) =>
      JSON.stringify({
        kind,
        metadata: { name, namespace: ns, labels: { prune: app } },
        ...extra,
      });
    const cm = doc('ConfigMap', `${app}-keep`, { apiVersion: 'v1', data: { a: '1' } });
    const cron = doc('CronJob', `${app}-gone`, {
      apiVersion: 'batch/v1',
      spec: {
        schedule: '@daily',
        jobTemplate: {
          spec: { template: { spec: { restartPolicy: 'Never', containers: [container] } } },
        },
      },
    });
    const first = await kubectl(target, ['apply', '-n', ns, '-f', '-'], `${cm}\n${cron}`);
    expect(first.code, first.stderr).toBe(0);
    const pruned = await kubectl(
      target,
      ['apply', '-n', ns, '--prune', '-l', `prune=${app}`, '-f', '-'],
      cm,
      30_000,
    );
    expect(pruned.stderr).not.toMatch(/error/i);
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toContain(`cronjob.batch/${app}-gone pruned`);
    const gone = await kubectl(target, ['get', 'cronjob', `${app}-gone`, '-n', ns]);
    expect(gone.stderr).toContain('NotFound');
    const kept = await kubectl(target, ['get', 'configmap', `${app}-keep`, '-n', ns]);
    expect(kept.code).toBe(0);
  }, 60_000);
});

describe('the review APIs', () => {
  it('kubectl auth can-i create pods prints yes; kubectl auth whoami prints the user', async () => {
    const canI = await kubectl(target, ['auth', 'can-i', 'create', 'pods']);
    expect(canI.stdout.trim()).toBe('yes');
    const whoami = await kubectl(target, ['auth', 'whoami', '-o', 'json']);
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(JSON.parse(whoami.stdout).status.userInfo).toMatchObject({
      username: 'reconcilekit-admin',
      groups: ['system:masters', 'system:authenticated'],
    });
  });

  it('kubectl explain describes them (their schemas are served under /openapi/v3)', async () => {
    for (const [resource, field] of [
      ['subjectaccessreviews', 'spec.user'],
      ['tokenreviews', 'spec.token'],
      ['selfsubjectaccessreviews', 'spec.resourceAttributes'],
      ['ingresses', 'spec.rules'],
    ] as const) {
      const r = await kubectl(target, ['explain', `${resource}.${field}`]);
      expect(r.code, `${resource}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toContain(`FIELD: ${field.split('.').pop() ?? ''}`);
    }
  });

  it('answer 201 with the status, store nothing, and are create-only (installer.go: 405, named 404)', async () => {
    const ssar = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
    const r = await api('POST', ssar, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'delete', resource: 'secrets', namespace: ns } },
    });
    expect(r.status).toBe(201);
    expect(r.body.status).toEqual({ allowed: true });
    const list = await api('GET', ssar);
    expect(list.status).toBe(405);
    expect(list.body.message).toBe('the server does not allow this method on the requested resource');
    const named = await api('GET', `${ssar}/anything`);
    expect(named.status).toBe(404);
    const rules = await api('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace: ns },
    });
    expect(rules.status).toBe(201);
    expect(rules.body.status.resourceRules).toContainEqual({
      verbs: ['*'],
      apiGroups: ['*'],
      resources: ['*'],
    });
  });

  it('validate the spec as kube does (pkg/apis/authorization/validation, selfsubjectrulesreview/rest.go)', async () => {
    const none = await api('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: {},
    });
    expect(none.status).toBe(422);
    expect(none.body.message).toBe(
      '.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
    const noUser = await api('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { resourceAttributes: { verb: 'get', resource: 'pods' } },
    });
    expect(noUser.status).toBe(422);
    expect(noUser.body.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "": at least one of user or group must be specified',
        field: 'spec.user',
      },
    ]);
    const noNamespace = await api('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: {},
    });
    expect(noNamespace.status).toBe(400);
    expect(noNamespace.body.message).toBe('no namespace on request');
    const noToken = await api('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: {},
    });
    expect(noToken.status).toBe(400);
    expect(noToken.body.message).toBe('token is required for TokenReview in authentication');
    const badToken = await api('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token: 'not-a-token' },
    });
    expect(badToken.status).toBe(201);
    expect(badToken.body.status).toEqual({ user: {}, error: 'invalid bearer token' });
  });

  // Embedded only: its authorizer allows everything, so another user's SubjectAccessReview is allowed too;
  // kube-apiserver's RBAC denies a user no binding names (documented in docs/apiserver.md).
  it.skipIf(E2E)('allow every subject (the embedded server has no authorization)', async () => {
    const r = await api('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'bob', resourceAttributes: { verb: 'delete', resource: 'nodes' } },
    });
    expect(r.status).toBe(201);
    expect(r.body.status).toEqual({ allowed: true });
  });
});

describe('deletion answers', () => {
  // pkg/registry/core/{service,persistentvolume,persistentvolumeclaim}/storage and
  // storage/storageclass/storage set ReturnDeletedObject: DELETE answers the object, not a Status.
  it('DELETE of a Service and a StorageClass answers the deleted object', async () => {
    const svc = await api('POST', `/api/v1/namespaces/${ns}/services`, {
      metadata: { name: 'gone' },
      spec: { ports: [{ port: 80 }] },
    });
    expect(svc.status).toBe(201);
    const deleted = await api('DELETE', `/api/v1/namespaces/${ns}/services/gone`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ kind: 'Service', metadata: { name: 'gone' } });
    const sc = `gone-${suffix}`;
    expect(
      (
        await api('POST', '/apis/storage.k8s.io/v1/storageclasses', {
          metadata: { name: sc },
          provisioner: 'x',
        })
      ).status,
    ).toBe(201);
    const scDeleted = await api('DELETE', `/apis/storage.k8s.io/v1/storageclasses/${sc}`);
    expect(scDeleted.body).toMatchObject({ kind: 'StorageClass', metadata: { name: sc } });
  });
});
