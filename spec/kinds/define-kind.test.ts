import { describe, expect, it } from 'vitest';
import {
  defineKind,
  isKindDefinitionError,
  KindDefinitionError,
  KubeType,
  Type,
  type KindOptions,
} from 'reconcilekit/kinds';
import { Gadget, GADGET_GROUP } from './fixtures/gadget-kind.js';

const simpleSpec = Type.Object({ title: Type.String() });

function definitionError(options: unknown): KindDefinitionError {
  try {
    defineKind(options as KindOptions);
  } catch (e) {
    expect(isKindDefinitionError(e)).toBe(true);
    return e as KindDefinitionError;
  }
  throw new Error('defineKind accepted the definition');
}

describe('defineKind: the CRD', () => {
  it('names the CRD <plural>.<group> and fills the names kube defaults', () => {
    const crd = Gadget.crd();
    expect(crd.metadata.name).toBe(`gadgets.${GADGET_GROUP}`);
    expect(crd.spec.names).toEqual({
      kind: 'Gadget',
      listKind: 'GadgetList',
      plural: 'gadgets',
      singular: 'gadget',
      shortNames: ['gd'],
      categories: ['reconcilekit-test'],
    });
    expect(crd.spec.scope).toBe('Namespaced');
  });

  it('lists the versions in order, one stored, the deprecated one with its warning', () => {
    const versions = Gadget.crd().spec.versions;
    expect(versions.map((v) => [v.name, v.served, v.storage, v.deprecated ?? false])).toEqual([
      ['v1beta1', true, false, true],
      ['v1', true, true, false],
    ]);
    expect(versions[0]?.deprecationWarning).toContain('deprecated');
    expect(Gadget.storageVersion).toBe('v1');
    expect(Gadget.apiVersion).toBe(`${GADGET_GROUP}/v1`);
    expect(Gadget.versions.v1beta1.apiVersion).toBe(`${GADGET_GROUP}/v1beta1`);
    expect(Gadget.versions.v1).toBe(Gadget);
  });

  it('writes a structural schema: literals as enum, records as additionalProperties, list-map keys, int-or-string', () => {
    const schema = Gadget.crd().spec.versions[1]?.schema.openAPIV3Schema;
    const spec = schema?.properties?.spec;
    expect(schema?.required).toEqual(['spec']);
    expect(schema?.properties?.metadata).toEqual({ type: 'object' });
    expect(spec?.properties?.color).toEqual({ type: 'string', enum: ['red', 'green', 'blue'] });
    expect(spec?.properties?.replicas).toEqual({ type: 'integer', minimum: 0, maximum: 100, default: 1 });
    expect(spec?.properties?.labels).toEqual({
      type: 'object',
      additionalProperties: { type: 'string', maxLength: 63 },
    });
    expect(spec?.properties?.ports?.['x-kubernetes-list-type']).toBe('map');
    expect(spec?.properties?.ports?.['x-kubernetes-list-map-keys']).toEqual(['name']);
    expect(spec?.properties?.ports?.items?.properties?.protocol).toEqual({
      type: 'string',
      enum: ['TCP', 'UDP'],
      default: 'TCP',
    });
    expect(spec?.properties?.tags?.['x-kubernetes-list-type']).toBe('set');
    expect(spec?.properties?.target).toEqual({ 'x-kubernetes-int-or-string': true });
    expect(spec?.['x-kubernetes-validations']).toEqual([
      { rule: 'self.replicas <= self.maxReplicas', message: 'replicas must not exceed maxReplicas' },
    ]);
    expect(schema?.['x-kubernetes-validations']).toEqual([
      { rule: "self.metadata.name != 'forbidden'", message: 'that name is reserved' },
    ]);
    expect(JSON.stringify(schema)).not.toMatch(/"const"|"anyOf"|"patternProperties"|~kind/);
  });

  it('writes subresources and printer columns', () => {
    const v1 = Gadget.crd().spec.versions[1];
    expect(v1?.subresources).toEqual({
      status: {},
      scale: {
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.replicas',
        labelSelectorPath: '.status.selector',
      },
    });
    expect(v1?.additionalPrinterColumns?.map((c) => c.name)).toEqual(['Replicas', 'Color', 'Phase', 'Age']);
  });

  it('gives a status subresource by default only when there is a status schema', () => {
    const noStatus = defineKind({
      group: 'a.example.com',
      kind: 'Note',
      plural: 'notes',
      versions: { v1: { spec: simpleSpec } },
    });
    expect(noStatus.crd().spec.versions[0]?.subresources).toBeUndefined();
    const withStatus = defineKind({
      group: 'a.example.com',
      kind: 'Note',
      plural: 'notes',
      scope: 'Cluster',
      versions: { v1: { spec: simpleSpec, status: Type.Object({ seen: Type.Boolean() }) } },
    });
    expect(withStatus.crd().spec.versions[0]?.subresources).toEqual({ status: {} });
    expect(withStatus.namespaced).toBe(false);
  });

  it('hands out copies: changing a returned CRD does not change the kind', () => {
    const crd = Gadget.crd();
    crd.spec.names.plural = 'changed';
    expect(Gadget.crd().spec.names.plural).toBe('gadgets');
  });
});

describe('defineKind: bad definitions fail at once, naming the field', () => {
  const base = { group: 'a.example.com', kind: 'Note', plural: 'notes' };

  it('a missing plural', () => {
    const e = definitionError({
      group: 'a.example.com',
      kind: 'Note',
      versions: { v1: { spec: simpleSpec } },
    });
    expect(e.field).toBe('plural');
    expect(e.kind).toBe('Note');
    expect(e.message).toMatch(/plural: is required.*"notes"/);
  });

  it('two storage versions', () => {
    const e = definitionError({
      ...base,
      versions: { v1: { spec: simpleSpec, storage: true }, v2: { spec: simpleSpec, storage: true } },
    });
    expect(e.field).toBe('versions.v2.storage');
    expect(e.message).toContain('v1 and v2 all have storage: true');
  });

  it('no storage version among several', () => {
    const e = definitionError({ ...base, versions: { v1: { spec: simpleSpec }, v2: { spec: simpleSpec } } });
    expect(e.field).toBe('versions');
    expect(e.message).toContain('mark exactly one');
  });

  it('an untyped field (not structural)', () => {
    const e = definitionError({
      ...base,
      versions: { v1: { spec: Type.Object({ anything: Type.Unknown() }) } },
    });
    expect(e.field).toBe('versions.v1.spec.anything');
    expect(e.message).toContain('not structural');
    expect(e.message).toContain('KubeType.PreserveUnknownFields()');
  });

  it('a union that is not a literal enum, nullable or int-or-string', () => {
    const e = definitionError({
      ...base,
      versions: {
        v1: { spec: Type.Object({ x: Type.Union([Type.String(), Type.Object({ a: Type.String() })]) }) },
      },
    });
    expect(e.field).toBe('versions.v1.spec.x');
    expect(e.message).toContain('union of schemas is not structural');
  });

  it('an intersection, a tuple, a $ref, additionalProperties: false, uniqueItems', () => {
    const field = (schema: unknown) =>
      definitionError({ ...base, versions: { v1: { spec: Type.Object({ x: schema as never }) } } });
    expect(
      field(Type.Intersect([Type.Object({ a: Type.String() }), Type.Object({ b: Type.String() })])).message,
    ).toContain('Type.Evaluate');
    expect(field(Type.Tuple([Type.String()])).field).toBe('versions.v1.spec.x.items');
    expect(field(Type.Ref('Other')).message).toContain('inline the schema');
    expect(field(Type.Object({ a: Type.String() }, { additionalProperties: false })).field).toBe(
      'versions.v1.spec.x.additionalProperties',
    );
    expect(field(Type.Array(Type.String(), { uniqueItems: true })).message).toContain('KubeType.ListSet');
  });

  it('a list-map key that is optional', () => {
    const item = Type.Object({ name: Type.Optional(Type.String()), value: Type.String() });
    const e = definitionError({
      ...base,
      versions: { v1: { spec: Type.Object({ env: KubeType.ListMap(item, ['name']) }) } },
    });
    expect(e.field).toBe('versions.v1.spec.env.items.name');
    expect(e.message).toContain('required or have a default');
  });

  it('a printer column or scale path that is not in the schema', () => {
    const column = definitionError({
      ...base,
      versions: {
        v1: { spec: simpleSpec, printerColumns: [{ name: 'T', type: 'string', jsonPath: '.spec.titel' }] },
      },
    });
    expect(column.field).toBe('versions.v1.printerColumns[0].jsonPath');
    expect(column.message).toContain('"titel" is unknown');
    const scale = definitionError({
      ...base,
      versions: {
        v1: {
          spec: simpleSpec,
          status: Type.Object({ replicas: Type.Integer() }),
          subresources: {
            scale: { specReplicasPath: '.spec.title', statusReplicasPath: '.status.replicas' },
          },
        },
      },
    });
    expect(scale.field).toBe('versions.v1.subresources.scale.specReplicasPath');
    expect(scale.message).toContain('type integer');
  });

  it('a group without a dot, a kind in lower case, a bad version name', () => {
    expect(definitionError({ ...base, group: 'local', versions: { v1: { spec: simpleSpec } } }).field).toBe(
      'group',
    );
    expect(definitionError({ ...base, kind: '', versions: { v1: { spec: simpleSpec } } }).field).toBe('kind');
    expect(definitionError({ ...base, versions: { V1: { spec: simpleSpec } } }).field).toBe('versions.V1');
    expect(definitionError({ ...base, versions: {} }).field).toBe('versions');
  });

  it('a deprecation warning on a version that is not deprecated', () => {
    const e = definitionError({ ...base, versions: { v1: { spec: simpleSpec, deprecationWarning: 'old' } } });
    expect(e.field).toBe('versions.v1.deprecationWarning');
  });

  it('a CEL rule without an expression', () => {
    const e = definitionError({
      ...base,
      versions: { v1: { spec: simpleSpec, validations: [{ rule: ' ' }] } },
    });
    expect(e.field).toBe('versions.v1.validations[0]');
  });
});
