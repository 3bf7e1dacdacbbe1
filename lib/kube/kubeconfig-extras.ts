import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { clientNode } from './client-node.js';

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

const extrasOf = new WeakMap<KubeConfig, Map<string, KubeconfigUserExtras>>();

/** The extras recorded for `userName` of `kc` (by {@link recordKubeconfigExtras}); empty when none. */
export function kubeconfigUserExtras(kc: KubeConfig, userName: string | undefined): KubeconfigUserExtras {
  if (userName === undefined) return {};
  return extrasOf.get(kc)?.get(userName) ?? {};
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
}

/**
 * Reads the extras of every user in a kubeconfig YAML and records them for `kc` (the first file to name a
 * user wins, as in kubectl's merge). `baseDir` resolves a relative `token-file`.
 */
export function recordKubeconfigExtras(kc: KubeConfig, yaml: string, baseDir?: string): void {
  let doc: unknown;
  try {
    doc = clientNode().loadYaml(yaml);
  } catch {
    return; // client-node reports the YAML error itself
  }
  const users = (doc as { users?: unknown } | null)?.users;
  if (!Array.isArray(users)) return;
  const map = extrasOf.get(kc) ?? new Map<string, KubeconfigUserExtras>();
  extrasOf.set(kc, map);
  for (const entry of users as { name?: unknown; user?: Record<string, unknown> }[]) {
    if (typeof entry.name !== 'string' || map.has(entry.name) || entry.user === undefined) continue;
    const u = entry.user;
    const extras: KubeconfigUserExtras = {};
    if (typeof u['token-file'] === 'string' && u['token-file'] !== '') {
      const file = u['token-file'];
      extras.tokenFile = baseDir !== undefined && !isAbsolute(file) ? resolve(baseDir, file) : file;
    }
    const groups = strings(u['as-groups']);
    if (groups !== undefined) extras.asGroups = groups;
    if (typeof u['as-uid'] === 'string') extras.asUid = u['as-uid'];
    const extra = u['as-user-extra'];
    if (typeof extra === 'object' && extra !== null) {
      extras.asUserExtra = {};
      for (const [key, values] of Object.entries(extra)) extras.asUserExtra[key] = strings(values) ?? [];
    }
    map.set(entry.name, extras);
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
