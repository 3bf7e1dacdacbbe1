import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import { Controller } from '../controller/controller.js';
import { predicates, type Predicate } from '../engine/predicates.js';
import type { StatusCondition } from '../status/status-conditions.js';
import type { WatchSource } from '../engine/watch-source.js';
import type { ObjectClient } from '../kube/object-client.js';
import type { Logger } from '../observability/logger.js';
import type { InformerCache } from '../watch/informer-cache.js';
import { checkControllerSpec, type CheckedController } from './check-controller-spec.js';
import { ControllerError, ErrorHistory } from './controller-error.js';
import { isDeclarativeSpecError, pathAt } from './declarative-spec-error.js';
import { checkOutputs } from './evaluate-pipeline.js';
import type { PredicateSpec, ResourceSpec } from './operator-spec.js';
import { labelSelectorString, resolveResource, type ResolvedResource } from './resolve-resource.js';
import { TargetWriter, type WriteCounts } from './target-writer.js';
import type { LoadedKubeConfig } from '../kube/loaded-kube-config.js';

/**
 * A controller's status: dcontroller's `{name, conditions: [Ready], lastErrors}`.
 * @category Declarative operators
 */
export interface ControllerStatus {
  name: string;
  conditions: StatusCondition[];
  lastErrors?: string[];
}

/**
 * A declarative controller as its operator shows it.
 * @category Declarative operators
 */
export interface DeclarativeController {
  readonly name: string;
  /** Whether the controller cannot run (an invalid spec, a kind that does not exist). */
  readonly hasCritical: boolean;
  /** The last 10 errors, oldest first, long ones trimmed (119 + `[...]` + 120 characters). */
  reportErrors(): string[];
  /**
   * Ready True/`Ready` when the last pass succeeded and nothing is critical; False/`NotReady` with a
   * critical error; Unknown/`ReconciliationFailed` while passes fail (they are retried with backoff).
   * `lastTransitionTime` changes only when the status does.
   */
  getStatus(generation: number): ControllerStatus;
}

/** What a controller needs from its operator while running. */
export interface ControllerRuntime {
  readonly operator: string;
  readonly viewGroup: string;
  /** Routes views to the view server, the rest to the cluster. */
  readonly client: ObjectClient;
  readonly informers: InformerCache;
  /** kubeconfig of the server that serves a kind (views → view server). */
  kubeConfigFor(view: boolean): KubeConfig | LoadedKubeConfig;
  readonly logger: Logger;
  readonly registry: Registry | undefined;
  /** Creates a namespace on the view server (views live in the namespace of their output). */
  ensureViewNamespace(namespace: string, signal: AbortSignal): Promise<void>;
  /** Called with every error (the operator rate-limits what reaches its listeners). */
  report(err: ControllerError): void;
}

/** The one work-queue key of a declarative controller: every source event enqueues it. */
const PASS_KEY = 'reconcilekit.io/declarative-pass';

function toPredicate(spec: PredicateSpec): Predicate {
  const entry: [string, unknown] = Object.entries(spec)[0] ?? ['', undefined];
  const [key, arg] = entry;
  switch (key) {
    case 'GenerationChanged':
      return predicates.generationChanged();
    case 'ResourceVersionChanged':
      return predicates.resourceVersionChanged();
    case 'LabelChanged':
      return predicates.labelsChanged();
    case 'AnnotationChanged':
      return predicates.annotationsChanged();
    case 'And':
      return predicates.and(...(arg as PredicateSpec[]).map(toPredicate));
    case 'Or':
      return predicates.or(...(arg as PredicateSpec[]).map(toPredicate));
    default:
      return predicates.not(toPredicate(arg as PredicateSpec));
  }
}

function base64Decoded(obj: KubernetesObject): KubernetesObject {
  const data = (obj as { data?: Record<string, string> }).data;
  if (data === undefined) return obj;
  const decoded: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) decoded[k] = Buffer.from(v, 'base64').toString('utf8');
  return { ...obj, data: decoded } as KubernetesObject;
}

/**
 * One declarative controller on the engine: a `Controller` whose sources are watched through the
 * operator's shared informers (with the spec's namespace, label selector and predicates), all mapped to
 * one queue key, so a burst of changes coalesces into one pass. A pass evaluates the pipeline over the
 * sources' caches (state of the world), and writes the difference to the target. A failing pass is
 * retried with the engine's per-key backoff; a successful one returns the status to Ready.
 */
export class DeclarativeControllerRuntime implements DeclarativeController {
  readonly name: string;
  readonly path: string;
  private readonly history = new ErrorHistory();
  private readonly checked: CheckedController | undefined;
  private failing = false;
  private lastStatus:
    { status: StatusCondition['status']; reason: string; message: string; since: string } | undefined;
  private controller: Controller | undefined;
  private writer: TargetWriter | undefined;
  private sources: ResolvedResource[] = [];
  private target: ResolvedResource | undefined;
  /** Passes run, and what the last one wrote (for the CLI and benchmarks). */
  passes = 0;
  lastWrite: WriteCounts | undefined;

  constructor(
    private readonly operator: string,
    readonly index: number,
    spec: unknown,
    private readonly report: (err: ControllerError) => void,
  ) {
    this.path = `controllers[${String(index)}]`;
    const name = (spec as { name?: unknown } | null)?.name;
    this.name = typeof name === 'string' && name.trim() !== '' ? name : this.path;
    try {
      this.checked = checkControllerSpec(spec, this.path);
    } catch (err) {
      if (!isDeclarativeSpecError(err)) throw err;
      this.critical((err as Error).message, err);
    }
  }

  /** The spec's resources, when the spec is valid (views among them are registered by the operator). */
  get resources(): readonly ResourceSpec[] {
    if (this.checked === undefined) return [];
    return [...this.checked.spec.sources, this.checked.spec.target];
  }

  get hasCritical(): boolean {
    return this.history.hasCritical;
  }

  /** Whether a pass is scheduled to run (the engine's controller is started). */
  get running(): boolean {
    return this.controller !== undefined;
  }

  reportErrors(): string[] {
    return this.history.messages();
  }

  /** Records an error that stops the controller (its spec cannot run). */
  critical(message: string, cause?: unknown): void {
    const err = new ControllerError(this.operator, this.name, message, true, { cause });
    this.history.push(err);
    this.report(err);
  }

  getStatus(generation: number): ControllerStatus {
    const [status, reason, message]: [StatusCondition['status'], string, string] = this.hasCritical
      ? ['False', 'NotReady', 'the controller cannot run; see lastErrors']
      : this.failing
        ? ['Unknown', 'ReconciliationFailed', 'the last pass failed and is retried; see lastErrors']
        : ['True', 'Ready', this.passes > 0 ? 'the last pass succeeded' : 'waiting for the first pass'];
    if (this.lastStatus?.status !== status || this.lastStatus.reason !== reason) {
      this.lastStatus = {
        status,
        reason,
        message,
        since: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      };
    }
    const errors = this.reportErrors();
    return {
      name: this.name,
      conditions: [
        {
          type: 'Ready',
          status,
          reason,
          message,
          observedGeneration: generation,
          lastTransitionTime: this.lastStatus.since,
        },
      ],
      ...(errors.length === 0 ? {} : { lastErrors: errors }),
    };
  }

  /**
   * Resolves its kinds and starts watching. A kind the server does not serve, or a start that fails, is
   * a critical error in this controller's status; other controllers are not affected. Never throws.
   */
  async start(rt: ControllerRuntime): Promise<void> {
    const checked = this.checked;
    if (checked === undefined || this.hasCritical || this.controller !== undefined) return;
    const { spec } = checked;
    try {
      this.sources = [];
      for (const [i, s] of spec.sources.entries()) {
        const at = pathAt(pathAt(this.path, 'sources'), i);
        this.sources.push(await this.resolveServed(s, rt, at));
      }
      const target = await this.resolveServed(spec.target, rt, pathAt(this.path, 'target'));
      this.target = target;
      const scope = await rt.client.resolve(target);
      const statusSubresource = target.view ? false : await rt.client.hasSubresource(target, 'status');
      this.writer = new TargetWriter(
        rt.client,
        {
          ...target,
          plural: scope.plural,
          namespaced: scope.namespaced,
          statusSubresource,
          type: spec.target.type ?? 'Updater',
        },
        target.view ? (ns, signal) => rt.ensureViewNamespace(ns, signal) : undefined,
      );
    } catch (err) {
      this.critical((err as Error).message, err);
      return;
    }
    const ref = (r: ResolvedResource, i: number): Omit<WatchSource, 'map'> => {
      const s = spec.sources[i];
      const selector = labelSelectorString(s?.labelSelector);
      return {
        apiVersion: r.apiVersion,
        kind: r.kind,
        ...(s?.namespace === undefined ? {} : { namespace: s.namespace }),
        ...(selector === undefined ? {} : { labelSelector: selector }),
      };
    };
    const watches: WatchSource[] = this.sources.map((r, i) => {
      const predicate = spec.sources[i]?.predicate;
      return {
        ...ref(r, i),
        map: () => [PASS_KEY],
        ...(predicate === undefined ? {} : { predicates: [toPredicate(predicate)] }),
      };
    });
    // The target is cached (to compare outputs with), not a trigger: its changes are compared on the next pass.
    watches.push({ apiVersion: this.target.apiVersion, kind: this.target.kind, map: () => [] });
    const first = this.sources[0];
    if (first === undefined) return;
    const controller = new Controller({
      name: `${this.operator}.${this.name}`,
      kubeConfig: rt.kubeConfigFor(first.view),
      // The first source is the engine's primary kind; its events reach the pass through `watches` (one
      // shared informer), the primary's own per-object keys are filtered out.
      resource: ref(first, 0),
      predicates: [() => false],
      watches,
      informers: rt.informers,
      reconciler: async (ctx, req) => {
        if (req.key === PASS_KEY) await this.pass(controller, ctx.signal);
      },
      finalizer: false,
      events: false,
      errorCondition: false,
      healthServer: false,
      leaderElection: false,
      logger: rt.logger.child({ controller: this.name }),
      ...(rt.registry === undefined ? {} : { registry: rt.registry }),
    });
    this.controller = controller;
    // The pass key has no object of its own: a stand-in lets the engine run (and resync) it.
    controller.core.updateFunc(PASS_KEY, {
      apiVersion: 'reconcilekit.io/v1alpha1',
      kind: 'DeclarativeController',
      metadata: { name: `${this.operator}.${this.name}` },
    });
    try {
      await controller.start();
    } catch (err) {
      this.controller = undefined;
      this.critical(`failed to start: ${(err as Error).message}`, err);
    }
  }

  async stop(): Promise<void> {
    const c = this.controller;
    this.controller = undefined;
    await c?.stop();
  }

  private async resolveServed(s: ResourceSpec, rt: ControllerRuntime, at: string): Promise<ResolvedResource> {
    let r: ResolvedResource;
    try {
      r = await resolveResource(s, rt.viewGroup, rt.client);
      await rt.client.resolve(r);
    } catch (err) {
      throw new Error(
        `${at}: kind ${s.kind}${s.apiGroup === undefined ? ' (view)' : ` (group '${s.apiGroup}'${s.version === undefined ? '' : `, version ${s.version}`})`} is not served: ${(err as Error).message}`,
        { cause: err },
      );
    }
    return r;
  }

  private async pass(controller: Controller, signal: AbortSignal): Promise<void> {
    const checked = this.checked;
    const writer = this.writer;
    const target = this.target;
    if (checked === undefined || writer === undefined || target === undefined) return;
    try {
      const inputs: Record<string, KubernetesObject[]> = {};
      for (const r of this.sources) {
        const list = controller.cache(r.kind, r.apiVersion)?.list() ?? [];
        inputs[r.kind] = r.apiVersion === 'v1' && r.kind === 'Secret' ? list.map(base64Decoded) : list;
      }
      const pipelinePath = pathAt(this.path, 'pipeline');
      const outputs = writer.shape(checkOutputs(checked.pipeline.run(inputs), pipelinePath), pipelinePath);
      const cache = controller.cache(target.kind, target.apiVersion);
      this.lastWrite = await writer.write(outputs, (key) => cache?.get(key), signal);
      this.passes++;
      this.failing = false;
    } catch (err) {
      if (signal.aborted) throw err;
      this.passes++;
      this.failing = true;
      const e = new ControllerError(this.operator, this.name, (err as Error).message, false, { cause: err });
      this.history.push(e);
      this.report(e);
      throw e;
    }
  }
}
