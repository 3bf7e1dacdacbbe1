import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP as netIsIp } from 'node:net';
import {
  bitString,
  boolean,
  explicit,
  octetString,
  oid,
  sequence,
  set,
  time,
  tlv,
  unsignedInteger,
  utf8String,
} from './der.js';

/** How long generated certificates are valid. Default 1 year: a test or dev server never lives that long. */
export const DEFAULT_CERTIFICATE_VALIDITY_MS = 365 * 24 * 3600 * 1000;
/** Back-dating of `notBefore`, so a peer with a slightly slow clock accepts a fresh certificate. */
export const DEFAULT_CERTIFICATE_BACKDATE_MS = 5 * 60 * 1000;

/** A PEM certificate and its PEM (PKCS#8) private key. */
export interface CertificateAndKey {
  /** The certificate, PEM. */
  readonly cert: string;
  /** The private key (ECDSA P-256, PKCS#8), PEM. */
  readonly key: string;
}

/** What {@link CertificateAuthority.issue} puts in a certificate. */
export interface IssueOptions {
  /** Subject common name: the user name when used as a client certificate. */
  commonName: string;
  /** Subject organizations: the groups when used as a client certificate (`system:masters` = admin). */
  organizations?: readonly string[];
  /** DNS names and IP addresses the certificate is valid for (server certificates). Default none. */
  hosts?: readonly string[];
  /** `server`, `client` or both. Default `['server', 'client']`. */
  usages?: readonly ('server' | 'client')[];
  /** Validity from now; default {@link DEFAULT_CERTIFICATE_VALIDITY_MS}. */
  validityMs?: number;
}

const OID = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  ecPublicKey: '1.2.840.10045.2.1',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  subjectKeyId: '2.5.29.14',
  authorityKeyId: '2.5.29.35',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
};

function name(commonName: string, organizations: readonly string[] = []): Buffer {
  const rdn = (type: string, value: string): Buffer => set(sequence(oid(type), utf8String(value)));
  return sequence(...organizations.map((o) => rdn(OID.organization, o)), rdn(OID.commonName, commonName));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [boolean(true)] : []), octetString(value));
}

function subjectAltName(hosts: readonly string[]): Buffer {
  return sequence(
    ...hosts.map((host) => {
      const family = netIsIp(host);
      if (family === 0) return tlv(0x82, Buffer.from(host, 'ascii'));
      return tlv(0x87, family === 4 ? Buffer.from(host.split('.').map(Number)) : ipv6Bytes(host));
    }),
  );
}

function ipv6Bytes(host: string): Buffer {
  const [head = '', tail = ''] = host.split('::');
  const groups = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const h = groups(head);
  const t = host.includes('::') ? groups(tail) : [];
  const all = [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
  const out = Buffer.alloc(16);
  all.forEach((g, i) => out.writeUInt16BE(g, i * 2));
  return out;
}

function keyId(publicKey: KeyObject): Buffer {
  return createHash('sha1')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest();
}

function toPem(label: string, der: Buffer): string {
  const b64 = der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

interface Signer {
  subject: Buffer;
  key: KeyObject;
  keyId: Buffer;
}

function buildCertificate(opts: {
  subject: Buffer;
  publicKey: KeyObject;
  issuer: Signer | undefined; // undefined: self-signed
  privateKey: KeyObject;
  extensions: Buffer[];
  validityMs: number;
}): Buffer {
  const now = Date.now();
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f || 1;
  const algorithm = sequence(oid(OID.ecdsaWithSha256));
  const spki = opts.publicKey.export({ type: 'spki', format: 'der' });
  const ownKeyId = keyId(opts.publicKey);
  const extensions = [...opts.extensions, extension(OID.subjectKeyId, false, octetString(ownKeyId))];
  if (opts.issuer !== undefined) {
    extensions.push(extension(OID.authorityKeyId, false, sequence(tlv(0x80, opts.issuer.keyId))));
  }
  const tbs = sequence(
    explicit(0, unsignedInteger(Buffer.from([2]))),
    unsignedInteger(serial),
    algorithm,
    opts.issuer?.subject ?? opts.subject,
    sequence(time(new Date(now - DEFAULT_CERTIFICATE_BACKDATE_MS)), time(new Date(now + opts.validityMs))),
    opts.subject,
    spki,
    explicit(3, sequence(...extensions)),
  );
  const signature = sign('sha256', tbs, { key: opts.issuer?.key ?? opts.privateKey, dsaEncoding: 'der' });
  return sequence(tbs, algorithm, bitString(signature));
}

function newKeyPair(): { publicKey: KeyObject; privateKey: KeyObject } {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

/**
 * A throw-away certificate authority built on node:crypto alone (ECDSA P-256 keys, a small DER writer for
 * the X.509 v3 structure): the embedded server's serving certificate, client certificates for tests, and
 * the certificates of the real kube-apiserver backend. Nothing is written to disk unless the caller does.
 */
export class CertificateAuthority {
  /** The CA certificate (PEM): the `certificate-authority-data` of kubeconfigs. */
  readonly cert: string;
  /** The CA private key (PEM). */
  readonly key: string;
  private readonly signer: Signer;

  constructor(commonName = 'reconcilekit-ca') {
    const { publicKey, privateKey } = newKeyPair();
    const subject = name(commonName);
    const ownId = keyId(publicKey);
    const der = buildCertificate({
      subject,
      publicKey,
      issuer: undefined,
      privateKey,
      validityMs: DEFAULT_CERTIFICATE_VALIDITY_MS,
      extensions: [
        extension(OID.basicConstraints, true, sequence(boolean(true))),
        // digitalSignature (bit 0) + keyCertSign (bit 5) + cRLSign (bit 6): 1000 0110, 1 unused bit.
        extension(OID.keyUsage, true, bitString(Buffer.from([0x86]), 1)),
      ],
    });
    this.cert = toPem('CERTIFICATE', der);
    this.key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    this.signer = { subject, key: privateKey, keyId: ownId };
  }

  /** Issues a leaf certificate signed by this CA, with a new key. */
  issue(options: IssueOptions): CertificateAndKey {
    const { publicKey, privateKey } = newKeyPair();
    const usages = options.usages ?? ['server', 'client'];
    const extensions = [
      extension(OID.basicConstraints, true, sequence()),
      // digitalSignature only (bit 0): 1000 0000, 7 unused bits.
      extension(OID.keyUsage, true, bitString(Buffer.from([0x80]), 7)),
      extension(
        OID.extKeyUsage,
        false,
        sequence(...usages.map((u) => oid(u === 'server' ? OID.serverAuth : OID.clientAuth))),
      ),
    ];
    if (options.hosts !== undefined && options.hosts.length > 0) {
      extensions.push(extension(OID.subjectAltName, false, subjectAltName(options.hosts)));
    }
    const der = buildCertificate({
      subject: name(options.commonName, options.organizations),
      publicKey,
      issuer: this.signer,
      privateKey,
      validityMs: options.validityMs ?? DEFAULT_CERTIFICATE_VALIDITY_MS,
      extensions,
    });
    return {
      cert: toPem('CERTIFICATE', der),
      key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    };
  }
}
