import { describe, expect, it } from 'vitest';
import {
  defineKind,
  isKindDefinitionError,
  isKindValidationError,
  KindDefinitionError,
  KindValidationError,
  Type,
} from 'reconcilekit/kinds';
import { Gadget, GADGET_GROUP } from './fixtures/gadget-kind.js';

const gadget = (spec: Record<string, unknown>, name = 'g') => ({
  apiVersion: Gadget.apiVersion,
  kind: 'Gadget',
  metadata: { name, namespace: 'default' },
  spec,
});

describe('checking objects in the operator, with the API server own rules', () => {
  it('applies defaults and prunes unknown fields, as the server would store the object', async () => {
    const { object, prunedFields, causes } = await Gadget.admit(
      gadget({ maxReplicas: 2, ports: [{ name: 'http', port: 80 }], extra: true }),
    );
    expect(causes).toEqual([]);
    expect(object.spec.replicas).toBe(1);
    expect(object.spec.ports?.[0]?.protocol).toBe('TCP');
    expect(prunedFields).toEqual(['spec.extra']);
  });

  it('evaluates CEL rules: the spec rule and the root rule', async () => {
    expect(await Gadget.validate(gadget({ replicas: 3, maxReplicas: 2 }))).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec',
        message: expect.stringContaining('replicas must not exceed maxReplicas'),
      },
    ]);
    const reserved = await Gadget.validate(gadget({ maxReplicas: 2 }, 'forbidden'));
    expect(reserved.map((c) => c.message).join()).toContain('that name is reserved');
  });

  it('reports type errors, enums and ranges with kube field paths', async () => {
    const causes = await Gadget.validate(gadget({ maxReplicas: 'two', color: 'pink', replicas: -1 }));
    expect(causes.map((c) => [c.field, c.reason])).toEqual(
      expect.arrayContaining([
        ['spec.maxReplicas', 'FieldValueTypeInvalid'],
        ['spec.color', 'FieldValueNotSupported'],
        ['spec.replicas', 'FieldValueInvalid'],
      ]),
    );
  });

  it('assertValid returns the defaulted object or throws a KindValidationError with every cause', async () => {
    expect((await Gadget.assertValid(gadget({ maxReplicas: 4 }))).spec.replicas).toBe(1);
    let error: unknown;
    try {
      await Gadget.assertValid(gadget({ replicas: 9, maxReplicas: 2 }, 'bad'));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KindValidationError);
    expect(isKindValidationError(error)).toBe(true);
    expect((error as KindValidationError).message).toBe(
      `Gadget.${GADGET_GROUP} "bad" is invalid: spec: Invalid value: "object": replicas must not exceed maxReplicas`,
    );
  });

  it('checks transition rules against the old object', async () => {
    const Immutable = defineKind({
      group: 'a.example.com',
      kind: 'Fixed',
      plural: 'fixeds',
      versions: {
        v1: {
          spec: Type.Object({
            size: Type.Integer({
              'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'size is immutable' }],
            }),
          }),
        },
      },
    });
    const obj = (size: number) => ({
      apiVersion: Immutable.apiVersion,
      kind: 'Fixed',
      metadata: { name: 'f' },
      spec: { size },
    });
    expect(await Immutable.validate(obj(2))).toEqual([]);
    expect((await Immutable.validate(obj(2), obj(1))).map((c) => c.message)).toEqual([
      expect.stringContaining('size is immutable'),
    ]);
  });

  it('checks an object of another version against that version', async () => {
    const old = { ...gadget({ maxReplicas: 2 }), apiVersion: Gadget.versions.v1beta1.apiVersion };
    expect(await Gadget.validate(old)).toEqual([]);
    // The root rule exists in v1 only.
    expect(await Gadget.validate({ ...old, metadata: { name: 'forbidden' } })).toEqual([]);
  });
});

describe('Kind.check() runs the API server CRD checks (and object checks run it first)', () => {
  const define = (spec: unknown) => () =>
    defineKind({
      group: 'a.example.com',
      kind: 'Note',
      plural: 'notes',
      versions: { v1: { spec: spec as never } },
    }).check();

  it('a CEL rule that does not compile names the rule', async () => {
    let error: unknown;
    try {
      await define(
        Type.Object({ n: Type.Integer() }, { 'x-kubernetes-validations': [{ rule: 'self.n >' }] }),
      )();
    } catch (e) {
      error = e;
    }
    expect(isKindDefinitionError(error)).toBe(true);
    expect((error as KindDefinitionError).field).toBe('versions.v1.spec.x-kubernetes-validations[0].rule');
    expect((error as Error).message).toContain('compilation failed');
  });

  it('a default that does not fit its schema', async () => {
    let error: unknown;
    try {
      await define(Type.Object({ n: Type.Optional(Type.Integer({ minimum: 1, default: 0 })) }))();
    } catch (e) {
      error = e;
    }
    expect((error as KindDefinitionError).field).toBe('versions.v1.spec.n.default');
    expect((error as Error).message).toContain('should be greater than or equal to 1');
  });
});

it('an object check reports a kind whose CRD the server would refuse, instead of checking against it', async () => {
  const Broken = defineKind({
    group: 'a.example.com',
    kind: 'Broken',
    plural: 'brokens',
    versions: {
      v1: { spec: Type.Object({ n: Type.Integer() }, { 'x-kubernetes-validations': [{ rule: '(' }] }) },
    },
  });
  await expect(
    Broken.validate({
      apiVersion: Broken.apiVersion,
      kind: 'Broken',
      metadata: { name: 'b' },
      spec: { n: 1 },
    }),
  ).rejects.toThrow(KindDefinitionError);
});
