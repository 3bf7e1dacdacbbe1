/**
 * What every webhook handler shares: the registration an API server needs to call it (its entry in a
 * Validating/MutatingWebhookConfiguration or a CRD's conversion), and the one method the server calls.
 */
import type { AdmissionOperation, AdmissionRequest } from './admission-review.js';

/** Which API server hook a handler answers. */
export type WebhookKind = 'mutating' | 'validating' | 'conversion';

/** One `rules[]` entry of a webhook configuration. */
export interface WebhookRule {
  operations: (AdmissionOperation | '*')[];
  apiGroups: string[];
  apiVersions: string[];
  /** Plural resources, `widgets` or `widgets/status`. */
  resources: string[];
  /** `Namespaced`, `Cluster` or `*` (the default). */
  scope?: 'Namespaced' | 'Cluster' | '*';
}

/** A label selector (`matchLabels` / `matchExpressions`), as in the webhook configuration. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: {
    key: string;
    operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
    values?: string[];
  }[];
}

/** The fields of an admission webhook's configuration entry that the handler decides (not `clientConfig`). */
export interface AdmissionRegistration {
  /** Webhook name, fully qualified (at least three dot-separated segments), e.g. `widgets.example.com`. */
  name: string;
  rules: WebhookRule[];
  /** `Fail` (default: an unreachable webhook blocks the write) or `Ignore`. */
  failurePolicy: 'Fail' | 'Ignore';
  /** `None` (default) or `NoneOnDryRun`. */
  sideEffects: 'None' | 'NoneOnDryRun';
  /** 1–30 s; default 10 as kube-apiserver's. */
  timeoutSeconds: number;
  /** `Equivalent` (default) or `Exact`. */
  matchPolicy: 'Exact' | 'Equivalent';
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  /** CEL match conditions (`name`, `expression`). */
  matchConditions?: { name: string; expression: string }[];
  /** Mutating only: `Never` (default) or `IfNeeded`. */
  reinvocationPolicy?: 'Never' | 'IfNeeded';
}

/** What a conversion handler converts: one CRD's versions. */
export interface ConversionRegistration {
  /** The CRD, `<plural>.<group>`. */
  crdName: string;
  group: string;
  kind: string;
  /** Every version the handler converts between. */
  versions: string[];
}

/** The context a user's admission function runs with. */
export interface AdmissionContext {
  /** The whole request: operation, user, namespace, name, options, both objects. */
  readonly request: AdmissionRequest;
  readonly operation: AdmissionOperation;
  /** Nothing will be persisted (`dryRun=All`): handlers declared side-effect free must not act. */
  readonly dryRun: boolean;
  /** Aborted when the API server's deadline (timeoutSeconds) passes or the server stops. */
  readonly signal: AbortSignal;
  /** Adds a warning the client sees (kubectl prints it on stderr). */
  warn(text: string): void;
}

/** A handler the webhook server serves at `path`. */
export interface WebhookHandler {
  readonly kind: WebhookKind;
  /** URL path, starting with `/`, unique per server. */
  readonly path: string;
  /** Set for mutating and validating handlers. */
  readonly admission?: AdmissionRegistration;
  /** Set for conversion handlers. */
  readonly conversion?: ConversionRegistration;
  /**
   * Answers one decoded review body with the review to send back. Never throws for bad input or a
   * failing user function: those become a denied response (admission) or a `Failure` result (conversion).
   */
  review(body: unknown, signal: AbortSignal): Promise<unknown>;
}

/** Default webhook timeout, as kube-apiserver's default `timeoutSeconds`. */
export const DEFAULT_WEBHOOK_TIMEOUT_SECONDS = 10;

/** What the admission handler factories share in their options. */
export interface AdmissionHandlerOptions {
  /** API group of the resource (`''` for the core group). */
  group: string;
  /** The versions the handler sees objects in; the API server converts others (matchPolicy Equivalent). */
  versions: string[];
  /** Plural resource, e.g. `widgets`. */
  resource: string;
  /** Webhook name; default `<resource>-<what>.<group>` (`.reconcilekit.io` for the core group). */
  name?: string;
  /** URL path; default `/<what>/<group or core>/<resource>`. */
  path?: string;
  /** Default `Fail`. */
  failurePolicy?: 'Fail' | 'Ignore';
  /** Default `None`. */
  sideEffects?: 'None' | 'NoneOnDryRun';
  /** Default {@link DEFAULT_WEBHOOK_TIMEOUT_SECONDS}. */
  timeoutSeconds?: number;
  /** Default `Equivalent`. */
  matchPolicy?: 'Exact' | 'Equivalent';
  /** `Namespaced`, `Cluster` or `*` (default). */
  scope?: 'Namespaced' | 'Cluster' | '*';
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  matchConditions?: { name: string; expression: string }[];
}

/** Builds the registration and path from the shared options. */
export function admissionRegistrationOf(
  what: 'default' | 'validate' | 'admit',
  options: AdmissionHandlerOptions,
  operations: AdmissionOperation[],
  extra: Partial<AdmissionRegistration> = {},
): { path: string; registration: AdmissionRegistration } {
  const group = options.group === '' ? 'reconcilekit.io' : options.group;
  const path =
    options.path ?? `/${what}/${options.group === '' ? 'core' : options.group}/${options.resource}`;
  if (!path.startsWith('/'))
    throw new TypeError(`webhook path must start with "/", got ${JSON.stringify(path)}`);
  if (options.versions.length === 0) throw new TypeError('webhook versions must not be empty');
  const registration: AdmissionRegistration = {
    name: options.name ?? `${options.resource}-${what}.${group}`,
    rules: [
      {
        operations,
        apiGroups: [options.group],
        apiVersions: [...options.versions],
        resources: [options.resource],
        scope: options.scope ?? '*',
      },
    ],
    failurePolicy: options.failurePolicy ?? 'Fail',
    sideEffects: options.sideEffects ?? 'None',
    timeoutSeconds: options.timeoutSeconds ?? DEFAULT_WEBHOOK_TIMEOUT_SECONDS,
    matchPolicy: options.matchPolicy ?? 'Equivalent',
    ...extra,
  };
  if (options.namespaceSelector !== undefined) registration.namespaceSelector = options.namespaceSelector;
  if (options.objectSelector !== undefined) registration.objectSelector = options.objectSelector;
  if (options.matchConditions !== undefined) registration.matchConditions = options.matchConditions;
  const t = registration.timeoutSeconds;
  if (!Number.isInteger(t) || t < 1 || t > 30) {
    throw new TypeError(`timeoutSeconds must be an integer from 1 to 30, got ${String(t)}`);
  }
  return { path, registration };
}
