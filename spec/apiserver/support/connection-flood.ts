// An attacker without credentials, in its own process: `held` keep-alive connections that send the
// public /healthz every few seconds, and `trickling` connections that send a request body one byte at a
// time (never finishing). Every connection the server closes is opened again at once, as a client that
// means to hold them would. It reports how many connections it holds.
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';

export interface ConnectionFloodOptions {
  port: number;
  /** Connections polling /healthz. */
  held: number;
  /** Connections trickling a body (no token). */
  trickling: number;
  /** Interval of the /healthz polls per connection; default 3 s. */
  pollMs?: number;
  /** Interval between the trickled bytes; default 5 s (the attack). */
  trickleMs?: number;
}

export interface ConnectionFlood {
  /** Connections open now, and how often the server closed one (each was reopened). */
  stats(): { open: number; closedByServer: number };
  stop(): Promise<void>;
}

const SCRIPT = `
const { connect } = require('node:net');
const [port, held, trickling, pollMs, trickleMs] = process.argv.slice(1).map(Number);
let open = 0, closedByServer = 0, stopping = false;
function start(kind) {
  if (stopping) return;
  const s = connect(port, '127.0.0.1');
  s.allowHalfOpen = true; // a half-close from the server does not end it: only a full close does
  s.on('error', () => undefined);
  s.resume();
  let timer, connected = false;
  s.on('connect', () => {
    connected = true;
    open++;
    if (kind === 'held') {
      const poll = () => s.write('GET /healthz HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n');
      poll();
      timer = setInterval(poll, pollMs);
    } else {
      s.write('POST /api/v1/namespaces/default/configmaps HTTP/1.1\\r\\nHost: x\\r\\n' +
        'Content-Type: application/json\\r\\nContent-Length: 1000000\\r\\n\\r\\n{');
      timer = setInterval(() => s.write(' '), trickleMs);
    }
  });
  s.on('close', () => {
    if (connected) open--;
    clearInterval(timer);
    if (stopping) return;
    closedByServer++;
    setImmediate(() => start(kind));
  });
}
for (let i = 0; i < held; i++) start('held');
for (let i = 0; i < trickling; i++) start('trickling');
setInterval(() => process.stdout.write(JSON.stringify({ open, closedByServer }) + '\\n'), 250);
process.on('message', () => { stopping = true; process.exit(0); });
`;

/** Starts the attacker process; resolves once it has opened its connections (or after 20 s). */
export async function startConnectionFlood(options: ConnectionFloodOptions): Promise<ConnectionFlood> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '-e',
      SCRIPT,
      String(options.port),
      String(options.held),
      String(options.trickling),
      String(options.pollMs ?? 3000),
      String(options.trickleMs ?? 5000),
    ],
    { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] },
  );
  let latest = { open: 0, closedByServer: 0 };
  let buffered = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    const last = lines.at(-1);
    if (last !== undefined && last !== '') latest = JSON.parse(last) as typeof latest;
  });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      resolve();
    }),
  );
  const target = options.held + options.trickling;
  const deadline = Date.now() + 20_000;
  while (latest.open < target * 0.95 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    stats: () => ({ ...latest }),
    stop: async () => {
      if (child.exitCode === null) {
        child.send('stop');
        setTimeout(() => child.kill('SIGKILL'), 2000).unref();
      }
      await exited;
    },
  };
}

/** One request on a fresh connection (no keep-alive pool): status, or the error code, and its time. */
export function freshRequest(
  url: string,
  options: { method?: string; token?: string; body?: string; timeoutMs?: number } = {},
): Promise<{ status: number | string; ms: number; headers: Record<string, unknown>; text: string }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        agent: false,
        timeout: options.timeoutMs ?? 10_000,
        headers: {
          ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, ms: Date.now() - started, headers: res.headers, text });
        });
      },
    );
    req.on('timeout', () => {
      req.destroy();
      resolve({ status: 'timeout', ms: Date.now() - started, headers: {}, text: '' });
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      resolve({ status: e.code ?? 'error', ms: Date.now() - started, headers: {}, text: '' });
    });
    req.end(options.body);
  });
}
