// The manifests `reconcilekit init` writes into deploy/ are the ones the new project's `npm run generate`
// writes from its built code: the same kind (defined here as the scaffold's src/<kind>.ts defines it) and
// the configuration its operator.ts resolves to, through the same generator. The scaffold's
// test/manifests.test.ts fails if the two ever differ.
import { Type } from 'typebox';
import type { ResolvedCoreConfig } from '../../engine/resolve-core-config.js';
import { defineKind } from '../../kinds/define-kind.js';
import { KubeType } from '../../kinds/kube-type.js';
import { resolveSharding } from '../../sharding/sharding-options.js';
import { generateFiles, parseGenerateArgs } from '../generate-command.js';
import type { ProjectNames } from './project-names.js';
import { generateArgs, olderVersion, scaffoldRbacUses } from './source-templates.js';

function scaffoldKind(n: ProjectNames, webhooks: boolean) {
  const status = Type.Object({
    observedGeneration: Type.Optional(Type.Integer()),
    conditions: Type.Optional(KubeType.Conditions()),
  });
  const older = {
    [olderVersion(n.version)]: {
      served: true,
      storage: false,
      spec: Type.Object({ text: Type.String({ maxLength: 1024 }) }),
      status,
      subresources: { status: true },
      printerColumns: [{ name: 'Text', type: 'string' as const, jsonPath: '.spec.text' }],
    },
  };
  return defineKind({
    group: n.group,
    kind: n.kind,
    plural: n.plural,
    singular: n.singular,
    versions: {
      [n.version]: {
        served: true,
        storage: true,
        spec: Type.Object({
          message: Type.String({
            maxLength: 1024,
            description: `Written into the ConfigMap <name>-${n.singular}.`,
          }),
        }),
        status,
        subresources: { status: true },
        printerColumns: [
          { name: 'Message', type: 'string', jsonPath: '.spec.message' },
          { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
        ],
      },
      ...(webhooks ? older : {}),
    },
  });
}

/** deploy/crd.yaml, rbac.yaml and chart/ of a new project, by path relative to the project. */
export function scaffoldManifests(
  n: ProjectNames,
  frontEnd: 'framework' | 'controller',
  webhooks = false,
  sharded = false,
): Map<string, string> {
  const args = parseGenerateArgs(generateArgs(n, sharded));
  if (typeof args === 'string') throw new Error(`scaffold generate arguments: ${args}`);
  const config = {
    name: n.name,
    resource: { apiVersion: n.apiVersion, kind: n.kind, plural: n.plural },
    // Framework manages its finalizer by default; a Controller only with cleanup (the scaffold has none).
    finalizer: frontEnd === 'framework' ? `reconcilekit.io/${n.name}` : false,
    errorCondition: { type: 'Ready' },
    events: undefined,
    owns: frontEnd === 'controller' ? [{ apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' }] : [],
    watches: [],
    leaderElection: false,
    crd: undefined,
    // main.ts's sharding option as \`npm run generate\` loads it (POD_NAMESPACE unset: the operator's name).
    sharding: sharded ? resolveSharding({ leaseNamespace: n.name }, n.name) : undefined,
  } as unknown as ResolvedCoreConfig;
  const files = generateFiles(args, {
    kinds: [scaffoldKind(n, webhooks)],
    configs: [config],
    rbac: { uses: scaffoldRbacUses(frontEnd) },
  });
  return new Map([...files].map(([path, text]) => [`deploy/${path}`, text]));
}
