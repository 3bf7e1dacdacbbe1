// Start-up on a real kube-apiserver (`make test-real`, RBAC authorization on) as an identity RBAC grants
// nothing: the 403 kube-apiserver answers is reported on every retry while start() waits — the kind, the
// namespace, the status code, the rule to grant and the server's own words — and /readyz says the same,
// until the sync timeout names the kind.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { KubernetesObject } from '@kubernetes/client-node';
import { dump, load } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { Framework } from '../../lib/crud/framework.js';
import { ResourceSet } from '../../lib/crud/router/resource-set.js';
import { loadKubeConfig } from '../../lib/kube/kube-config.js';
import { createLogger } from '../../lib/observability/logger.js';
import { CacheSyncTimeoutError } from '../../lib/watch/informer.js';
import { RecordingResource } from '../crud/harness.js';
import { REAL_BACKEND } from './real-backend.js';

describe.runIf(REAL_BACKEND)('start-up forbidden by RBAC on a real kube-apiserver', () => {
  const ns = `forbidden-${randomBytes(3).toString('hex')}`;
  const scratch = mkdtempSync(join(tmpdir(), 'rk-forbidden-'));
  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  it('says on each retry and in /readyz which RBAC rule is missing', async () => {
    // The admin kubeconfig, acting as a ServiceAccount no role is bound to.
    const config = load(readFileSync(process.env.KUBECONFIG ?? '', 'utf8')) as {
      users: { name: string; user: Record<string, unknown> }[];
    };
    for (const u of config.users) u.user.as = `system:serviceaccount:${ns}:nobody`;
    const file = join(scratch, 'kubeconfig');
    writeFileSync(file, dump(config), { mode: 0o600 });
    const lines: { level: string; message: string }[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const text of String(chunk).split('\n').filter(Boolean))
          lines.push(JSON.parse(text) as { level: string; message: string });
        done();
      },
    });
    const fw = new Framework<KubernetesObject>({
      name: 'forbidden',
      kubeConfig: loadKubeConfig({ ...process.env, KUBECONFIG: file }),
      resource: { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: ns },
      resourceSets: [new ResourceSet({ resources: [new RecordingResource()] })],
      cacheSyncTimeoutMs: 3_500,
      healthServer: { host: '127.0.0.1', port: 0 },
      logger: createLogger({ level: 'info', stream }),
    });
    try {
      const started = fw.start().catch((e: unknown) => e);
      const rule = `ConfigMap (v1) in namespace ${ns}: 403 Forbidden: RBAC forbids list and watch of configmaps in namespace ${ns}: grant the verbs list and watch on resource "configmaps" of API group "" to the operator's identity (a Role in ${ns} or a ClusterRole; reconcilekit generate rbac writes it) (server: configmaps is forbidden: User "system:serviceaccount:${ns}:nobody" cannot`;
      let body = '';
      for (const deadline = Date.now() + 3_000; Date.now() < deadline && !body.includes(rule);) {
        body = await fetch(`${fw.healthUrl ?? ''}/readyz`)
          .then((r) => r.text())
          .catch(() => '');
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(body).toContain(`[-]cache-synced failed: caches not synced yet: watch failing: ${rule}`);
      const err = await started;
      expect(err).toBeInstanceOf(CacheSyncTimeoutError);
      // The error start() rejects with names the same rule, not a generic list of things to check.
      expect((err as Error).message).toContain(`not synced within`);
      expect((err as Error).message).toContain(rule);
      const warnings = lines.filter((l) => l.level === 'warn' && l.message.includes(rule));
      expect(warnings.length, JSON.stringify(lines)).toBeGreaterThanOrEqual(2);
      expect(warnings[0]?.message).toMatch(/\(attempt 1, not synced for 0 s\)$/);
    } finally {
      await fw.stop().catch(() => undefined);
    }
  }, 30_000);
});
