// Leader fencing: a leader whose monotonic clock says the renew deadline passed since its last
// successful renew refuses writes and ends its term before anything else runs.
import { afterEach, describe, expect, it } from 'vitest';
import { ObjectClient } from '../../lib/kube/object-client.js';
import { isLeaseExpired, LeaderElector } from '../../lib/leader/leader-elector.js';
import { silentLogger } from '../../lib/observability/logger-silent.js';
import { eventually, startEmbeddedCluster, type EmbeddedCluster } from '../kube/embedded-server.js';

/** Blocks the event loop, as a SIGSTOP would freeze the process (timers and renewals cannot run). */
function freeze(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

describe('leader fencing', () => {
  let cluster: EmbeddedCluster | undefined;
  afterEach(async () => {
    await cluster?.close();
  });

  it('after a freeze past the renew deadline: the next write is refused before it is sent and the term is aborted', async () => {
    cluster = await startEmbeddedCluster();
    const client = new ObjectClient({ kubeConfig: cluster.client.kubeConfig });
    const elector = new LeaderElector({
      client: client.unfenced(),
      leaseName: 'fenced',
      namespace: 'default',
      identity: 'me',
      leaseDurationMs: 1500,
      renewDeadlineMs: 600,
      retryPeriodMs: 100,
      logger: silentLogger(),
    });
    client.fence = elector.fence;
    const stop = new AbortController();
    let term: AbortSignal | undefined;
    const done = elector.run(stop.signal, {
      onStartedLeading: (signal) => {
        term = signal;
      },
      onStoppedLeading: () => undefined,
    });
    try {
      await eventually(() => term !== undefined, 5000);
      const cm = (name: string) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'default' },
      });
      await client.create(cm('while-leading'));
      expect(elector.holdsLease()).toBe(true);
      freeze(700);
      // First thing after the freeze: a write. It is refused before it is sent.
      let refused: unknown;
      try {
        await client.create(cm('after-freeze'));
      } catch (err) {
        refused = err;
      }
      expect(isLeaseExpired(refused)).toBe(true);
      expect(term?.aborted).toBe(true);
      expect(isLeaseExpired(term?.reason)).toBe(true);
      const direct = new ObjectClient({ kubeConfig: cluster.client.kubeConfig });
      await expect(
        direct.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'after-freeze' }),
      ).rejects.toThrow();
      // Not fenced for good: it campaigns again and, nobody else holding the lease, leads a new term.
      await eventually(() => elector.holdsLease(), 5000);
      await client.create(cm('new-term'));
    } finally {
      stop.abort();
      await done;
    }
  });
});
