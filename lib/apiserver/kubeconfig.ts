/** Name used for the cluster, user and context entries of generated kubeconfigs. */
export const KUBECONFIG_CONTEXT_NAME = 'reconcilekit';

function quote(value: string): string {
  return JSON.stringify(value);
}

/** TLS material of {@link buildKubeconfig}. */
export interface KubeconfigTls {
  /** PEM of the CA that signed the server's certificate (`certificate-authority-data`). */
  caData?: string;
  /** A client certificate and key (PEM) for the user entry. */
  clientCertificate?: { cert: string; key: string };
}

const b64 = (pem: string): string => Buffer.from(pem).toString('base64');

/**
 * A kubeconfig (YAML) that kubectl and @kubernetes/client-node accept: with `tls.caData` it trusts that CA;
 * without, it is for a plain-http server (client-node ≥ 1.1 refuses http unless the cluster says
 * insecure-skip-tls-verify).
 */
export function buildKubeconfig(
  serverUrl: string,
  token?: string,
  namespace = 'default',
  tls: KubeconfigTls = {},
): string {
  const name = KUBECONFIG_CONTEXT_NAME;
  const userLines = [
    ...(token === undefined ? [] : [`    token: ${quote(token)}`]),
    ...(tls.clientCertificate === undefined
      ? []
      : [
          `    client-certificate-data: ${b64(tls.clientCertificate.cert)}`,
          `    client-key-data: ${b64(tls.clientCertificate.key)}`,
        ]),
  ];
  const user = userLines.length === 0 ? '  user: {}' : ['  user:', ...userLines].join('\n');
  const trust =
    tls.caData === undefined
      ? '    insecure-skip-tls-verify: true'
      : `    certificate-authority-data: ${b64(tls.caData)}`;
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- cluster:',
    `    server: ${quote(serverUrl)}`,
    trust,
    `  name: ${name}`,
    'contexts:',
    '- context:',
    `    cluster: ${name}`,
    `    user: ${name}`,
    `    namespace: ${namespace}`,
    `  name: ${name}`,
    `current-context: ${name}`,
    'preferences: {}',
    'users:',
    `- name: ${name}`,
    user,
    '',
  ].join('\n');
}
