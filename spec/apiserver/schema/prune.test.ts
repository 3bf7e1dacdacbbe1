import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../../../lib/apiserver/schema/json-schema-props.js';
import { pruneUnknownFields } from '../../../lib/apiserver/schema/prune.js';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'integer' },
        items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
        free: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { known: { type: 'object', properties: { a: { type: 'string' } } } },
        },
        labels: {
          type: 'object',
          additionalProperties: { type: 'object', properties: { v: { type: 'string' } } },
        },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object' } },
        },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};

describe('pruneUnknownFields', () => {
  it('drops unknown fields and reports their paths', () => {
    const obj = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', labels: { a: 'b' }, bogus: 1 },
      spec: { size: 1, colour: 'red', items: [{ name: 'a', extra: true }] },
      status: { ready: true, message: 'x' },
      other: {},
    };
    const pruned = pruneUnknownFields(obj, schema);
    expect(pruned).toEqual([
      'metadata.bogus',
      'spec.colour',
      'spec.items[0].extra',
      'status.message',
      'other',
    ]);
    expect(obj).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', labels: { a: 'b' } },
      spec: { size: 1, items: [{ name: 'a' }] },
      status: { ready: true },
    });
  });

  it('keeps unknown fields under x-kubernetes-preserve-unknown-fields but prunes inside known ones', () => {
    const obj = { spec: { free: { anything: { deep: 1 }, known: { a: 'x', b: 'y' } } } };
    expect(pruneUnknownFields(obj, schema)).toEqual(['spec.free.known.b']);
    expect(obj.spec.free).toEqual({ anything: { deep: 1 }, known: { a: 'x' } });
  });

  it('prunes map values through additionalProperties', () => {
    const obj = { spec: { labels: { one: { v: 'a', w: 'b' } } } };
    expect(pruneUnknownFields(obj, schema)).toEqual(['spec.labels.one.w']);
  });

  it('keeps apiVersion, kind and metadata of an embedded resource', () => {
    const obj = {
      spec: {
        template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', junk: 1 }, spec: {}, extra: 1 },
      },
    };
    expect(pruneUnknownFields(obj, schema)).toEqual(['spec.template.metadata.junk', 'spec.template.extra']);
    expect(obj.spec.template).toEqual({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} });
  });

  it('leaves everything under a root that preserves unknown fields', () => {
    const obj = { spec: { a: 1 }, x: [1] };
    expect(pruneUnknownFields(obj, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true })).toEqual(
      [],
    );
    expect(obj).toEqual({ spec: { a: 1 }, x: [1] });
  });

  it('ignores values of the wrong type (validation reports them)', () => {
    const obj = { spec: 'text' };
    expect(pruneUnknownFields(obj, schema)).toEqual([]);
  });
});

describe('fields named like Object.prototype members', () => {
  it.each(['constructor', 'toString', 'hasOwnProperty', '__proto__'])('prunes an unknown %s field', (key) => {
    const obj = { spec: JSON.parse(`{"size": 1, "${key}": {"x": 1}}`) };
    expect(pruneUnknownFields(obj, schema)).toEqual([`spec.${key}`]);
    expect(JSON.stringify(obj)).toBe('{"spec":{"size":1}}');
  });
});
