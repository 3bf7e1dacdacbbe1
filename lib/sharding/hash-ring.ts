/**
 * Virtual nodes per member of a {@link HashRing} by default. With V points per member the share of keys a
 * member owns has a relative spread of about 1/√V; 2,000 keeps every member of a 100-member ring within
 * about 6 % of the mean (the simulation in spec/sharding and `make bench` measure it), at 12 bytes of ring
 * per point.
 * @category Sharding
 */
export const DEFAULT_VIRTUAL_NODES = 2_000;

/** Most virtual nodes per member a ring accepts. */
const MAX_VIRTUAL_NODES = 4_000;
/** Most points a ring holds in all (members × virtual nodes): 24 MB of ring. */
const MAX_POINTS = 2_000_000;
/** Bits of a packed point that hold the member index (positions are 52 bits: 64 in all). */
const MEMBER_BITS = 12n;
const MEMBER_MASK = (1n << MEMBER_BITS) - 1n;
/** Most members a ring holds (the member index must fit {@link MEMBER_BITS}). */
const MAX_MEMBERS = 4_096;

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The ring position of a key: a 52-bit integer (exact in a double) from two 32-bit multiply-xor hashes
 * over the key's UTF-16 code units, each finished with MurmurHash3's avalanche step. Deterministic across
 * processes and platforms: every replica places a key at the same point.
 * @category Sharding
 */
export function ringHash(key: string): number {
  let a = 0x811c9dc5;
  let b = 0x9747b28c ^ key.length;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return fmix32(a) * 2 ** 20 + (fmix32(b) >>> 12);
}

/**
 * Options of a {@link HashRing}.
 * @category Sharding
 */
export interface HashRingOptions {
  /** Points each member takes on the ring. Default {@link DEFAULT_VIRTUAL_NODES}; 1–4,000. */
  virtualNodes?: number;
}

/**
 * A consistent-hash ring with virtual nodes: each member takes `virtualNodes` points (the hash of
 * `<member>#<i>`), and a key belongs to the member of the first point at or after the key's hash
 * (wrapping around). Adding or removing one of N members moves about 1/N of the keys, and only keys that
 * go to or come from that member. Immutable: build a new ring when the members change. Pure: no I/O.
 * @category Sharding
 */
export class HashRing {
  /** The members, sorted. */
  readonly members: readonly string[];
  readonly virtualNodes: number;
  private readonly points: Float64Array;
  private readonly owners: Int32Array;

  constructor(members: Iterable<string>, options: HashRingOptions = {}) {
    const v = options.virtualNodes ?? DEFAULT_VIRTUAL_NODES;
    if (!Number.isInteger(v) || v < 1 || v > MAX_VIRTUAL_NODES) {
      throw new RangeError(
        `virtualNodes must be an integer from 1 to ${MAX_VIRTUAL_NODES}, got ${String(v)}`,
      );
    }
    this.virtualNodes = v;
    const sorted = [...new Set(members)].sort();
    for (const m of sorted) {
      if (typeof m !== 'string' || m === '') throw new TypeError('ring members must be non-empty strings');
    }
    if (sorted.length > MAX_MEMBERS) {
      throw new RangeError(`a ring holds at most ${MAX_MEMBERS} members, got ${sorted.length}`);
    }
    if (sorted.length * v > MAX_POINTS) {
      throw new RangeError(
        `a ring holds at most ${MAX_POINTS} points: ${sorted.length} members × ${v} virtual nodes is too many`,
      );
    }
    this.members = sorted;
    // One 64-bit word per point, position above member index, sorted natively (no comparator): ties go
    // to the smaller member index, the same on every replica.
    const n = sorted.length * v;
    const packed = new BigUint64Array(n);
    for (let m = 0; m < sorted.length; m++) {
      const name = sorted[m] as string;
      const index = BigInt(m);
      for (let i = 0; i < v; i++) {
        packed[m * v + i] = (BigInt(ringHash(`${name}#${String(i)}`)) << MEMBER_BITS) | index;
      }
    }
    packed.sort();
    this.points = new Float64Array(n);
    this.owners = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const p = packed[i] as bigint;
      this.points[i] = Number(p >> MEMBER_BITS);
      this.owners[i] = Number(p & MEMBER_MASK);
    }
  }

  /** Number of members. */
  get size(): number {
    return this.members.length;
  }

  /** The member owning `key`, or undefined on an empty ring. */
  owner(key: string): string | undefined {
    const n = this.points.length;
    if (n === 0) return undefined;
    const h = ringHash(key);
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.points[mid] as number) < h) lo = mid + 1;
      else hi = mid;
    }
    return this.members[this.owners[lo === n ? 0 : lo] as number];
  }

  /** Whether `member` is on the ring. */
  has(member: string): boolean {
    let lo = 0;
    let hi = this.members.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.members[mid] as string) < member) lo = mid + 1;
      else hi = mid;
    }
    return this.members[lo] === member;
  }
}
