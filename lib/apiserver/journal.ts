import { chmodSync, existsSync, openSync, closeSync, fsyncSync, readdirSync, readFileSync } from 'node:fs';
import { ftruncateSync, unlinkSync } from 'node:fs';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { ApiServerLog } from './core.js';
import type { JsonObject } from './json.js';
import {
  encodeRecord,
  readSegment,
  readSnapshot,
  RecoveredState,
  snapshotLines,
  type JournalRecord,
  type PersistedState,
  type SnapshotHeader,
} from './persistence.js';

/**
 * The log is folded into a new snapshot once it holds more than this many bytes and more than the last
 * snapshot: write cost stays proportional to the change, and compaction work is amortised O(1) per byte.
 */
export const DEFAULT_COMPACT_MIN_LOG_BYTES = 64 * 1024 * 1024;

/** Data files hold Secrets: owner read/write only. */
const FILE_MODE = 0o600;
/** Snapshot writes are chunked so a large store never becomes one string (V8 caps strings at ~512 MiB). */
const SNAPSHOT_CHUNK_BYTES = 1024 * 1024;

interface Batch {
  buffers: Buffer[];
  bytes: number;
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: Error) => void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A batch nobody awaits (background controller writes) must not become an unhandled rejection.
  promise.catch(() => undefined);
  return { buffers: [], bytes: 0, promise, resolve, reject };
}

/** The data file could not be written: writes are no longer acknowledged. */
export class PersistenceError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PersistenceError';
  }
}

/** Whether `err` is a {@link PersistenceError}. */
export function isPersistenceError(err: unknown): err is PersistenceError {
  return err instanceof PersistenceError;
}

export interface JournalOptions {
  /** Snapshot path (the `--data` file); log segments sit beside it as `<file>.log-<n>`. */
  path: string;
  log: ApiServerLog;
  /** Log bytes before compaction; default DEFAULT_COMPACT_MIN_LOG_BYTES. */
  compactMinLogBytes?: number;
}

/**
 * Durable persistence: an append-only log of changes with group commit (the writes of one tick share one
 * write and one fdatasync, and are acknowledged only after it), compacted in the background into a
 * snapshot. Recovery reads the snapshot, replays the segments after it, and drops a torn last record.
 */
export class Journal {
  private readonly path: string;
  private readonly compactMinLogBytes: number;
  private segment = 0;
  private handle: FileHandle | undefined;
  private open: Batch = newBatch();
  private inFlight: Batch | undefined;
  private inFlightHandle: FileHandle | undefined;
  private flushing = false;
  private failed: PersistenceError | undefined;
  private logBytes = 0;
  private snapshotBytes = 0;
  private compacting: Promise<void> | undefined;
  private closed = false;

  private constructor(
    private readonly options: JournalOptions,
    private readonly entries: () => Iterable<[string, JsonObject]>,
    private readonly currentRv: () => number,
  ) {
    this.path = options.path;
    this.compactMinLogBytes = options.compactMinLogBytes ?? DEFAULT_COMPACT_MIN_LOG_BYTES;
  }

  /**
   * Recovers the state of `path` (snapshot + log segments, torn tail dropped). Call `start` with the
   * store's accessors before the first `append`.
   */
  static recover(options: JournalOptions): { state: PersistedState | undefined; segments: number } {
    const state = new RecoveredState();
    const header = readSnapshot(options.path, state);
    if (existsSync(options.path)) chmodSync(options.path, FILE_MODE);
    const segments = listSegments(options.path);
    let replayed = 0;
    for (const seq of segments) {
      const file = segmentPath(options.path, seq);
      if (header !== undefined && seq < header.segment) continue;
      const buffer = readFileSync(file);
      const { records, validBytes } = readSegment(buffer);
      if (validBytes < buffer.length) {
        // Only the last, never-acknowledged batch can be torn by a crash: cut it off and go on.
        options.log('warn', 'data file: dropping a torn log tail', {
          file,
          droppedBytes: buffer.length - validBytes,
        });
        const fd = openSync(file, 'r+');
        try {
          ftruncateSync(fd, validBytes);
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
      }
      for (const record of records) state.apply(record);
      replayed += records.length;
    }
    const found = header !== undefined || segments.length > 0;
    options.log('info', 'data file recovered', { file: options.path, replayed, segments: segments.length });
    return { state: found ? state.toState() : undefined, segments: segments.length };
  }

  /** Opens a fresh log segment after the newest one and returns the journal, ready to append. */
  static async start(
    options: JournalOptions,
    entries: () => Iterable<[string, JsonObject]>,
    currentRv: () => number,
  ): Promise<Journal> {
    const journal = new Journal(options, entries, currentRv);
    const segments = listSegments(options.path);
    journal.segment = (segments[segments.length - 1] ?? 0) + 1;
    journal.handle = await open(segmentPath(options.path, journal.segment), 'a', FILE_MODE);
    await fsyncDir(options.path);
    // Fold what recovery replayed into a snapshot, in the background.
    if (segments.length > 0) journal.compactSoon();
    return journal;
  }

  /** Queues a record for the next group commit. */
  append(record: JournalRecord): void {
    if (this.closed) return;
    const buffer = encodeRecord(record);
    this.open.buffers.push(buffer);
    this.open.bytes += buffer.length;
    if (!this.flushing) {
      this.flushing = true;
      setImmediate(() => void this.flushLoop());
    }
  }

  /** Resolves once every record appended so far is on disk (fdatasync done); rejects if it cannot be. */
  durable(): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    if (this.open.buffers.length > 0) return this.open.promise;
    return this.inFlight?.promise ?? Promise.resolve();
  }

  /** Flushes what is queued, waits for a running compaction, closes the segment. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.durable().catch(() => undefined);
    while (this.flushing) await new Promise((resolve) => setImmediate(resolve));
    await this.compacting?.catch(() => undefined);
    await this.handle?.close();
    this.handle = undefined;
  }

  private async flushLoop(): Promise<void> {
    try {
      while (this.open.buffers.length > 0) {
        const batch = this.open;
        this.open = newBatch();
        this.inFlight = batch;
        if (this.failed) {
          batch.reject(this.failed);
          continue;
        }
        try {
          const handle = this.handle;
          if (!handle) throw new Error('the log segment is not open');
          this.inFlightHandle = handle;
          await handle.write(
            batch.buffers.length === 1 ? (batch.buffers[0] as Buffer) : Buffer.concat(batch.buffers),
          );
          await handle.datasync();
          this.logBytes += batch.bytes;
          batch.resolve();
        } catch (err) {
          this.failed = new PersistenceError(
            `writing the data file's log failed: ${err instanceof Error ? err.message : String(err)}`,
            { cause: err },
          );
          this.options.log('error', this.failed.message, { file: this.path });
          batch.reject(this.failed);
        }
        if (this.logBytes > Math.max(this.compactMinLogBytes, this.snapshotBytes)) this.compactSoon();
      }
    } finally {
      this.inFlight = undefined;
      this.flushing = false;
    }
  }

  /** Starts a compaction unless one runs: rotate the segment, write the snapshot, drop older segments. */
  private compactSoon(): void {
    if (this.compacting || this.closed || this.failed) return;
    this.compacting = this.compact()
      .catch((err: unknown) => {
        this.options.log('error', 'data file compaction failed (the log keeps every write)', {
          file: this.path,
          error: err instanceof Error ? err.message : String(err),
        });
      })
      .finally(() => {
        this.compacting = undefined;
      });
  }

  private async compact(): Promise<void> {
    // Rotate between batches: records queued from now on go to the new segment, which the snapshot
    // names as the first one to replay. Replaying a record the snapshot already holds is harmless.
    // A batch taken before the swap still writes to the previous segment: its records are in the store
    // already, so the snapshot captured below holds them.
    const previous = this.handle;
    const segment = this.segment + 1;
    this.handle = await open(segmentPath(this.path, segment), 'a', FILE_MODE);
    this.segment = segment;
    this.logBytes = 0;
    while (this.inFlight && this.inFlightHandle === previous) {
      await this.inFlight.promise.catch(() => undefined);
    }
    await previous?.close();
    const header: SnapshotHeader = {
      format: 'reconcilekit-apiserver-snapshot',
      version: 2,
      rv: this.currentRv(),
      segment,
    };
    // Stored objects are immutable: holding the references is a consistent snapshot at this instant.
    const entries = [...this.entries()];
    const tmp = join(dirname(this.path), `.${basename(this.path)}.tmp-${process.pid}`);
    const out = await open(tmp, 'w', FILE_MODE);
    let written = 0;
    try {
      let chunk: string[] = [];
      let chunkBytes = 0;
      for (const line of snapshotLines(header, entries)) {
        chunk.push(line);
        chunkBytes += line.length;
        if (chunkBytes >= SNAPSHOT_CHUNK_BYTES) {
          const buffer = Buffer.from(chunk.join(''), 'utf8');
          await out.write(buffer);
          written += buffer.length;
          chunk = [];
          chunkBytes = 0;
        }
      }
      const buffer = Buffer.from(chunk.join(''), 'utf8');
      await out.write(buffer);
      written += buffer.length;
      await out.sync();
    } finally {
      await out.close();
    }
    await rename(tmp, this.path);
    await fsyncDir(this.path);
    this.snapshotBytes = written;
    for (const seq of listSegments(this.path)) {
      if (seq < segment) await unlink(segmentPath(this.path, seq)).catch(() => undefined);
    }
  }
}

function segmentPath(path: string, seq: number): string {
  return `${path}.log-${String(seq).padStart(8, '0')}`;
}

/** Sequence numbers of the log segments beside `path`, ascending. */
function listSegments(path: string): number[] {
  const dir = dirname(path);
  const prefix = `${basename(path)}.log-`;
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
    .map((name) => Number(name.slice(prefix.length)))
    .sort((a, b) => a - b);
}

/** Makes a rename or a new file in the data file's directory durable. */
async function fsyncDir(path: string): Promise<void> {
  const handle = await open(dirname(path), 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Removes a data file and its log segments (tests, `reset`). */
export function removeDataFiles(path: string): void {
  for (const seq of listSegments(path)) unlinkSync(segmentPath(path, seq));
  if (existsSync(path)) unlinkSync(path);
}
