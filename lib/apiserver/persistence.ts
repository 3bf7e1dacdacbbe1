import { crc32 } from 'node:zlib';
import { existsSync, readFileSync } from 'node:fs';
import { isJsonObject, metadataOf, stringAt, type JsonObject } from './json.js';
import { objectKey, type StoreEvent } from './store.js';

/** What the data file holds: the RV counter and every object by type key. */
export interface PersistedState {
  rv: number;
  objects: Record<string, JsonObject[]>;
}

/** One change in the append-only log. `put` stores a whole object, `del` removes one, `drop` a type. */
export type JournalRecord =
  | { op: 'put'; t: string; rv: number; o: JsonObject }
  | { op: 'del'; t: string; rv: number; k: string }
  | { op: 'drop'; t: string; rv: number };

/** The log record of a store event. */
export function recordOf(event: StoreEvent): JournalRecord {
  if (event.type !== 'DELETED') return { op: 'put', t: event.typeKey, rv: event.rv, o: event.object };
  const meta = metadataOf(event.object);
  const k = objectKey(stringAt(meta, 'namespace'), stringAt(meta, 'name') ?? '');
  return { op: 'del', t: event.typeKey, rv: event.rv, k };
}

/** First line of a snapshot file. `segment`: the first log segment not folded into this snapshot. */
export interface SnapshotHeader {
  format: 'reconcilekit-apiserver-snapshot';
  version: 2;
  rv: number;
  segment: number;
}

/** A log line: `<crc32 of the JSON, 8 hex digits> <JSON>\n`. A torn or corrupted line fails its checksum. */
export function encodeRecord(record: JournalRecord): Buffer {
  const json = Buffer.from(JSON.stringify(record), 'utf8');
  const crc = crc32(json).toString(16).padStart(8, '0');
  return Buffer.concat([Buffer.from(`${crc} `, 'latin1'), json, Buffer.from('\n', 'latin1')]);
}

/** Splits a buffer into lines without ever decoding it whole (a data file may exceed V8's string limit). */
function* lines(buffer: Buffer): Generator<{ line: Buffer; start: number; complete: boolean }> {
  let start = 0;
  while (start < buffer.length) {
    const end = buffer.indexOf(0x0a, start);
    if (end === -1) {
      yield { line: buffer.subarray(start), start, complete: false };
      return;
    }
    yield { line: buffer.subarray(start, end), start, complete: true };
    start = end + 1;
  }
}

/** The records of one log segment, and the byte offset where the valid prefix ends (a torn tail starts). */
export function readSegment(buffer: Buffer): { records: JournalRecord[]; validBytes: number } {
  const records: JournalRecord[] = [];
  for (const { line, start, complete } of lines(buffer)) {
    const record = complete ? decodeRecord(line) : undefined;
    if (record === undefined) return { records, validBytes: start };
    records.push(record);
  }
  return { records, validBytes: buffer.length };
}

function decodeRecord(line: Buffer): JournalRecord | undefined {
  if (line.length < 10 || line[8] !== 0x20) return undefined;
  const json = line.subarray(9);
  if (crc32(json).toString(16).padStart(8, '0') !== line.subarray(0, 8).toString('latin1')) return undefined;
  try {
    const value: unknown = JSON.parse(json.toString('utf8'));
    if (!isJsonObject(value) || typeof value.t !== 'string' || typeof value.rv !== 'number') return undefined;
    if (value.op === 'put' && isJsonObject(value.o)) return value as unknown as JournalRecord;
    if (value.op === 'del' && typeof value.k === 'string') return value as unknown as JournalRecord;
    if (value.op === 'drop') return value as unknown as JournalRecord;
    return undefined;
  } catch {
    return undefined;
  }
}

/** State being rebuilt at startup: objects by type key, then by `namespace/name`. */
export class RecoveredState {
  rv = 0;
  readonly objects = new Map<string, Map<string, JsonObject>>();

  put(typeKey: string, obj: JsonObject): void {
    let map = this.objects.get(typeKey);
    if (!map) {
      map = new Map();
      this.objects.set(typeKey, map);
    }
    const meta = isJsonObject(obj.metadata) ? obj.metadata : {};
    const namespace = typeof meta.namespace === 'string' ? meta.namespace : undefined;
    map.set(objectKey(namespace, typeof meta.name === 'string' ? meta.name : ''), obj);
  }

  apply(record: JournalRecord): void {
    this.rv = Math.max(this.rv, record.rv);
    if (record.op === 'put') this.put(record.t, record.o);
    else if (record.op === 'del') this.objects.get(record.t)?.delete(record.k);
    else this.objects.delete(record.t);
  }

  toState(): PersistedState {
    const objects: Record<string, JsonObject[]> = {};
    for (const [typeKey, map] of this.objects) if (map.size > 0) objects[typeKey] = [...map.values()];
    return { rv: this.rv, objects };
  }
}

/**
 * Reads a snapshot file into `state`; returns its header (the legacy single-JSON format of version 1
 * counts as a snapshot that precedes every segment). Throws on a file that is neither.
 */
export function readSnapshot(path: string, state: RecoveredState): SnapshotHeader | undefined {
  if (!existsSync(path)) return undefined;
  const buffer = readFileSync(path);
  const first = buffer.indexOf(0x0a);
  const headerText = buffer.subarray(0, first === -1 ? buffer.length : first).toString('utf8');
  let header: unknown;
  try {
    header = JSON.parse(headerText);
  } catch {
    header = undefined;
  }
  if (isJsonObject(header) && header.format === 'reconcilekit-apiserver-snapshot') {
    if (header.version !== 2 || typeof header.rv !== 'number' || typeof header.segment !== 'number') {
      throw new Error(`${path}: unsupported snapshot header ${headerText.slice(0, 200)}`);
    }
    let lineNo = 1;
    for (const { line, complete } of lines(buffer.subarray(first + 1))) {
      lineNo++;
      // A snapshot is renamed into place only after fsync: an incomplete line means it was damaged.
      if (!complete) throw new Error(`${path}: snapshot line ${lineNo} is truncated`);
      const entry: unknown = JSON.parse(line.toString('utf8'));
      if (!isJsonObject(entry) || typeof entry.t !== 'string' || !isJsonObject(entry.o)) {
        throw new Error(`${path}: snapshot line ${lineNo} is not an object entry`);
      }
      state.put(entry.t, entry.o);
    }
    state.rv = Math.max(state.rv, header.rv);
    return header as unknown as SnapshotHeader;
  }
  if (isJsonObject(header) && typeof header.rv === 'number' && isJsonObject(header.objects)) {
    for (const [key, list] of Object.entries(header.objects)) {
      if (Array.isArray(list)) for (const obj of list) if (isJsonObject(obj)) state.put(key, obj);
    }
    state.rv = Math.max(state.rv, header.rv);
    return { format: 'reconcilekit-apiserver-snapshot', version: 2, rv: header.rv, segment: 0 };
  }
  throw new Error(`${path} is not a reconcilekit apiserver data file`);
}

/** The snapshot's lines: header, then one `{"t":typeKey,"o":object}` per object. */
export function* snapshotLines(
  header: SnapshotHeader,
  entries: Iterable<[string, JsonObject]>,
): Generator<string> {
  yield `${JSON.stringify(header)}\n`;
  for (const [t, o] of entries) yield `${JSON.stringify({ t, o })}\n`;
}
