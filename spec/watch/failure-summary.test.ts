// Repeated identical list/watch failures (a 403 retried for an hour) are logged once with their fix, then
// summarised with a count at most once a minute, and the recovery is logged: against the embedded server
// with an injected 403, and the summary's clock rule on its own.
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../../lib/apiserver/index.js';
import { ObjectClient } from '../../lib/kube/object-client.js';
import type { Logger } from '../../lib/observability/logger.js';
import { FailureSummary } from '../../lib/watch/failure-summary.js';
import { Watcher } from '../../lib/watch/watcher.js';

function recordingLogger(): Logger & { lines: { level: string; message: string; meta?: unknown }[] } {
  const lines: { level: string; message: string; meta?: unknown }[] = [];
  const logger: Logger & { lines: typeof lines } = {
    lines,
    debug: () => undefined,
    info: (message, meta) => lines.push({ level: 'info', message, meta }),
    warn: (message, meta) => lines.push({ level: 'warn', message, meta }),
    error: (message, meta) => lines.push({ level: 'error', message, meta }),
    child: () => logger,
  };
  return logger;
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('repeated list/watch failures', () => {
  let server: ApiServer | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it('logs a 403 once with the RBAC hint while it repeats, then the recovery with the count', async () => {
    server = await startApiServer({ host: '127.0.0.1', port: 0 });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(server.kubeconfig);
    const client = new ObjectClient({ kubeConfig });
    // 20 forbidden lists in a row, then the permission "arrives".
    server.faults.inject({ resource: 'configmaps', verb: 'list', status: 403, times: 20 });
    const logger = recordingLogger();
    const watcher = new Watcher({
      client,
      resource: { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: 'default' },
      logger,
      backoff: { initialMs: 5, maxMs: 10, jitter: 0 },
      watchList: false, // the failures are injected into LIST
    });
    watcher.start();
    try {
      await until(() => watcher.synced);
      const warnings = logger.lines.filter((l) => l.level === 'warn');
      // 20 failures, one line: the first, with what to do …
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.message).toMatch(
        /^list\/watch failed: ConfigMap \(v1\) in namespace default: 403 Forbidden: RBAC forbids list and watch of configmaps in namespace default: grant the verbs list and watch on resource "configmaps" of API group "" to the operator's identity \(a Role in default or a ClusterRole; .*\); retrying in \d+ ms \(attempt 1, not synced for 0 s\)$/,
      );
      // … and the recovery with the count.
      const recovered = logger.lines.filter((l) => l.message.startsWith('list/watch recovered after'));
      expect(recovered).toHaveLength(1);
      expect(recovered[0]?.level).toBe('info');
      expect(recovered[0]?.message).toMatch(/^list\/watch recovered after 20 failures in \d+ s$/);
    } finally {
      await watcher.stop();
      client.close();
    }
  });

  it('summarises the same failure at most once per interval, and logs a different one at once', () => {
    let now = 0;
    const logger = recordingLogger();
    const summary = new FailureSummary(logger, () => now, 60_000);
    const forbidden = Object.assign(new Error('configmaps is forbidden'), { code: 403 });
    for (let i = 0; i < 100; i++) {
      summary.failed(forbidden, 1000, 'grant list');
      now += 1000; // 100 failures over 100 s
    }
    expect(logger.lines.map((l) => l.message)).toEqual([
      'list/watch failed: grant list; retrying in 1000 ms',
      'list/watch still failing with the same error: 61 times in 60 s; retrying in 1000 ms: grant list',
    ]);
    summary.failed(Object.assign(new Error('connection refused'), { code: 0 }), 1000, undefined);
    expect(logger.lines).toHaveLength(3);
    expect(logger.lines.at(-1)?.message).toBe('list/watch failed: connection refused; retrying in 1000 ms');
    summary.recovered();
    expect(logger.lines.at(-1)?.message).toBe('list/watch recovered after 101 failures in 100 s');
  });

  it('reports every failed attempt (at most two a second) while the watcher has never synced, for the first 2 min', () => {
    let now = 0;
    const logger = recordingLogger();
    const summary = new FailureSummary(logger, () => now, 60_000);
    const forbidden = Object.assign(new Error('configmaps is forbidden'), { code: 403 });
    // Backoff 0.25 s: four tries a second, two lines a second.
    for (let i = 0; i < 20; i++) {
      summary.failed(forbidden, 250, 'grant list', true);
      now += 250;
    }
    expect(logger.lines.map((l) => l.message)).toEqual(
      Array.from(
        { length: 10 },
        (_, k) =>
          `list/watch failed: grant list; retrying in 250 ms (attempt ${2 * k + 1}, not synced for ${Math.round((k * 500) / 1000)} s)`,
      ),
    );
    // Past 2 min of waiting: back to a summary a minute.
    logger.lines.length = 0;
    now = 130_000;
    for (let i = 0; i < 60; i++) {
      summary.failed(forbidden, 30_000, 'grant list', true);
      now += 30_000;
    }
    expect(logger.lines.length).toBeGreaterThanOrEqual(15);
    expect(logger.lines.length).toBeLessThanOrEqual(31);
    expect(logger.lines.every((l) => l.message.startsWith('list/watch still failing'))).toBe(true);
  });
});
