// A proxy in front of an API server that "loses" finalizer removals: the engine must not get stuck.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Forwards to `target`, except the first finalizer-removing PATCH of each object path (all of them with
 * `every`, else only the first one overall): answered 200 with the unchanged object, a write the server
 * acknowledged and then "lost".
 */
export async function forgetfulProxy(
  target: string,
  options: { perObject?: boolean } = {},
): Promise<{ url: string; server: Server; swallowed: () => number }> {
  const upstream = new URL(target);
  let swallowed = 0;
  const seen = new Set<string>();
  const forward = (
    method: string,
    path: string,
    headers: Record<string, unknown>,
    body: Buffer,
    res: import('node:http').ServerResponse,
  ): void => {
    const up = request(
      { host: upstream.hostname, port: upstream.port, method, path, headers: headers as never },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    up.end(body);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const text = body.toString('utf8');
      if (
        (options.perObject === true ? !seen.has(req.url ?? '') : swallowed === 0) &&
        req.method === 'PATCH' &&
        text.includes('"replace"') &&
        text.includes('/metadata/finalizers')
      ) {
        swallowed++;
        seen.add(req.url ?? '');
        const { 'content-length': _l, 'content-type': _t, ...headers } = req.headers;
        forward('GET', req.url ?? '/', headers, Buffer.alloc(0), res);
        return;
      }
      forward(req.method ?? 'GET', req.url ?? '/', req.headers, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server, swallowed: () => swallowed };
}
