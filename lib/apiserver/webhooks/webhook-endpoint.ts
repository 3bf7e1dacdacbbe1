/** A webhook's `clientConfig` (url or Service reference, caBundle) turned into something to call. */
import { isJsonObject, type JsonObject } from '../json.js';
import type { WebhookEndpoint } from './webhook-client.js';

/**
 * Resolves a webhook's Service reference to a URL, as kube-apiserver routes to the Service. The embedded
 * server runs no Pods, so whoever serves the webhook on this machine says where it listens. Undefined:
 * the Service is not known here.
 */
export type WebhookServiceResolver = (service: {
  namespace: string;
  name: string;
  port: number;
  path: string;
}) => string | undefined;

/** The endpoint of a clientConfig, or the Go error text kube-apiserver gives when it has none. */
export function endpointOf(
  clientConfig: JsonObject,
  timeoutMs: number,
  resolve: WebhookServiceResolver | undefined,
): WebhookEndpoint | { error: string } {
  const ca = typeof clientConfig.caBundle === 'string' ? clientConfig.caBundle : '';
  const caPem = ca === '' ? undefined : Buffer.from(ca, 'base64').toString('utf8');
  let url: string | undefined;
  if (typeof clientConfig.url === 'string') url = clientConfig.url;
  else if (isJsonObject(clientConfig.service)) {
    const s = clientConfig.service;
    const service = {
      namespace: typeof s.namespace === 'string' ? s.namespace : '',
      name: typeof s.name === 'string' ? s.name : '',
      port: typeof s.port === 'number' ? s.port : 443,
      path: typeof s.path === 'string' ? s.path : '',
    };
    url = resolve?.(service);
    if (url === undefined) {
      const shown = `https://${service.name}.${service.namespace}.svc:${service.port}${service.path}`;
      return {
        error: `Post "${shown}?timeout=${Math.round(timeoutMs / 1000)}s": service "${service.name}" not found`,
      };
    }
  }
  if (url === undefined) return { error: 'webhook has no url or service' };
  return caPem === undefined ? { url, timeoutMs } : { url, caPem, timeoutMs };
}
