// The ring a gracefully stopped shard records on its Lease (SHARD_HANDED_TO_ANNOTATION): read only from a
// released Lease (unless asked otherwise, as the sharder does), hostile annotations refused, and the same
// owner for every key whoever builds it (the sharder and each adopter must agree).
import { describe, expect, it } from 'vitest';
import { RecordedRing } from '../../lib/sharding/recorded-ring.js';
import { SHARD_HANDED_TO_ANNOTATION, SHARD_ID_LABEL } from '../../lib/sharding/shard-labels.js';
import type { ShardLease } from '../../lib/sharding/shard-leases.js';
import { objectKey } from '../../lib/watch/store.js';

const options = { keyOf: objectKey, virtualNodes: 64 };
const lease = (record: string | undefined, holder = ''): ShardLease => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: {
    name: 'sites-b-0000000a',
    labels: { [SHARD_ID_LABEL]: 'b-0000000a' },
    ...(record === undefined ? {} : { annotations: { [SHARD_HANDED_TO_ANNOTATION]: record } }),
  },
  spec: { holderIdentity: holder },
});
const obj = (name: string) => ({ metadata: { namespace: 'default', name } });

describe('RecordedRing', () => {
  const record = JSON.stringify({ a: 'a-0000000a', c: 'c-0000000c' });

  it('gives every key one recorded owner, the same in any order of the record', () => {
    const one = RecordedRing.of(lease(record), options);
    const two = RecordedRing.of(lease(JSON.stringify({ c: 'c-0000000c', a: 'a-0000000a' })), options);
    expect(one?.names('a-0000000a')).toBe(true);
    expect(one?.names('b-0000000a')).toBe(false);
    const owners = new Map<string, number>();
    for (let i = 0; i < 200; i++) {
      const owner = one?.ownerOf(obj(`w${i}`));
      expect(owner).toBe(two?.ownerOf(obj(`w${i}`)));
      owners.set(owner ?? '', (owners.get(owner ?? '') ?? 0) + 1);
    }
    expect([...owners.keys()].sort()).toEqual(['a-0000000a', 'c-0000000c']);
  });

  it('is read from a released Lease only, unless the reader asks otherwise', () => {
    expect(RecordedRing.of(lease(record, 'b-0000000a'), options)).toBeUndefined();
    expect(RecordedRing.of(lease(record, 'b-0000000a'), options, false)).toBeDefined();
    expect(RecordedRing.of(lease(undefined), options)).toBeUndefined();
    expect(RecordedRing.of(undefined, options)).toBeUndefined();
  });

  it.each([
    ['not JSON', '{a:'],
    ['an array', '["a-0000000a"]'],
    ['null', 'null'],
    ['empty', '{}'],
    ['a number as shard', '{"a":1}'],
    ['a shard that is no label value', '{"a":"-bad-"}'],
    ['an identity that is no label value', JSON.stringify({ ['x'.repeat(64)]: 'a-0000000a' })],
    [
      'too many members',
      JSON.stringify(Object.fromEntries(Array.from({ length: 4097 }, (_, i) => [`m${i}`, `m${i}-00000000`]))),
    ],
    ['too long', `{"a":"a-0000000a",${' '.repeat(600_000)}}`],
  ])('refuses a record that is %s', (_, text) => {
    expect(RecordedRing.of(lease(text), options)).toBeUndefined();
  });
});
