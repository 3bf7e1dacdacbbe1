import { describe, expect, it } from 'vitest';
import { startApiServer } from '../../../lib/apiserver/index.js';
import { freshRequest, startConnectionFlood } from '../../apiserver/support/connection-flood.js';
import { recordFigures } from '../support/figures.js';

const TOKEN = 'soak-token';

describe('soak: connection flood without credentials', () => {
  it('4,200 held connections + 200 trickling bodies (default limits): authenticated requests keep succeeding for 30 s', async () => {
    const server = await startApiServer({ token: TOKEN });
    const port = Number(new URL(server.url).port);
    const flood = await startConnectionFlood({ port, held: 4200, trickling: 200 });
    const latencies: number[] = [];
    const failures: string[] = [];
    try {
      const until = Date.now() + 30_000;
      while (Date.now() < until) {
        const res = await freshRequest(`${server.url}/api/v1/namespaces/default/configmaps`, {
          token: TOKEN,
          timeoutMs: 10_000,
        });
        latencies.push(res.ms);
        if (res.status !== 200) failures.push(String(res.status));
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    } finally {
      const stats = flood.stats();
      await flood.stop();
      await server.close();
      latencies.sort((a, b) => a - b);
      recordFigures('connection-flood', {
        held: 4200,
        trickling: 200,
        attackerOpen: stats.open,
        closedByServer: stats.closedByServer,
        requests: latencies.length,
        failed: failures.length,
        p50Ms: latencies[Math.floor(latencies.length / 2)] ?? -1,
        maxMs: latencies.at(-1) ?? -1,
      });
    }
    expect(failures).toEqual([]);
    expect(latencies.length).toBeGreaterThan(20);
  });
});
