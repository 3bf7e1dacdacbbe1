// Seeded random inputs for every pure algorithm: malformed data may only produce typed errors
// (PatchError, SelectorError) or causes, never a TypeError, and inputs are never mutated.
import { describe, expect, it } from 'vitest';
import { applyJsonPatch, decodeJsonPatch } from '../../../lib/apiserver/patch/json-patch.js';
import { recordUpdate, serverSideApply } from '../../../lib/apiserver/patch/managed-fields.js';
import { applyMergePatch } from '../../../lib/apiserver/patch/merge-patch.js';
import { isPatchError } from '../../../lib/apiserver/patch/patch-error.js';
import { applyStrategicMergePatch } from '../../../lib/apiserver/patch/strategic-merge-patch.js';
import { validateCustomResourceDefinition } from '../../../lib/apiserver/schema/crd-validation.js';
import { applySchemaDefaults } from '../../../lib/apiserver/schema/defaults.js';
import type { JSONSchemaProps } from '../../../lib/apiserver/schema/json-schema-props.js';
import { pruneUnknownFields } from '../../../lib/apiserver/schema/prune.js';
import { validateAgainstSchema } from '../../../lib/apiserver/schema/validate.js';
import { parseFieldSelector } from '../../../lib/apiserver/selectors/field-selector.js';
import { parseLabelSelector } from '../../../lib/apiserver/selectors/label-selector.js';
import { isSelectorError } from '../../../lib/apiserver/selectors/selector-error.js';
import { renderTable } from '../../../lib/apiserver/table/table.js';
import { validateObjectMeta } from '../../../lib/apiserver/validation/object-meta.js';

const ROUNDS = 400;
const POD = { group: '', version: 'v1', kind: 'Pod' };

/** Small deterministic PRNG (mulberry32) so failures reproduce. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = [
  'metadata',
  'spec',
  'status',
  'name',
  'containers',
  'ports',
  'env',
  'finalizers',
  'labels',
  'image',
  '$patch',
  '$retainKeys',
  '$setElementOrder/containers',
  '$deleteFromPrimitiveList/finalizers',
  'op',
  'path',
  'value',
  'from',
  '__proto__',
  'constructor',
  'containerPort',
  'type',
];
const STRINGS = [
  '',
  'a',
  'delete',
  'replace',
  'merge',
  'add',
  'remove',
  'test',
  'move',
  'copy',
  '/spec',
  '/spec/containers/0',
  '/-',
  '/metadata/finalizers/-',
  '~1',
  'x=y',
  'a in (b)',
  '!',
];

function value(rnd: () => number, depth: number): unknown {
  const r = rnd();
  if (depth <= 0 || r < 0.3) {
    const scalars = [null, true, 0, -1, 1.5, 80, ...STRINGS];
    return scalars[Math.floor(rnd() * scalars.length)];
  }
  if (r < 0.6) return Array.from({ length: Math.floor(rnd() * 4) }, () => value(rnd, depth - 1));
  const obj: Record<string, unknown> = {};
  for (let i = Math.floor(rnd() * 5); i > 0; i--) {
    Object.defineProperty(obj, KEYS[Math.floor(rnd() * KEYS.length)]!, {
      value: value(rnd, depth - 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return obj;
}

function object(rnd: () => number): Record<string, unknown> {
  const v = value(rnd, 4);
  return typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : { spec: v };
}

function typedOnly(fn: () => unknown): void {
  try {
    fn();
  } catch (e) {
    if (!isPatchError(e) && !isSelectorError(e)) throw e;
  }
}

function unchanged(inputs: unknown[], fn: () => unknown): void {
  const before = JSON.stringify(inputs);
  typedOnly(fn);
  expect(JSON.stringify(inputs)).toBe(before);
}

describe('robustness against random input', () => {
  it('patch algorithms throw only PatchError and never mutate inputs', () => {
    const rnd = random(1);
    for (let i = 0; i < ROUNDS; i++) {
      const target = object(rnd);
      const patch = value(rnd, 4);
      unchanged([target, patch], () => applyMergePatch(target, patch));
      unchanged([target, patch], () => applyStrategicMergePatch(target, patch, POD));
      const ops = Array.isArray(patch) ? patch : [patch];
      unchanged([target, ops], () => applyJsonPatch(target, decodeJsonPatch(ops, true).operations));
    }
  });

  it('server-side apply and recordUpdate throw only PatchError and never mutate inputs', () => {
    const rnd = random(2);
    const options = { fieldManager: 'm', force: false, now: '2026-01-01T00:00:00Z', apiVersion: 'v1' };
    for (let i = 0; i < ROUNDS; i++) {
      const live = object(rnd);
      const applied = object(rnd);
      const kind = rnd() < 0.5 ? POD : undefined;
      unchanged([live, applied], () =>
        serverSideApply(live, applied, { ...options, force: rnd() < 0.5, kind }),
      );
      unchanged([live, applied], () =>
        recordUpdate(live, applied, { manager: 'u', now: options.now, apiVersion: 'v1', kind }),
      );
    }
  });

  it('schema functions return causes for any value and any schema-shaped input', () => {
    const rnd = random(3);
    for (let i = 0; i < ROUNDS; i++) {
      const schema = object(rnd) as JSONSchemaProps;
      const target = object(rnd);
      unchanged([target, schema], () => validateAgainstSchema(target, schema));
      unchanged([schema], () => validateCustomResourceDefinition(target));
      typedOnly(() => pruneUnknownFields(structuredClone(target), schema));
      typedOnly(() => {
        applySchemaDefaults(structuredClone(target), schema);
      });
    }
  });

  it('schema functions tolerate malformed schema keywords', () => {
    const rnd = random(6);
    const words = [
      'type',
      'properties',
      'items',
      'required',
      'enum',
      'minimum',
      'maximum',
      'exclusiveMinimum',
      'minLength',
      'maxLength',
      'pattern',
      'minItems',
      'maxItems',
      'format',
      'nullable',
      'default',
      'additionalProperties',
      'x-kubernetes-preserve-unknown-fields',
      'x-kubernetes-int-or-string',
      'x-kubernetes-embedded-resource',
      'x-kubernetes-list-type',
      'x-kubernetes-list-map-keys',
      'oneOf',
      'anyOf',
      'allOf',
      'not',
      'multipleOf',
      'uniqueItems',
      'spec',
      'a',
    ];
    const fills = [
      null,
      1,
      -1,
      'object',
      'array',
      'string',
      'integer',
      '(',
      'set',
      'map',
      'date-time',
      true,
      [],
      ['a'],
      [1],
      {},
    ];
    const schemaValue = (depth: number): unknown => {
      if (depth <= 0 || rnd() < 0.4) return fills[Math.floor(rnd() * fills.length)];
      if (rnd() < 0.2) return [schemaValue(depth - 1), schemaValue(depth - 1)];
      const node: Record<string, unknown> = {};
      for (let i = Math.floor(rnd() * 6); i > 0; i--)
        node[words[Math.floor(rnd() * words.length)]!] = schemaValue(depth - 1);
      return node;
    };
    for (let i = 0; i < ROUNDS; i++) {
      const schema = {
        type: 'object',
        properties: { spec: schemaValue(4), a: schemaValue(3) },
      } as unknown as JSONSchemaProps;
      const target = { spec: value(rnd, 3), a: value(rnd, 2) };
      unchanged([target, schema], () => validateAgainstSchema(target, schema));
      typedOnly(() => pruneUnknownFields(structuredClone(target), schema));
      typedOnly(() => {
        applySchemaDefaults(structuredClone(target), schema);
      });
      const crd = {
        metadata: { name: 'a.b.c' },
        spec: {
          group: 'b.c',
          names: { plural: 'a', kind: 'A' },
          scope: 'Cluster',
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
        },
      };
      unchanged([crd], () => validateCustomResourceDefinition(crd));
    }
  });

  it('metadata validation and table rendering accept any object', () => {
    const rnd = random(4);
    for (let i = 0; i < ROUNDS; i++) {
      const obj = object(rnd);
      unchanged([obj], () =>
        validateObjectMeta(obj, {
          kind: POD,
          namespaced: rnd() < 0.5,
          operation: rnd() < 0.5 ? 'create' : 'update',
          old: object(rnd),
        }),
      );
      unchanged([obj], () =>
        renderTable([obj], [{ name: 'X', type: 'string', jsonPath: String(value(rnd, 0)) }], {
          now: new Date(0),
        }),
      );
    }
  });

  it('selectors throw only SelectorError for any text', () => {
    const rnd = random(5);
    const pieces = [
      'a',
      'b',
      '=',
      '==',
      '!=',
      '!',
      ',',
      '(',
      ')',
      ' in ',
      ' notin ',
      ' ',
      'x.io/y',
      '>',
      '<',
      '1',
      '\\',
      '-',
      'metadata.name',
      'spec.nodeName',
    ];
    for (let i = 0; i < ROUNDS * 2; i++) {
      const text = Array.from(
        { length: Math.floor(rnd() * 8) },
        () => pieces[Math.floor(rnd() * pieces.length)],
      ).join('');
      typedOnly(() => parseLabelSelector(text).matches({ a: 'b', b: '1' }));
      typedOnly(() => parseFieldSelector(text, POD).matches({ metadata: { name: 'a' } }));
    }
  });
});
