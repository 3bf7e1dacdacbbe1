// The live view in a real browser: the example Website operator (dist/examples/website-operator/main.js, a
// child process) on the embedded API server with the debug page on (RECONCILEKIT_DEBUG_PAGE=1, as
// `reconcilekit dev` sets it), /debug/ opened in headless chromium. An object moves from queued to
// reconciled, a failing object shows its error and a retry countdown, search narrows the table, an error
// message carrying HTML renders as text, and the screenshot docs/live-view.md shows is taken.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestEnvironment, waitFor, type TestEnvironment } from 'reconcilekit/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { examplePath } from '../../examples/website-operator/example-path.js';
import { DEBUG_ERROR_CHARS, HistoryRecorder } from '../../lib/debug/history-recorder.js';
import { HealthServer } from '../../lib/observability/health-server.js';

const MAIN = 'dist/examples/website-operator/main.js';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// The docs' copy is refreshed only on request (UPDATE_SCREENSHOT=1 make test-browser), so a test run leaves the
// tree unchanged; otherwise the screenshot goes to a scratch file and is checked the same way.
const SCREENSHOT =
  process.env.UPDATE_SCREENSHOT === '1'
    ? 'docs/images/live-view.png'
    : join(tmpdir(), `reconcilekit-live-view-${String(process.pid)}.png`);
/** The injected API error: HTML that would run script if the page ever used innerHTML. */
const HOSTILE = 'quota exceeded for <img src=x onerror="document.title=\'pwned\'"> in this namespace';

let env: TestEnvironment;
let workDir: string;
let operator: ChildProcess | undefined;
let browser: Browser | undefined;
let page: Page;
let logFile: string;

function site(name: string, namespace: string) {
  return {
    apiVersion: 'demo.reconcilekit.io/v1',
    kind: 'Website',
    metadata: { name, namespace },
    spec: { title: `The ${name} site`, content: 'Rendered by the example operator.' },
  };
}

/** The cells of `key`'s row in the objects table (state, result, next, err), or undefined. */
async function row(key: string): Promise<Record<'state' | 'result' | 'next' | 'err', string> | undefined> {
  const tr = page.locator(`#objects tbody tr[data-key="${key}"]`);
  if ((await tr.count()) === 0) return undefined;
  const text = async (cls: string) =>
    (await tr.locator(`td.${cls}`).first().textContent({ timeout: 1_000 })) ?? '';
  return {
    state: await text('state'),
    result: await text('result'),
    next: await text('next'),
    err: await text('err'),
  };
}

/** The keys of the rows in the objects table. */
async function keys(): Promise<(string | null)[]> {
  const out: (string | null)[] = [];
  for (const tr of await page.locator('#objects tbody tr').all())
    out.push(await tr.getAttribute('data-key', { timeout: 1_000 }));
  return out;
}

beforeAll(async () => {
  expect(existsSync(MAIN), `${MAIN} is missing: run make build first`).toBe(true);
  expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: run scripts/install-browser.sh`).toBe(true);
  env = await startTestEnvironment({ crds: [examplePath('deploy', 'crd.yaml')], tls: false });
  for (const ns of ['shop', 'slow', 'failing']) {
    await env.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  }
  workDir = await mkdtemp(join(tmpdir(), 'live-view-browser-'));
  await writeFile(join(workDir, 'kubeconfig'), env.kubeconfigYaml);
  logFile = join(workDir, 'operator.log');
  const { openSync, closeSync } = await import('node:fs');
  const log = openSync(logFile, 'w');
  operator = spawn(
    process.execPath,
    [MAIN, '--output-dir', join(workDir, 'pages'), '--health-address', '127.0.0.1:0', '--workers', '1'],
    {
      env: { ...process.env, KUBECONFIG: join(workDir, 'kubeconfig'), RECONCILEKIT_DEBUG_PAGE: '1' },
      stdio: ['ignore', log, log],
    },
  );
  closeSync(log);
  const url = await waitFor(
    () => /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(readFileSync(logFile, 'utf8'))?.[1],
    { timeoutMs: 60_000 },
  );
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1180, height: 880 } });
  await page.goto(`${url}/debug/`);
  await page.waitForSelector('#controllers tbody tr');
});

afterAll(async () => {
  await browser?.close();
  operator?.kill('SIGTERM');
  await env.close();
  await rm(workDir, { recursive: true, force: true });
});

it('shows an object queued, then reconciled; a failing one with its error and retry countdown, HTML as text', async () => {
  const apiServer = env.apiServer;
  if (apiServer === undefined) throw new Error('needs the embedded server (faults)');
  // One worker, held for 6 s by a slow ConfigMap create, so the next object waits in the queue.
  apiServer.faults.inject({
    verb: 'create',
    resource: 'configmaps',
    namespace: 'slow',
    delayMs: 6_000,
    times: 1,
  });
  await env.client.create(site('slowpoke', 'slow'));
  await waitFor(async () => (await row('slow/slowpoke'))?.state === 'running', { timeoutMs: 30_000 });
  await env.client.create(site('hello', 'shop'));
  const queued = await waitFor(
    async () => {
      const r = await row('shop/hello');
      return r?.state.startsWith('queued') === true ? r : undefined;
    },
    { timeoutMs: 30_000 },
  );
  expect(queued.state).toMatch(/^queued \(priority (0|-100)\) ← (watch add|finalizer|watch update)$/);
  const reconciled = await waitFor(
    async () => {
      const r = await row('shop/hello');
      return r?.result === 'success' && r.state === '' ? r : undefined;
    },
    { timeoutMs: 60_000 },
  );
  expect(reconciled.err).toBe('');

  // A failing object: the API refuses its ConfigMap with a message carrying HTML.
  apiServer.faults.inject({
    verb: 'create',
    resource: 'configmaps',
    namespace: 'failing',
    status: 500,
    message: HOSTILE,
  });
  await env.client.create(site('broken', 'failing'));
  const failing = await waitFor(
    async () => {
      const r = await row('failing/broken');
      return r?.result === 'error' && /^in \d/.test(r.next) ? r : undefined;
    },
    { timeoutMs: 60_000 },
  );
  expect(failing.err).toContain('<img src=x onerror=');
  // Rendered as text: no element was created from it, and its handler never ran.
  expect(await page.locator('img').count()).toBe(0);
  expect(await page.title()).toBe('reconcilekit live view');
  // The Warning Event the engine posted for it, in the Events table, as text too.
  await waitFor(
    async () => (await page.locator('#events tbody tr.Warning', { hasText: '<img src=x' }).count()) > 0,
    { timeoutMs: 30_000 },
  );

  // Search by name narrows the table to the matching rows.
  await page.fill('#search', 'broken');
  await waitFor(
    async () => {
      const shown = await keys();
      return shown.length === 1 && shown[0] === 'failing/broken';
    },
    { timeoutMs: 10_000 },
  );
  await page.fill('#search', '');
  await waitFor(async () => (await row('shop/hello')) !== undefined, { timeoutMs: 10_000 });

  // The screenshot of docs/live-view.md: the healthy object's timeline open.
  await page.click('#objects tbody tr[data-key="shop/hello"]');
  await page.waitForSelector('#timeline .res');
  await mkdir(dirname(SCREENSHOT), { recursive: true });
  await page.screenshot({ path: SCREENSHOT });
  expect(statSync(SCREENSHOT).size).toBeLessThan(200_000);
});

it('stays usable with 10,000 objects and very long error messages', async () => {
  const history = new HistoryRecorder();
  const n = 10_000;
  for (let i = 0; i < n; i++) {
    const long = i === n - 1;
    history.record('bulk', `default/obj-${String(i).padStart(5, '0')}`, {
      startedAt: Date.now() - n + i,
      durationMs: 2,
      result: long ? 'error' : 'success',
      attempt: long ? 3 : 0,
      deleting: false,
      ...(long ? { error: `boom ${'y'.repeat(50_000)}`, nextAt: Date.now() + 60_000 } : {}),
    });
  }
  const server = new HealthServer({
    host: '127.0.0.1',
    port: 0,
    registry: new Registry(),
    debug: { history, controllers: () => [] },
  });
  const url = await server.start();
  try {
    const bulk = await browser?.newPage({ viewport: { width: 1180, height: 880 } });
    if (bulk === undefined) throw new Error('no browser');
    await bulk.goto(`${url}/debug/`);
    await waitFor(async () => (await bulk.locator('#objects tbody tr').count()) === 500, {
      timeoutMs: 30_000,
    });
    expect(await bulk.locator('#shown').textContent()).toBe(
      `showing the 500 most recent of ${n} — search to narrow`,
    );
    // The long message is cut by the server and scrolls inside its cell instead of stretching the row.
    const err = bulk.locator('#objects tbody tr[data-key="default/obj-09999"] td.err');
    expect(((await err.textContent()) ?? '').length).toBe(DEBUG_ERROR_CHARS + 1);
    expect((await err.boundingBox())?.height ?? Infinity).toBeLessThan(200);
    // An old object, not among the 500 shown, is found by name.
    await bulk.fill('#search', 'obj-00042');
    await waitFor(
      async () => {
        const rows = bulk.locator('#objects tbody tr');
        return (
          (await rows.count()) === 1 && (await rows.first().getAttribute('data-key')) === 'default/obj-00042'
        );
      },
      { timeoutMs: 10_000 },
    );
    await bulk.close();
  } finally {
    await server.close();
  }
});
