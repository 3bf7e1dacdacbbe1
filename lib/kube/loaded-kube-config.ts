import { readFileSync } from 'node:fs';
import type { Cluster, Context, KubeConfig, User } from '@kubernetes/client-node';
import { clientNode } from './client-node.js';
import type { KubeconfigUserExtras } from './kubeconfig-extras.js';

/**
 * A kubeconfig as reconcilekit reads it itself (`KUBECONFIG`, `~/.kube/config` or the in-cluster service
 * account), without loading `@kubernetes/client-node`: the clusters, users and contexts in client-node's
 * shapes, the current context, and the user fields client-node drops (`token-file`, `as-groups`, `as-uid`,
 * `as-user-extra`). {@link ObjectClient} and its transport take it where they take a client-node
 * `KubeConfig`; {@link LoadedKubeConfig.toClientNode} gives the client-node one when a caller needs it.
 * @category Kubernetes client
 */
export class LoadedKubeConfig {
  private clientNodeConfig: KubeConfig | undefined;

  constructor(
    readonly clusters: readonly Cluster[],
    readonly users: readonly User[],
    readonly contexts: readonly Context[],
    readonly currentContext: string,
    /** The user fields client-node drops, by user name. */
    readonly userExtras: ReadonlyMap<string, KubeconfigUserExtras> = new Map(),
  ) {}

  getCurrentContext(): string {
    return this.currentContext;
  }

  getContexts(): Context[] {
    return [...this.contexts];
  }

  getContextObject(name: string): Context | null {
    return this.contexts.find((c) => c.name === name) ?? null;
  }

  getCurrentCluster(): Cluster | null {
    const context = this.getContextObject(this.currentContext);
    if (context === null) return null;
    return this.clusters.find((c) => c.name === context.cluster) ?? null;
  }

  getCurrentUser(): User | null {
    const context = this.getContextObject(this.currentContext);
    if (context === null) return null;
    return this.users.find((u) => u.name === context.user) ?? null;
  }

  /**
   * The same configuration as a client-node `KubeConfig` (loads `@kubernetes/client-node`; made once). As
   * client-node's own loader, a user's `token-file` is read into its token here.
   */
  toClientNode(): KubeConfig {
    if (this.clientNodeConfig !== undefined) return this.clientNodeConfig;
    const kc = new (clientNode().KubeConfig)();
    kc.loadFromOptions({
      clusters: this.clusters.map((c) => ({ ...c })),
      users: this.users.map((u) => {
        const tokenFile = this.userExtras.get(u.name)?.tokenFile;
        if (u.token !== undefined || tokenFile === undefined) return { ...u };
        return { ...u, token: readFileSync(tokenFile, 'utf8') };
      }),
      contexts: this.contexts.map((c) => ({ ...c })),
      currentContext: this.currentContext,
    });
    rememberExtras(kc, this.userExtras);
    this.clientNodeConfig = kc;
    return kc;
  }
}

/** Extras of client-node `KubeConfig`s (which have no place for them), by config and user name. */
const extrasOf = new WeakMap<KubeConfig, Map<string, KubeconfigUserExtras>>();

/** Records `extras` for the users of `kc` (a user already recorded keeps its first extras, as kubectl's merge). */
export function rememberExtras(kc: KubeConfig, extras: ReadonlyMap<string, KubeconfigUserExtras>): void {
  const map = extrasOf.get(kc) ?? new Map<string, KubeconfigUserExtras>();
  extrasOf.set(kc, map);
  for (const [name, value] of extras) if (!map.has(name)) map.set(name, value);
}

/** The extras of `userName` in `kc`, from either kind of configuration; empty when none. */
export function userExtrasOf(
  kc: KubeConfig | LoadedKubeConfig,
  userName: string | undefined,
): KubeconfigUserExtras {
  if (userName === undefined) return {};
  if (kc instanceof LoadedKubeConfig) return kc.userExtras.get(userName) ?? {};
  return extrasOf.get(kc)?.get(userName) ?? {};
}

/** A client-node `KubeConfig` for either kind of configuration. */
export function asClientNode(kc: KubeConfig | LoadedKubeConfig): KubeConfig {
  return kc instanceof LoadedKubeConfig ? kc.toClientNode() : kc;
}
