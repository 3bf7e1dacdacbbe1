import type { KubernetesObject } from '@kubernetes/client-node';
import { isAlreadyExists, isConflict, isNotFound } from '../kube/api-error.js';
import type { ObjectClient } from '../kube/object-client.js';
import type { ObjectRef } from '../kube/resource-ref.js';
import { ExpressionError } from './declarative-spec-error.js';
import { jsonEqual } from './expression-values.js';
import { patcherWrite, updaterWrite, type TargetWrite } from './target-writes.js';

/** Writes in flight at once per pass (loopback writes are cheap; a cluster's API server is not). */
export const DEFAULT_TARGET_WRITE_CONCURRENCY = 16;

/** The target kind, resolved once at start. */
export interface ResolvedTarget {
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  readonly statusSubresource: boolean;
  readonly type: 'Updater' | 'Patcher';
}

/** What one pass wrote. */
export interface WriteCounts {
  created: number;
  updated: number;
  deleted: number;
  unchanged: number;
}

function keyOf(obj: KubernetesObject): string {
  const ns = obj.metadata?.namespace;
  return ns === undefined || ns === '' ? (obj.metadata?.name ?? '') : `${ns}/${obj.metadata?.name ?? ''}`;
}

/**
 * Carries a pass's outputs to the target: compares each with the cached object, writes the difference
 * (Updater or Patcher rules, `target-writes.ts`), and turns outputs that disappeared since the last pass
 * into deletes (Updater) or nulled fields (Patcher). A stale cache is harmless: a conflict or
 * AlreadyExists re-reads the object and decides again.
 */
export class TargetWriter {
  /** Last output written per key: what a disappearing output deletes or nulls. */
  private readonly written = new Map<string, KubernetesObject>();

  constructor(
    private readonly client: ObjectClient,
    private readonly target: ResolvedTarget,
    /** Creates a namespace that a create found missing (views live in a server of their own). */
    private readonly ensureNamespace?: (namespace: string, signal: AbortSignal) => Promise<void>,
    private readonly concurrency = DEFAULT_TARGET_WRITE_CONCURRENCY,
  ) {}

  /** Stamps target apiVersion/kind (and scope) on pipeline outputs; rejects two outputs with one name. */
  shape(outputs: readonly KubernetesObject[], path: string): KubernetesObject[] {
    const seen = new Set<string>();
    return outputs.map((o) => {
      const metadata = Object.assign({}, o.metadata);
      if (this.target.namespaced) metadata.namespace ??= 'default';
      else delete metadata.namespace;
      const shaped = { ...o, apiVersion: this.target.apiVersion, kind: this.target.kind, metadata };
      const key = keyOf(shaped);
      if (seen.has(key))
        throw new ExpressionError(path, `two outputs are named ${key}; make metadata.name unique`);
      seen.add(key);
      return shaped;
    });
  }

  /** Writes the differences between `outputs` and the target; `cached` reads the target's cache. */
  async write(
    outputs: readonly KubernetesObject[],
    cached: (key: string) => KubernetesObject | undefined,
    signal: AbortSignal,
  ): Promise<WriteCounts> {
    const counts: WriteCounts = { created: 0, updated: 0, deleted: 0, unchanged: 0 };
    const jobs: (() => Promise<void>)[] = [];
    const next = new Map<string, KubernetesObject>();
    for (const desired of outputs) next.set(keyOf(desired), desired);
    for (const [key, desired] of next) {
      const previous = this.written.get(key);
      const existing = cached(key);
      const w = this.decide(existing, desired, previous);
      if (w.verb === 'none') {
        counts.unchanged++;
        this.written.set(key, desired);
        continue;
      }
      jobs.push(async () => {
        await this.apply(key, desired, previous, w, counts, signal);
        this.written.set(key, desired);
      });
    }
    for (const [key, previous] of this.written) {
      if (next.has(key)) continue;
      jobs.push(async () => {
        await this.apply(
          key,
          undefined,
          previous,
          this.decide(cached(key), undefined, previous),
          counts,
          signal,
        );
        this.written.delete(key);
      });
    }
    await runLimited(jobs, this.concurrency);
    return counts;
  }

  private decide(
    existing: KubernetesObject | undefined,
    desired: KubernetesObject | undefined,
    previous: KubernetesObject | undefined,
  ): TargetWrite {
    const info = { statusSubresource: this.target.statusSubresource };
    return this.target.type === 'Patcher'
      ? patcherWrite(existing, desired, previous, info)
      : updaterWrite(existing, desired, info);
  }

  private ref(key: string): ObjectRef {
    const slash = key.indexOf('/');
    const base = { apiVersion: this.target.apiVersion, kind: this.target.kind, plural: this.target.plural };
    return slash < 0
      ? { ...base, name: key }
      : { ...base, namespace: key.slice(0, slash), name: key.slice(slash + 1) };
  }

  private async apply(
    key: string,
    desired: KubernetesObject | undefined,
    previous: KubernetesObject | undefined,
    first: TargetWrite,
    counts: WriteCounts,
    signal: AbortSignal,
  ): Promise<void> {
    let w = first;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.execute(key, w, signal);
        if (w.verb === 'create') counts.created++;
        else if (w.verb === 'delete' || desired === undefined) counts.deleted++;
        else if (w.verb === 'none') counts.unchanged++;
        else counts.updated++;
        return;
      } catch (err) {
        const ns = desired?.metadata?.namespace;
        if (
          w.verb === 'create' &&
          isNotFound(err) &&
          ns !== undefined &&
          this.ensureNamespace !== undefined &&
          attempt === 0
        ) {
          await this.ensureNamespace(ns, signal);
          continue;
        }
        // Our cache was behind: read the object and decide again (once).
        if (
          attempt > 0 ||
          !(isConflict(err) || isAlreadyExists(err) || (isNotFound(err) && w.verb !== 'delete'))
        )
          throw err;
        let fresh: KubernetesObject | undefined;
        try {
          fresh = await this.client.get(this.ref(key), { signal });
        } catch (getErr) {
          if (!isNotFound(getErr)) throw getErr;
        }
        w = this.decide(fresh, desired, previous);
      }
    }
  }

  private async execute(key: string, w: TargetWrite, signal: AbortSignal): Promise<void> {
    const ref = this.ref(key);
    switch (w.verb) {
      case 'none':
        return;
      case 'create':
      case 'replace': {
        const obj = { ...w.object, metadata: Object.assign({}, w.object.metadata) };
        const stored =
          w.verb === 'create'
            ? await this.client.create(obj, { signal })
            : await this.client.replace(obj, { signal });
        if (w.status !== undefined && !jsonEqual((stored as { status?: unknown }).status, w.status)) {
          await this.client.patch(ref, { status: w.status }, 'merge', { signal, subresource: 'status' });
        }
        return;
      }
      case 'delete':
        try {
          await this.client.delete(ref, { signal });
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
        return;
      case 'patch':
        if (w.patch !== undefined) await this.client.patch(ref, w.patch, 'merge', { signal });
        if (w.statusPatch !== undefined)
          await this.client.patch(ref, w.statusPatch, 'merge', { signal, subresource: 'status' });
        return;
    }
  }
}

/** Runs `jobs` with at most `limit` at once; rejects with the first error after all settled. */
async function runLimited(jobs: readonly (() => Promise<void>)[], limit: number): Promise<void> {
  let next = 0;
  const errors: unknown[] = [];
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const job = jobs[next++];
      try {
        await job?.();
      } catch (err) {
        errors.push(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  if (errors.length > 0) throw errors[0];
}
