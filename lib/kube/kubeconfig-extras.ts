import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { clientNode } from './client-node.js';
import { parseKubeconfig } from './kube-config-file.js';
import { LoadedKubeConfig, rememberExtras, userExtrasOf } from './loaded-kube-config.js';

/**
 * The kubeconfig user fields client-node 1.x reads once or not at all: `token-file` (client-node reads it
 * at load and never again), `as-groups`, `as-uid` and `as-user-extra` (dropped).
 */
export interface KubeconfigUserExtras {
  tokenFile?: string;
  asGroups?: string[];
  asUid?: string;
  asUserExtra?: Record<string, string[]>;
}

/** The extras of `userName` in `kc` (recorded by the loaders here); empty when none. */
export function kubeconfigUserExtras(
  kc: KubeConfig | LoadedKubeConfig,
  userName: string | undefined,
): KubeconfigUserExtras {
  return userExtrasOf(kc, userName);
}

/**
 * Reads the extras of every user in a kubeconfig YAML and records them for `kc` (the first file to name a
 * user wins, as in kubectl's merge). `baseDir` resolves a relative `token-file`.
 */
export function recordKubeconfigExtras(kc: KubeConfig, yaml: string, baseDir?: string): void {
  try {
    rememberExtras(kc, parseKubeconfig(yaml, '<string>', 'string', baseDir ?? process.cwd()).extras);
  } catch {
    // client-node reports the YAML error itself
  }
}

/** Loads a kubeconfig from YAML, keeping the fields client-node drops (see {@link KubeconfigUserExtras}). */
export function kubeConfigFromYaml(yaml: string): KubeConfig {
  const kc = new (clientNode().KubeConfig)();
  kc.loadFromString(yaml);
  recordKubeconfigExtras(kc, yaml);
  return kc;
}

/** Loads a kubeconfig file, keeping the fields client-node drops (see {@link KubeconfigUserExtras}). */
export function kubeConfigFromFile(path: string): KubeConfig {
  const kc = new (clientNode().KubeConfig)();
  kc.loadFromFile(path);
  recordKubeconfigExtras(kc, readFileSync(path, 'utf8'), dirname(path));
  return kc;
}

/** Reads kubeconfig YAML with reconcilekit's own loader (no client-node); relative paths against `baseDir`. */
export function loadedKubeConfigFromYaml(yaml: string, baseDir = process.cwd()): LoadedKubeConfig {
  const parts = parseKubeconfig(yaml, '<string>', 'string', baseDir);
  return new LoadedKubeConfig(
    parts.clusters,
    parts.users,
    parts.contexts,
    parts.currentContext,
    parts.extras,
  );
}
