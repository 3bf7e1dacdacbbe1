import type { ApiServerCore } from './core.js';
import { formatTime, metadataOf, objectAt, stringAt, type JsonObject } from './json.js';

const DEPLOYMENTS = 'apps/deployments';

/** Whether the deployment controller would write this Deployment's status now (generation not observed). */
export function deploymentNeedsStatus(obj: JsonObject): boolean {
  const meta = metadataOf(obj);
  if (stringAt(meta, 'deletionTimestamp') !== undefined) return false;
  const generation = typeof meta.generation === 'number' ? meta.generation : 0;
  const observed = objectAt(obj, 'status')?.observedGeneration;
  return generation > 0 && observed !== generation;
}

/**
 * The status kube-controller-manager's deployment controller writes for a Deployment whose Pods never
 * become ready (there is no scheduler or kubelet): `observedGeneration`; with 0 replicas `Available`
 * True (`MinimumReplicasAvailable`), so `kubectl rollout status` and `kubectl wait --for=condition=Available`
 * finish; otherwise every replica unavailable and `Available` False (`MinimumReplicasUnavailable`).
 * Source: pkg/controller/deployment/sync.go (calculateStatus) and util/deployment_util.go.
 */
export function writeDeploymentStatus(core: ApiServerCore, namespace: string, name: string): void {
  const current = core.store.get(DEPLOYMENTS, namespace, name);
  if (!current || !deploymentNeedsStatus(current)) return;
  const meta = metadataOf(current);
  const spec = objectAt(current, 'spec') ?? {};
  const replicas = typeof spec.replicas === 'number' ? spec.replicas : 1;
  const now = formatTime(core.clock());
  const previous = objectAt(current, 'status') ?? {};
  const oldConditions = Array.isArray(previous.conditions) ? (previous.conditions as JsonObject[]) : [];
  const available =
    replicas === 0
      ? {
          status: 'True',
          reason: 'MinimumReplicasAvailable',
          message: 'Deployment has minimum availability.',
        }
      : {
          status: 'False',
          reason: 'MinimumReplicasUnavailable',
          message: 'Deployment does not have minimum availability.',
        };
  const old = oldConditions.find((c) => c.type === 'Available');
  const condition: JsonObject = {
    type: 'Available',
    ...available,
    lastUpdateTime: old !== undefined && old.status === available.status ? old.lastUpdateTime : now,
    lastTransitionTime: old !== undefined && old.status === available.status ? old.lastTransitionTime : now,
  };
  const status: JsonObject = {
    observedGeneration: meta.generation,
    conditions: [condition, ...oldConditions.filter((c) => c.type !== 'Available')],
  };
  if (replicas > 0) status.unavailableReplicas = replicas;
  core.store.update(DEPLOYMENTS, { ...current, status }, current);
}
