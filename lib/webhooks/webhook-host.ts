/**
 * The webhook server as an operator runs it: the server, its certificates (renewed without dropping a
 * request) and, at start, its webhook configurations and CRD conversions written with the CA to trust.
 * `Operator` (option `webhooks`) starts it before its controllers and reports it in `/readyz`.
 */
import type { Logger } from '../observability/logger.js';
import { silentLogger } from '../observability/logger-silent.js';
import type { ObjectClient } from '../kube/object-client.js';
import { SelfSignedCertificates, serviceDnsNames, type CertificateSource } from './serving-certificates.js';
import { registerWebhooks, webhookManifests, type WebhookEndpointTarget } from './webhook-manifests.js';
import { WebhookServer, DEFAULT_WEBHOOK_PORT } from './webhook-server.js';
import type { WebhookHandler } from './webhook-handler.js';

/**
 * Set to `1` by `reconcilekit dev` for an operator it runs against its embedded API server: the webhook
 * server then listens on 127.0.0.1 (a free port) with a CA of its own for that address, and registers
 * its configurations with that URL — whatever `service`, `certificates`, `host`, `port` and `register`
 * say, which are for the cluster.
 */
export const DEV_WEBHOOKS_ENV = 'RECONCILEKIT_DEV_WEBHOOKS';

/** Options of {@link WebhookHost} (and `OperatorOptions.webhooks`). */
export interface WebhookHostOptions {
  handlers: readonly WebhookHandler[];
  /** Default {@link DEFAULT_WEBHOOK_PORT}; 0 picks a free port. */
  port?: number;
  /** Default all interfaces (`0.0.0.0`). */
  host?: string;
  /**
   * The operator's Service: the names of the self-signed certificate and the target of the registered
   * configurations. Required unless both `certificates` and `register` say otherwise.
   */
  service?: { name: string; namespace: string; port?: number };
  /**
   * Where the certificate comes from. Default: self-signed — a CA made at start and a serving certificate
   * for the Service's DNS names, renewed before expiry ({@link SelfSignedCertificates}). For cert-manager,
   * pass `new MountedCertificates({ certFile, keyFile })`.
   */
  certificates?: CertificateSource;
  /**
   * Write the webhook configurations and CRD conversions at start, pointing at `service` (or this
   * target; without either, at this server's own URL) with the certificates' CA: default true when the certificates have a CA bundle (self-signed),
   * false otherwise (cert-manager's CA injector fills the caBundle of deployed manifests).
   */
  register?: boolean | WebhookEndpointTarget;
  /** Name of the webhook configurations; default `<service name>-webhooks`. */
  configurationName?: string;
  logger?: Logger;
}

/** A running webhook server with its certificates and registration. */
export class WebhookHost {
  readonly server: WebhookServer;
  private readonly certificates: CertificateSource;
  private stopWatching: (() => void) | undefined;

  private constructor(
    private readonly options: WebhookHostOptions,
    certificates: CertificateSource,
  ) {
    this.certificates = certificates;
    const logger = options.logger ?? silentLogger();
    this.server = new WebhookServer({
      handlers: options.handlers,
      certificate: certificates.current(),
      port: options.port ?? DEFAULT_WEBHOOK_PORT,
      ...(options.host === undefined ? {} : { host: options.host }),
      logger,
    });
  }

  /** Builds the host, making the self-signed CA when no certificate source is given. */
  static async create(options: WebhookHostOptions): Promise<WebhookHost> {
    if (process.env[DEV_WEBHOOKS_ENV] === '1') return WebhookHost.forDev(options);
    let certificates = options.certificates;
    if (certificates === undefined) {
      if (options.service === undefined) {
        throw new TypeError(
          'webhooks: give `service` (the names of a self-signed certificate) or `certificates`',
        );
      }
      // Loaded only here: an operator with mounted certificates never loads the certificate writer.
      const { WebhookCertificateIssuer } = await import('./certificate-issuer.js');
      certificates = new SelfSignedCertificates({
        issuer: new WebhookCertificateIssuer(`${options.service.name}-webhook-ca`),
        hosts: serviceDnsNames(options.service.name, options.service.namespace),
      });
    }
    return new WebhookHost(options, certificates);
  }

  /** The host of {@link DEV_WEBHOOKS_ENV}: loopback, its own CA, registered by URL. */
  private static async forDev(options: WebhookHostOptions): Promise<WebhookHost> {
    const { WebhookCertificateIssuer } = await import('./certificate-issuer.js');
    const name = options.service?.name ?? 'reconcilekit';
    const { service: _service, ...rest } = options;
    return new WebhookHost(
      {
        ...rest,
        host: '127.0.0.1',
        port: 0,
        register: true,
        configurationName: options.configurationName ?? `${name}-webhooks`,
      },
      new SelfSignedCertificates({
        issuer: new WebhookCertificateIssuer(`${name}-dev-webhook-ca`),
        hosts: ['127.0.0.1'],
      }),
    );
  }

  /** The CA bundle API servers must trust (undefined with mounted certificates). */
  get caBundle(): string | undefined {
    return this.certificates.caBundle();
  }

  get notReadyReason(): string | undefined {
    return this.server.notReadyReason;
  }

  /** Starts serving, follows certificate renewals, and registers the webhooks when configured to. */
  async start(client?: ObjectClient, signal?: AbortSignal): Promise<string> {
    const url = await this.server.start(signal);
    this.stopWatching = this.certificates.watch((certificate) => {
      this.server.setCertificate(certificate);
      this.options.logger?.info('webhook serving certificate renewed');
    });
    const register = this.options.register ?? this.caBundle !== undefined;
    if (register !== false && client !== undefined) {
      // Without a Service the API server calls this process's own URL (dev, tests, one machine).
      const target: WebhookEndpointTarget =
        typeof register === 'object'
          ? register
          : this.options.service === undefined
            ? { url }
            : { service: { ...this.options.service, port: this.options.service.port ?? 443 } };
      const caBundle = this.caBundle;
      const name =
        this.options.configurationName ?? `${this.options.service?.name ?? 'reconcilekit'}-webhooks`;
      await registerWebhooks(
        client,
        webhookManifests(this.options.handlers, {
          name,
          target,
          ...(caBundle === undefined ? {} : { caBundle }),
        }),
      );
    }
    return url;
  }

  async stop(): Promise<void> {
    this.stopWatching?.();
    await this.server.stop();
  }
}
