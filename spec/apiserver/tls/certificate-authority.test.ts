import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { CertificateAuthority } from '../../../lib/apiserver/tls/certificate-authority.js';

describe('CertificateAuthority', () => {
  const ca = new CertificateAuthority();

  it('makes a CA certificate that X509Certificate parses as a CA', () => {
    const x = new X509Certificate(ca.cert);
    expect(x.ca).toBe(true);
    expect(x.subject).toBe('CN=reconcilekit-ca');
    expect(x.verify(x.publicKey)).toBe(true);
    expect(new Date(x.validFrom).getTime()).toBeLessThan(Date.now());
  });

  it('issues server certificates for DNS names, IPv4 and IPv6 addresses', () => {
    const leaf = ca.issue({
      commonName: 'apiserver',
      hosts: ['localhost', '127.0.0.1', '::1'],
      usages: ['server'],
    });
    const x = new X509Certificate(leaf.cert);
    const caX = new X509Certificate(ca.cert);
    expect(x.ca).toBe(false);
    expect(x.checkIssued(caX)).toBe(true);
    expect(x.verify(caX.publicKey)).toBe(true);
    expect(x.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(x.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x.checkHost('localhost')).toBe('localhost');
    expect(x.checkHost('example.com')).toBeUndefined();
    expect(x.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
  });

  it('serves TLS that node verifies, and authenticates a client certificate with user and groups', async () => {
    const serving = ca.issue({ commonName: 'apiserver', hosts: ['127.0.0.1'], usages: ['server'] });
    const client = ca.issue({
      commonName: 'alice',
      organizations: ['devs', 'system:masters'],
      usages: ['client'],
    });
    const server = https.createServer(
      { ...serving, ca: ca.cert, requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        res.end(JSON.stringify({ cn: peer.subject.CN, o: peer.subject.O }));
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const body = await new Promise<string>((resolve, reject) => {
        https
          .get({ host: '127.0.0.1', port, ca: ca.cert, cert: client.cert, key: client.key }, (res) => {
            let text = '';
            res.on('data', (d: Buffer) => (text += d.toString()));
            res.on('end', () => {
              resolve(text);
            });
          })
          .on('error', reject);
      });
      expect(JSON.parse(body)).toEqual({ cn: 'alice', o: ['devs', 'system:masters'] });
      // An unknown CA is refused.
      const other = new CertificateAuthority('other');
      await expect(
        new Promise((resolve, reject) => {
          https.get({ host: '127.0.0.1', port, ca: other.cert }, resolve).on('error', reject);
        }),
      ).rejects.toThrow(/self-signed|unable to verify|certificate/);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
