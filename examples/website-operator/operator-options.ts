import { parseArgs } from 'node:util';
import { InvalidConfigError } from 'reconcilekit';

/** Health/metrics address when none is given: loopback, so nothing is exposed unless asked. */
export const DEFAULT_HEALTH_ADDRESS = '127.0.0.1:8080';
/** Page output directory when none is given (relative to the working directory). */
export const DEFAULT_OUTPUT_DIR = 'website-pages';
/** Name of the framework, its finalizer suffix and its Lease. */
export const OPERATOR_NAME = 'website-operator';

/** Everything the Website operator can be told at start-up. */
export interface WebsiteOperatorOptions {
  /** Where pages are published. Flag `--output-dir`, env `WEBSITE_OUTPUT_DIR`; default {@link DEFAULT_OUTPUT_DIR}. */
  outputDir: string;
  /** Only watch this namespace. Flag `--namespace`, env `WATCH_NAMESPACE`; default all namespaces. */
  namespace?: string;
  /** Let version 2 update Deployments. Flag `--allow-deployment-updates`, env `WEBSITE_ALLOW_DEPLOYMENT_UPDATES=true`; default false. */
  allowDeploymentUpdates: boolean;
  /** Namespace of the leader-election Lease; absent disables election. Flag `--leader-election-namespace`, env `POD_NAMESPACE`. */
  leaderElectionNamespace?: string;
  /** This replica's identity in the Lease. Env `POD_NAME`; default host name and pid (the framework's default). */
  identity?: string;
  /** `host:port` of /healthz, /readyz and /metrics, or undefined for none. Flag `--health-address` (`off` disables), env `HEALTH_ADDRESS`. */
  health?: { host: string; port: number };
  /** Create the CRD from crd.yaml when missing (needs CRD permissions). Flag `--install-crd`; default false. */
  installCrd: boolean;
  /** Concurrent reconciles. Flag `--workers`; default 2 (the work is I/O-bound). */
  workers: number;
}

function parseAddress(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  const port = Number(address.slice(at + 1));
  if (at <= 0 || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new InvalidConfigError(
      `--health-address must be host:port (e.g. 0.0.0.0:8080) or "off"; got "${address}"`,
    );
  }
  return { host: address.slice(0, at), port };
}

/** Reads the operator's options from command-line flags, then environment variables, then defaults. */
export function parseOperatorOptions(
  argv: readonly string[],
  env: Record<string, string | undefined> = process.env,
): WebsiteOperatorOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      'output-dir': { type: 'string' },
      namespace: { type: 'string' },
      'allow-deployment-updates': { type: 'boolean', default: false },
      'leader-election-namespace': { type: 'string' },
      'health-address': { type: 'string' },
      'install-crd': { type: 'boolean', default: false },
      workers: { type: 'string' },
    },
    strict: true,
  });
  const workers = Number(values.workers ?? '2');
  if (!Number.isInteger(workers) || workers < 1) {
    throw new InvalidConfigError(`--workers must be a positive integer; got "${values.workers ?? ''}"`);
  }
  const healthAddress = values['health-address'] ?? env.HEALTH_ADDRESS ?? DEFAULT_HEALTH_ADDRESS;
  const options: WebsiteOperatorOptions = {
    outputDir: values['output-dir'] ?? env.WEBSITE_OUTPUT_DIR ?? DEFAULT_OUTPUT_DIR,
    allowDeploymentUpdates:
      values['allow-deployment-updates'] || env.WEBSITE_ALLOW_DEPLOYMENT_UPDATES === 'true',
    installCrd: values['install-crd'],
    workers,
  };
  const namespace = values.namespace ?? env.WATCH_NAMESPACE;
  if (namespace !== undefined && namespace !== '') options.namespace = namespace;
  const leaseNamespace = values['leader-election-namespace'] ?? env.POD_NAMESPACE;
  if (leaseNamespace !== undefined && leaseNamespace !== '') options.leaderElectionNamespace = leaseNamespace;
  if (env.POD_NAME !== undefined && env.POD_NAME !== '') options.identity = env.POD_NAME;
  if (healthAddress !== 'off') options.health = parseAddress(healthAddress);
  return options;
}
