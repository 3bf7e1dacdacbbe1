// A webhook's matchConditions (CEL over object, oldObject and request), on both backends: a webhook whose
// condition is false is not called; one whose condition fails to evaluate is skipped with
// failurePolicy Ignore and refuses the request (403, kube-apiserver's text) with failurePolicy Fail. The handlers are registered by startTestEnvironment({ webhooks }).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnvironment, type TestEnvironment } from '../../lib/testing/index.js';
import { AdmissionRejectedError, validator, type AdmissionRequest } from '../../lib/webhooks/index.js';

const GROUP = `mc${Math.random().toString(36).slice(2, 8)}.reconcilekit.test`;

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gadgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
          },
        },
      },
    ],
  },
};

type Gadget = { metadata: { name: string; labels?: Record<string, string> }; spec?: { size?: number } };
const called: AdmissionRequest[] = [];

const strict = validator<Gadget>({
  group: GROUP,
  versions: ['v1'],
  resource: 'gadgets',
  name: `strict.${GROUP}`,
  matchConditions: [
    {
      name: 'labelled',
      expression: "has(object.metadata.labels) && object.metadata.labels['check'] == 'yes'",
    },
    { name: 'creates', expression: "request.operation == 'CREATE'" },
  ],
  validateCreate: (ctx, gadget) => {
    called.push(ctx.request);
    if ((gadget.spec?.size ?? 0) > 3) throw new AdmissionRejectedError('too big for a checked gadget');
    return undefined;
  },
});

// Its condition reads a field that is absent: an evaluation error, so failurePolicy Ignore skips it.
const broken = validator<Gadget>({
  group: GROUP,
  versions: ['v1'],
  resource: 'gadgets',
  name: `broken.${GROUP}`,
  path: '/broken',
  failurePolicy: 'Ignore',
  matchConditions: [{ name: 'missing-field', expression: 'object.spec.colour == "red"' }],
  validateCreate: () => {
    throw new AdmissionRejectedError('the broken webhook was called');
  },
});

// The same error with failurePolicy Fail (only for objects labelled fail-closed): the request is refused.
const failClosed = validator<Gadget>({
  group: GROUP,
  versions: ['v1'],
  resource: 'gadgets',
  name: `fail-closed.${GROUP}`,
  path: '/fail-closed',
  failurePolicy: 'Fail',
  objectSelector: { matchLabels: { 'fail-closed': 'yes' } },
  matchConditions: [{ name: 'missing-field', expression: 'object.spec.colour == "red"' }],
  validateCreate: () => {
    throw new AdmissionRejectedError('the fail-closed webhook was called');
  },
});

let env: TestEnvironment;
beforeAll(async () => {
  env = await startTestEnvironment({ crds: [crd], webhooks: [strict, broken, failClosed] });
}, 120_000);
afterAll(async () => {
  await env.close();
});

const gadget = (name: string, size: number, labels?: Record<string, string>) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Gadget',
  metadata: { name, namespace: 'default', ...(labels === undefined ? {} : { labels }) },
  spec: { size },
});

async function createError(obj: ReturnType<typeof gadget>): Promise<string | undefined> {
  return env.client.create(obj).then(
    () => undefined,
    (e: unknown) => String(e),
  );
}

describe('matchConditions', () => {
  it('calls a webhook only when every condition is true', async () => {
    // A real kube-apiserver sees the new configurations once its informer has them.
    let refused: string | undefined;
    for (let i = 0; i < 100 && refused === undefined; i++) {
      refused = await createError(gadget(`checked-${i}`, 5, { check: 'yes' }));
      if (refused === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    expect(refused).toContain(
      `admission webhook "strict.${GROUP}" denied the request: too big for a checked gadget`,
    );
    const before = called.length;
    // Not labelled: the first condition is false, the webhook is not called and the big gadget is stored.
    expect(await createError(gadget('unchecked', 5))).toBeUndefined();
    expect(await createError(gadget('other-label', 5, { check: 'no' }))).toBeUndefined();
    expect(called.length).toBe(before);
    expect(await createError(gadget('checked-small', 2, { check: 'yes' }))).toBeUndefined();
    expect(called.length).toBe(before + 1);
    expect(called.at(-1)?.name).toBe('checked-small');
  });

  it('skips a webhook whose condition fails to evaluate when its failurePolicy is Ignore', async () => {
    expect(await createError(gadget('plain', 1))).toBeUndefined();
  });

  it('refuses the request when the condition fails to evaluate and failurePolicy is Fail, as kube-apiserver words it', async () => {
    let refused: string | undefined;
    for (let i = 0; i < 100 && refused === undefined; i++) {
      refused = await createError(gadget(`closed-${i}`, 1, { 'fail-closed': 'yes' }));
      if (refused === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    // kube-apiserver 1.34's answer (403, the expression, CEL's error), on both backends: the strict
    // webhook's condition reads a label key this object does not have.
    const expression = "has(object.metadata.labels) && object.metadata.labels['check'] == 'yes'";
    const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const said = `expression '${expression}' resulted in error: no such key: check`;
    expect(refused).toMatch(
      new RegExp(`403 Forbidden: ${escape(`gadgets.${GROUP}`)} "closed-\\d+" is forbidden: ${escape(said)}$`),
    );
  });
});
