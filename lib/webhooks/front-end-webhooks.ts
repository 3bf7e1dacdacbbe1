/**
 * The `webhooks` option of a `Framework` or `Controller` started alone: the same webhook server, certificates
 * and registration as an `Operator`'s (`WebhookHost`), run by the front end's implicit host.
 */
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import type { HostedService } from '../host/front-end.js';
import type { ObjectClient } from '../kube/object-client.js';
import type { Logger } from '../observability/logger.js';
import type { WebhookHost, WebhookHostOptions } from './webhook-host.js';

/** The webhook server of a front end started alone, as a {@link HostedService} (`/readyz` check `webhooks`). */
export class FrontEndWebhooks implements HostedService {
  readonly name = 'webhooks';
  private current: WebhookHost | undefined;
  private stopped = false;

  constructor(private readonly options: WebhookHostOptions) {}

  /**
   * The `webhooks` option checked when the front end is built (a mistake should not wait for start), or
   * undefined when it is not given.
   */
  static fromOption(option: WebhookHostOptions | undefined, owner: string): FrontEndWebhooks | undefined {
    if (option === undefined) return undefined;
    const value: unknown = option; // from JavaScript, anything
    const handlers =
      typeof value === 'object' && value !== null
        ? (value as Record<string, unknown>)['handlers']
        : undefined;
    if (!Array.isArray(handlers) || handlers.length === 0) {
      throw new InvalidConfigError(
        `${owner}: webhooks must be { handlers: [defaulter(...), validator(...), ...], service?, certificates?, ... } with at least one handler`,
      );
    }
    return new FrontEndWebhooks(option);
  }

  /** The running webhook host among a front end's hosted services (undefined when none runs). */
  static of(services: readonly HostedService[]): WebhookHost | undefined {
    for (const s of services) if (s instanceof FrontEndWebhooks) return s.host;
    return undefined;
  }

  /** The running server with its certificates (undefined before start). */
  get host(): WebhookHost | undefined {
    return this.current;
  }

  get notReadyReason(): string | undefined {
    if (this.current === undefined)
      return this.stopped ? 'webhook server stopping' : 'webhook server not started';
    return this.current.notReadyReason;
  }

  async start(context: {
    client: ObjectClient | undefined;
    logger: Logger;
    signal: AbortSignal;
  }): Promise<void> {
    // Loaded at start: a front end without webhooks, or one not started yet, never loads the server.
    const { WebhookHost } = await import('./webhook-host.js');
    const host = await WebhookHost.create({ logger: context.logger, ...this.options });
    this.current = host;
    const url = await host.start(context.client, context.signal);
    context.logger.info('webhook server listening', { url });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.current?.stop();
  }
}
