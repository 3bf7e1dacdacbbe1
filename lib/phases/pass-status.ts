import type { KubernetesObject } from '@kubernetes/client-node';
import type { ReconcileContext } from '../context/reconcile-context.js';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { clientKey } from '../engine/context-keys.js';
import { StatusWriter } from '../status/status-writer.js';
import type { ObjectClient } from '../kube/object-client.js';

/**
 * The status write of a Std reconciler's pass: the status as it was when the pass started, written once
 * at the end iff the steps changed it (operator-sdk-extra's deferred status update, with its errors propagated).
 */
export class PassStatus {
  private readonly writers = new WeakMap<ObjectClient, StatusWriter>();

  constructor(private readonly option: StatusWriter | false | undefined) {
    if (option !== undefined && option !== false && !(option instanceof StatusWriter)) {
      throw new InvalidConfigError(
        'options.status must be a StatusWriter, false, or omitted (default: one on the engine client)',
      );
    }
  }

  /**
   * Writes `obj.status` if it differs from `before`. `failure`: the pass already failed — a failed write
   * is then logged and the pass's error wins; otherwise the write's error is thrown
   * (`StaleObjectError` on a conflict: the engine retries soon).
   */
  async finish(
    ctx: ReconcileContext,
    before: unknown,
    obj: KubernetesObject,
    failure: unknown,
  ): Promise<void> {
    const writer = this.writer(ctx);
    if (writer === undefined) return;
    try {
      await writer.writeIfChanged(before, obj, ctx.signal);
    } catch (err) {
      if (failure === undefined) throw err;
      ctx.logger.warn('failed to write the status after a failed pass', { err });
    }
  }

  private writer(ctx: ReconcileContext): StatusWriter | undefined {
    if (this.option === false) return undefined;
    if (this.option !== undefined) return this.option;
    const client = ctx.get(clientKey);
    if (client === undefined) return undefined;
    let writer = this.writers.get(client);
    if (writer === undefined) {
      writer = new StatusWriter({ client });
      this.writers.set(client, writer);
    }
    return writer;
  }
}

/** A deep copy of `obj` for the steps to change, and its status as it was. */
export function workCopy<Obj extends KubernetesObject>(obj: Obj): { obj: Obj; before: unknown } {
  const copy = structuredClone(obj);
  return { obj: copy, before: structuredClone((obj as { status?: unknown }).status) };
}
