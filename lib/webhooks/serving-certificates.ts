/**
 * Where the webhook server's certificate comes from, and how it is renewed:
 *
 * - {@link SelfSignedCertificates}: the operator makes a CA and a serving certificate for its Service's
 *   DNS names, publishes the CA (the caBundle of its webhook configurations and CRD conversions) and
 *   issues a new serving certificate from the same CA before the current one expires;
 * - {@link MountedCertificates}: a certificate someone else issues (cert-manager into a mounted Secret),
 *   read from files and read again when they change.
 *
 * Either hands each new certificate to the server ({@link WebhookServer.setCertificate}), which serves it
 * to new connections while open ones finish: a rotation drops no request.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { ServingCertificate } from './webhook-server.js';

/** Validity of a self-signed serving certificate: 90 days, as cert-manager's default Certificate. */
export const DEFAULT_SERVING_CERTIFICATE_VALIDITY_MS = 90 * 24 * 3600 * 1000;
/** Renew this long before expiry (a third of the default validity, as cert-manager's renewBefore). */
export const DEFAULT_ROTATE_BEFORE_MS = 30 * 24 * 3600 * 1000;
/** How often mounted files are checked for a change (a Secret volume updates within about a minute). */
export const DEFAULT_CERTIFICATE_POLL_MS = 10_000;

/** A source of serving certificates. */
export interface CertificateSource {
  /** The certificate to serve now. */
  current(): ServingCertificate;
  /** The CA bundle (PEM) API servers must trust; undefined when someone else publishes it (cert-manager). */
  caBundle(): string | undefined;
  /** Starts renewing: `onChange` gets every new certificate. Returns a function that stops it. */
  watch(onChange: (certificate: ServingCertificate) => void): () => void;
}

/** The names a Service is reached by from inside the cluster. */
export function serviceDnsNames(name: string, namespace: string): string[] {
  return [name, `${name}.${namespace}`, `${name}.${namespace}.svc`, `${name}.${namespace}.svc.cluster.local`];
}

/** Expiry of a PEM certificate (ms since the epoch). */
export function certificateExpiry(pem: string): number {
  return Date.parse(new X509Certificate(pem).validTo);
}

/** What a certificate authority must do for {@link SelfSignedCertificates}. */
export interface Issuer {
  /** The CA certificate, PEM. */
  readonly cert: string;
  issue(options: { commonName: string; hosts: readonly string[]; validityMs: number }): {
    cert: string;
    key: string;
  };
}

/** Options of {@link SelfSignedCertificates}. */
export interface SelfSignedCertificatesOptions {
  /** The CA that signs (its certificate is the caBundle). */
  issuer: Issuer;
  /** DNS names and IPs of the serving certificate (e.g. {@link serviceDnsNames}). */
  hosts: readonly string[];
  /** Default {@link DEFAULT_SERVING_CERTIFICATE_VALIDITY_MS}. */
  validityMs?: number;
  /** Default {@link DEFAULT_ROTATE_BEFORE_MS} (capped at half the validity). */
  rotateBeforeMs?: number;
}

/** A CA the operator holds and serving certificates it issues and renews itself. */
export class SelfSignedCertificates implements CertificateSource {
  private certificate: ServingCertificate;
  private listeners = new Set<(c: ServingCertificate) => void>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: SelfSignedCertificatesOptions) {
    this.certificate = this.issue();
  }

  current(): ServingCertificate {
    return this.certificate;
  }

  caBundle(): string {
    return this.options.issuer.cert;
  }

  /** Issues a new serving certificate now and hands it to the watchers. */
  rotate(): ServingCertificate {
    this.certificate = this.issue();
    for (const listener of this.listeners) listener(this.certificate);
    this.schedule();
    return this.certificate;
  }

  watch(onChange: (certificate: ServingCertificate) => void): () => void {
    this.listeners.add(onChange);
    this.schedule();
    return () => {
      this.listeners.delete(onChange);
      if (this.listeners.size === 0 && this.timer !== undefined) clearTimeout(this.timer);
    };
  }

  private issue(): ServingCertificate {
    const validityMs = this.options.validityMs ?? DEFAULT_SERVING_CERTIFICATE_VALIDITY_MS;
    return this.options.issuer.issue({
      commonName: this.options.hosts[0] ?? 'webhook',
      hosts: this.options.hosts,
      validityMs,
    });
  }

  private schedule(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.listeners.size === 0) return;
    const validityMs = this.options.validityMs ?? DEFAULT_SERVING_CERTIFICATE_VALIDITY_MS;
    const before = Math.min(this.options.rotateBeforeMs ?? DEFAULT_ROTATE_BEFORE_MS, validityMs / 2);
    const due = certificateExpiry(this.certificate.cert) - before - Date.now();
    // setTimeout holds at most ~24.8 days: wake up then and look again.
    this.timer = setTimeout(
      () => {
        if (certificateExpiry(this.certificate.cert) - before <= Date.now()) this.rotate();
        else this.schedule();
      },
      Math.max(0, Math.min(due, 2 ** 31 - 1)),
    );
    this.timer.unref();
  }
}

/** Options of {@link MountedCertificates}. */
export interface MountedCertificatesOptions {
  /** PEM certificate file (`tls.crt` of a cert-manager Secret). */
  certFile: string;
  /** PEM key file (`tls.key`). */
  keyFile: string;
  /** Default {@link DEFAULT_CERTIFICATE_POLL_MS}. */
  pollMs?: number;
}

/**
 * A certificate read from files and read again when they change (cert-manager renews the Secret, the
 * kubelet swaps the mounted files). A half-written pair that does not parse is skipped until it does.
 */
export class MountedCertificates implements CertificateSource {
  private certificate: ServingCertificate;
  private stamp: string;

  constructor(private readonly options: MountedCertificatesOptions) {
    this.certificate = this.read();
    this.stamp = this.mtimes();
  }

  current(): ServingCertificate {
    return this.certificate;
  }

  caBundle(): undefined {
    return undefined;
  }

  watch(onChange: (certificate: ServingCertificate) => void): () => void {
    const timer = setInterval(() => {
      const stamp = this.mtimes();
      if (stamp === this.stamp) return;
      try {
        const next = this.read();
        this.stamp = stamp;
        this.certificate = next;
        onChange(next);
      } catch {
        // Files mid-update: try again at the next tick.
      }
    }, this.options.pollMs ?? DEFAULT_CERTIFICATE_POLL_MS);
    timer.unref();
    return () => {
      clearInterval(timer);
    };
  }

  private mtimes(): string {
    try {
      return `${statSync(this.options.certFile).mtimeMs}/${statSync(this.options.keyFile).mtimeMs}`;
    } catch {
      return '';
    }
  }

  private read(): ServingCertificate {
    const cert = readFileSync(this.options.certFile, 'utf8');
    const key = readFileSync(this.options.keyFile, 'utf8');
    const parsed = new X509Certificate(cert);
    if (!parsed.checkPrivateKey(createPrivateKey(key))) {
      throw new Error(`${this.options.keyFile} is not the key of ${this.options.certFile}`);
    }
    return { cert, key };
  }
}
