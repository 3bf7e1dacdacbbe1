import { describe, expect, it } from 'vitest';
import {
  validateObjectMeta,
  type ObjectMetaValidationOptions,
} from '../../../lib/apiserver/validation/object-meta.js';

const CONFIGMAP = { group: '', version: 'v1', kind: 'ConfigMap' };
const NAMESPACE = { group: '', version: 'v1', kind: 'Namespace' };
const SERVICE = { group: '', version: 'v1', kind: 'Service' };
const WIDGET = { group: 'example.com', version: 'v1', kind: 'Widget' };

const create: ObjectMetaValidationOptions = { kind: CONFIGMAP, namespaced: true, operation: 'create' };

function causes(metadata: Record<string, unknown>, options: Partial<ObjectMetaValidationOptions> = {}) {
  return validateObjectMeta({ metadata: { namespace: 'default', ...metadata } }, { ...create, ...options });
}

describe('validateObjectMeta', () => {
  it.each([
    ['a subdomain name', { name: 'a.b-c.d' }],
    ['a generateName with trailing dash', { generateName: 'web-' }],
    [
      'prefixed and plain labels',
      { name: 'x', labels: { 'app.kubernetes.io/name': 'x', tier: '', 'A_b.c': 'V-1' } },
    ],
    [
      'annotations with free-form values',
      { name: 'x', annotations: { 'example.com/Note': 'any text: {"json": true}' } },
    ],
    ['qualified and standard finalizers', { name: 'x', finalizers: ['example.com/cleanup', 'orphan'] }],
    [
      'a valid controller ownerReference',
      {
        name: 'x',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r', uid: 'u', controller: true },
        ],
      },
    ],
  ])('accepts %s', (_name, metadata) => {
    expect(causes(metadata)).toEqual([]);
  });

  it.each([
    [
      'no name nor generateName',
      {},
      {},
      'metadata.name',
      'FieldValueRequired',
      'Required value: name or generateName is required',
    ],
    [
      'an uppercase name',
      { name: 'Web' },
      {},
      'metadata.name',
      'FieldValueInvalid',
      'Invalid value: "Web": a lowercase RFC 1123 subdomain',
    ],
    [
      'a name too long',
      { name: 'a'.repeat(254) },
      {},
      'metadata.name',
      'FieldValueInvalid',
      'must be no more than 253 characters',
    ],
    [
      'a dotted namespace name',
      { name: 'a.b', namespace: undefined },
      { kind: NAMESPACE, namespaced: false },
      'metadata.name',
      'FieldValueInvalid',
      'RFC 1123 label',
    ],
    [
      'a service name starting with a digit',
      { name: '1svc' },
      { kind: SERVICE },
      'metadata.name',
      'FieldValueInvalid',
      'DNS-1035 label',
    ],
    [
      'a name of ..',
      { name: '..' },
      { kind: WIDGET },
      'metadata.name',
      'FieldValueInvalid',
      'Invalid value: "..": a lowercase RFC 1123 subdomain',
    ],
    [
      'a bad generateName',
      { generateName: 'Bad_' },
      {},
      'metadata.generateName',
      'FieldValueInvalid',
      'Invalid value: "Bad_"',
    ],
    [
      'a missing namespace',
      { name: 'x', namespace: '' },
      {},
      'metadata.namespace',
      'FieldValueRequired',
      'Required value',
    ],
    [
      'a namespace on a cluster-scoped kind',
      { name: 'x' },
      { kind: NAMESPACE, namespaced: false },
      'metadata.namespace',
      'FieldValueForbidden',
      'Forbidden: not allowed on this type',
    ],
    [
      'a bad label key',
      { name: 'x', labels: { 'bad key': 'v' } },
      {},
      'metadata.labels',
      'FieldValueInvalid',
      'Invalid value: "bad key": name part must consist',
    ],
    [
      'an empty label prefix',
      { name: 'x', labels: { '/a': 'v' } },
      {},
      'metadata.labels',
      'FieldValueInvalid',
      'prefix part must be non-empty',
    ],
    [
      'a label value too long',
      { name: 'x', labels: { a: 'v'.repeat(64) } },
      {},
      'metadata.labels',
      'FieldValueInvalid',
      'must be no more than 63 characters',
    ],
    [
      'a label value with a space',
      { name: 'x', labels: { a: 'b c' } },
      {},
      'metadata.labels',
      'FieldValueInvalid',
      'a valid label must be an empty string',
    ],
    [
      'a non-string label value',
      { name: 'x', labels: { a: 1 } },
      {},
      'metadata.labels',
      'FieldValueTypeInvalid',
      'label values must be strings',
    ],
    [
      'a bad annotation key',
      { name: 'x', annotations: { 'a/b/c': 'v' } },
      {},
      'metadata.annotations',
      'FieldValueInvalid',
      'Invalid value: "a/b/c"',
    ],
    [
      'annotations over 256 KiB',
      { name: 'x', annotations: { a: 'v'.repeat(262_144) } },
      {},
      'metadata.annotations',
      'FieldValueTooLong',
      'Too long: may not be more than 262144 bytes',
    ],
    [
      'an unqualified finalizer on a built-in kind',
      { name: 'x', finalizers: ['cleanup'] },
      {},
      'metadata.finalizers[0]',
      'FieldValueInvalid',
      'neither a standard finalizer name nor is it fully qualified',
    ],
    [
      'orphan with foregroundDeletion',
      { name: 'x', finalizers: ['orphan', 'foregroundDeletion'] },
      {},
      'metadata.finalizers',
      'FieldValueInvalid',
      'cannot be both set',
    ],
    [
      'an ownerReference without uid',
      { name: 'x', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p' }] },
      {},
      'metadata.ownerReferences.uid',
      'FieldValueInvalid',
      'uid must not be empty',
    ],
    [
      'an ownerReference without version',
      { name: 'x', ownerReferences: [{ apiVersion: 'apps/', kind: 'Pod', name: 'p', uid: 'u' }] },
      {},
      'metadata.ownerReferences.apiVersion',
      'FieldValueInvalid',
      'version must not be empty',
    ],
    [
      'an Event owner',
      { name: 'x', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }] },
      {},
      'metadata.ownerReferences.kind',
      'FieldValueInvalid',
      'is disallowed from being an owner',
    ],
    [
      'two controllers',
      {
        name: 'x',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'A', name: 'a', uid: '1', controller: true },
          { apiVersion: 'v1', kind: 'B', name: 'b', uid: '2', controller: true },
        ],
      },
      {},
      'metadata.ownerReferences',
      'FieldValueInvalid',
      'Only one reference can have Controller set to true. Found "true" in references for a and b',
    ],
  ])('rejects %s', (_name, metadata, options, field, reason, message) => {
    const found = causes(metadata, options);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ field, reason });
    expect(found[0]!.message).toContain(message);
  });

  it('allows an unqualified finalizer on a custom resource (kube only warns)', () => {
    expect(causes({ name: 'x', finalizers: ['cleanup'] }, { kind: WIDGET })).toEqual([]);
  });

  it('reports every problem, one cause each', () => {
    const found = causes({ name: 'X', labels: { '-a': '-b' } });
    expect(found.map((c) => c.field)).toEqual(['metadata.name', 'metadata.labels', 'metadata.labels']);
  });

  describe('on update', () => {
    const old = {
      metadata: { name: 'x', namespace: 'default', uid: 'u1', creationTimestamp: '2026-01-01T00:00:00Z' },
    };
    const update = { operation: 'update' as const, old };

    it('accepts an update that omits system fields', () => {
      expect(causes({ name: 'x', labels: { a: 'b' } }, update)).toEqual([]);
    });

    it.each([
      ['uid', { uid: 'u2' }],
      ['creationTimestamp', { creationTimestamp: '2027-01-01T00:00:00Z' }],
      ['namespace', { namespace: 'other' }],
    ])('rejects a change of %s as immutable', (field, change) => {
      expect(causes({ name: 'x', ...change }, update)).toEqual([
        expect.objectContaining({
          field: `metadata.${field}`,
          reason: 'FieldValueInvalid',
          message: expect.stringContaining('field is immutable'),
        }),
      ]);
    });

    it('forbids adding a finalizer once deletionTimestamp is set, but allows removing one', () => {
      const deleting = {
        metadata: { ...old.metadata, deletionTimestamp: '2026-02-01T00:00:00Z', finalizers: ['a.io/x'] },
      };
      const added = causes(
        { name: 'x', finalizers: ['a.io/x', 'b.io/y'] },
        { operation: 'update', old: deleting },
      );
      expect(added).toEqual([
        expect.objectContaining({ field: 'metadata.finalizers', reason: 'FieldValueForbidden' }),
      ]);
      expect(causes({ name: 'x', finalizers: [] }, { operation: 'update', old: deleting })).toEqual([]);
    });
  });
});
