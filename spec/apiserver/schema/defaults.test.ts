import { describe, expect, it } from 'vitest';
import { applySchemaDefaults } from '../../../lib/apiserver/schema/defaults.js';
import type { JSONSchemaProps } from '../../../lib/apiserver/schema/json-schema-props.js';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    metadata: { type: 'object', properties: { name: { type: 'string', default: 'never' } } },
    spec: {
      type: 'object',
      default: {},
      properties: {
        replicas: { type: 'integer', default: 1 },
        strategy: {
          type: 'object',
          default: { type: 'Rolling' },
          properties: { type: { type: 'string' }, maxSurge: { type: 'integer', default: 25 } },
        },
        note: { type: 'string', nullable: true, default: 'n' },
        mode: { type: 'string', default: 'auto' },
        ports: {
          type: 'array',
          items: { type: 'object', properties: { protocol: { type: 'string', default: 'TCP' } } },
        },
        env: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            properties: { from: { type: 'string', default: 'literal' } },
          },
        },
        optional: { type: 'object', properties: { inner: { type: 'string', default: 'x' } } },
      },
    },
  },
};

describe('applySchemaDefaults', () => {
  it('fills missing properties, then defaults inside the defaulted values', () => {
    const obj: any = { metadata: {} };
    applySchemaDefaults(obj, schema);
    expect(obj).toEqual({
      metadata: {},
      spec: { replicas: 1, strategy: { type: 'Rolling', maxSurge: 25 }, note: 'n', mode: 'auto' },
    });
  });

  it('keeps values that are set and keeps null when nullable', () => {
    const obj: any = { spec: { replicas: 0, note: null, mode: null, strategy: { type: 'Recreate' } } };
    applySchemaDefaults(obj, schema);
    expect(obj.spec).toMatchObject({
      replicas: 0,
      note: null,
      mode: 'auto',
      strategy: { type: 'Recreate', maxSurge: 25 },
    });
  });

  it('defaults array items and map values, not absent parents without a default', () => {
    const obj: any = { spec: { ports: [{}, { protocol: 'UDP' }], env: { A: {}, B: { from: 'secret' } } } };
    applySchemaDefaults(obj, schema);
    expect(obj.spec.ports).toEqual([{ protocol: 'TCP' }, { protocol: 'UDP' }]);
    expect(obj.spec.env).toEqual({ A: { from: 'literal' }, B: { from: 'secret' } });
    expect('optional' in obj.spec).toBe(false);
  });

  it('gives every object its own copy of a default', () => {
    const a: any = {};
    const b: any = {};
    applySchemaDefaults(a, schema);
    applySchemaDefaults(b, schema);
    a.spec.strategy.type = 'changed';
    expect(b.spec.strategy.type).toBe('Rolling');
    expect(schema.properties!.spec!.properties!.strategy!.default).toEqual({ type: 'Rolling' });
  });
});
