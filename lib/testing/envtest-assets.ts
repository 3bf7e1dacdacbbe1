import { accessSync, constants, statSync } from 'node:fs';
import { join } from 'node:path';

/** The environment variable that names the directory of `etcd` and `kube-apiserver` (envtest convention). */
export const KUBEBUILDER_ASSETS_ENV = 'KUBEBUILDER_ASSETS';

const HOW_TO_GET =
  'build them with `make envtest-assets` in a reconcilekit checkout (its last line is the directory) or ' +
  'download them with `setup-envtest use -p path`, then set KUBEBUILDER_ASSETS to that directory';

/** Thrown when the envtest binaries cannot be found or run: says what is missing and how to get it. */
export class EnvtestAssetsError extends Error {
  override readonly name = 'EnvtestAssetsError';
}

/** True for an {@link EnvtestAssetsError}. */
export function isEnvtestAssetsError(e: unknown): e is EnvtestAssetsError {
  return e instanceof EnvtestAssetsError;
}

/** Paths of the two binaries the real backend runs. */
export interface EnvtestAssets {
  readonly dir: string;
  readonly etcd: string;
  readonly kubeApiServer: string;
}

/**
 * Finds `etcd` and `kube-apiserver` in `dir` (default: `$KUBEBUILDER_ASSETS`) and checks they are
 * executable files. Throws {@link EnvtestAssetsError} naming what is wrong and how to fix it.
 */
export function resolveEnvtestAssets(dir = process.env[KUBEBUILDER_ASSETS_ENV]): EnvtestAssets {
  if (dir === undefined || dir === '') {
    throw new EnvtestAssetsError(
      `${KUBEBUILDER_ASSETS_ENV} is not set: the kube-apiserver backend needs etcd and kube-apiserver binaries; ${HOW_TO_GET}`,
    );
  }
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    // reported below
  }
  if (!isDir) {
    throw new EnvtestAssetsError(`${KUBEBUILDER_ASSETS_ENV}=${dir} is not a directory; ${HOW_TO_GET}`);
  }
  const paths = { dir, etcd: join(dir, 'etcd'), kubeApiServer: join(dir, 'kube-apiserver') };
  for (const path of [paths.etcd, paths.kubeApiServer]) {
    try {
      accessSync(path, constants.X_OK);
      if (!statSync(path).isFile()) throw new Error('not a file');
    } catch {
      throw new EnvtestAssetsError(
        `${path} is missing or not executable (${KUBEBUILDER_ASSETS_ENV}=${dir} must hold etcd and kube-apiserver); ${HOW_TO_GET}`,
      );
    }
  }
  return paths;
}
