import type { KubernetesObject } from '@kubernetes/client-node';
import type {
  ApplyOptions,
  DeleteOptions,
  ListOptions,
  ObjectClient,
  ObjectList,
  PatchOptions,
  PatchType,
  WatchRequestOptions,
  WriteOptions,
} from './object-client.js';
import type { ObjectRef, ResourceRef } from './resource-ref.js';
import type { ApplyConfiguration, KindObject, NewKindObject, TypedResource } from './kind-object.js';

/**
 * Options naming the namespace of one call of a {@link KindClient}.
 * @category Kubernetes client
 */
export interface NamespaceOption {
  /** Namespace of the object(s). Default: the client's (`client.of(Kind, namespace)`); for list and watch: all. */
  namespace?: string;
}

/**
 * A watch event of a typed watch: `ADDED`, `MODIFIED`, `DELETED` carry an object of the kind; `BOOKMARK`
 * only its resourceVersion; `ERROR` a Status.
 * @category Kubernetes client
 */
export type KindWatchEvent<Obj> =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: Obj }
  | { type: 'BOOKMARK'; object: KubernetesObject }
  | { type: 'ERROR'; object: KubernetesObject };

/**
 * The status subresource of a kind: writes that change only `status` (and need only the `…/status`
 * permission).
 * @category Kubernetes client
 */
export interface KindStatusClient<Spec, Status> {
  /** Replaces the status (PUT …/status); `obj.metadata.resourceVersion` makes it conditional. */
  update(obj: KindObject<Spec, Status>, opts?: WriteOptions): Promise<KindObject<Spec, Status>>;
  /** Patches the status (a merge patch by default): `{ status: { url } }`. */
  patch(
    name: string,
    body: { status: Partial<Status> } | readonly unknown[],
    opts?: PatchOptions & NamespaceOption & { type?: PatchType },
  ): Promise<KindObject<Spec, Status>>;
  /** Server-side apply of the status fields this manager owns. */
  apply(
    config: ApplyConfiguration<Spec, Status>,
    opts: Omit<ApplyOptions, 'subresource'>,
  ): Promise<KindObject<Spec, Status>>;
}

/**
 * A client for one kind (and version), built on {@link ObjectClient}: objects in and out carry the kind's
 * spec and status types; `apiVersion`, `kind`, the plural and the namespace are filled in. Get one with
 * `kindClient(client, Website)` (or `client.of(Website)`).
 * @category Kubernetes client
 */
export class KindClient<Spec, Status> {
  readonly #client: ObjectClient;
  readonly #kind: TypedResource<Spec, Status>;
  readonly #namespace: string | undefined;

  constructor(client: ObjectClient, kind: TypedResource<Spec, Status>, namespace?: string) {
    this.#client = client;
    this.#kind = kind;
    this.#namespace = kind.namespaced ? namespace : undefined;
  }

  /** The same client bound to `namespace`. */
  inNamespace(namespace: string): KindClient<Spec, Status> {
    return new KindClient(this.#client, this.#kind, namespace);
  }

  async get(
    name: string,
    opts: NamespaceOption & { signal?: AbortSignal } = {},
  ): Promise<KindObject<Spec, Status>> {
    return this.#client.get<KindObject<Spec, Status>>(this.#ref(name, opts.namespace), signalOnly(opts));
  }

  async list(opts: ListOptions & NamespaceOption = {}): Promise<ObjectList<KindObject<Spec, Status>>> {
    const { namespace, ...rest } = opts;
    return this.#client.list<KindObject<Spec, Status>>(this.#collection(namespace), rest);
  }

  async create(obj: NewKindObject<Spec>, opts: WriteOptions = {}): Promise<KindObject<Spec, Status>> {
    return this.#client.create(this.#complete(obj), opts);
  }

  /** Replaces the object (PUT); `metadata.resourceVersion` makes it conditional. Status is ignored with a status subresource. */
  async update(obj: KindObject<Spec, Status>, opts: WriteOptions = {}): Promise<KindObject<Spec, Status>> {
    return this.#client.replace(this.#complete(obj), opts);
  }

  /**
   * Patches the object: a merge patch (`{ spec: { replicas: 3 } }`) by default; `type: 'json'` for a JSON
   * Patch list. Custom resources take no strategic merge patch.
   */
  async patch(
    name: string,
    body: ApplyPatchBody<Spec> | readonly unknown[],
    opts: PatchOptions & NamespaceOption & { type?: PatchType } = {},
  ): Promise<KindObject<Spec, Status>> {
    const { namespace, type, ...rest } = opts;
    return this.#client.patch(
      this.#ref(name, namespace),
      body,
      type ?? (Array.isArray(body) ? 'json' : 'merge'),
      rest,
    );
  }

  /** Server-side apply: the fields `config` sets become this manager's; fields it set before and omits now are removed. */
  async apply(
    config: ApplyConfiguration<Spec, Status>,
    opts: ApplyOptions,
  ): Promise<KindObject<Spec, Status>> {
    return this.#client.apply(
      this.#complete(config as KubernetesObject & { metadata: { name: string } }),
      opts,
    ) as Promise<KindObject<Spec, Status>>;
  }

  async delete(name: string, opts: DeleteOptions & NamespaceOption = {}): Promise<void> {
    const { namespace, ...rest } = opts;
    await this.#client.delete(this.#ref(name, namespace), rest);
  }

  /** The status subresource. */
  status(): KindStatusClient<Spec, Status> {
    return {
      update: (obj, opts = {}) => this.#client.replaceStatus(this.#complete(obj), opts),
      patch: (name, body, opts = {}) => {
        const { namespace, type, ...rest } = opts;
        return this.#client.patch(
          this.#ref(name, namespace),
          body,
          type ?? (Array.isArray(body) ? 'json' : 'merge'),
          {
            ...rest,
            subresource: 'status',
          },
        );
      },
      apply: (config, opts) =>
        this.#client.apply(this.#complete(config as KubernetesObject & { metadata: { name: string } }), {
          ...opts,
          subresource: 'status',
        }) as Promise<KindObject<Spec, Status>>,
    };
  }

  /**
   * One watch request (no relist, no reconnect: use an informer for that); resolves when the server ends
   * it or `opts.signal` aborts.
   */
  async watch(
    opts: Omit<WatchRequestOptions, 'signal'> & NamespaceOption & { signal: AbortSignal },
    onEvent: (event: KindWatchEvent<KindObject<Spec, Status>>) => void,
  ): Promise<void> {
    const { namespace, ...rest } = opts;
    await this.#client.watch(this.#collection(namespace), rest, (type, object) => {
      onEvent({ type, object } as KindWatchEvent<KindObject<Spec, Status>>);
    });
  }

  #namespaceOf(namespace: string | undefined): string | undefined {
    return this.#kind.namespaced ? (namespace ?? this.#namespace) : undefined;
  }

  #collection(namespace: string | undefined): ResourceRef {
    const ref: ResourceRef = {
      apiVersion: this.#kind.apiVersion,
      kind: this.#kind.kind,
      plural: this.#kind.plural,
    };
    const ns = this.#namespaceOf(namespace);
    if (ns !== undefined) ref.namespace = ns;
    return ref;
  }

  #ref(name: string, namespace: string | undefined): ObjectRef {
    const ns = this.#namespaceOf(namespace);
    if (this.#kind.namespaced && ns === undefined) {
      throw new TypeError(
        `${this.#kind.kind} ${name}: a namespaced kind needs a namespace (opts.namespace or client.of(${this.#kind.kind}, namespace))`,
      );
    }
    return { ...this.#collection(namespace), name };
  }

  /** `obj` with apiVersion, kind and (for a namespaced kind) the namespace filled in. */
  #complete<T extends { metadata?: { namespace?: string } }>(
    obj: T,
  ): T & KubernetesObject & { apiVersion: string; kind: string } {
    const metadata = { ...obj.metadata };
    const ns = this.#namespaceOf(metadata.namespace);
    if (ns !== undefined) metadata.namespace = ns;
    return { ...obj, apiVersion: this.#kind.apiVersion, kind: this.#kind.kind, metadata };
  }
}

/** A merge patch body: any part of the object (null deletes a field). */
type ApplyPatchBody<Spec> = { metadata?: Record<string, unknown>; spec?: MergePatch<Spec> };
type MergePatch<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T]?: MergePatch<T[K]> | null }
    : T;

function signalOnly(opts: { signal?: AbortSignal }): { signal?: AbortSignal } {
  return opts.signal === undefined ? {} : { signal: opts.signal };
}

/**
 * A {@link KindClient} for `kind` over `client`, optionally bound to a namespace.
 * @category Kubernetes client
 */
export function kindClient<Spec, Status>(
  client: ObjectClient,
  kind: TypedResource<Spec, Status>,
  namespace?: string,
): KindClient<Spec, Status> {
  return new KindClient(client, kind, namespace);
}
