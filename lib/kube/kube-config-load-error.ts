/**
 * A kubeconfig file named by `KUBECONFIG` (or `~/.kube/config`) cannot be used: missing, empty, not YAML,
 * or without a current context. The message names the file and what is wrong with it.
 * @category Kubernetes client
 */
export class KubeConfigLoadError extends Error {
  override readonly name = 'KubeConfigLoadError';
  constructor(
    /** The file (or `:`-separated list) that was read. */
    readonly file: string,
    /** What is wrong, e.g. `is empty`. */
    readonly problem: string,
    /** Where the path came from: `KUBECONFIG` or `~/.kube/config`. */
    readonly source: string,
    options?: ErrorOptions,
  ) {
    super(`kubeconfig ${file} (from ${source}) ${problem}`, options);
  }
}

/**
 * True for a {@link KubeConfigLoadError}.
 * @category Kubernetes client
 */
export function isKubeConfigLoadError(e: unknown): e is KubeConfigLoadError {
  return e instanceof KubeConfigLoadError;
}
