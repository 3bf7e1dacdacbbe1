/** Name used for the cluster, user and context entries of generated kubeconfigs. */
export const KUBECONFIG_CONTEXT_NAME = 'reconcilekit';

function quote(value: string): string {
  return JSON.stringify(value);
}

/**
 * A kubeconfig (YAML) that kubectl and @kubernetes/client-node accept for a plain-http server:
 * client-node ≥ 1.1 refuses http unless the cluster says insecure-skip-tls-verify.
 */
export function buildKubeconfig(serverUrl: string, token?: string, namespace = 'default'): string {
  const name = KUBECONFIG_CONTEXT_NAME;
  const user = token === undefined ? '  user: {}' : `  user:\n    token: ${quote(token)}`;
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- cluster:',
    `    server: ${quote(serverUrl)}`,
    '    insecure-skip-tls-verify: true',
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
