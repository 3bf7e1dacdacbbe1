/**
 * A certificate authority for the operator's own webhook certificates: RSA 2048 keys made by node:crypto,
 * X.509 v3 certificates written and signed (SHA-256) by node-forge — the most used X.509 writer on npm,
 * with no dependencies of its own. Go's crypto/x509 (kube-apiserver calling the webhook) and OpenSSL
 * (Node's TLS) accept them; node:crypto's X509Certificate reads them back.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import type forge from 'node-forge';

let forgeModule: typeof forge | undefined;
/**
 * node-forge, loaded on first use (~130 ms): importing reconcilekit or reconcilekit/webhooks does not
 * load it, only making a CA does.
 */
function forgeLib(): typeof forge {
  forgeModule ??= createRequire(import.meta.url)('node-forge') as typeof forge;
  return forgeModule;
}

/** Validity of the CA: 10 years (serving certificates are renewed far more often; the CA rarely). */
export const DEFAULT_CA_VALIDITY_MS = 10 * 365 * 24 * 3600 * 1000;
/** Back-dating of notBefore, so a peer whose clock is a little behind accepts a fresh certificate. */
const BACKDATE_MS = 5 * 60 * 1000;

function keyPair(): {
  publicKey: forge.pki.rsa.PublicKey;
  privateKey: forge.pki.rsa.PrivateKey;
  pem: string;
} {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return {
    publicKey: forgeLib().pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString()),
    privateKey: forgeLib().pki.privateKeyFromPem(
      privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    ),
    pem,
  };
}

function serial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f || 1;
  return bytes.toString('hex');
}

function validity(cert: forge.pki.Certificate, validityMs: number): void {
  const now = Date.now();
  cert.validity.notBefore = new Date(now - BACKDATE_MS);
  cert.validity.notAfter = new Date(now + validityMs);
}

/** A CA made in memory; {@link issue} signs serving certificates with it. */
export class WebhookCertificateIssuer {
  /** The CA certificate, PEM: the caBundle API servers trust. */
  readonly cert: string;
  private readonly caCert: forge.pki.Certificate;
  private readonly caKey: forge.pki.rsa.PrivateKey;

  constructor(commonName = 'reconcilekit-webhook-ca', validityMs = DEFAULT_CA_VALIDITY_MS) {
    const keys = keyPair();
    const cert = forgeLib().pki.createCertificate();
    cert.publicKey = keys.publicKey;
    cert.serialNumber = serial();
    validity(cert, validityMs);
    const subject = [{ name: 'commonName', value: commonName }];
    cert.setSubject(subject);
    cert.setIssuer(subject);
    cert.setExtensions([
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
      { name: 'subjectKeyIdentifier' },
    ]);
    cert.sign(keys.privateKey, forgeLib().md.sha256.create());
    this.caCert = cert;
    this.caKey = keys.privateKey;
    this.cert = forgeLib().pki.certificateToPem(cert);
  }

  /** A serving certificate for `hosts` (DNS names and IPs), with a new key. */
  issue(options: { commonName: string; hosts: readonly string[]; validityMs: number }): {
    cert: string;
    key: string;
  } {
    const keys = keyPair();
    const cert = forgeLib().pki.createCertificate();
    cert.publicKey = keys.publicKey;
    cert.serialNumber = serial();
    validity(cert, options.validityMs);
    cert.setSubject([{ name: 'commonName', value: options.commonName }]);
    cert.setIssuer(this.caCert.subject.attributes);
    cert.setExtensions([
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: options.hosts.map((h) => (isIP(h) === 0 ? { type: 2, value: h } : { type: 7, ip: h })),
      },
      { name: 'subjectKeyIdentifier' },
      {
        name: 'authorityKeyIdentifier',
        keyIdentifier: this.caCert.generateSubjectKeyIdentifier().getBytes(),
      },
    ]);
    cert.sign(this.caKey, forgeLib().md.sha256.create());
    return { cert: forgeLib().pki.certificateToPem(cert), key: keys.pem };
  }
}
