import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_HEALTH_HOST } from './defaults.js';

/**
 * Where Kubernetes mounts a pod's service-account token.
 * @category Engine: Framework and ControllerCore
 */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The health server's bind host inside a pod: every interface, or the kubelet's probes cannot reach it.
 * @category Engine: Framework and ControllerCore
 */
export const IN_POD_HEALTH_HOST = '0.0.0.0';

/**
 * The health/metrics bind host when the config names none: `0.0.0.0` inside a pod (detected by the
 * mounted service-account token — the kubelet probes the pod IP and Prometheus scrapes it, so loopback
 * would fail every probe), {@link DEFAULT_HEALTH_HOST} (`127.0.0.1`) anywhere else, so a laptop or CI
 * run exposes nothing. A pod is already isolated by its network namespace and NetworkPolicies.
 * @category Engine: Framework and ControllerCore
 */
export function defaultHealthHost(serviceAccountDir = SERVICE_ACCOUNT_DIR): string {
  return existsSync(join(serviceAccountDir, 'token')) ? IN_POD_HEALTH_HOST : DEFAULT_HEALTH_HOST;
}
