// What the engine specs share: a scripted pass body (no front end involved) and ways to build a
// ControllerCore around it — fed through updateFunc/deleteFunc (no server) or watching Widgets on the
// spec harness's API server (embedded, or the shared kube-apiserver under `make test-real`).
import type { KubeConfig } from '@kubernetes/client-node';
import type { ReconcileContext } from '../../lib/context/reconcile-context.js';
import { ControllerCore } from '../../lib/engine/controller-core.js';
import type { CoreConfig } from '../../lib/engine/core-config.js';
import type { PassBody, PassInfo, PassPlan, PassVerdict } from '../../lib/engine/pass-body.js';
import type { Predicate } from '../../lib/engine/predicates.js';
import { resolveCoreConfig } from '../../lib/engine/resolve-core-config.js';
import { createLogger } from '../../lib/observability/logger.js';
import { isThenable, type StepFlow } from '../../lib/util/maybe-async.js';
import { WIDGET, type Widget } from '../crud/harness.js';

export const DONE: PassVerdict = { kind: 'done' };

/** What one call of the body saw. */
export interface BodyCall {
  phase: 'apply' | 'cleanup';
  key: string;
  /** The object's resourceVersion, else its `spec.v` (drop-in objects carry no resourceVersion). */
  version: string | undefined;
  attempt: number;
  deleting: boolean;
  gone: boolean;
  /** The object's finalizers as the body got it. */
  finalizers: readonly string[];
  /** When the call started (Date.now(): fake time where the spec fakes it). */
  at: number;
}

/** A step of the script: return a verdict (default `done`), throw to fail, or return a promise of either. */
export type Script = (
  obj: Widget,
  info: PassInfo,
  ctx: ReconcileContext,
) => PassVerdict | undefined | Promise<PassVerdict | undefined>;

/**
 * A `PassBody` whose apply and cleanup steps are scripts; it records every call and how many passes run
 * at once, per key and in all.
 */
export class FakeBody implements PassBody<Widget> {
  readonly calls: BodyCall[] = [];
  readonly forgotten: string[] = [];
  apply: Script = () => DONE;
  cleanup: Script = () => DONE;
  /** Whether an object is this body's (false: `plan` returns undefined). */
  ours: (obj: Widget) => boolean = () => true;
  maxPerKey = 0;
  maxInAll = 0;
  private readonly running = new Map<string, number>();
  private inAll = 0;

  plan(obj: Widget, info: PassInfo): PassPlan<Widget> | undefined {
    if (!this.ours(obj)) return undefined;
    return {
      apply: (ctx, o) => this.step('apply', this.apply, ctx, o, info),
      cleanup: (ctx, o) => this.step('cleanup', this.cleanup, ctx, o, info),
    };
  }

  forget(key: string): void {
    this.forgotten.push(key);
  }

  /** Calls of one phase (and key). */
  of(phase: BodyCall['phase'], key?: string): BodyCall[] {
    return this.calls.filter((c) => c.phase === phase && (key === undefined || c.key === key));
  }

  private *step(
    phase: BodyCall['phase'],
    script: Script,
    ctx: ReconcileContext,
    obj: Widget,
    info: PassInfo,
  ): StepFlow<PassVerdict> {
    const key = info.key;
    const n = (this.running.get(key) ?? 0) + 1;
    this.running.set(key, n);
    this.inAll += 1;
    this.maxPerKey = Math.max(this.maxPerKey, n);
    this.maxInAll = Math.max(this.maxInAll, this.inAll);
    this.calls.push({
      phase,
      key,
      version: obj.metadata?.resourceVersion ?? (obj.spec?.v as string | undefined),
      attempt: info.attempt,
      deleting: info.deleting,
      gone: info.gone,
      finalizers: [...(obj.metadata?.finalizers ?? [])],
      at: Date.now(),
    });
    try {
      const result = script(obj, info, ctx);
      const verdict = (isThenable(result) ? yield result : result) as PassVerdict | undefined;
      return verdict ?? DONE;
    } finally {
      this.running.set(key, (this.running.get(key) ?? 1) - 1);
      this.inAll -= 1;
    }
  }
}

/** A drop-in object (no server): `spec.v` tells versions apart. */
export function dropInWidget(
  name: string,
  v: string,
  extra: Partial<NonNullable<Widget['metadata']>> = {},
): Widget {
  return {
    apiVersion: WIDGET.apiVersion,
    kind: WIDGET.kind,
    metadata: { name, namespace: 'default', uid: `uid-${name}`, ...extra },
    spec: { v },
  };
}

const QUIET = {
  events: false,
  errorCondition: false,
  resyncPeriodMs: 0,
  collectDefaultMetrics: false,
  logger: createLogger({ silent: true }),
} as const;

export interface CoreOptions {
  config?: Partial<CoreConfig>;
  predicates?: readonly Predicate<Widget>[];
}

/**
 * A core without a watch or finalizer: objects arrive through `updateFunc`/`deleteFunc` only, so no API
 * server is needed (no Events, no error condition).
 */
export function dropInCore(body: FakeBody, options: CoreOptions = {}): ControllerCore<Widget> {
  const config = resolveCoreConfig<Widget>(
    {
      name: 'engine-spec',
      finalizer: false,
      ...QUIET,
      ...options.config,
      predicates: options.predicates ?? [],
    },
    { usage: 'new ControllerCore(...) in the engine specs', defaultFinalizer: () => false },
  );
  return new ControllerCore<Widget>({ config, body, noun: 'core' });
}

/** The finalizer the watching cores manage. */
export const FINALIZER = 'engine-spec.reconcilekit.io/cleanup';

/** A core watching Widgets on `kubeConfig`'s server, managing {@link FINALIZER} unless told otherwise. */
export function watchingCore(
  kubeConfig: KubeConfig,
  body: FakeBody,
  options: CoreOptions = {},
): ControllerCore<Widget> {
  const config = resolveCoreConfig<Widget>(
    {
      name: 'engine-spec',
      kubeConfig,
      predicates: options.predicates ?? [],
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind, namespace: 'default' },
      finalizer: FINALIZER,
      ...QUIET,
      ...options.config,
    },
    { usage: 'new ControllerCore(...) in the engine specs', defaultFinalizer: () => FINALIZER },
  );
  return new ControllerCore<Widget>({ config, body, noun: 'core' });
}
