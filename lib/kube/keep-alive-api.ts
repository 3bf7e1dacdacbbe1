import type { OutgoingHttpHeaders } from 'node:http';
import type {
  Configuration,
  KubeConfig,
  KubernetesObjectApi,
  RequestContext,
  ResponseContext,
} from '@kubernetes/client-node';
import { connectionError } from './api-error.js';
import { clientNode } from './client-node.js';
import { KubeTransport } from './kube-transport.js';
import type { ObjectClient } from './object-client.js';

/**
 * A client-node `Configuration` whose requests all go over `source`'s shared keep-alive agent, with the
 * kubeconfig's credentials. client-node's default path (`kc.makeApiClient`) builds a new `https.Agent`
 * for every request (see docs/http-client.md); this one reuses connections.
 * @category Kubernetes client
 */
export function keepAliveConfiguration(source: ObjectClient | KubeTransport): Configuration {
  const transport = source instanceof KubeTransport ? source : source.transport;
  const api = clientNode();
  const httpApi = api.wrapHttpLibrary({
    async send(request: RequestContext): Promise<ResponseContext> {
      const url = new URL(request.getUrl());
      const body = request.getBody();
      if (body !== undefined && typeof body !== 'string') {
        throw new TypeError('keep-alive client-node transport sends string bodies only (no form data)');
      }
      // Credentials straight from the transport: Impersonate-Group/-Extra-* may be repeated headers.
      const headers: OutgoingHttpHeaders = { ...request.getHeaders(), ...(await transport.headers()) };
      if (body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(body));
      const res = await transport.openUrl(
        url,
        request.getHttpMethod(),
        headers,
        body,
        await transport.agent(),
        request.getSignal(),
      );
      const data = new Promise<Buffer>((resolve, reject) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve(Buffer.concat(chunks));
        });
        res.on('error', (err) => {
          reject(
            connectionError(err, `${request.getHttpMethod()} ${url.pathname}: reading the response failed`),
          );
        });
      });
      // Read eagerly so the socket returns to the pool even if the caller never reads the body.
      data.catch(() => undefined);
      const responseHeaders: Record<string, string> = {};
      for (const [name, value] of Object.entries(res.headers)) {
        if (value !== undefined) responseHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      return new api.ResponseContext(res.statusCode ?? 0, responseHeaders, {
        binary: () => data,
        text: async () => (await data).toString('utf8'),
        stream: () =>
          new ReadableStream<Uint8Array>({
            async start(controller) {
              controller.enqueue(new Uint8Array(await data));
              controller.close();
            },
          }),
      });
    },
  });
  return api.createConfiguration({
    baseServer: new api.ServerConfiguration(transport.server.href.replace(/\/$/, ''), {}),
    httpApi,
    authMethods: {
      default: {
        getName: () => 'reconcilekit-kubeconfig',
        // The credentials are added in send() above, where repeated headers survive.
        applySecurityAuthentication: (): Promise<void> => Promise.resolve(),
      },
    },
  });
}

/**
 * Any generated client-node API (e.g. `CoreV1Api`, `CustomObjectsApi`) on the shared keep-alive agent:
 * `makeKeepAliveApiClient(client, CoreV1Api)`.
 * @category Kubernetes client
 */
export function makeKeepAliveApiClient<T>(
  source: ObjectClient | KubeTransport,
  apiClientType: new (configuration: Configuration) => T,
): T {
  return new apiClientType(keepAliveConfiguration(source));
}

/**
 * A client-node `KubernetesObjectApi` on the shared keep-alive agent, with the kubeconfig context's
 * default namespace. Remember to pass the patch strategy explicitly (its default is strategic merge).
 * @category Kubernetes client
 */
export function makeKeepAliveObjectApi(source: ObjectClient | KubeTransport): KubernetesObjectApi {
  const api = new (clientNode().KubernetesObjectApi)(keepAliveConfiguration(source));
  setDefaultNamespace(api, source.kubeConfig);
  return api;
}

/** `KubernetesObjectApi.setDefaultNamespace` is protected: the kubeconfig context's namespace, set from outside. */
function setDefaultNamespace(api: KubernetesObjectApi, kc: KubeConfig): void {
  (api as unknown as { setDefaultNamespace(kc: KubeConfig): void }).setDefaultNamespace(kc);
}
