import type { KubernetesObject } from '@kubernetes/client-node';
import {
  ObjectClient,
  type DeleteOptions,
  type ListOptions,
  type ObjectList,
  type PatchOptions,
  type PatchType,
  type WatchRequestOptions,
  type WriteOptions,
} from '../kube/object-client.js';
import type { ObjectRef, ResourceRef } from '../kube/resource-ref.js';
import { isViewApiVersion } from './view-kinds.js';

/**
 * An {@link ObjectClient} that sends view kinds (`<operator>.view.reconcilekit.io/…`) to the view server
 * and everything else to the cluster (dcontroller's `Group.GetClient` multiplexer). When both are one
 * server (the embedded server with no cluster) it is a plain client for it.
 * @category Declarative operators
 */
export class RoutingObjectClient extends ObjectClient {
  constructor(
    private readonly cluster: ObjectClient,
    private readonly views: ObjectClient,
    private readonly viewGroupSuffix: string,
  ) {
    super({ kubeConfig: cluster.kubeConfigSource });
  }

  /** The client that serves `apiVersion`. */
  route(apiVersion: string | undefined): ObjectClient {
    return isViewApiVersion(apiVersion, this.viewGroupSuffix) ? this.views : this.cluster;
  }

  override resolve(ref: {
    apiVersion: string;
    kind: string;
  }): Promise<{ plural: string; namespaced: boolean }> {
    return this.route(ref.apiVersion).resolve(ref);
  }
  override hasSubresource(ref: { apiVersion: string; kind: string }, subresource: string): Promise<boolean> {
    return this.route(ref.apiVersion).hasSubresource(ref, subresource);
  }
  override definingCrds(apiVersion: string): Promise<KubernetesObject[]> {
    return this.route(apiVersion).definingCrds(apiVersion);
  }
  override servedKinds(apiVersion: string): Promise<string[]> {
    return this.route(apiVersion).servedKinds(apiVersion);
  }
  override path(ref: ResourceRef, name?: string, subresource?: string): Promise<string> {
    return this.route(ref.apiVersion).path(ref, name, subresource);
  }
  override get<T extends KubernetesObject = KubernetesObject>(
    ref: ObjectRef,
    opts: { signal?: AbortSignal } = {},
  ): Promise<T> {
    return this.route(ref.apiVersion).get<T>(ref, opts);
  }
  override list<T extends KubernetesObject = KubernetesObject>(
    ref: ResourceRef,
    opts: ListOptions = {},
  ): Promise<ObjectList<T>> {
    return this.route(ref.apiVersion).list<T>(ref, opts);
  }
  override create<T extends KubernetesObject>(obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.route(obj.apiVersion).create(obj, opts);
  }
  override replace<T extends KubernetesObject>(obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.route(obj.apiVersion).replace(obj, opts);
  }
  override replaceStatus<T extends KubernetesObject>(obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.route(obj.apiVersion).replaceStatus(obj, opts);
  }
  override patch<T extends KubernetesObject = KubernetesObject>(
    ref: ObjectRef,
    body: unknown,
    type: PatchType,
    opts: PatchOptions = {},
  ): Promise<T> {
    return this.route(ref.apiVersion).patch<T>(ref, body, type, opts);
  }
  override delete(ref: ObjectRef, opts: DeleteOptions = {}): Promise<void> {
    return this.route(ref.apiVersion).delete(ref, opts);
  }
  override watch(
    ref: ResourceRef,
    opts: WatchRequestOptions,
    onEvent: (type: string, object: KubernetesObject) => void,
  ): Promise<void> {
    return this.route(ref.apiVersion).watch(ref, opts, onEvent);
  }
  /** Closes this wrapper only: the two clients belong to whoever made them. */
  override close(): void {
    super.close();
  }
}
