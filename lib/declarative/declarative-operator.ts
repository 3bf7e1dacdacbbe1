import type { KubeConfig } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import type { ApiServer } from '../apiserver/index.js';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { ensureCrd } from '../kube/ensure-crd.js';
import { isAlreadyExists } from '../kube/api-error.js';
import { isKubeConfigNotFound, kubeConfigFromText, readKubeConfig } from '../kube/kube-config.js';
import type { LoadedKubeConfig } from '../kube/loaded-kube-config.js';
import { ObjectClient } from '../kube/object-client.js';
import type { Logger } from '../observability/logger.js';
import { silentLogger } from '../observability/logger-silent.js';
import { InformerCache } from '../watch/informer-cache.js';
import { checkOperatorSpec, isViewResource, viewCycles } from './check-controller-spec.js';
import type { ControllerError } from './controller-error.js';
import {
  DeclarativeControllerRuntime,
  type ControllerRuntime,
  type ControllerStatus,
  type DeclarativeController,
} from './declarative-controller.js';
import { ErrorRateLimiter } from './error-rate-limiter.js';
import { loadOperatorSpec } from './load-operator-spec.js';
import type { ControllerSpec, OperatorSpec } from './operator-spec.js';
import { RoutingObjectClient } from './routing-object-client.js';
import { DEFAULT_VIEW_GROUP_SUFFIX, viewCrd, viewGroup } from './view-kinds.js';
import { randomToken } from '../util/random-token.js';

/**
 * Options of a {@link DeclarativeOperator}.
 * @category Declarative operators
 */
export interface DeclarativeOperatorOptions {
  /**
   * The cluster of non-view kinds. Default: `readKubeConfig()` (KUBECONFIG, ~/.kube/config, in-cluster);
   * when none is found, the view server serves every kind (an operator on the embedded server alone).
   */
  kubeConfig?: KubeConfig | LoadedKubeConfig;
  /**
   * Where view objects live (dcontroller's extension API server); its lifecycle is the caller's. Default:
   * an embedded API server on 127.0.0.1 and a free port, started by `start()` and closed by `stop()`.
   */
  apiServer?: ApiServer;
  /** Logger. Default: silent. */
  logger?: Logger;
  /** Prometheus registry for the controllers' metrics. Default: one per controller (never the global one). */
  registry?: Registry;
  /** Views are in `<operator>.<viewGroupSuffix>`. Default {@link DEFAULT_VIEW_GROUP_SUFFIX}. */
  viewGroupSuffix?: string;
  /**
   * What reaches `onError` listeners: the first `first` errors, then at most one per `intervalMs`, per
   * operator (the seed's "3 errors per 2 s"). Default `{ first: 3, intervalMs: 2000 }`. Every error is
   * still in its controller's `reportErrors()`.
   */
  errorRateLimit?: { first: number; intervalMs: number };
  /**
   * Not available: a declarative controller's pass evaluates its pipeline over the whole state of its
   * sources (joins, aggregations), so its work does not split by object across replicas. Anything but
   * `false` is refused with an `InvalidConfigError`; run one replica (docs/sharding.md).
   */
  sharding?: false;
}

/**
 * The status of every controller of an operator (dcontroller's `OperatorStatus`).
 * @category Declarative operators
 */
export interface OperatorStatus {
  controllers: ControllerStatus[];
}

/**
 * An operator written as data (dcontroller's `Operator`): each controller of the spec watches its sources,
 * runs its pipeline and writes its target, on the same engine as every other front end. Views (kinds with
 * no `apiGroup`) are schemaless kinds of `<name>.view.reconcilekit.io/v1alpha1` in an embedded API server,
 * so `kubectl` and watches work on them. A bad controller never stops the others: its status says what is
 * wrong (Ready False) and where (`controllers[1].pipeline['@aggregate'][0]`). See docs/declarative.md.
 * @category Declarative operators
 */
export class DeclarativeOperator {
  readonly name: string;
  readonly viewGroup: string;
  private readonly options: DeclarativeOperatorOptions;
  private readonly controllers: DeclarativeControllerRuntime[] = [];
  private readonly listeners = new Set<(err: ControllerError) => void>();
  private readonly limiter: ErrorRateLimiter;
  private readonly logger: Logger;
  private apiServer: ApiServer | undefined;
  private ownedServer: ApiServer | undefined;
  private runtime: (ControllerRuntime & { views: ObjectClient; close(): Promise<void> }) | undefined;
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;

  /** Creates every controller of `spec`; throws only when `spec.controllers` is not a list of 1–255. */
  constructor(name: string, spec: OperatorSpec, options: DeclarativeOperatorOptions = {}) {
    this.name = name;
    this.options = options;
    this.viewGroup = viewGroup(name, options.viewGroupSuffix ?? DEFAULT_VIEW_GROUP_SUFFIX);
    this.logger = (options.logger ?? silentLogger()).child({ operator: name });
    this.limiter = new ErrorRateLimiter(options.errorRateLimit ?? {});
    this.apiServer = options.apiServer;
    const sharding: unknown = (options as { sharding?: unknown }).sharding;
    if (sharding !== undefined && sharding !== false) {
      throw new InvalidConfigError(
        `new DeclarativeOperator('${name}', spec, { sharding }): a declarative operator cannot be sharded — each pass evaluates its pipeline over the whole state of its sources, which does not split by object across replicas; drop the sharding option and run one replica (docs/sharding.md)`,
      );
    }
    checkOperatorSpec(spec);
    for (const c of spec.controllers) this.addController(c);
  }

  /** Reads the spec from a YAML file (`controllers: …`, or an Operator object with it under `spec`). */
  static async fromFile(
    name: string,
    path: string,
    options: DeclarativeOperatorOptions = {},
  ): Promise<DeclarativeOperator> {
    return new DeclarativeOperator(name, await loadOperatorSpec(path), options);
  }

  /**
   * Adds a controller. Never throws: a bad spec gives a controller whose status holds the critical error.
   * While the operator runs, the controller's views are registered and it starts at once.
   */
  addController(spec: ControllerSpec): DeclarativeController {
    const c = new DeclarativeControllerRuntime(this.name, this.controllers.length, spec, (err) => {
      this.emit(err);
    });
    if (!c.hasCritical && this.controllers.some((o) => o.name === c.name)) {
      c.critical(`${c.path}.name: another controller is named ${c.name}; names must be unique`);
    }
    this.controllers.push(c);
    const specs = this.controllers.map((x) =>
      x.hasCritical ? undefined : x.resources.length > 0 ? specOf(x) : undefined,
    );
    for (const [i, message] of viewCycles(specs)) {
      const x = this.controllers[i];
      if (x !== undefined && !x.hasCritical && !x.running) x.critical(`${x.path}: ${message}`);
    }
    const rt = this.runtime;
    if (rt !== undefined && this.stopping === undefined) {
      void this.registerViewsOf([c], rt.views).then(() => c.start(rt));
    }
    return c;
  }

  getController(name: string): DeclarativeController | undefined {
    return this.controllers.find((c) => c.name === name);
  }

  listControllers(): readonly DeclarativeController[] {
    return [...this.controllers];
  }

  /** Every controller's status with `observedGeneration: generation`. */
  getStatus(generation: number): OperatorStatus {
    return { controllers: this.controllers.map((c) => c.getStatus(generation)) };
  }

  /** The view server in use (set or started), if any. */
  get viewServer(): ApiServer | undefined {
    return this.apiServer;
  }

  /** Sets the view server (before `start`; its lifecycle stays the caller's). */
  setApiServer(server: ApiServer): void {
    if (this.runtime !== undefined) throw new Error('setApiServer() must be called before start()');
    this.apiServer = server;
  }

  /**
   * Listens to controller errors, rate limited per operator (first 3, then ≤ 1 per 2 s by default); a
   * listener is called synchronously and never delays a controller. Returns the unsubscribe function.
   */
  onError(listener: (err: ControllerError) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Errors refused by the rate limit so far (they are in the controllers' `reportErrors()`). */
  get droppedErrors(): number {
    return this.limiter.dropped;
  }

  /**
   * Registers every view kind of the valid controllers as a schemaless CRD on the view server (done by
   * `start()` and `addController`); a failure is a critical error of the controllers using that kind.
   */
  async registerViews(): Promise<void> {
    const rt = this.runtime;
    if (rt === undefined)
      throw new Error('registerViews() needs a started operator (the view server); call start()');
    await this.registerViewsOf(this.controllers, rt.views);
  }

  /** Starts the view server if needed, registers views, starts every controller; resolves once all are started or failed. */
  start(): Promise<void> {
    if (this.stopping !== undefined)
      return Promise.reject(new Error(`operator ${this.name} was stopped; create a new one`));
    this.starting ??= this.run();
    return this.starting;
  }

  /** Stops every controller, the watches, and the view server if this operator started it. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.starting?.catch(() => undefined);
      await Promise.all(this.controllers.map((c) => c.stop()));
      await this.runtime?.close();
      await this.ownedServer?.close();
    })();
    return this.stopping;
  }

  private async run(): Promise<void> {
    // Loaded on first start: importing the package must not load the embedded server.
    // A token: any local process could otherwise write views the operator renders with its own credentials.
    this.apiServer ??= this.ownedServer = await (
      await import('../apiserver/index.js')
    ).startApiServer({ token: randomToken() });
    // Read by reconcilekit itself, as the cluster's: no @kubernetes/client-node is loaded for either.
    const viewKc = kubeConfigFromText(this.apiServer.kubeconfig, "the view server's kubeconfig");
    let clusterKc = this.options.kubeConfig;
    if (clusterKc === undefined) {
      try {
        clusterKc = readKubeConfig();
      } catch (err) {
        if (!isKubeConfigNotFound(err)) throw err;
        clusterKc = viewKc;
      }
    }
    const cluster = new ObjectClient({ kubeConfig: clusterKc });
    const views = new ObjectClient({ kubeConfig: viewKc });
    const client = new RoutingObjectClient(
      cluster,
      views,
      this.options.viewGroupSuffix ?? DEFAULT_VIEW_GROUP_SUFFIX,
    );
    const informers = new InformerCache({
      client,
      logger: this.logger,
      ...(this.options.registry === undefined ? {} : { registry: this.options.registry }),
    });
    const kc = clusterKc;
    this.runtime = {
      operator: this.name,
      viewGroup: this.viewGroup,
      client,
      informers,
      views,
      kubeConfigFor: (view) => (view ? viewKc : kc),
      logger: this.logger,
      registry: this.options.registry,
      report: (err) => {
        this.emit(err);
      },
      ensureViewNamespace: async (namespace, signal) => {
        try {
          await views.create(
            { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
            { signal },
          );
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
        }
      },
      close: async () => {
        await informers.stop();
        client.close();
        cluster.close();
        views.close();
      },
    };
    await this.registerViewsOf(this.controllers, views);
    const rt = this.runtime;
    await Promise.all(this.controllers.map((c) => c.start(rt)));
    this.logger.info('declarative operator started', { controllers: this.controllers.length });
  }

  private async registerViewsOf(
    list: readonly DeclarativeControllerRuntime[],
    views: ObjectClient,
  ): Promise<void> {
    const kinds = new Map<string, DeclarativeControllerRuntime[]>();
    for (const c of list) {
      if (c.hasCritical) continue;
      for (const r of c.resources) {
        if (!isViewResource(r)) continue;
        const users = kinds.get(r.kind) ?? [];
        users.push(c);
        kinds.set(r.kind, users);
      }
    }
    const signal = AbortSignal.timeout(30_000);
    await Promise.all(
      [...kinds].map(async ([kind, users]) => {
        try {
          await ensureCrd(views, viewCrd(this.viewGroup, kind), this.logger, signal);
        } catch (err) {
          for (const c of users)
            if (!c.hasCritical)
              c.critical(`view kind ${kind} could not be registered: ${(err as Error).message}`, err);
        }
      }),
    );
  }

  private emit(err: ControllerError): void {
    this.logger.warn('declarative controller error', {
      controller: err.controller,
      critical: err.critical,
      err: err.detail,
    });
    if (this.listeners.size === 0 || !this.limiter.allow()) return;
    for (const l of this.listeners) {
      try {
        l(err);
      } catch (listenerErr) {
        this.logger.error('onError listener threw', { err: listenerErr });
      }
    }
  }
}

function specOf(c: DeclarativeControllerRuntime): ControllerSpec {
  const resources = c.resources;
  const target = resources[resources.length - 1] ?? { kind: '' };
  return { name: c.name, sources: resources.slice(0, -1), target };
}
