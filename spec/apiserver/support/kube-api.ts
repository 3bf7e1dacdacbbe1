// Raw API requests that work against both targets: the embedded server and, under RECONCILEKIT_E2E, the
// cluster in KUBECONFIG (client-node's kubeconfig handling supplies TLS and credentials).
import { request as httpRequest } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import type { ApiResponse } from './http.js';
import type { Target } from './target.js';

export type KubeApi = (
  method: string,
  path: string,
  body?: unknown,
  contentType?: string,
  headers?: Record<string, string>,
) => Promise<ApiResponse>;

/** A raw requester bound to the target's kubeconfig. */
export function kubeApi(target: Target): KubeApi {
  const kc = new KubeConfig();
  kc.loadFromString(target.kubeconfig);
  const server = kc.getCurrentCluster()?.server ?? target.url;
  return async (method, path, body, contentType = 'application/json', headers = {}) => {
    const url = new URL(server.replace(/\/$/, '') + path);
    const options: RequestOptions = { method, headers: { Accept: 'application/json', ...headers } };
    await kc.applyToHTTPSOptions(options);
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    if (payload !== undefined) {
      const sent = options.headers as Record<string, string>;
      sent['Content-Type'] = contentType;
      // Node sends a DELETE body neither chunked nor with a length unless told: say how long it is.
      sent['Content-Length'] = String(Buffer.byteLength(payload));
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<ApiResponse>((resolve, reject) => {
      const req = send(url, options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = text === '' ? undefined : JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (typeof v === 'string') h.set(k, v);
            else if (Array.isArray(v)) for (const item of v) h.append(k, item);
          }
          resolve({ status: res.statusCode ?? 0, headers: h, body: parsed, text });
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  };
}

/** Creates a CRD and waits until its resource is served (Established on a real server). */
export async function installCrd(api: KubeApi, crd: Record<string, any>): Promise<void> {
  const r = await api('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  if (r.status !== 201 && r.status !== 409)
    throw new Error(`CRD ${crd.metadata.name}: ${r.status} ${r.text}`);
  const group: string = crd.spec.group;
  const version: string = crd.spec.versions[0].name;
  const plural: string = crd.spec.names.plural;
  const deadline = Date.now() + 20_000;
  for (;;) {
    const list = await api('GET', `/apis/${group}/${version}/${plural}?limit=1`);
    if (list.status === 200) return;
    if (Date.now() > deadline) throw new Error(`CRD ${crd.metadata.name} never served: ${list.text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Deletes a CRD (cleanup for runs against a shared cluster). */
export async function removeCrd(api: KubeApi, name: string): Promise<void> {
  await api('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
}
