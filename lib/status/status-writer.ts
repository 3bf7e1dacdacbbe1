import { isDeepStrictEqual } from 'node:util';
import type { KubernetesObject } from '@kubernetes/client-node';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { StaleObjectError } from '../errors/stale-object-error.js';
import { isConflict } from '../kube/api-error.js';
import type { ObjectClient } from '../kube/object-client.js';

/**
 * What {@link StatusWriter}'s constructor takes.
 * @category Engine: Framework and ControllerCore
 */
export interface StatusWriterOptions {
  /** API client for discovery and the write. */
  client: ObjectClient;
  /** Field manager of the write. Default: the client's (`reconcilekit`). */
  fieldManager?: string;
}

type WithStatus = KubernetesObject & { status?: unknown };

/** A JSON value as it goes over the wire: `undefined` members dropped, so they never count as a change. */
function wire(value: unknown): unknown {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
}

/**
 * Writes an object's `status` once per pass, and only when it changed (operator-sdk-extra's deferred status write):
 * the status subresource is replaced (PUT `/status`; the main resource when the kind has no status
 * subresource) **carrying the object's resourceVersion**, so a pass that held a stale object never
 * overwrites a newer status. A conflict (409) is thrown as {@link StaleObjectError}: the engine runs the
 * object again in about a second with its latest version — not counted as a failure.
 * @category Engine: Framework and ControllerCore
 */
export class StatusWriter {
  private readonly client: ObjectClient;
  private readonly fieldManager: string | undefined;
  private readonly subresource = new Map<string, Promise<boolean>>();

  constructor(options: StatusWriterOptions) {
    if (typeof options !== 'object' || (options as { client?: unknown }).client === undefined) {
      throw new InvalidConfigError('new StatusWriter({ client }): options.client is required');
    }
    this.client = options.client;
    this.fieldManager = options.fieldManager;
  }

  /** Whether `after` differs from `before` as JSON on the wire (key order and `undefined` members ignored). */
  static changed(before: unknown, after: unknown): boolean {
    return !isDeepStrictEqual(wire(before), wire(after));
  }

  /**
   * Writes `obj.status` iff it differs from `before` (the status as read at `obj`'s resourceVersion).
   * Resolves to the object the server returned (new resourceVersion), or `undefined` when nothing changed
   * and nothing was written. Throws {@link StaleObjectError} on a conflict, {@link InvalidConfigError}
   * when `obj` has no resourceVersion (the write could not be guarded), and the API error otherwise.
   */
  async writeIfChanged<Obj extends KubernetesObject>(
    before: unknown,
    obj: Obj,
    signal?: AbortSignal,
  ): Promise<Obj | undefined> {
    const status = (obj as WithStatus).status;
    if (!StatusWriter.changed(before, status)) return undefined;
    return this.write(obj, signal);
  }

  /** Writes `obj.status` unconditionally (still resourceVersion-guarded); see {@link writeIfChanged}. */
  async write<Obj extends KubernetesObject>(obj: Obj, signal?: AbortSignal): Promise<Obj> {
    const version = obj.metadata?.resourceVersion;
    if (version === undefined || version === '') {
      throw new InvalidConfigError(
        `StatusWriter: ${obj.kind ?? 'object'} ${obj.metadata?.name ?? ''} has no metadata.resourceVersion; ` +
          'write the status of an object read from the API server (the write is guarded by its version)',
      );
    }
    const opts: { fieldManager?: string; signal?: AbortSignal } = {};
    if (this.fieldManager !== undefined) opts.fieldManager = this.fieldManager;
    if (signal !== undefined) opts.signal = signal;
    try {
      return (await this.servesStatus(obj))
        ? await this.client.replaceStatus(obj, opts)
        : await this.client.replace(obj, opts);
    } catch (err) {
      if (isConflict(err)) {
        throw new StaleObjectError(
          `status of ${obj.kind ?? 'object'} ${describe(obj)} not written: the object changed since resourceVersion ${version}`,
          { cause: err },
        );
      }
      throw err;
    }
  }

  private servesStatus(obj: KubernetesObject): Promise<boolean> {
    const ref = { apiVersion: obj.apiVersion ?? '', kind: obj.kind ?? '' };
    const id = `${ref.apiVersion}/${ref.kind}`;
    let known = this.subresource.get(id);
    if (known === undefined) {
      known = this.client.hasSubresource(ref, 'status');
      this.subresource.set(id, known);
      known.catch(() => this.subresource.delete(id));
    }
    return known;
  }
}

function describe(obj: KubernetesObject): string {
  const ns = obj.metadata?.namespace;
  return `${ns === undefined || ns === '' ? '' : `${ns}/`}${obj.metadata?.name ?? ''}`;
}
