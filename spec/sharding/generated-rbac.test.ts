// `reconcilekit generate rbac` for a sharded controller: the grants come from `config.sharding` — the shard
// Leases in its lease namespace (wherever that is), patch on the sharded kind for the labels, and patch on
// the owned kinds only when children follow their owner's shard.
import { KubeConfig } from '@kubernetes/client-node';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { generateFiles, parseGenerateArgs } from '../../lib/cli/generate-command.js';
import { Controller } from '../../lib/controller/controller.js';
import { silentLogger } from '../../lib/observability/logger-silent.js';
import type { ShardingOptions } from '../../lib/sharding/sharding-options.js';
import { Gadget } from '../kinds/fixtures/gadget-kind.js';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}
type Doc = { kind: string; metadata: { name: string; namespace?: string }; rules?: Rule[] };

function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromClusterAndUser({ name: 'c', server: 'https://127.0.0.1:9', skipTLSVerify: true }, { name: 'u' });
  return kc;
}

function rbacFor(sharding: ShardingOptions | false): Doc[] {
  const controller = new Controller({
    name: 'gadgets',
    kubeConfig: kubeConfig(),
    resource: Gadget,
    owns: [{ apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' }],
    sharding,
    reconciler: () => undefined,
    logger: silentLogger(),
  });
  const args = parseGenerateArgs(['rbac', 'main.js', '--namespace', 'ops']);
  if (typeof args === 'string') throw new Error(args);
  const text = generateFiles(args, { kinds: [Gadget], configs: [controller.config], rbac: undefined }).get(
    'rbac.yaml',
  );
  return loadAll(text ?? '') as Doc[];
}

/** The verbs granted on `resource` of `group` by the roles of `kind` (in `namespace` for a Role). */
function verbs(docs: Doc[], kind: string, group: string, resource: string, namespace?: string): string[] {
  return docs
    .filter((d) => d.kind === kind && (namespace === undefined || d.metadata.namespace === namespace))
    .flatMap((d) => d.rules ?? [])
    .filter((r) => r.apiGroups.includes(group) && r.resources.includes(resource))
    .flatMap((r) => r.verbs);
}

describe('generate rbac for a sharded controller', () => {
  it('grants the shard Leases in the lease namespace and the label patches on the kind and its children', () => {
    const docs = rbacFor({ leaseNamespace: 'shards' });
    expect(verbs(docs, 'Role', 'coordination.k8s.io', 'leases', 'shards').sort()).toEqual(
      ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'].sort(),
    );
    // Not in the operator's own namespace: the Leases live where the option says.
    expect(verbs(docs, 'Role', 'coordination.k8s.io', 'leases', 'ops')).toEqual([]);
    expect(verbs(docs, 'ClusterRole', Gadget.group, Gadget.plural)).toContain('patch');
    expect(verbs(docs, 'ClusterRole', '', 'configmaps')).toContain('patch');
  });

  it("grants no patch on the children when they do not follow (children: 'all')", () => {
    const docs = rbacFor({ leaseNamespace: 'shards', children: 'all' });
    expect(verbs(docs, 'ClusterRole', '', 'configmaps').sort()).toEqual(['list', 'watch']);
    expect(verbs(docs, 'Role', 'coordination.k8s.io', 'leases', 'shards')).toContain('watch');
  });

  it('grants no shard Leases and no label patches without the option', () => {
    const docs = rbacFor(false);
    expect(docs.filter((d) => d.kind === 'Role')).toEqual([]);
    expect(verbs(docs, 'ClusterRole', '', 'configmaps')).not.toContain('patch');
  });
});
