/**
 * The API objects that make an API server call the handlers: one MutatingWebhookConfiguration and one
 * ValidatingWebhookConfiguration holding every admission handler, and each converter's CRD
 * `spec.conversion` — with the handlers' paths on a URL or a Service, and the caBundle to trust.
 * `registerWebhooks` writes them (server-side apply of the configurations, a merge patch of each CRD's
 * conversion), as the operator does at start and `startTestEnvironment` does for tests.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ObjectClient } from '../kube/object-client.js';
import type { WebhookHandler } from './webhook-handler.js';

/** Where the API server reaches the webhook server. */
export type WebhookEndpointTarget =
  /** A base URL, e.g. `https://127.0.0.1:9443` (tests, dev, a webhook outside the cluster). */
  | { url: string }
  /** The operator's Service (in a cluster). `port` default 443. */
  | { service: { namespace: string; name: string; port?: number } };

/** Options of {@link webhookManifests}. */
export interface WebhookManifestOptions {
  /** Name of both webhook configurations. */
  name: string;
  target: WebhookEndpointTarget;
  /** PEM CA bundle the API server trusts the webhook server with; omit when cert-manager injects it. */
  caBundle?: string;
}

/** What {@link webhookManifests} builds. */
export interface WebhookManifests {
  mutating?: KubernetesObject & { webhooks: unknown[] };
  validating?: KubernetesObject & { webhooks: unknown[] };
  /** Per converter: the CRD name and the `spec.conversion` to set on it. */
  conversions: { crdName: string; conversion: Record<string, unknown> }[];
}

function clientConfig(options: WebhookManifestOptions, path: string): Record<string, unknown> {
  const config: Record<string, unknown> =
    'url' in options.target
      ? { url: `${options.target.url.replace(/\/$/, '')}${path}` }
      : { service: { ...options.target.service, port: options.target.service.port ?? 443, path } };
  if (options.caBundle !== undefined) config.caBundle = Buffer.from(options.caBundle).toString('base64');
  return config;
}

/** Builds the webhook configurations and CRD conversions for `handlers`. */
export function webhookManifests(
  handlers: readonly WebhookHandler[],
  options: WebhookManifestOptions,
): WebhookManifests {
  const entry = (h: WebhookHandler): Record<string, unknown> => {
    const { name, ...rest } = h.admission ?? { name: h.path };
    return { name, clientConfig: clientConfig(options, h.path), admissionReviewVersions: ['v1'], ...rest };
  };
  const mutating = handlers.filter((h) => h.kind === 'mutating' && h.admission !== undefined).map(entry);
  const validating = handlers.filter((h) => h.kind === 'validating' && h.admission !== undefined).map(entry);
  const out: WebhookManifests = { conversions: [] };
  const config = (kind: string, webhooks: unknown[]) => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind,
    metadata: { name: options.name },
    webhooks,
  });
  if (mutating.length > 0) out.mutating = config('MutatingWebhookConfiguration', mutating);
  if (validating.length > 0) out.validating = config('ValidatingWebhookConfiguration', validating);
  for (const h of handlers) {
    if (h.conversion === undefined) continue;
    out.conversions.push({
      crdName: h.conversion.crdName,
      conversion: {
        strategy: 'Webhook',
        webhook: { conversionReviewVersions: ['v1'], clientConfig: clientConfig(options, h.path) },
      },
    });
  }
  return out;
}

/** Field manager of the operator's writes of its webhook configurations. */
export const WEBHOOK_FIELD_MANAGER = 'reconcilekit-webhooks';

/**
 * Creates or updates the webhook configurations (server-side apply, forced: the operator owns them)
 * and sets each converter's CRD conversion (merge patch; the CRD must exist). RBAC: `create`, `patch`
 * on mutatingwebhookconfigurations and validatingwebhookconfigurations, `patch` on
 * customresourcedefinitions (docs/webhooks.md).
 */
export async function registerWebhooks(client: ObjectClient, manifests: WebhookManifests): Promise<void> {
  for (const config of [manifests.mutating, manifests.validating]) {
    if (config === undefined) continue;
    await client.apply(config, { fieldManager: WEBHOOK_FIELD_MANAGER, force: true });
  }
  for (const { crdName, conversion } of manifests.conversions) {
    await client.patch(
      { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: crdName },
      { spec: { conversion } },
      'merge',
    );
  }
}
