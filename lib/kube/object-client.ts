import type http from 'node:http';
import type https from 'node:https';
import { createInterface } from 'node:readline';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { ApiError } from './api-error.js';
import type { WarningHandler } from './api-warnings.js';
import type { CacheReader } from './cache-reader.js';
import {
  KubeTransport,
  PARTIAL_OBJECT_METADATA_ACCEPT,
  PARTIAL_OBJECT_METADATA_LIST_ACCEPT,
  toApiError,
} from './kube-transport.js';
import type { ObjectRef, ResourceRef } from './resource-ref.js';
import { KindClient } from './kind-client.js';
import type { LoadedKubeConfig } from './loaded-kube-config.js';
import type { TypedResource } from './kind-object.js';

/**
 * Field manager sent with every write unless the call says otherwise.
 * @category Kubernetes client
 */
export const DEFAULT_FIELD_MANAGER = 'reconcilekit';

/**
 * Patch flavours and their content types; always explicit (client-node's defaults are traps).
 * @category Kubernetes client
 */
export const PATCH_CONTENT_TYPES = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/**
 * A patch flavour: JSON merge patch, JSON Patch, strategic merge patch, or server-side apply.
 * @category Kubernetes client
 */
export type PatchType = keyof typeof PATCH_CONTENT_TYPES;

/**
 * What {@link ObjectClient}'s constructor takes.
 * @category Kubernetes client
 */
export interface ObjectClientOptions {
  /**
   * Server, TLS and credentials: a client-node `KubeConfig`, or the {@link LoadedKubeConfig} reconcilekit
   * reads itself (without loading client-node).
   */
  kubeConfig: KubeConfig | LoadedKubeConfig;
  /** Agent for every non-watch request. Default: one keep-alive agent with the kubeconfig's TLS. */
  agent?: http.Agent | https.Agent;
  /** `User-Agent` header. Default: `reconcilekit`. */
  userAgent?: string;
  /** Field manager for writes. Default: {@link DEFAULT_FIELD_MANAGER}, so managedFields name us. */
  fieldManager?: string;
  /** Aborts every request of this client when aborted (in addition to per-call signals). */
  signal?: AbortSignal;
  /** Gets every `299` Warning header the API server answers (see {@link loggingWarningHandler}). Default: none. */
  warningHandler?: WarningHandler;
}

/**
 * A gate on this client's writes (leader fencing): `check()` runs before every create, update, patch and
 * delete and throws to refuse it; `signal` aborts the writes in flight when it fires.
 * @category Kubernetes client
 */
export interface WriteFence {
  /** Throws (e.g. LeaseExpiredError) when writing is no longer safe. */
  check(): void;
  /** Aborts when the fence closes; undefined while there is nothing to abort with. */
  readonly signal: AbortSignal | undefined;
}

/**
 * Options of a list.
 * @category Kubernetes client
 */
export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  signal?: AbortSignal;
  /** Ask the API server even when this client reads from a cache (see {@link ObjectClient.live}). */
  live?: boolean;
  /**
   * Metadata only: the server answers a `PartialObjectMetadataList` (each item's apiVersion and kind set
   * back to the listed kind, no spec, data or status). Always asked of the API server. Default false.
   */
  metadataOnly?: boolean;
  /**
   * Only objects indexed under these values (controller-runtime's `MatchingFields`): `{ [index]: value }`,
   * answered from a field index of the cache (`indexField`) in time proportional to the matches. Served by
   * the client of a reconcile context; a client without a cache (or a `live` list) sends them as field
   * selector terms `index=value`, which the API server accepts only for the fields it supports.
   */
  matchingFields?: Readonly<Record<string, string>>;
}

/**
 * Options of a get.
 * @category Kubernetes client
 */
export interface GetOptions {
  signal?: AbortSignal;
  /** Ask the API server even when this client reads from a cache (see {@link ObjectClient.live}). */
  live?: boolean;
  /**
   * Metadata only: the server answers a `PartialObjectMetadata` (apiVersion and kind set back to the
   * object's). Always asked of the API server. Default false.
   */
  metadataOnly?: boolean;
}

/**
 * A list answer: the items (with apiVersion/kind filled in) and the list metadata.
 * @category Kubernetes client
 */
export interface ObjectList<T> {
  items: T[];
  metadata: { resourceVersion: string; continue?: string };
}

/**
 * Options of a write.
 * @category Kubernetes client
 */
export interface WriteOptions {
  fieldManager?: string;
  signal?: AbortSignal;
}

/**
 * Options of a patch.
 * @category Kubernetes client
 */
export interface PatchOptions extends WriteOptions {
  /** Patch the status subresource. */
  subresource?: 'status';
  /** Server-side apply only: take ownership of conflicting fields. */
  force?: boolean;
}

/**
 * Options of {@link ObjectClient.apply}.
 * @category Kubernetes client
 */
export interface ApplyOptions {
  /** Owner of the applied fields (required by the API for apply), e.g. `my-operator`. */
  fieldManager: string;
  /** Take over fields other managers own instead of failing with 409. Default: false (the API's). */
  force?: boolean;
  /** Apply to the status subresource. */
  subresource?: 'status';
  signal?: AbortSignal;
}

/**
 * Options of a delete.
 * @category Kubernetes client
 */
export interface DeleteOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
  signal?: AbortSignal;
}

/**
 * Options of a watch request.
 * @category Kubernetes client
 */
export interface WatchRequestOptions {
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  labelSelector?: string;
  fieldSelector?: string;
  /** Ends the watch (the promise resolves) when aborted. */
  signal: AbortSignal;
  /** Called once the server accepted the watch (HTTP 200), before any event: the API is reachable again. */
  onOpen?: () => void;
  /**
   * Metadata only: each event's object is a `PartialObjectMetadata` (apiVersion and kind set back to the
   * watched kind). Default false.
   */
  metadataOnly?: boolean;
  /**
   * Stream the current objects first (watch-list): `sendInitialEvents=true` with
   * `resourceVersionMatch=NotOlderThan` — ADDED events, then a BOOKMARK annotated
   * `k8s.io/initial-events-end`. Needs `allowWatchBookmarks`. A server without watch-list answers 422.
   */
  sendInitialEvents?: boolean;
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

/**
 * Generic CRUD + watch client for any kind, over one shared keep-alive agent (watches use their own
 * connections). Patch content types are always explicit. Errors are {@link ApiError}.
 * @category Kubernetes client
 */
export class ObjectClient {
  readonly transport: KubeTransport;
  private readonly fieldManager: string;
  private readonly signal: AbortSignal | undefined;
  private readonly discovery = new Map<string, Promise<ApiResource[]>>();
  /** Checked before every write; set by leader election (the lease's own renewals use {@link unfenced}). */
  fence: WriteFence | undefined;
  /**
   * Where `get` and `list` are answered from a cache (undefined: always from the API server). The client in
   * a reconcile context (`ctx.get(clientKey)`) has one over the engine's informers; see {@link withReader}.
   */
  readonly reader: CacheReader | undefined;

  constructor(options: ObjectClientOptions) {
    this.transport = new KubeTransport(options);
    this.fieldManager = options.fieldManager ?? DEFAULT_FIELD_MANAGER;
    this.signal = options.signal;
  }

  /**
   * The kubeconfig as a client-node `KubeConfig`: the one given, or one made from the configuration
   * reconcilekit read itself (which loads client-node on first access).
   */
  get kubeConfig(): KubeConfig {
    return this.transport.kubeConfig;
  }

  /** The configuration this client was built from, as given (no client-node is loaded for it). */
  get kubeConfigSource(): KubeConfig | LoadedKubeConfig {
    return this.transport.source;
  }

  /** Plural and scope of a kind, through discovery (cached; re-discovered once on a miss). */
  async resolve(ref: { apiVersion: string; kind: string }): Promise<{ plural: string; namespaced: boolean }> {
    for (const fresh of [false, true]) {
      if (fresh) this.discovery.delete(ref.apiVersion);
      let pending = this.discovery.get(ref.apiVersion);
      if (pending === undefined) {
        pending = this.discover(ref.apiVersion);
        this.discovery.set(ref.apiVersion, pending);
        pending.catch(() => this.discovery.delete(ref.apiVersion));
      }
      const found = (await pending).find((r) => r.kind === ref.kind && !r.name.includes('/'));
      if (found !== undefined) return { plural: found.name, namespaced: found.namespaced };
    }
    throw new ApiError({
      code: 404,
      reason: 'NotFound',
      message: `kind ${ref.kind} is not served by ${ref.apiVersion} (is its CRD installed and established?)`,
    });
  }

  /** Whether the kind serves `subresource` (e.g. `status`), through discovery (cached like {@link resolve}). */
  async hasSubresource(ref: { apiVersion: string; kind: string }, subresource: string): Promise<boolean> {
    const { plural } = await this.resolve(ref);
    const resources = await (this.discovery.get(ref.apiVersion) ?? this.discover(ref.apiVersion));
    return resources.some((r) => r.name === `${plural}/${subresource}`);
  }

  /**
   * The CustomResourceDefinitions of this server that define kinds of `apiVersion`'s group (a client that
   * routes groups to several servers asks the one that serves the group). Needs `list` on
   * customresourcedefinitions.
   */
  async definingCrds(apiVersion: string): Promise<KubernetesObject[]> {
    const slash = apiVersion.lastIndexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const crds = await this.list<KubernetesObject & { spec?: { group?: string } }>({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      plural: 'customresourcedefinitions',
    });
    return crds.items.filter((crd) => crd.spec?.group === group);
  }

  /** The kinds `apiVersion` serves, from fresh discovery (empty when the group version is not served). */
  async servedKinds(apiVersion: string): Promise<string[]> {
    this.discovery.delete(apiVersion);
    const resources = await this.discover(apiVersion);
    return [...new Set(resources.filter((r) => !r.name.includes('/')).map((r) => r.kind))].sort();
  }

  private async discover(apiVersion: string): Promise<ApiResource[]> {
    const path = apiVersion === 'v1' ? '/api/v1' : `/apis/${apiVersion}`;
    try {
      const list = (await this.transport.request({ method: 'GET', path, signal: this.signal })) as {
        resources?: ApiResource[];
      };
      return list.resources ?? [];
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return [];
      throw e;
    }
  }

  /** URL path of a collection (`name` undefined) or one object, with an optional subresource. */
  async path(ref: ResourceRef, name?: string, subresource?: string): Promise<string> {
    let plural = ref.plural;
    let namespaced = ref.namespace !== undefined;
    if (plural === undefined) ({ plural, namespaced } = await this.resolve(ref));
    const prefix = ref.apiVersion === 'v1' ? '/api/v1' : `/apis/${ref.apiVersion}`;
    const ns =
      namespaced && ref.namespace !== undefined ? `/namespaces/${encodeURIComponent(ref.namespace)}` : '';
    const obj = name === undefined ? '' : `/${encodeURIComponent(name)}`;
    const sub = subresource === undefined ? '' : `/${subresource}`;
    return `${prefix}${ns}/${plural}${obj}${sub}`;
  }

  /**
   * A client for one kind whose objects carry the kind's spec and status types (`client.of(Website)`, a
   * kind from `defineKind`), optionally bound to a namespace. It shares this client's transport, fence
   * and field manager.
   */
  of<Spec, Status>(kind: TypedResource<Spec, Status>, namespace?: string): KindClient<Spec, Status> {
    return new KindClient(this, kind, namespace);
  }

  /** A view of this client (same transport, discovery cache) whose writes skip the fence. */
  unfenced(): ObjectClient {
    const view = Object.create(this) as ObjectClient;
    view.fence = undefined;
    return view;
  }

  /**
   * A view of this client (same transport, discovery cache, fence) whose `get` and `list` are answered by
   * `reader` where it can, and whose writes are reported to it (read-your-own-writes).
   */
  withReader(reader: CacheReader): ObjectClient {
    const view = Object.create(this) as ObjectClient;
    (view as { reader: CacheReader | undefined }).reader = reader;
    return view;
  }

  /** A view of this client that reads from the API server only (`this` when it has no cache reader). */
  live(): ObjectClient {
    if (this.reader === undefined) return this;
    const view = Object.create(this) as ObjectClient;
    (view as { reader: CacheReader | undefined }).reader = undefined;
    return view;
  }

  /**
   * Sends a create, update or patch of the object `ref` names and tells the cache reader (if any) that it
   * is in flight and, when it is answered, the answer (read-your-own-writes); returns the answer.
   */
  private async write(ref: ObjectRef, send: () => Promise<unknown>): Promise<unknown> {
    const reader = this.reader;
    if (reader === undefined) return send();
    const settle = reader.writing?.(ref);
    try {
      const answer = await send();
      if (isObject(answer)) reader.wrote(answer);
      return answer;
    } finally {
      settle?.();
    }
  }

  /** The fence's check, then the signal a write runs under (the fence's signal added). */
  private writeSignal(signal?: AbortSignal): AbortSignal | undefined {
    const fence = this.fence;
    if (fence === undefined) return this.signalOf(signal);
    fence.check();
    const fenceSignal = fence.signal;
    const own = this.signalOf(signal);
    if (fenceSignal === undefined) return own;
    return own === undefined ? fenceSignal : AbortSignal.any([own, fenceSignal]);
  }

  private signalOf(signal?: AbortSignal): AbortSignal | undefined {
    if (signal === undefined) return this.signal;
    if (this.signal === undefined) return signal;
    return AbortSignal.any([signal, this.signal]);
  }

  /**
   * One object. With a cache reader (the client of a reconcile context), from the cache where it holds the
   * kind (a copy, with this client's own writes applied); `{ live: true }` asks the API server.
   */
  async get<T extends KubernetesObject = KubernetesObject>(
    ref: ObjectRef,
    opts: GetOptions = {},
  ): Promise<T> {
    const metadataOnly = opts.metadataOnly === true;
    if (this.reader !== undefined && opts.live !== true && !metadataOnly) {
      const cached = await this.reader.get(ref, opts.signal);
      if (cached !== undefined) return cached as T;
    }
    const path = await this.path(ref, ref.name);
    const answer = (await this.transport.request({
      method: 'GET',
      path,
      signal: this.signalOf(opts.signal),
      ...(metadataOnly ? { accept: PARTIAL_OBJECT_METADATA_ACCEPT } : {}),
    })) as T;
    return metadataOnly ? { ...answer, apiVersion: ref.apiVersion, kind: ref.kind } : answer;
  }

  async list<T extends KubernetesObject = KubernetesObject>(
    ref: ResourceRef,
    opts: ListOptions = {},
  ): Promise<ObjectList<T>> {
    const metadataOnly = opts.metadataOnly === true;
    if (this.reader !== undefined && opts.live !== true && !metadataOnly) {
      const cached = await this.reader.list(ref, opts);
      if (cached !== undefined) return cached as ObjectList<T>;
    }
    const path = await this.path(ref);
    const query = {
      labelSelector: opts.labelSelector,
      fieldSelector: withMatchingFields(opts.fieldSelector, opts.matchingFields),
      limit: opts.limit,
      continue: opts.continue,
      resourceVersion: opts.resourceVersion,
    };
    const list = (await this.transport.request({
      method: 'GET',
      path,
      query,
      signal: this.signalOf(opts.signal),
      ...(metadataOnly ? { accept: PARTIAL_OBJECT_METADATA_LIST_ACCEPT } : {}),
    })) as { items?: T[] | null; metadata?: { resourceVersion?: string; continue?: string } };
    // A PartialObjectMetadata item names meta.k8s.io's kind: set the listed kind back (as client-go's
    // metadata informers do), so a metadata-only object is keyed, owned and matched like a full one.
    const items = (list.items ?? []).map((item) =>
      metadataOnly
        ? { ...item, apiVersion: ref.apiVersion, kind: ref.kind }
        : { apiVersion: ref.apiVersion, kind: ref.kind, ...item },
    );
    const metadata: ObjectList<T>['metadata'] = { resourceVersion: list.metadata?.resourceVersion ?? '' };
    if (list.metadata?.continue !== undefined && list.metadata.continue !== '') {
      metadata.continue = list.metadata.continue;
    }
    return { items, metadata };
  }

  async create<T extends KubernetesObject>(obj: T, opts: WriteOptions = {}): Promise<T> {
    const ref = refOf(obj);
    const path = await this.path(ref);
    return (await this.write(ref, () =>
      this.transport.request({
        method: 'POST',
        path,
        query: { fieldManager: opts.fieldManager ?? this.fieldManager },
        body: obj,
        signal: this.writeSignal(opts.signal),
      }),
    )) as T;
  }

  async replace<T extends KubernetesObject>(obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.put(obj, undefined, opts);
  }

  async replaceStatus<T extends KubernetesObject>(obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.put(obj, 'status', opts);
  }

  private async put<T extends KubernetesObject>(
    obj: T,
    sub: string | undefined,
    opts: WriteOptions,
  ): Promise<T> {
    const ref = refOf(obj);
    const path = await this.path(ref, ref.name, sub);
    return (await this.write(ref, () =>
      this.transport.request({
        method: 'PUT',
        path,
        query: { fieldManager: opts.fieldManager ?? this.fieldManager },
        body: obj,
        signal: this.writeSignal(opts.signal),
      }),
    )) as T;
  }

  async patch<T extends KubernetesObject = KubernetesObject>(
    ref: ObjectRef,
    body: unknown,
    type: PatchType,
    opts: PatchOptions = {},
  ): Promise<T> {
    const path = await this.path(ref, ref.name, opts.subresource);
    return (await this.write(ref, () =>
      this.transport.request({
        method: 'PATCH',
        path,
        query: {
          fieldManager: opts.fieldManager ?? this.fieldManager,
          force: type === 'apply' ? opts.force : undefined,
        },
        body,
        contentType: PATCH_CONTENT_TYPES[type],
        signal: this.writeSignal(opts.signal),
      }),
    )) as T;
  }

  /**
   * Server-side apply of `obj` (a PATCH with `application/apply-patch+yaml`, JSON body): the server
   * merges the fields `obj` sets into the live object (creating it when absent) and records
   * `fieldManager` as their owner; fields this manager set before and `obj` omits are removed. A field
   * another manager owns is a 409 conflict unless `force` takes it over. `obj` needs apiVersion, kind,
   * metadata.name (and metadata.namespace for a namespaced kind); omit managedFields and
   * resourceVersion (a resourceVersion makes the apply conditional).
   */
  async apply<T extends KubernetesObject>(obj: T, opts: ApplyOptions): Promise<T> {
    if (typeof opts.fieldManager !== 'string' || opts.fieldManager === '') {
      throw new TypeError('apply: opts.fieldManager is required (it names the owner of the applied fields)');
    }
    const patchOpts: PatchOptions = { fieldManager: opts.fieldManager };
    if (opts.force !== undefined) patchOpts.force = opts.force;
    if (opts.subresource !== undefined) patchOpts.subresource = opts.subresource;
    if (opts.signal !== undefined) patchOpts.signal = opts.signal;
    return this.patch<T>(refOf(obj), obj, 'apply', patchOpts);
  }

  async delete(ref: ObjectRef, opts: DeleteOptions = {}): Promise<void> {
    const path = await this.path(ref, ref.name);
    const body: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions' };
    if (opts.propagationPolicy !== undefined) body.propagationPolicy = opts.propagationPolicy;
    if (opts.preconditions !== undefined) body.preconditions = opts.preconditions;
    const answer = await this.transport.request({
      method: 'DELETE',
      path,
      body,
      signal: this.writeSignal(opts.signal),
    });
    const reader = this.reader;
    if (reader === undefined) return;
    // An object with finalizers stays (Terminating) and the answer is the object; otherwise it is gone.
    if (isObject(answer) && answer.metadata?.deletionTimestamp != null) reader.wrote(answer);
    else reader.removed(ref);
  }

  /**
   * Opens one watch on its own connection and calls `onEvent` per event (BOOKMARK and ERROR included).
   * Resolves when the server ends the stream or `opts.signal` aborts; rejects with {@link ApiError} on an
   * HTTP error or a broken connection, and with the handler's error if `onEvent` throws.
   */
  async watch(
    ref: ResourceRef,
    opts: WatchRequestOptions,
    onEvent: (type: string, object: KubernetesObject) => void,
  ): Promise<void> {
    if (opts.signal.aborted) return;
    const path = await this.path(ref);
    const query = {
      watch: true,
      resourceVersion: opts.resourceVersion,
      ...(opts.sendInitialEvents === true
        ? { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' }
        : {}),
      allowWatchBookmarks: opts.allowWatchBookmarks,
      timeoutSeconds: opts.timeoutSeconds,
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
    };
    const local = new AbortController();
    const signal = AbortSignal.any([opts.signal, local.signal, ...(this.signal ? [this.signal] : [])]);
    let res: http.IncomingMessage;
    try {
      res = await this.transport.open(
        {
          method: 'GET',
          path,
          query,
          signal,
          ...(opts.metadataOnly === true ? { accept: PARTIAL_OBJECT_METADATA_ACCEPT } : {}),
        },
        'watch',
      );
    } catch (e) {
      if (signal.aborted) return;
      throw e;
    }
    const status = res.statusCode ?? 0;
    if (status !== 200) {
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      throw toApiError(status, Buffer.concat(chunks).toString('utf8'), res.headers, `watch ${path}`);
    }
    opts.onOpen?.();
    await new Promise<void>((resolve, reject) => {
      let failure: unknown;
      const lines = createInterface({ input: res, crlfDelay: Infinity });
      lines.on('line', (line) => {
        if (failure !== undefined || line.trim() === '') return;
        let event: { type?: unknown; object?: unknown };
        try {
          event = JSON.parse(line) as { type?: unknown; object?: unknown };
        } catch (e) {
          failure = new ApiError({
            code: 0,
            reason: 'BadWatchEvent',
            message: `undecodable watch line`,
            cause: e,
          });
          local.abort();
          return;
        }
        const type = String(event.type);
        let object = event.object as KubernetesObject;
        if (
          opts.metadataOnly === true &&
          type !== 'ERROR' &&
          typeof object === 'object' &&
          (object as unknown) !== null
        ) {
          object = { ...object, apiVersion: ref.apiVersion, kind: ref.kind };
        }
        try {
          onEvent(type, object);
        } catch (e) {
          failure = e;
          local.abort();
        }
      });
      const finish = (err?: unknown): void => {
        if (failure !== undefined)
          reject(
            failure instanceof Error ? failure : new Error('watch event handler failed', { cause: failure }),
          );
        else if (err !== undefined && !signal.aborted) {
          reject(
            new ApiError({ code: 0, reason: 'ConnectionError', message: `watch ${path} broke`, cause: err }),
          );
        } else resolve();
      };
      res.on('error', finish);
      // readline re-emits its input's errors (e.g. `aborted` when the connection drops) on the
      // interface; without a listener that is an uncaught exception that kills the process.
      lines.on('error', finish);
      const ended = (): void => {
        finish(res.complete || signal.aborted ? undefined : new Error('stream ended before completion'));
      };
      lines.on('close', ended);
      // A destroyed response emits 'close' without 'end'; readline would then never close.
      res.on('close', ended);
    });
  }

  /** Releases idle sockets. Open watches end through their own signals. */
  close(): void {
    this.transport.close();
  }
}

/** A Kubernetes object as an API answer: a JSON object with metadata (a `Status` has none worth keeping). */
function isObject(answer: unknown): answer is KubernetesObject {
  if (typeof answer !== 'object' || answer === null) return false;
  const { metadata, kind } = answer as { metadata?: unknown; kind?: unknown };
  return typeof metadata === 'object' && metadata !== null && kind !== 'Status';
}

function refOf(obj: KubernetesObject): ObjectRef {
  if (obj.apiVersion === undefined || obj.kind === undefined || obj.metadata?.name === undefined) {
    throw new TypeError('object needs apiVersion, kind and metadata.name');
  }
  const ref: ObjectRef = { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name };
  if (obj.metadata.namespace !== undefined) ref.namespace = obj.metadata.namespace;
  return ref;
}

/** A field selector with `matchingFields` added as `name=value` terms (a list the cache did not answer). */
function withMatchingFields(
  selector: string | undefined,
  fields: Readonly<Record<string, string>> | undefined,
): string | undefined {
  if (fields === undefined) return selector;
  const terms = Object.entries(fields).map(([name, value]) => `${name}=${value}`);
  if (selector !== undefined && selector.trim() !== '') terms.unshift(selector);
  return terms.length === 0 ? selector : terms.join(',');
}
