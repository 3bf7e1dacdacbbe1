import { isJsonObject, metadataOf, stringAt, type JsonObject } from './json.js';

/** Watch event types the store produces. */
export type StoreEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One change of one object; `previous` is the state before (MODIFIED, DELETED). */
export interface StoreEvent {
  typeKey: string;
  type: StoreEventType;
  object: JsonObject;
  previous?: JsonObject;
  rv: number;
}

/** Default number of events retained per resource type for watch resumption. */
export const DEFAULT_WATCH_HISTORY_SIZE = 2000;

export interface ObjectStoreOptions {
  /** Events retained per type; default DEFAULT_WATCH_HISTORY_SIZE. Older resumes get 410 Expired. */
  historySize?: number;
  /** First resourceVersion counter value; resumes from older RVs get 410 (nothing retained before it). */
  initialRv: number;
  /** Called synchronously after every change (watch fan-out, persistence). */
  onEvent: (event: StoreEvent) => void;
  /** Called synchronously after `dropType` (persistence; drops emit no events). */
  onDrop?: (typeKey: string) => void;
}

interface TypeHistory {
  events: StoreEvent[];
  /** RV of the newest event no longer retained; resumes need rv >= this. */
  evictedRv: number;
}

/** The key of an object within its type: `namespace/name` ('' namespace for cluster-scoped). */
export function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

function keyOf(obj: JsonObject): string {
  const meta = metadataOf(obj);
  return objectKey(stringAt(meta, 'namespace'), stringAt(meta, 'name') ?? '');
}

function withRv(obj: JsonObject, rv: number): JsonObject {
  return { ...obj, metadata: { ...metadataOf(obj), resourceVersion: String(rv) } };
}

/**
 * Objects of every type, one global monotonic resourceVersion counter, and a bounded per-type event
 * history. Stored objects are never mutated after they are stored: readers may share them.
 */
export class ObjectStore {
  private rv: number;
  private readonly objects = new Map<string, Map<string, JsonObject>>();
  private readonly history = new Map<string, TypeHistory>();
  private readonly uids = new Map<string, { typeKey: string; key: string }>();
  /** ownerReference uid → `typeKey\0key` of the objects that name it (garbage collection). */
  private readonly dependents = new Map<string, Set<string>>();
  private readonly historySize: number;
  private readonly baseRv: number;

  constructor(private readonly options: ObjectStoreOptions) {
    this.rv = options.initialRv;
    this.baseRv = options.initialRv;
    this.historySize = options.historySize ?? DEFAULT_WATCH_HISTORY_SIZE;
  }

  /** The current value of the resourceVersion counter. */
  get currentRv(): number {
    return this.rv;
  }

  get(typeKey: string, namespace: string | undefined, name: string): JsonObject | undefined {
    return this.objects.get(typeKey)?.get(objectKey(namespace, name));
  }

  /** Objects of a type, in one namespace or all, ordered by namespace then name. */
  list(typeKey: string, namespace?: string): JsonObject[] {
    const all = this.objects.get(typeKey);
    if (!all) return [];
    const prefix = namespace === undefined ? undefined : `${namespace}/`;
    const keys = [...all.keys()].filter((k) => prefix === undefined || k.startsWith(prefix)).sort();
    return keys.map((k) => all.get(k)).filter((o): o is JsonObject => o !== undefined);
  }

  /** Type keys that hold at least one object. */
  typeKeys(): string[] {
    return [...this.objects.keys()].filter((k) => (this.objects.get(k)?.size ?? 0) > 0);
  }

  /** The type key and object of a uid, if stored. */
  findByUid(uid: string): { typeKey: string; object: JsonObject } | undefined {
    const at = this.uids.get(uid);
    const object = at && this.objects.get(at.typeKey)?.get(at.key);
    return at && object ? { typeKey: at.typeKey, object } : undefined;
  }

  /** The objects whose ownerReferences name `uid`. */
  dependentsOf(uid: string): { typeKey: string; object: JsonObject }[] {
    const out: { typeKey: string; object: JsonObject }[] = [];
    for (const ref of this.dependents.get(uid) ?? []) {
      const [typeKey = '', key = ''] = ref.split('\0');
      const object = this.objects.get(typeKey)?.get(key);
      if (object) out.push({ typeKey, object });
    }
    return out;
  }

  /** Stores a new object; returns it with its resourceVersion. */
  create(typeKey: string, obj: JsonObject): JsonObject {
    const stored = withRv(obj, ++this.rv);
    this.put(typeKey, stored);
    this.record({ typeKey, type: 'ADDED', object: stored, rv: this.rv });
    return stored;
  }

  /** Replaces an object; returns it with its new resourceVersion. */
  update(typeKey: string, obj: JsonObject, previous: JsonObject): JsonObject {
    const stored = withRv(obj, ++this.rv);
    this.put(typeKey, stored);
    this.record({ typeKey, type: 'MODIFIED', object: stored, previous, rv: this.rv });
    return stored;
  }

  /** Removes an object; the DELETED event carries its last state with the deletion RV. */
  remove(typeKey: string, obj: JsonObject): JsonObject {
    const key = keyOf(obj);
    const current = this.objects.get(typeKey)?.get(key) ?? obj;
    this.objects.get(typeKey)?.delete(key);
    this.index(typeKey, key, current, false);
    const uid = stringAt(metadataOf(current), 'uid');
    if (uid !== undefined) this.uids.delete(uid);
    const last = withRv(current, ++this.rv);
    this.record({ typeKey, type: 'DELETED', object: last, previous: current, rv: this.rv });
    return last;
  }

  /** True while every event of a type after `rv` is still retained (watch resume, continue tokens). */
  retains(typeKey: string, rv: number): boolean {
    return rv >= (this.history.get(typeKey)?.evictedRv ?? this.baseRv);
  }

  /** Events of a type after `rv`, or undefined when some of them are no longer retained. */
  eventsSince(typeKey: string, rv: number): StoreEvent[] | undefined {
    const h = this.history.get(typeKey);
    const evictedRv = h?.evictedRv ?? this.baseRv;
    if (rv < evictedRv) return undefined;
    return (h?.events ?? []).filter((e) => e.rv > rv);
  }

  /** Drops a type's objects and history without events (its CRD is gone). */
  dropType(typeKey: string): void {
    for (const [key, obj] of this.objects.get(typeKey) ?? []) {
      const uid = stringAt(metadataOf(obj), 'uid');
      if (uid !== undefined) this.uids.delete(uid);
      this.index(typeKey, key, obj, false);
    }
    this.objects.delete(typeKey);
    this.history.delete(typeKey);
    this.options.onDrop?.(typeKey);
  }

  /** Every stored object with its type key, lazily (snapshot compaction). */
  *entries(): Generator<[string, JsonObject]> {
    for (const [typeKey, map] of this.objects) for (const obj of map.values()) yield [typeKey, obj];
  }

  /** Loads objects without events (startup from a data file). */
  load(typeKey: string, obj: JsonObject): void {
    this.put(typeKey, obj);
  }

  private put(typeKey: string, obj: JsonObject): void {
    let map = this.objects.get(typeKey);
    if (!map) {
      map = new Map();
      this.objects.set(typeKey, map);
    }
    const key = keyOf(obj);
    const before = map.get(key);
    if (before) this.index(typeKey, key, before, false);
    map.set(key, obj);
    this.index(typeKey, key, obj, true);
    const uid = stringAt(metadataOf(obj), 'uid');
    if (uid !== undefined) this.uids.set(uid, { typeKey, key });
  }

  private index(typeKey: string, key: string, obj: JsonObject, add: boolean): void {
    const refs = metadataOf(obj).ownerReferences;
    if (!Array.isArray(refs)) return;
    const entry = `${typeKey}\0${key}`;
    for (const ref of refs) {
      const uid = isJsonObject(ref) ? stringAt(ref, 'uid') : undefined;
      if (uid === undefined) continue;
      let set = this.dependents.get(uid);
      if (add) {
        if (!set) {
          set = new Set();
          this.dependents.set(uid, set);
        }
        set.add(entry);
      } else if (set) {
        set.delete(entry);
        if (set.size === 0) this.dependents.delete(uid);
      }
    }
  }

  private record(event: StoreEvent): void {
    let h = this.history.get(event.typeKey);
    if (!h) {
      h = { events: [], evictedRv: this.baseRv };
      this.history.set(event.typeKey, h);
    }
    h.events.push(event);
    if (h.events.length > this.historySize) {
      const dropped = h.events.splice(0, h.events.length - this.historySize);
      const last = dropped[dropped.length - 1];
      if (last) {
        h.evictedRv = last.rv;
      }
    }
    this.options.onEvent(event);
  }
}
