// An informer bounds V8's heap growth in its process (boundHeapGrowth): a process that then keeps many objects
// alive (what an initial list does) does not grow its new space, where V8 alone grows it (to 32 MiB on Node 22,
// 128 MiB on Node 24; the start-up size differs too: 8 and 16 MiB), and its
// old space stays within about 1.5 times the live objects, where V8 alone lets it grow to three or four times. A child process runs the built package (dist) against the embedded server, as
// an operator would: the new space is sized once per process, so it needs a fresh one.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../../lib/apiserver/index.js';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** New space sizes in bytes: after loading the package, and the largest while objects piled up. */
interface ChildResult {
  kept: number;
  before: number;
  maxNewSpace: number;
  /** The largest old space while objects piled up. */
  maxOldSpace: number;
}

const CHILD = `
import v8 from 'node:v8';
const { InformerCache, ObjectClient, readKubeConfig } = await import(process.env.RK_ENTRY);
const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
const oldSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_size;
const before = newSpace(); // as loading the package left it
const informers = new InformerCache({ client: new ObjectClient({ kubeConfig: readKubeConfig() }) });
const informer = informers.acquire({ apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: 'default' });
await informer.waitForSync();
// What an initial list and the passes after it do to the heap: objects that survive (60,000 of them, each
// replaced a few times), beside short-lived garbage.
const kept = new Map();
let max = newSpace();
let maxOld = 0;
for (let i = 0; i < 400000; i++) {
  kept.set('k' + (i % 60000), { a: 'x' + i, b: [i, i + 1], c: { d: i, e: 'zzzzzzzzzzzzzzzz' + i } });
  JSON.parse(JSON.stringify({ i, s: 'y'.repeat(200), a: [1, 2, 3, 4, 5] }));
  if (i % 1000 === 0) {
    max = Math.max(max, newSpace());
    maxOld = Math.max(maxOld, oldSpace());
  }
}
await informers.stop();
console.log('RESULT ' + JSON.stringify({ kept: kept.size, before, maxNewSpace: max, maxOldSpace: maxOld }));
`;

let server: ApiServer;
let dir: string;

beforeAll(async () => {
  server = await startApiServer();
  dir = mkdtempSync(join(tmpdir(), 'rk-v8-heap-'));
  writeFileSync(join(dir, 'kubeconfig'), server.kubeconfig);
  writeFileSync(join(dir, 'child.mjs'), CHILD);
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("V8's heap in a process with an informer", () => {
  it('keeps its young generation and grows old space less than V8 alone', async () => {
    const bounded = await runChild({});
    const alone = await runChild({ RECONCILEKIT_V8_HEAP: 'default' });
    expect(bounded).toMatchObject({ kept: 60000 });
    // Kept at its size (V8 may round it up by a page or two; it does not double).
    expect(bounded.maxNewSpace).toBeLessThan(1.5 * bounded.before);
    // RECONCILEKIT_V8_HEAP=default: as Node sizes it.
    expect(alone.maxNewSpace).toBeGreaterThanOrEqual(2 * alone.before);
    expect(bounded.maxNewSpace).toBeLessThan(alone.maxNewSpace);
    // Old space: Node 22's V8 honours --heap-growing-percent set at runtime; Node 24's showed no difference
    // (62–64 MiB either way), so the bound is asserted where it is in force (docs/watch-and-cache.md).
    if (NODE_MAJOR < 24) expect(bounded.maxOldSpace).toBeLessThan(alone.maxOldSpace);
  });

  it('leaves what the process was given flags for to those flags', async () => {
    const given = await runChild({}, ['--max-semi-space-size=64', '--heap-growing-percent=300']);
    // The young generation grows as the flag allows (bounded, it would keep its start-up size).
    expect(given.maxNewSpace).toBeGreaterThanOrEqual(2 * given.before);
    if (NODE_MAJOR < 24) {
      // Old space, with the young generation sized alike in both (a larger one promotes less).
      const givenOld = await runChild({}, ['--semi-space-growth-factor=1', '--heap-growing-percent=300']);
      const bounded = await runChild({});
      expect(givenOld.maxOldSpace).toBeGreaterThan(bounded.maxOldSpace);
    }
  });
});

function runChild(env: Record<string, string>, flags: string[] = []): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...flags, join(dir, 'child.mjs')],
      {
        cwd: process.cwd(),
        env: {
          ...process.env,
          KUBECONFIG: join(dir, 'kubeconfig'),
          RK_ENTRY: pathToFileURL(join(process.cwd(), 'dist/lib/index.js')).href,
          ...env,
        },
        timeout: 60_000,
      },
      (err, stdout, stderr) => {
        if (err !== null) {
          reject(new Error(`${err.message}\n${stderr}`));
          return;
        }
        const line = stdout.split('\n').find((l) => l.startsWith('RESULT ')) ?? 'RESULT null';
        resolve(JSON.parse(line.slice(7)) as ChildResult);
      },
    );
  });
}
