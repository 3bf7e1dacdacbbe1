// Namespace and workload behaviours tests rely on: graceful deletion of Pods bound to a node
// (kube-apiserver: pkg/registry/core/pod/strategy.go CheckGracefulDelete, apiserver rest/delete.go
// BeforeDelete), and the parts kube-controller-manager plays — the default ServiceAccount and
// kube-root-ca.crt in every namespace, the namespace deletion conditions, a Deployment's status. The
// real backend runs kube-apiserver alone (no kube-controller-manager, no kubelet), so the spec checks the
// apiserver part on both and skips the controller-manager part there, citing the kube source it follows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeApi, type KubeApi } from '../support/kube-api.js';
import { E2E, eventually, kubectl, startTarget, uniqueName, type Target } from '../support/target.js';

let target: Target;
let api: KubeApi;
const ns = uniqueName('nsctl');

beforeAll(async () => {
  target = await startTarget({
    tls: { clientCertificates: true },
    namespaceDefaults: true,
    deploymentStatus: true,
  });
  api = kubeApi(target);
  const r = await api('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  expect(r.status).toBe(201);
}, 30_000);

afterAll(async () => {
  await api('DELETE', `/api/v1/namespaces/${ns}`);
  await target.close();
});

const pods = `/api/v1/namespaces/${ns}/pods`;

function pod(name: string, spec: Record<string, unknown> = {}): Record<string, unknown> {
  return { metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec } };
}

describe('graceful deletion of Pods', () => {
  it('marks a Pod bound to a node with deletionTimestamp = now + grace period instead of removing it', async () => {
    const created = await api(
      'POST',
      pods,
      pod('bound', { nodeName: 'node-1', terminationGracePeriodSeconds: 2 }),
    );
    expect(created.status).toBe(201);
    const before = Date.now();
    const r = await api('DELETE', `${pods}/bound`);
    expect(r.status).toBe(200);
    expect(r.body.metadata.deletionGracePeriodSeconds).toBe(2);
    const due = Date.parse(r.body.metadata.deletionTimestamp);
    // Second precision: due is now + 2 s, rounded down to the second.
    expect(due).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 1000);
    expect(due).toBeLessThanOrEqual(Date.now() + 2000);
    const still = await api('GET', `${pods}/bound`);
    expect(still.status).toBe(200);
    // A longer grace period changes nothing; a shorter one moves the deadline (rest/delete.go).
    const longer = await api('DELETE', `${pods}/bound?gracePeriodSeconds=60`);
    expect(longer.status, longer.text).toBe(200);
    expect(longer.body.metadata.deletionGracePeriodSeconds).toBe(2);
    const shorter = await api('DELETE', `${pods}/bound?gracePeriodSeconds=1`);
    expect(shorter.body.metadata.deletionGracePeriodSeconds).toBe(1);
  });

  // Embedded only: the kubelet removes a Pod once its containers stopped; kube-apiserver alone keeps it.
  it.skipIf(E2E)(
    'removes the Pod when the grace period ends (the kubelet’s part)',
    async () => {
      await eventually(async () => (await api('GET', `${pods}/bound`)).status === 404, 15_000, 'pod removed');
    },
    20_000,
  );

  it('deletes at once a Pod bound to no node, and a bound one with gracePeriodSeconds=0', async () => {
    expect((await api('POST', pods, pod('unbound'))).status).toBe(201);
    const unbound = await api('DELETE', `${pods}/unbound`);
    expect(unbound.status).toBe(200);
    expect((await api('GET', `${pods}/unbound`)).status).toBe(404);
    expect((await api('POST', pods, pod('now', { nodeName: 'node-1' }))).status).toBe(201);
    const now = await api('DELETE', `${pods}/now?gracePeriodSeconds=0`);
    expect(now.status).toBe(200);
    expect((await api('GET', `${pods}/now`)).status).toBe(404);
  });
});

// kube-controller-manager: pkg/controller/serviceaccount/serviceaccounts_controller.go and
// pkg/controller/certificates/rootcacertpublisher/publisher.go (the embedded server with namespaceDefaults).
describe.skipIf(E2E)('namespace defaults (kube-controller-manager)', () => {
  it('puts a default ServiceAccount and kube-root-ca.crt with the server CA in every namespace', async () => {
    const ca = target.server?.certificateAuthority?.cert;
    expect(ca).toContain('BEGIN CERTIFICATE');
    for (const namespace of [ns, 'default', 'kube-system']) {
      await eventually(
        async () =>
          (await api('GET', `/api/v1/namespaces/${namespace}/serviceaccounts/default`)).status === 200,
        5000,
        `default ServiceAccount in ${namespace}`,
      );
      const cm = await api('GET', `/api/v1/namespaces/${namespace}/configmaps/kube-root-ca.crt`);
      expect(cm.status).toBe(200);
      expect(cm.body.data).toEqual({ 'ca.crt': ca });
    }
  });

  it('recreates them when deleted, and puts the CA back when kube-root-ca.crt is changed', async () => {
    expect((await api('DELETE', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status).toBe(200);
    expect((await api('DELETE', `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`)).status).toBe(200);
    await eventually(
      async () =>
        (await api('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status === 200 &&
        (await api('GET', `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`)).status === 200,
      5000,
      'recreated',
    );
    const patched = await api(
      'PATCH',
      `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`,
      { data: { 'ca.crt': 'tampered' } },
      'application/merge-patch+json',
    );
    expect(patched.status).toBe(200);
    await eventually(
      async () =>
        (await api('GET', `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`)).body.data['ca.crt'] !==
        'tampered',
      5000,
      'CA restored',
    );
  });

  it('kubectl get serviceaccounts lists default in a new namespace', async () => {
    const fresh = uniqueName('fresh');
    expect((await kubectl(target, ['create', 'namespace', fresh])).code).toBe(0);
    await eventually(
      async () =>
        (await kubectl(target, ['get', 'sa', '-n', fresh, '-o', 'name'])).stdout.trim() ===
        'serviceaccount/default',
      5000,
      'default ServiceAccount listed',
    );
    await kubectl(target, ['delete', 'namespace', fresh, '--wait=false']);
  });
});

// kube-controller-manager's namespace controller: pkg/controller/namespace/deletion/status_condition_utils.go.
describe.skipIf(E2E)('namespace deletion conditions (kube-controller-manager)', () => {
  it('reports the content and finalizers that remain while the namespace terminates', async () => {
    const doomed = uniqueName('doomed');
    expect((await api('POST', '/api/v1/namespaces', { metadata: { name: doomed } })).status).toBe(201);
    const held = await api('POST', `/api/v1/namespaces/${doomed}/configmaps`, {
      metadata: { name: 'held', finalizers: ['example.com/hold'] },
    });
    expect(held.status).toBe(201);
    expect((await api('DELETE', `/api/v1/namespaces/${doomed}`)).status).toBe(200);
    let conditions: Record<string, any>[] = [];
    await eventually(
      async () => {
        const r = await api('GET', `/api/v1/namespaces/${doomed}`);
        conditions = r.body.status?.conditions ?? [];
        return conditions.some((c) => c.type === 'NamespaceFinalizersRemaining');
      },
      5000,
      'conditions',
    );
    const summary = conditions.map(({ type, status, reason, message }) => ({
      type,
      status,
      reason,
      message,
    }));
    expect(summary).toEqual([
      {
        type: 'NamespaceDeletionDiscoveryFailure',
        status: 'False',
        reason: 'ResourcesDiscovered',
        message: 'All resources successfully discovered',
      },
      {
        type: 'NamespaceDeletionGroupVersionParsingFailure',
        status: 'False',
        reason: 'ParsedGroupVersions',
        message: 'All legacy kube types successfully parsed',
      },
      {
        type: 'NamespaceDeletionContentFailure',
        status: 'False',
        reason: 'ContentDeleted',
        message: 'All content successfully deleted, may be waiting on finalization',
      },
      {
        type: 'NamespaceContentRemaining',
        status: 'True',
        reason: 'SomeResourcesRemain',
        message: 'Some resources are remaining: configmaps. has 1 resource instances',
      },
      {
        type: 'NamespaceFinalizersRemaining',
        status: 'True',
        reason: 'SomeFinalizersRemain',
        message:
          'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
      },
    ]);
    for (const c of conditions) expect(Date.parse(c.lastTransitionTime)).not.toBeNaN();
    const released = await api(
      'PATCH',
      `/api/v1/namespaces/${doomed}/configmaps/held`,
      { metadata: { finalizers: null } },
      'application/merge-patch+json',
    );
    expect(released.status).toBe(200);
    await eventually(
      async () => (await api('GET', `/api/v1/namespaces/${doomed}`)).status === 404,
      5000,
      'gone',
    );
  });
});

// kube-controller-manager's deployment controller: pkg/controller/deployment/sync.go (calculateStatus).
describe.skipIf(E2E)('Deployment status (kube-controller-manager)', () => {
  it('kubectl rollout status finishes for a 0-replica Deployment; more replicas stay unavailable', async () => {
    const created = await kubectl(target, [
      'create',
      'deployment',
      'zero',
      '-n',
      ns,
      '--image=busybox',
      '--replicas=0',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const rollout = await kubectl(
      target,
      ['rollout', 'status', 'deployment/zero', '-n', ns, '--timeout=20s'],
      undefined,
      30_000,
    );
    expect(rollout.stdout).toContain('deployment "zero" successfully rolled out');
    const wait = await kubectl(target, [
      'wait',
      '--for=condition=Available',
      'deployment/zero',
      '-n',
      ns,
      '--timeout=10s',
    ]);
    expect(wait.code, wait.stderr).toBe(0);
    const got = await api('GET', `/apis/apps/v1/namespaces/${ns}/deployments/zero`);
    expect(got.body.status.observedGeneration).toBe(got.body.metadata.generation);
    const scaled = await kubectl(target, ['scale', 'deployment/zero', '-n', ns, '--replicas=2']);
    expect(scaled.code).toBe(0);
    await eventually(
      async () => {
        const d = await api('GET', `/apis/apps/v1/namespaces/${ns}/deployments/zero`);
        return d.body.status.observedGeneration === d.body.metadata.generation;
      },
      5000,
      'observed',
    );
    const after = await api('GET', `/apis/apps/v1/namespaces/${ns}/deployments/zero`);
    expect(after.body.status).toMatchObject({
      unavailableReplicas: 2,
      conditions: [{ type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable' }],
    });
  }, 60_000);
});
