import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  KubeConfigNotFoundError,
  isKubeConfigLoadError,
  isKubeConfigNotFound,
  loadKubeConfig,
  readKubeConfig,
} from '../../lib/kube/kube-config.js';
import { LoadedKubeConfig } from '../../lib/kube/loaded-kube-config.js';

const KUBECONFIG_YAML = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: { server: 'https://example.invalid:6443', insecure-skip-tls-verify: true }
users:
- name: u
  user: { token: abc }
contexts:
- name: ctx
  context: { cluster: c, user: u, namespace: team }
current-context: ctx
`;

describe('loadKubeConfig', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const tmp = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'rk-kc-'));
    dirs.push(d);
    return d;
  };

  it('reads ~/.kube/config when KUBECONFIG is unset', () => {
    const home = tmp();
    mkdirSync(join(home, '.kube'));
    writeFileSync(join(home, '.kube', 'config'), KUBECONFIG_YAML);
    const kc = loadKubeConfig({ HOME: home });
    expect(kc.getCurrentCluster()?.server).toBe('https://example.invalid:6443');
    expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe('team');
  });

  it('throws a typed error that says how to fix it when nothing is configured', () => {
    const err = (() => {
      try {
        loadKubeConfig({ HOME: tmp() });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(KubeConfigNotFoundError);
    expect(isKubeConfigNotFound(err)).toBe(true);
    expect((err as Error).message).toMatch(/KUBECONFIG/);
  });
});

describe('loadKubeConfig: a bad KUBECONFIG names the file and the problem', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rk-kc-bad-'));
  afterEach(() => undefined);
  const file = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  it.each([
    ['missing', () => join(dir, 'nope'), /^kubeconfig .*\/nope \(from KUBECONFIG\) does not exist$/],
    ['empty', () => file('empty', '  \n'), /^kubeconfig .*\/empty \(from KUBECONFIG\) is empty$/],
    [
      'malformed YAML',
      () => file('bad-yaml', 'clusters: [\n  - name: a\n   oops: : :'),
      /^kubeconfig .*\/bad-yaml \(from KUBECONFIG\) is not valid YAML: /,
    ],
    [
      'not a mapping',
      () => file('scalar', 'just text\n'),
      /^kubeconfig .*\/scalar \(from KUBECONFIG\) is not a valid kubeconfig: not a mapping$/,
    ],
    [
      'a cluster without a server',
      () => file('no-server', KUBECONFIG_YAML.replace("server: 'https://example.invalid:6443', ", '')),
      /is not a valid kubeconfig: clusters\[0\]\.cluster\.server is missing$/,
    ],
    [
      'a context without a cluster',
      () => file('no-cluster', KUBECONFIG_YAML.replace('cluster: c, user: u', 'user: u')),
      /is not a valid kubeconfig: contexts\[0\]\.context\.cluster is missing$/,
    ],
    [
      'a missing token-file',
      () => file('token-file', KUBECONFIG_YAML.replace('token: abc', 'token-file: gone-token')),
      /user "u" names token-file .*\/gone-token, which does not exist$/,
    ],
    [
      'no current-context',
      () => file('no-context', KUBECONFIG_YAML.replace('current-context: ctx\n', '')),
      /^kubeconfig .*\/no-context \(from KUBECONFIG\) has no current-context \(set one: kubectl config use-context ctx\)$/,
    ],
    [
      'unknown current-context',
      () => file('wrong-context', KUBECONFIG_YAML.replace('current-context: ctx', 'current-context: prod')),
      /does not define \(defined: ctx\)$/,
    ],
  ])('%s', (_what, path, message) => {
    let caught: unknown;
    try {
      loadKubeConfig({ KUBECONFIG: path(), HOME: dir });
    } catch (e) {
      caught = e;
    }
    expect(isKubeConfigLoadError(caught)).toBe(true);
    expect((caught as Error).message).toMatch(message);
  });

  it('merges a KUBECONFIG list as kubectl does, skipping missing files', () => {
    const a = file('a', KUBECONFIG_YAML);
    const kc = loadKubeConfig({ KUBECONFIG: [join(dir, 'gone'), a].join(':'), HOME: dir });
    expect(kc.getCurrentCluster()?.server).toBe('https://example.invalid:6443');
  });
});

describe('readKubeConfig: reconcilekit reads the kubeconfig itself', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rk-kc-own-'));
  const file = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  it('gives the current context, cluster and user in client-node shapes, without client-node', () => {
    const kc = readKubeConfig({ KUBECONFIG: file('plain', KUBECONFIG_YAML), HOME: dir });
    expect(kc).toBeInstanceOf(LoadedKubeConfig);
    expect(kc.getCurrentContext()).toBe('ctx');
    expect(kc.getCurrentCluster()).toEqual({
      name: 'c',
      server: 'https://example.invalid:6443',
      skipTLSVerify: true,
    });
    expect(kc.getCurrentUser()).toEqual({ name: 'u', token: 'abc' });
    expect(kc.getContextObject('ctx')?.namespace).toBe('team');
  });

  it('merges a KUBECONFIG list as kubectl: the first file to define a name or set current-context wins', () => {
    const first = file(
      'first',
      KUBECONFIG_YAML.replace('current-context: ctx\n', '').replace('example.invalid', 'first.invalid'),
    );
    const second = file(
      'second',
      KUBECONFIG_YAML.replace('example.invalid', 'second.invalid')
        .replace('name: ctx', 'name: other')
        .replace('current-context: ctx', 'current-context: other'),
    );
    const kc = readKubeConfig({ KUBECONFIG: [first, second].join(':'), HOME: dir });
    expect(kc.getCurrentContext()).toBe('other');
    expect(kc.getCurrentCluster()?.server).toBe('https://first.invalid:6443'); // cluster "c" of the first file
    expect(kc.getContexts().map((c) => c.name)).toEqual(['ctx', 'other']);
  });

  it('resolves relative certificate and token-file paths against the file, reads the token only into client-node', () => {
    mkdirSync(join(dir, 'certs'), { recursive: true });
    writeFileSync(join(dir, 'certs', 'token'), 'from-file\n');
    const yaml = KUBECONFIG_YAML.replace(
      'insecure-skip-tls-verify: true',
      'certificate-authority: certs/ca.crt',
    ).replace('token: abc', 'token-file: certs/token, client-key: certs/key.pem');
    const kc = readKubeConfig({ KUBECONFIG: file('relative', yaml), HOME: dir });
    expect(kc.getCurrentCluster()?.caFile).toBe(join(dir, 'certs', 'ca.crt'));
    expect(kc.getCurrentUser()?.keyFile).toBe(join(dir, 'certs', 'key.pem'));
    expect(kc.getCurrentUser()?.token).toBeUndefined();
    expect(kc.userExtras.get('u')?.tokenFile).toBe(join(dir, 'certs', 'token'));
    const cn = kc.toClientNode();
    expect(cn.getCurrentUser()?.token).toBe('from-file\n');
    expect(cn.getCurrentCluster()?.caFile).toBe(join(dir, 'certs', 'ca.crt'));
    expect(loadKubeConfig({ KUBECONFIG: join(dir, 'relative'), HOME: dir }).getCurrentUser()?.token).toBe(
      'from-file\n',
    );
  });

  it('in a pod: the service account, with the server from KUBERNETES_SERVICE_HOST/PORT', () => {
    const kc = readKubeConfig({
      HOME: dir,
      KUBERNETES_SERVICE_HOST: 'fd00::1',
      KUBERNETES_SERVICE_PORT: '443',
    });
    expect(kc.getCurrentCluster()?.server).toBe('https://[fd00::1]:443');
    expect(kc.getCurrentUser()?.authProvider).toEqual({
      name: 'tokenFile',
      config: { tokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token' },
    });
  });
});
