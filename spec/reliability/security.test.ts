import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { KubeConfig, type CoreV1Event, type V1Secret } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildKubeconfig, DEFAULT_HOST, startApiServer } from '../../lib/apiserver/index.js';
import { isUnauthorized } from '../../lib/kube/api-error.js';
import { ObjectClient } from '../../lib/kube/object-client.js';
import { createLogger } from '../../lib/observability/logger.js';
import { createGadgetOperator, GADGET_OPERATOR_NAME } from './fixtures/gadget-operator.js';
import {
  convergence,
  Driver,
  eventually,
  extDirIn,
  removeDir,
  scratchDir,
  startCluster,
} from './support/cluster.js';
import { gadget } from './support/gadget.js';

/** A Writable that keeps every log line written to it. */
class LogSink extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.text += chunk.toString('utf8');
    done();
  }
}

describe('security: Secret data never appears in logs', () => {
  const secret = `s3cr3t-${randomBytes(12).toString('hex')}`;
  const encoded = Buffer.from(secret).toString('base64');
  const sink = new LogSink();
  let events: CoreV1Event[] = [];
  let problems: string[] = [];

  beforeAll(async () => {
    const dir = scratchDir('secrets');
    const extDir = extDirIn(dir);
    const cluster = await startCluster(dir);
    const framework = createGadgetOperator({
      kubeConfig: cluster.kubeConfig,
      // Debug: the most the framework ever says, errors included.
      logger: createLogger({ level: 'debug', stream: sink }),
      registry: new Registry(),
      extDir,
      manageSecrets: true,
      workers: 2,
    });
    const driver = new Driver(cluster.client);
    try {
      // Error paths log the most: Secret writes fail now and then, one Gadget fails validation for good.
      cluster.server.faults.inject({ resource: 'secrets', status: 500, probability: 0.2 });
      cluster.server.faults.inject({ resource: 'secrets', status: 409, probability: 0.1 });
      await framework.start();
      for (let i = 0; i < 5; i++) {
        await cluster.client.create(gadget(`s-${i}`, `value-${i}`, 'default', { secret }));
        driver.live.set(`s-${i}`, `value-${i}`);
      }
      await cluster.client.create(gadget('s-bad', 'x'.repeat(20_000), 'default', { secret }));
      await eventually(
        async () =>
          (
            await convergence(cluster.client, driver, extDir, `reconcilekit.io/${GADGET_OPERATOR_NAME}`)
          ).problems.filter((p) => !p.startsWith('s-bad:') && !p.includes('orphaned')).length === 0,
        20_000,
        'the Gadgets with Secrets to converge',
        100,
      );
      cluster.server.faults.clear();
      // The Secrets really hold the value: otherwise "not in the logs" would prove nothing.
      const child = await cluster.client.get<V1Secret>({
        apiVersion: 'v1',
        kind: 'Secret',
        plural: 'secrets',
        namespace: 'default',
        name: 's-0-gadget',
      });
      expect(child.data?.token).toBe(encoded);
      for (let i = 0; i < 5; i++) await driver.delete(`s-${i}`);
      await driver.delete('s-bad');
      await eventually(
        async () =>
          (await convergence(cluster.client, driver, extDir, `reconcilekit.io/${GADGET_OPERATOR_NAME}`))
            .problems.length === 0,
        20_000,
        'the Gadgets to be deleted',
        100,
      );
      events = (await cluster.client.list<CoreV1Event>({ apiVersion: 'v1', kind: 'Event', plural: 'events' }))
        .items;
    } catch (err) {
      problems.push(err instanceof Error ? err.message : String(err));
    } finally {
      await framework.stop();
      await cluster.close();
      removeDir(dir);
    }
  }, 60_000);

  it('manages the Secrets through injected errors (the log has error lines to grep)', () => {
    expect(problems).toEqual([]);
    expect(sink.text).toMatch(/"level":"error"/);
    expect(sink.text.length).toBeGreaterThan(10_000);
  });

  it('never writes the secret value, plain or base64, to the log', () => {
    expect(sink.text.includes(secret)).toBe(false);
    expect(sink.text.includes(encoded)).toBe(false);
  });

  it('never puts it in an Event either', () => {
    expect(events.length).toBeGreaterThan(0);
    const text = JSON.stringify(events);
    expect(text.includes(secret)).toBe(false);
    expect(text.includes(encoded)).toBe(false);
  });

  afterAll(() => {
    problems = [];
  });
});

describe('security: the embedded API server', () => {
  it('refuses requests without the token when one is set, and accepts the right one', async () => {
    const token = randomBytes(16).toString('hex');
    const server = await startApiServer({ token });
    try {
      const noToken = await fetch(`${server.url}/api/v1/namespaces`);
      expect(noToken.status).toBe(401);
      const wrong = await fetch(`${server.url}/api/v1/namespaces`, {
        headers: { authorization: 'Bearer nope' },
      });
      expect(wrong.status).toBe(401);
      const right = await fetch(`${server.url}/api/v1/namespaces`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(right.status).toBe(200);
      // The real client: with the token from the kubeconfig it works, without it it is refused.
      const withToken = new KubeConfig();
      withToken.loadFromString(server.kubeconfig);
      const good = new ObjectClient({ kubeConfig: withToken });
      const without = new KubeConfig();
      without.loadFromString(buildKubeconfig(server.url));
      const bad = new ObjectClient({ kubeConfig: without });
      try {
        const list = await good.list({ apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces' });
        expect(list.items.length).toBeGreaterThan(0);
        const refused = await bad.list({ apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces' }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(isUnauthorized(refused)).toBe(true);
      } finally {
        good.close();
        bad.close();
      }
    } finally {
      await server.close();
    }
  });

  it('binds loopback by default (library and CLI)', async () => {
    expect(DEFAULT_HOST).toBe('127.0.0.1');
    const server = await startApiServer();
    try {
      expect(new URL(server.url).hostname).toBe('127.0.0.1');
    } finally {
      await server.close();
    }
    const dir = scratchDir('cli');
    const cli = spawn(
      process.execPath,
      [resolve('bin/reconcilekit.js'), 'apiserver', '--port', '0', '--kubeconfig', join(dir, 'kubeconfig')],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let out = '';
      const url = await new Promise<string>((resolveUrl, reject) => {
        cli.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString('utf8');
          const match = /listening on (\S+)/.exec(out);
          if (match?.[1] !== undefined) resolveUrl(match[1]);
        });
        cli.once('exit', (code) => {
          reject(new Error(`CLI exited (${code}) before listening: ${out}`));
        });
      });
      expect(new URL(url).hostname).toBe('127.0.0.1');
    } finally {
      cli.kill('SIGTERM');
      removeDir(dir);
    }
  });
});
