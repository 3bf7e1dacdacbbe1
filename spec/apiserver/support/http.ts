import { request, type IncomingMessage } from 'node:http';

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** One raw HTTP request with a JSON (or explicit content-type) body. */
export async function api(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['Content-Type'] = contentType;
  }
  const res = await fetch(base + path, init);
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

export interface WatchEvent {
  type: string;
  object: any;
}

/** An open watch collecting its events. */
export interface OpenWatch {
  status: number;
  headers: IncomingMessage['headers'];
  events: WatchEvent[];
  ended: Promise<void>;
  isEnded(): boolean;
  close(): void;
  /** Resolves once `n` events have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<WatchEvent[]>;
}

/** Opens a watch and resolves as soon as the response headers arrive. */
export function openWatch(
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<OpenWatch> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { headers }, (res) => {
      const events: WatchEvent[] = [];
      let buffer = '';
      let ended = false;
      const waiters: (() => void)[] = [];
      const ping = (): void => {
        for (const w of waiters.splice(0)) w();
      };
      const endedPromise = new Promise<void>((done) => {
        res.on('end', () => {
          ended = true;
          ping();
          done();
        });
        res.on('close', () => {
          ended = true;
          ping();
          done();
        });
      });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let nl;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line.trim() !== '') events.push(JSON.parse(line) as WatchEvent);
        }
        ping();
      });
      res.on('error', () => undefined);
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        ended: endedPromise,
        isEnded: () => ended,
        close: () => {
          req.destroy();
        },
        waitFor: (n, timeoutMs = 5000) =>
          new Promise((ok, fail) => {
            const timer = setTimeout(() => {
              fail(
                new Error(
                  `expected ${n} events, got ${events.length}: ${JSON.stringify(events.map((e) => e.type))}`,
                ),
              );
            }, timeoutMs);
            const check = (): void => {
              if (events.length >= n) {
                clearTimeout(timer);
                ok(events);
              } else if (ended) {
                clearTimeout(timer);
                fail(new Error(`watch ended after ${events.length} events, expected ${n}`));
              } else waiters.push(check);
            };
            check();
          }),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** metadata.name of each item of a list body. */
export function names(list: { items: { metadata: { name: string } }[] }): string[] {
  return list.items.map((i) => i.metadata.name);
}

/** The `field` of each cause of a Status body, sorted. */
export function causeFields(status: { details: { causes: { field: string }[] } }): string[] {
  return status.details.causes.map((c) => c.field).sort();
}
