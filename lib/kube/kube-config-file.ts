import { readFileSync } from 'node:fs';
import type { KubeConfig } from '@kubernetes/client-node';
import { clientNode } from './client-node.js';
import { KubeConfigLoadError } from './kube-config-load-error.js';

/**
 * Reads one kubeconfig file into a `KubeConfig`, turning client-node's raw errors (ENOENT, a YAML
 * exception, a TypeError on a missing field) into a {@link KubeConfigLoadError} naming the file and the
 * problem.
 */
export function readKubeConfigFile(file: string, source: string): KubeConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const problem =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES'
          ? 'is not readable (permission denied)'
          : (e as Error).message;
    throw new KubeConfigLoadError(file, problem, source, { cause: e });
  }
  if (text.trim() === '') throw new KubeConfigLoadError(file, 'is empty', source);
  const kc = new (clientNode().KubeConfig)();
  try {
    kc.loadFromFile(file); // as client-node: relative certificate paths resolve against the file's directory
  } catch (e) {
    const first = (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '';
    const yaml = e instanceof Error && e.name === 'YAMLException';
    throw new KubeConfigLoadError(
      file,
      `${yaml ? 'is not valid YAML' : 'is not a valid kubeconfig'}: ${first}`,
      source,
      {
        cause: e,
      },
    );
  }
  return kc;
}
