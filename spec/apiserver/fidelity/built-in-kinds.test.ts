// Defaults and validation of built-in kinds, as kube-apiserver v1.34 applies them. Sources:
// k8s.io/kubernetes pkg/apis/core/validation/validation.go (ValidateConfigMap[Update], ValidateSecret[Update],
// ValidatePodSpec), pkg/apis/core/v1/defaults.go + conversion.go (Secret stringData, Service/Pod defaults),
// pkg/registry/core/pod/strategy.go (Pending phase), pkg/apis/apps/v1/defaults.go and
// pkg/apis/apps/validation/validation.go (Deployment).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeApi, type KubeApi } from '../support/kube-api.js';
import { startTarget, uniqueName, type Target } from '../support/target.js';

const NS = '/api/v1/namespaces/default';
const MERGE = 'application/merge-patch+json';
let target: Target;
let api: KubeApi;

beforeAll(async () => {
  target = await startTarget();
  api = kubeApi(target);
});

afterAll(async () => {
  await target.close();
});

describe('ConfigMaps and Secrets', () => {
  it('refuses to change an immutable ConfigMap', async () => {
    const name = uniqueName('imm');
    const created = await api('POST', `${NS}/configmaps`, {
      metadata: { name },
      data: { a: '1' },
      immutable: true,
    });
    expect(created.status).toBe(201);
    const r = await api('PATCH', `${NS}/configmaps/${name}`, { data: { a: '2' } }, MERGE);
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      `ConfigMap "${name}" is invalid: data: Forbidden: field is immutable when \`immutable\` is set`,
    );
  });

  it('validates ConfigMap keys', async () => {
    const r = await api('POST', `${NS}/configmaps`, {
      metadata: { name: uniqueName('key') },
      data: { 'bad key': 'x' },
    });
    expect(r.status).toBe(422);
    expect(r.body.details.causes[0]).toMatchObject({ reason: 'FieldValueInvalid', field: 'data[bad key]' });
  });

  it('merges Secret stringData into data, defaults type Opaque, and keeps type immutable', async () => {
    const name = uniqueName('sec');
    const created = await api('POST', `${NS}/secrets`, {
      metadata: { name },
      stringData: { password: 'hunter2' },
    });
    expect(created.status).toBe(201);
    expect(created.body.type).toBe('Opaque');
    expect(created.body.data).toEqual({ password: Buffer.from('hunter2').toString('base64') });
    expect(created.body.stringData).toBeUndefined();
    const retype = await api('PATCH', `${NS}/secrets/${name}`, { type: 'kubernetes.io/basic-auth' }, MERGE);
    expect(retype.status).toBe(422);
    expect(retype.body.details.causes).toContainEqual({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: "kubernetes.io/basic-auth": field is immutable',
      field: 'type',
    });
  });

  it('rejects non-base64 Secret data with 400', async () => {
    const r = await api('POST', `${NS}/secrets`, {
      metadata: { name: uniqueName('b64') },
      data: { a: 'not base64!' },
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('illegal base64 data at input byte');
  });
});

describe('Pods, Services and Deployments', () => {
  it('rejects a Pod without containers and starts a new Pod Pending with defaults', async () => {
    const empty = await api('POST', `${NS}/pods`, {
      metadata: { name: uniqueName('nocont') },
      spec: { containers: [] },
    });
    expect(empty.status).toBe(422);
    expect(empty.body.details.causes).toContainEqual({
      reason: 'FieldValueRequired',
      message: 'Required value',
      field: 'spec.containers',
    });
    const r = await api('POST', `${NS}/pods`, {
      metadata: { name: uniqueName('pod') },
      spec: { containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] },
    });
    expect(r.status).toBe(201);
    expect(r.body.status.phase).toBe('Pending');
    expect(r.body.spec).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
    });
    expect(r.body.spec.containers[0]).toMatchObject({
      imagePullPolicy: 'IfNotPresent',
      ports: [{ containerPort: 80, protocol: 'TCP' }],
    });
  });

  it('defaults a Service: ClusterIP type, a cluster IP, port protocol and targetPort', async () => {
    const r = await api('POST', `${NS}/services`, {
      metadata: { name: uniqueName('svc') },
      spec: { selector: { app: 'x' }, ports: [{ port: 80 }] },
    });
    expect(r.status).toBe(201);
    expect(r.body.spec.type).toBe('ClusterIP');
    expect(r.body.spec.clusterIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(r.body.spec.ports[0]).toEqual({ port: 80, protocol: 'TCP', targetPort: 80 });
    expect(r.body.spec.sessionAffinity).toBe('None');
  });

  it('defaults a Deployment and requires its selector to match the template', async () => {
    const name = uniqueName('dep');
    const template = {
      metadata: { labels: { app: 'x' } },
      spec: { containers: [{ name: 'app', image: 'nginx' }] },
    };
    const r = await api('POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name },
      spec: { selector: { matchLabels: { app: 'x' } }, template },
    });
    expect(r.status).toBe(201);
    expect(r.body.spec).toMatchObject({
      replicas: 1,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
    });
    const mismatch = await api('POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: uniqueName('dep') },
      spec: { selector: { matchLabels: { app: 'y' } }, template },
    });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.details.causes).toContainEqual({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: {"app":"x"}: `selector` does not match template `labels`',
      field: 'spec.template.metadata.labels',
    });
  });
});
