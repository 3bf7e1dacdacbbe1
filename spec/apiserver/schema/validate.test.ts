import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../../../lib/apiserver/schema/json-schema-props.js';
import { validateAgainstSchema } from '../../../lib/apiserver/schema/validate.js';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } },
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'integer', minimum: 1, maximum: 10 },
        ratio: { type: 'number', exclusiveMinimum: true, minimum: 0, multipleOf: 0.5 },
        color: { type: 'string', enum: ['red', 'blue'] },
        code: { type: 'string', pattern: '^[A-Z]+$', minLength: 3 },
        when: { type: 'string', format: 'date-time' },
        label: { type: 'string', maxLength: 4 },
        port: { 'x-kubernetes-int-or-string': true },
        enabled: { type: 'boolean' },
        note: { type: 'string', nullable: true },
        tags: {
          type: 'array',
          maxItems: 2,
          minItems: 1,
          items: { type: 'string' },
          'x-kubernetes-list-type': 'set',
        },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, number: { type: 'integer' } },
          },
        },
        env: { type: 'object', additionalProperties: { type: 'string' } },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
        choice: { anyOf: [{ type: 'integer' }, { type: 'string', enum: ['auto'] }] },
      },
    },
  },
};

function check(spec: Record<string, unknown>, metadata: Record<string, unknown> = { name: 'w' }) {
  return validateAgainstSchema({ apiVersion: 'example.com/v1', kind: 'Widget', metadata, spec }, schema);
}

describe('validateAgainstSchema', () => {
  it('accepts a valid object', () => {
    const spec = {
      size: 3,
      ratio: 1.5,
      color: 'red',
      code: 'ABC',
      when: '2026-11-21T13:30:17Z',
      label: 'abcd',
      port: 'http',
      enabled: false,
      note: null,
      tags: ['a', 'b'],
      ports: [{ name: 'a', number: 1 }, { name: 'b' }],
      env: { A: 'x' },
      template: { apiVersion: 'v1', kind: 'Pod', spec: { anything: true } },
      choice: 'auto',
    };
    expect(check(spec)).toEqual([]);
  });

  it.each([
    [
      'a string integer',
      { size: 'string' },
      'spec.size',
      'FieldValueTypeInvalid',
      'Invalid value: "string": spec.size in body must be of type integer: "string"',
    ],
    [
      'a fractional integer',
      { size: 1.5 },
      'spec.size',
      'FieldValueTypeInvalid',
      'Invalid value: "number": spec.size in body must be of type integer: "number"',
    ],
    ['a missing required field', {}, 'spec.size', 'FieldValueRequired', 'Required value'],
    [
      'a value below the minimum',
      { size: 0 },
      'spec.size',
      'FieldValueInvalid',
      'Invalid value: 0: spec.size in body should be greater than or equal to 1',
    ],
    [
      'a value above the maximum',
      { size: 11 },
      'spec.size',
      'FieldValueInvalid',
      'Invalid value: 11: spec.size in body should be less than or equal to 10',
    ],
    [
      'an exclusive minimum',
      { size: 1, ratio: 0 },
      'spec.ratio',
      'FieldValueInvalid',
      'spec.ratio in body should be greater than 0',
    ],
    [
      'a multipleOf miss',
      { size: 1, ratio: 0.7 },
      'spec.ratio',
      'FieldValueInvalid',
      'should be a multiple of 0.5',
    ],
    [
      'an enum miss',
      { size: 1, color: 'green' },
      'spec.color',
      'FieldValueNotSupported',
      'Unsupported value: "green": supported values: "red", "blue"',
    ],
    [
      'a pattern miss',
      { size: 1, code: 'abc' },
      'spec.code',
      'FieldValueInvalid',
      'Invalid value: "abc": spec.code in body should match \'^[A-Z]+$\'',
    ],
    [
      'a short string',
      { size: 1, code: 'AB' },
      'spec.code',
      'FieldValueInvalid',
      'should be at least 3 chars long',
    ],
    [
      'a long string',
      { size: 1, label: 'abcde' },
      'spec.label',
      'FieldValueTooLong',
      'Too long: may not be more than 4 bytes',
    ],
    [
      'a bad date-time',
      { size: 1, when: 'yesterday' },
      'spec.when',
      'FieldValueInvalid',
      'spec.when in body must be of type date-time: "yesterday"',
    ],
    [
      'a boolean int-or-string',
      { size: 1, port: true },
      'spec.port',
      'FieldValueTypeInvalid',
      'must be of type integer,string: "boolean"',
    ],
    [
      'a string boolean',
      { size: 1, enabled: 'yes' },
      'spec.enabled',
      'FieldValueTypeInvalid',
      'must be of type boolean: "string"',
    ],
    [
      'a null non-nullable field',
      { size: null },
      'spec.size',
      'FieldValueTypeInvalid',
      'spec.size in body must be of type integer: "null"',
    ],
    [
      'too many items',
      { size: 1, tags: ['a', 'b', 'c'] },
      'spec.tags',
      'FieldValueTooMany',
      'Too many: 3: must have at most 2 items',
    ],
    [
      'too few items',
      { size: 1, tags: [] },
      'spec.tags',
      'FieldValueInvalid',
      'should have at least 1 items',
    ],
    [
      'a duplicate set item',
      { size: 1, tags: ['a', 'a'] },
      'spec.tags[1]',
      'FieldValueDuplicate',
      'Duplicate value: "a"',
    ],
    [
      'a duplicate map-list key',
      { size: 1, ports: [{ name: 'a' }, { name: 'a', number: 2 }] },
      'spec.ports[1]',
      'FieldValueDuplicate',
      'Duplicate value: {"name":"a"}',
    ],
    [
      'a wrong type in a list item',
      { size: 1, ports: [{ name: 'a' }, { name: 'b', number: 'x' }] },
      'spec.ports[1].number',
      'FieldValueTypeInvalid',
      'spec.ports[1].number in body must be of type integer: "string"',
    ],
    [
      'a missing key in a list item',
      { size: 1, ports: [{ number: 1 }] },
      'spec.ports[0].name',
      'FieldValueRequired',
      'Required value',
    ],
    [
      'a wrong additionalProperties value',
      { size: 1, env: { A: 1 } },
      'spec.env.A',
      'FieldValueTypeInvalid',
      'spec.env.A in body must be of type string: "integer"',
    ],
    [
      'an embedded resource without kind',
      { size: 1, template: { apiVersion: 'v1' } },
      'spec.template.kind',
      'FieldValueRequired',
      'Required value: must not be empty',
    ],
    [
      'a failed anyOf',
      { size: 1, choice: 'manual' },
      'spec.choice',
      'FieldValueInvalid',
      'must validate at least one schema (anyOf)',
    ],
    [
      'a wrong type of a whole object',
      'not-an-object',
      'spec',
      'FieldValueTypeInvalid',
      'spec in body must be of type object: "string"',
    ],
  ])('reports %s', (_name, spec, field, reason, message) => {
    const causes = check(spec as Record<string, unknown>);
    expect(causes).toEqual([{ field, reason, message: expect.stringContaining(message) }]);
  });

  it('checks only name and generateName inside metadata', () => {
    expect(check({ size: 1 }, { name: 'toolong', labels: { any: 'thing' } })).toEqual([
      {
        field: 'metadata.name',
        reason: 'FieldValueTooLong',
        message: 'Too long: may not be more than 5 bytes',
      },
    ]);
  });

  it('reports every failing field in one pass', () => {
    const causes = check({ size: 'x', color: 'green', tags: ['a', 'a'] });
    expect(causes.map((c) => c.field).sort()).toEqual(['spec.color', 'spec.size', 'spec.tags[1]']);
  });

  it('prefixes fields with the given path', () => {
    const causes = validateAgainstSchema({ size: 'x' }, schema.properties!.spec!, 'spec');
    expect(causes[0]!.field).toBe('spec.size');
  });

  it('applies allOf, oneOf and not', () => {
    const s: JSONSchemaProps = {
      type: 'object',
      properties: {
        a: { type: 'integer', allOf: [{ minimum: 2 }] },
        b: { type: 'integer', oneOf: [{ minimum: 0 }, { maximum: 10 }] },
        c: { type: 'string', not: { enum: ['forbidden'] } },
      },
    };
    expect(validateAgainstSchema({ a: 1, b: 5, c: 'forbidden' }, s).map((c) => c.field)).toEqual([
      'a',
      'b',
      'c',
    ]);
    expect(validateAgainstSchema({ a: 2, b: 20, c: 'ok' }, s)).toEqual([]);
  });
});

describe('required fields named like Object.prototype members', () => {
  it('reports a missing "constructor" property', () => {
    const s: JSONSchemaProps = {
      type: 'object',
      required: ['constructor'],
      properties: { constructor: { type: 'string' } },
    };
    expect(validateAgainstSchema({}, s)).toEqual([
      { field: 'constructor', reason: 'FieldValueRequired', message: 'Required value' },
    ]);
    expect(validateAgainstSchema({ toString: 5 }, { type: 'object', properties: {} })).toEqual([]);
  });
});

describe('a malformed stored schema', () => {
  it('ignores keywords of the wrong type instead of failing', () => {
    const s = {
      type: 'object',
      required: 'a',
      properties: { a: { type: 'string', enum: 5, pattern: '([', minLength: '2' } },
    } as unknown as JSONSchemaProps;
    expect(validateAgainstSchema({ a: 'x' }, s)).toEqual([]);
    expect(validateAgainstSchema({ a: 1 }, s)).toEqual([
      expect.objectContaining({ field: 'a', reason: 'FieldValueTypeInvalid' }),
    ]);
  });
});
