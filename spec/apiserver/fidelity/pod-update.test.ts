// A Pod's spec after creation (ValidatePodUpdate, k8s.io/kubernetes/pkg/apis/core/validation/validation.go):
// container images, activeDeadlineSeconds, added tolerations, removed scheduling gates may change; anything
// else is a 422 Forbidden on `spec`. kube appends a Go struct diff to that message, which this server does
// not reproduce (it names the changed fields), so the spec checks the text up to the diff.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeApi, type KubeApi } from '../support/kube-api.js';
import { startTarget, uniqueName, type Target } from '../support/target.js';

const PODS = '/api/v1/namespaces/default/pods';
const SMP = 'application/strategic-merge-patch+json';
const FORBIDDEN =
  'Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n';
let target: Target;
let api: KubeApi;

beforeAll(async () => {
  target = await startTarget();
  api = kubeApi(target);
});

afterAll(async () => {
  await target.close();
});

async function gatedPod(): Promise<string> {
  const name = uniqueName('pod');
  const r = await api('POST', PODS, {
    metadata: { name },
    spec: {
      schedulingGates: [{ name: 'example.com/a' }],
      tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }],
      containers: [{ name: 'c', image: 'busybox', ports: [{ containerPort: 80 }] }],
    },
  });
  expect(r.status, r.text).toBe(201);
  return name;
}

describe('updating a Pod', () => {
  it('allows an image change, an added toleration and a removed gate', async () => {
    const name = await gatedPod();
    const r = await api(
      'PATCH',
      `${PODS}/${name}`,
      {
        spec: {
          schedulingGates: [{ name: 'example.com/a', $patch: 'delete' }],
          containers: [{ name: 'c', image: 'busybox:1.36' }],
          // tolerations replace as a whole (no merge key): the three it has, plus one.
          tolerations: [
            { key: 'k', operator: 'Exists', effect: 'NoSchedule' },
            {
              key: 'node.kubernetes.io/not-ready',
              operator: 'Exists',
              effect: 'NoExecute',
              tolerationSeconds: 300,
            },
            {
              key: 'node.kubernetes.io/unreachable',
              operator: 'Exists',
              effect: 'NoExecute',
              tolerationSeconds: 300,
            },
            { key: 'other', operator: 'Exists' },
          ],
          activeDeadlineSeconds: 600,
        },
      },
      SMP,
    );
    expect(r.status, r.text).toBe(200);
    const spec = (r.body as Record<string, any>).spec;
    expect(spec.containers[0].image).toBe('busybox:1.36');
    expect(spec.schedulingGates).toBeUndefined();
    // The two added by the DefaultTolerationSeconds admission plugin at creation, then the new one.
    expect(spec.tolerations).toEqual([
      { key: 'k', operator: 'Exists', effect: 'NoSchedule' },
      {
        key: 'node.kubernetes.io/not-ready',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 300,
      },
      {
        key: 'node.kubernetes.io/unreachable',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 300,
      },
      { key: 'other', operator: 'Exists' },
    ]);
    expect(spec.activeDeadlineSeconds).toBe(600);
  });

  it('refuses a new scheduling gate', async () => {
    const name = await gatedPod();
    const r = await api(
      'PATCH',
      `${PODS}/${name}`,
      { spec: { schedulingGates: [{ name: 'example.com/b' }] } },
      SMP,
    );
    expect(r.status, r.text).toBe(422);
    expect((r.body as Record<string, any>).details.causes).toContainEqual({
      reason: 'FieldValueForbidden',
      message: "Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/b'",
      field: 'spec.schedulingGates[0].name',
    });
  });

  it('refuses a changed container port or restart policy with Forbidden on spec', async () => {
    const name = await gatedPod();
    for (const patch of [
      { spec: { containers: [{ name: 'c', ports: [{ containerPort: 81 }] }] } },
      { spec: { restartPolicy: 'Never' } },
    ]) {
      const r = await api('PATCH', `${PODS}/${name}`, patch, SMP);
      expect(r.status, r.text).toBe(422);
      const causes = (r.body as Record<string, any>).details.causes as { field: string; message: string }[];
      expect(causes).toHaveLength(1);
      expect(causes[0]?.field).toBe('spec');
      expect(causes[0]?.message.startsWith(FORBIDDEN)).toBe(true);
    }
  });

  it('refuses a modified toleration', async () => {
    const name = await gatedPod();
    const r = await api(
      'PATCH',
      `${PODS}/${name}`,
      { spec: { tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute' }] } },
      SMP,
    );
    expect(r.status, r.text).toBe(422);
    expect((r.body as Record<string, any>).details.causes).toContainEqual(
      expect.objectContaining({
        field: 'spec.tolerations',
        message: 'Forbidden: existing toleration can not be modified except its tolerationSeconds',
      }),
    );
  });
});
