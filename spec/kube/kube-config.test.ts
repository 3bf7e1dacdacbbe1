import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  KubeConfigNotFoundError,
  isKubeConfigLoadError,
  isKubeConfigNotFound,
  loadKubeConfig,
} from '../../lib/kube/kube-config.js';

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
