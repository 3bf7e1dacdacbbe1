import type { KubeConfig } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import type { ApiServer } from '../apiserver/index.js';
import { isNotFound } from '../kube/api-error.js';
import { isKubeConfigNotFound, kubeConfigFromText, readKubeConfig } from '../kube/kube-config.js';
import type { LoadedKubeConfig } from '../kube/loaded-kube-config.js';
import { ObjectClient } from '../kube/object-client.js';
import type { Logger } from '../observability/logger.js';
import { silentLogger } from '../observability/logger-silent.js';
import { sleep } from '../util/sleep.js';
import { checkOperatorSpec } from './check-controller-spec.js';
import type { ControllerError } from './controller-error.js';
import { DeclarativeOperator } from './declarative-operator.js';
import { loadOperatorSpec } from './load-operator-spec.js';
import type { OperatorSpec } from './operator-spec.js';
import { RoutingObjectClient } from './routing-object-client.js';
import { DEFAULT_VIEW_GROUP_SUFFIX } from './view-kinds.js';
import { randomToken } from '../util/random-token.js';

/**
 * Errors the group's `errors()` holds for a slow reader before dropping the oldest (dcontroller's 64).
 * @category Declarative operators
 */
export const STATUS_CHANNEL_BUFFER_SIZE = 64;

/**
 * Options of an {@link OperatorGroup}.
 * @category Declarative operators
 */
export interface OperatorGroupOptions {
  /** The cluster of non-view kinds. Default: `readKubeConfig()`, else the view server alone. */
  kubeConfig?: KubeConfig | LoadedKubeConfig;
  /** The view server every operator of the group shares. Default: an embedded server started by `start()`. */
  apiServer?: ApiServer;
  /** Logger. Default: silent. */
  logger?: Logger;
  /** Prometheus registry for every controller. Default: one per controller. */
  registry?: Registry;
  /** View group suffix of every operator. Default {@link DEFAULT_VIEW_GROUP_SUFFIX}. */
  viewGroupSuffix?: string;
}

/**
 * Operators sharing one lifecycle and one view server (dcontroller's `Group`): add, replace and remove
 * operators while it runs; read every operator's errors from one buffered stream; one client that sends
 * each operator's view group to the view server and everything else to the cluster.
 *
 * Unlike upstream: `getOperator` of an unknown name is undefined (no crash), deleting an operator removes
 * its views, and a slow or absent `errors()` reader never blocks a controller (the oldest buffered error is
 * dropped and counted instead).
 * @category Declarative operators
 */
export class OperatorGroup {
  private readonly operators = new Map<string, DeclarativeOperator>();
  private readonly unsubscribe = new Map<string, () => void>();
  private readonly buffer: ControllerError[] = [];
  private readonly waiters: ((r: IteratorResult<ControllerError>) => void)[] = [];
  private readonly logger: Logger;
  private apiServer: ApiServer | undefined;
  private ownedServer: ApiServer | undefined;
  private clients: { routing: RoutingObjectClient; cluster: ObjectClient; views: ObjectClient } | undefined;
  private running = false;
  private stopped = false;
  /** Errors dropped because the buffer was full. */
  droppedErrors = 0;

  constructor(private readonly options: OperatorGroupOptions = {}) {
    this.apiServer = options.apiServer;
    this.logger = options.logger ?? silentLogger();
  }

  /** Sets the shared view server (before `start`; its lifecycle stays the caller's). */
  setApiServer(server: ApiServer): void {
    if (this.running) throw new Error('setApiServer() must be called before start()');
    this.apiServer = server;
  }

  /** Adds an operator; started at once when the group runs. Throws when the name is taken or the spec is not a list of controllers. */
  addOperator(name: string, spec: OperatorSpec): DeclarativeOperator {
    if (this.operators.has(name))
      throw new Error(`operator ${name} already exists; use upsertOperator to replace it`);
    const op = new DeclarativeOperator(name, spec, {
      ...(this.options.kubeConfig === undefined ? {} : { kubeConfig: this.options.kubeConfig }),
      ...(this.apiServer === undefined ? {} : { apiServer: this.apiServer }),
      logger: this.logger,
      ...(this.options.registry === undefined ? {} : { registry: this.options.registry }),
      ...(this.options.viewGroupSuffix === undefined
        ? {}
        : { viewGroupSuffix: this.options.viewGroupSuffix }),
    });
    this.operators.set(name, op);
    this.unsubscribe.set(
      name,
      op.onError((err) => {
        this.push(err);
      }),
    );
    if (this.running) {
      op.start().catch((err: unknown) => {
        this.logger.error('operator failed to start', { operator: name, err });
      });
    }
    return op;
  }

  /** Reads the spec from a YAML file and adds the operator. */
  async addOperatorFromFile(name: string, path: string): Promise<DeclarativeOperator> {
    return this.addOperator(name, await loadOperatorSpec(path));
  }

  /**
   * Replaces an operator (or adds it): the new spec is checked first (a bad one throws and leaves the old
   * operator running), then the old operator is stopped and its views removed, and the new one started.
   */
  async upsertOperator(name: string, spec: OperatorSpec): Promise<DeclarativeOperator> {
    checkOperatorSpec(spec); // before touching the running operator
    await this.deleteOperator(name);
    const op = this.addOperator(name, spec);
    if (this.running) await op.start();
    return op;
  }

  /** Stops an operator and removes its views; an unknown name is a no-op. */
  async deleteOperator(name: string): Promise<void> {
    const op = this.operators.get(name);
    if (op === undefined) return;
    this.operators.delete(name);
    this.unsubscribe.get(name)?.();
    this.unsubscribe.delete(name);
    await op.stop();
    if (this.clients !== undefined) await removeViews(this.clients.views, op.viewGroup);
  }

  getOperator(name: string): DeclarativeOperator | undefined {
    return this.operators.get(name);
  }

  /** Names of the operators in the group. */
  listOperators(): string[] {
    return [...this.operators.keys()];
  }

  /**
   * A client that routes `<operator>.view.reconcilekit.io` groups to the view server and everything else
   * to the cluster. Available once the view server is known (after `start()`, or with `apiServer`).
   */
  getClient(): ObjectClient {
    return this.ensureClients().routing;
  }

  /**
   * Every operator's errors (rate limited per operator), in order. Holds up to
   * {@link STATUS_CHANNEL_BUFFER_SIZE} for a slow reader, then drops the oldest (counted in
   * `droppedErrors`); never blocks a controller. Ends when the group stops.
   */
  errors(): AsyncIterable<ControllerError> {
    return {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          const err = this.buffer.shift();
          if (err !== undefined) return Promise.resolve({ value: err, done: false });
          if (this.stopped) return Promise.resolve({ value: undefined, done: true });
          return new Promise<IteratorResult<ControllerError>>((resolve) => this.waiters.push(resolve));
        },
        return: () => Promise.resolve({ value: undefined, done: true }),
      }),
    };
  }

  /** Starts the view server if needed and every operator; resolves once all started. */
  async start(): Promise<void> {
    if (this.stopped) throw new Error('the operator group was stopped; create a new one');
    if (this.running) return;
    this.running = true;
    if (this.apiServer === undefined) {
      // Loaded on first start: importing the package must not load the embedded server.
      // A token: any local process could otherwise write views the operators render with their credentials.
      this.apiServer = this.ownedServer = await (
        await import('../apiserver/index.js')
      ).startApiServer({ token: randomToken() });
      for (const op of this.operators.values()) op.setApiServer(this.apiServer);
    }
    this.ensureClients();
    await Promise.all([...this.operators.values()].map((op) => op.start()));
  }

  /** Stops every operator, ends `errors()`, closes the view server if the group started it. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.running = false;
    await Promise.all([...this.operators.values()].map((op) => op.stop()));
    for (const off of this.unsubscribe.values()) off();
    for (const w of this.waiters.splice(0)) w({ value: undefined, done: true });
    this.clients?.routing.close();
    this.clients?.cluster.close();
    this.clients?.views.close();
    await this.ownedServer?.close();
  }

  private push(err: ControllerError): void {
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      waiter({ value: err, done: false });
      return;
    }
    if (this.buffer.length >= STATUS_CHANNEL_BUFFER_SIZE) {
      this.buffer.shift();
      this.droppedErrors++;
    }
    this.buffer.push(err);
  }

  private ensureClients(): { routing: RoutingObjectClient; cluster: ObjectClient; views: ObjectClient } {
    if (this.clients !== undefined) return this.clients;
    const server = this.apiServer;
    if (server === undefined)
      throw new Error('getClient() needs the view server: call start() first, or pass apiServer');
    // Read by reconcilekit itself, as the cluster's: no @kubernetes/client-node is loaded for either.
    const viewKc = kubeConfigFromText(server.kubeconfig, "the view server's kubeconfig");
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
    const routing = new RoutingObjectClient(
      cluster,
      views,
      this.options.viewGroupSuffix ?? DEFAULT_VIEW_GROUP_SUFFIX,
    );
    this.clients = { routing, cluster, views };
    return this.clients;
  }
}

/** Deletes every view CRD of a group (and so its views) and waits until they are gone. */
async function removeViews(views: ObjectClient, group: string): Promise<void> {
  const ref = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };
  const list = await views.list(ref, { labelSelector: `reconcilekit.io/view-group=${group}` });
  await Promise.all(
    list.items.map(async (crd) => {
      const name = crd.metadata?.name ?? '';
      try {
        await views.delete({ ...ref, name });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      for (let i = 0; i < 300; i++) {
        try {
          await views.get({ ...ref, name });
        } catch (err) {
          if (isNotFound(err)) return;
          throw err;
        }
        await sleep(100);
      }
    }),
  );
}
