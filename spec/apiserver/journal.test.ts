// The --data journal: torn log tails, compaction into a snapshot, file modes, legacy data files.
import { appendFileSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startApiServer } from '../../lib/apiserver/index.js';
import { api } from './support/http.js';
import { E2E } from './support/target.js';

const dir = mkdtempSync(join(tmpdir(), 'rk-journal-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const path = '/api/v1/namespaces/default/configmaps';

function files(prefix: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix))
    .sort();
}

describe.skipIf(E2E)('data file journal', () => {
  it('drops a torn last record and keeps every complete one', async () => {
    const dataFile = join(dir, 'torn.json');
    const first = await startApiServer({ dataFile });
    for (const name of ['a', 'b', 'c']) {
      expect((await api(first.url, 'POST', path, { metadata: { name }, data: { v: name } })).status).toBe(
        201,
      );
    }
    await first.close();
    const segments = files('torn.json.log-');
    const last = join(dir, segments[segments.length - 1] ?? '');
    const before = statSync(last).size;
    // A crash mid-write: half a record, and one whose checksum does not match its bytes.
    appendFileSync(last, '0badc0de {"op":"put","t":"/configmaps","rv":1,"o":{"metadata":{"name":"x"');
    const logs: string[] = [];
    const second = await startApiServer({ dataFile, log: (_l, message) => logs.push(message) });
    try {
      const list = await api(second.url, 'GET', path);
      expect(list.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual([
        'a',
        'b',
        'c',
      ]);
      expect(statSync(last).size).toBe(before);
      expect(logs).toContain('data file: dropping a torn log tail');
    } finally {
      await second.close();
    }
  });

  it('compacts the log into a snapshot; files are 0600; state survives', async () => {
    const dataFile = join(dir, 'compact.json');
    const server = await startApiServer({ dataFile, compactLogBytes: 4096 });
    try {
      for (let i = 0; i < 40; i++) {
        const res = await api(server.url, 'POST', path, {
          metadata: { name: `cm-${i}` },
          data: { i: `${i}` },
        });
        expect(res.status).toBe(201);
      }
      await api(server.url, 'DELETE', `${path}/cm-0`);
      // Compaction runs in the background: wait for the snapshot and for old segments to go.
      for (let i = 0; i < 100 && files('compact.json.log-').length > 1; i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await server.close();
    }
    // Only a compaction writes the snapshot itself; it then removes the segments it folded in.
    expect(files('compact.json')).toContain('compact.json');
    expect(files('compact.json.log-').length).toBeLessThanOrEqual(2);
    for (const f of files('compact.json'))
      expect((statSync(join(dir, f)).mode & 0o777).toString(8)).toBe('600');
    const again = await startApiServer({ dataFile });
    try {
      const list = await api(again.url, 'GET', path);
      expect(list.body.items).toHaveLength(39);
      expect((await api(again.url, 'GET', `${path}/cm-0`)).status).toBe(404);
      expect((await api(again.url, 'GET', `${path}/cm-39`)).body.data).toEqual({ i: '39' });
    } finally {
      await again.close();
    }
  });

  it('reads a version-1 data file (one JSON document) and tightens its mode to 0600', async () => {
    const dataFile = join(dir, 'legacy.json');
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'old', namespace: 'default', uid: 'u1', resourceVersion: '5' },
    };
    writeFileSync(dataFile, JSON.stringify({ version: 1, rv: 5, objects: { '/configmaps': [cm] } }), {
      mode: 0o644,
    });
    const server = await startApiServer({ dataFile });
    try {
      expect((await api(server.url, 'GET', `${path}/old`)).status).toBe(200);
      expect((statSync(dataFile).mode & 0o777).toString(8)).toBe('600');
    } finally {
      await server.close();
    }
  });

  it('refuses to start on a file that is not a data file, saying which', async () => {
    const dataFile = join(dir, 'garbage.json');
    writeFileSync(dataFile, 'not json at all');
    await expect(startApiServer({ dataFile })).rejects.toThrow(
      /garbage\.json is not a reconcilekit apiserver data file/,
    );
  });
});
