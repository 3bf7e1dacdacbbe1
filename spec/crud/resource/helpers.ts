// Test doubles shared by the core specs: recording CRUD ops, recording plain resources, captured logs.
import { PassThrough } from 'node:stream';
import { createLogger, type Logger } from '../../../lib/observability/logger.js';
import type { ReconcileContext } from '../../../lib/context/reconcile-context.js';
import type { CRUDResourceOps, CRUDStep, MaybePatch } from '../../../lib/crud/resource/crud-resource-ops.js';
import { Patch } from '../../../lib/crud/resource/patch.js';
import type { Resource } from '../../../lib/crud/resource/resource.js';

export type Obj = { metadata?: { name?: string; namespace?: string } };

export interface RecordingOpsOptions {
  /** Patch returned by both patch functions. Default: a full patch (all three parts set to null). */
  patch?: () => MaybePatch<unknown>;
  /** Run inside a step, after it was recorded (raise flags here). */
  during?: Partial<Record<CRUDStep, (ctx: ReconcileContext) => void>>;
  /** Number of times a step throws before it succeeds (Infinity = always). */
  failures?: Partial<Record<CRUDStep, number>>;
  /** Values received by the apply steps, by step. */
  applied?: Partial<Record<CRUDStep, unknown[]>>;
}

export function fullPatch(): Patch {
  return new Patch().setCreateChange(null).setDeleteChange(null).setUpdateChange(null);
}

/** CRUD ops that append `<name>.<Step>` to `calls` for every step they run. */
export function recordingOps(
  name: string,
  calls: string[],
  options: RecordingOpsOptions = {},
): CRUDResourceOps<Obj> {
  const failures = { ...options.failures };
  const step = (stepName: CRUDStep, ctx: ReconcileContext, value?: unknown): void => {
    calls.push(`${name}.${stepName}`);
    if (options.applied !== undefined && stepName.startsWith('Apply')) {
      (options.applied[stepName] ??= []).push(value);
    }
    options.during?.[stepName]?.(ctx);
    const left = failures[stepName] ?? 0;
    if (left > 0) {
      failures[stepName] = left - 1;
      throw new Error(`${name}.${stepName} failed`);
    }
  };
  const patch = options.patch ?? fullPatch;
  return {
    name,
    getCurrentState: async (ctx) => {
      step('GetCurrentState', ctx);
      return 'current';
    },
    getDesiredState: async (ctx) => {
      step('GetDesiredState', ctx);
      return 'desired';
    },
    newUpdatePatch: async (ctx) => {
      step('NewUpdatePatch', ctx);
      return patch();
    },
    newDeletePatch: async (ctx) => {
      step('NewDeletePatch', ctx);
      return patch();
    },
    applyCreateChange: async (ctx, _obj, change) => {
      step('ApplyCreateChange', ctx, change);
    },
    applyDeleteChange: async (ctx, _obj, change) => {
      step('ApplyDeleteChange', ctx, change);
    },
    applyUpdateChange: async (ctx, _obj, change) => {
      step('ApplyUpdateChange', ctx, change);
    },
  };
}

/** The full list of step calls one CRUD resource makes on a path with a full patch. */
export function fullFlow(name: string, path: 'update' | 'delete'): string[] {
  return [
    `${name}.GetCurrentState`,
    `${name}.GetDesiredState`,
    `${name}.${path === 'update' ? 'NewUpdatePatch' : 'NewDeletePatch'}`,
    `${name}.ApplyCreateChange`,
    `${name}.ApplyDeleteChange`,
    `${name}.ApplyUpdateChange`,
  ];
}

/** A plain resource appending `<name>.EnsureCreated` / `<name>.EnsureDeleted` to `calls`. */
export function recordingResource(
  name: string,
  calls: string[],
  during?: (ctx: ReconcileContext) => void,
  failures = 0,
): Resource<Obj> {
  let left = failures;
  const run = (what: string, ctx: ReconcileContext): Promise<void> => {
    calls.push(`${name}.${what}`);
    during?.(ctx);
    if (left > 0) {
      left -= 1;
      return Promise.reject(new Error(`${name}.${what} failed`));
    }
    return Promise.resolve();
  };
  return {
    name,
    ensureCreated: (ctx) => run('EnsureCreated', ctx),
    ensureDeleted: (ctx) => run('EnsureDeleted', ctx),
  };
}

/** A debug-level logger writing into memory; `lines()` parses what was written so far. */
export function capturedLogger(): { logger: Logger; lines: () => Promise<Record<string, unknown>[]> } {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  const logger = createLogger({ level: 'debug', stream });
  return {
    logger,
    lines: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return chunks
        .join('')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    },
  };
}
