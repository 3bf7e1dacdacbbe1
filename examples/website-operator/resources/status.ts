import { Patch, type CRUDResourceOps, type MaybePatch, type ReconcileContext } from 'reconcilekit';
import { clientFor, type WebsiteClient } from '../kube-client.js';
import { pendingChanges } from '../pending-changes.js';
import {
  serviceUrl,
  WEBSITE_API_VERSION,
  WEBSITE_KIND,
  WEBSITE_PLURAL,
  websiteKey,
  type Website,
  type WebsiteCondition,
  type WebsiteStatus,
} from '../website.js';

/** Type of the condition this resource writes. */
export const READY_CONDITION = 'Ready';

/** Options of {@link StatusOps}. */
export interface StatusOpsOptions {
  /** Client for the Website status subresource. Default: the Framework's client from the context (`clientKey`). */
  client?: WebsiteClient;
  /** Clock for `lastTransitionTime`. Default: `() => new Date()`; tests pass a fixed one. */
  now?: () => Date;
}

/** RFC 3339 at second precision, as Kubernetes writes times. */
function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The condition without its time, for comparison: a rewrite only happens when something else changed. */
function conditionKey(condition: WebsiteCondition | undefined): string {
  if (condition === undefined) return '';
  const { type, status, reason, message, observedGeneration } = condition;
  return JSON.stringify([type, status, reason, message, observedGeneration]);
}

function readyOf(status: WebsiteStatus | undefined): WebsiteCondition | undefined {
  return status?.conditions?.find((c) => c.type === READY_CONDITION);
}

/**
 * Writes the Website's status: `observedGeneration`, the service URL and a `Ready` condition. It runs
 * last in its resource set, after every child was reconciled in this pass (an error earlier stops the
 * pass, so `Ready=True` is only written when everything before it succeeded); changes a resource held
 * back are reported as `Ready=False`. The delete path leaves the status alone: the object is going away.
 */
export class StatusOps implements CRUDResourceOps<Website, WebsiteStatus | undefined, WebsiteStatus> {
  readonly name = 'status';

  constructor(private readonly options: StatusOpsOptions) {}

  getCurrentState(_ctx: ReconcileContext, site: Website): WebsiteStatus | undefined {
    return site.status;
  }

  getDesiredState(ctx: ReconcileContext, site: Website): WebsiteStatus {
    const generation = site.metadata.generation;
    const pending = pendingChanges(ctx);
    const ready: WebsiteCondition =
      pending.length === 0
        ? {
            type: READY_CONDITION,
            status: 'True',
            reason: 'Reconciled',
            message: 'ConfigMap, Deployment, Service and page file match the spec',
            lastTransitionTime: '',
          }
        : {
            type: READY_CONDITION,
            status: 'False',
            reason: 'UpdatesHeldBack',
            message: pending.join('; '),
            lastTransitionTime: '',
          };
    if (generation !== undefined) ready.observedGeneration = generation;
    const previous = readyOf(site.status);
    ready.lastTransitionTime =
      previous !== undefined && previous.status === ready.status && previous.lastTransitionTime !== ''
        ? previous.lastTransitionTime
        : rfc3339((this.options.now ?? (() => new Date()))());
    const status: WebsiteStatus = { url: serviceUrl(site), conditions: [ready] };
    if (generation !== undefined) status.observedGeneration = generation;
    return status;
  }

  newUpdatePatch(
    _ctx: ReconcileContext,
    _site: Website,
    current: WebsiteStatus | undefined,
    desired: WebsiteStatus | undefined,
  ): MaybePatch<WebsiteStatus> {
    if (desired === undefined) return undefined;
    const upToDate =
      current !== undefined &&
      current.observedGeneration === desired.observedGeneration &&
      current.url === desired.url &&
      conditionKey(readyOf(current)) === conditionKey(readyOf(desired));
    return upToDate ? undefined : new Patch<WebsiteStatus>().setUpdateChange(desired);
  }

  newDeletePatch(): MaybePatch<WebsiteStatus> {
    return undefined;
  }

  applyCreateChange(): void {
    // Never produced: the status always exists as a subresource of the Website.
  }

  applyDeleteChange(): void {
    // Never produced: the delete path leaves the status alone.
  }

  async applyUpdateChange(ctx: ReconcileContext, site: Website, change: WebsiteStatus): Promise<void> {
    const { name, namespace } = websiteKey(site);
    const ref = {
      apiVersion: WEBSITE_API_VERSION,
      kind: WEBSITE_KIND,
      plural: WEBSITE_PLURAL,
      namespace,
      name,
    };
    await clientFor(ctx, this.options.client).patch(ref, { status: change }, 'merge', {
      subresource: 'status',
      signal: ctx.signal,
    });
    ctx.logger.info('wrote status', {
      ready: readyOf(change)?.status,
      generation: change.observedGeneration,
    });
  }
}
