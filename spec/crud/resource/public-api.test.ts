import { V1ObjectMeta } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import * as api from '../../../lib/index.js';

// The public names of the core issue are a contract: they must stay exported from the package root.
const CORE_NAMES = [
  'ReconcileContext',
  'defineContextKey',
  'defineFlag',
  'reconciliationCanceled',
  'resourceCanceled',
  'updateAllowed',
  'updateNecessary',
  'deletionAllowed',
  'finalizersKept',
  'installFlags',
  'BUILTIN_FLAGS',
  'CRUDResource',
  'Patch',
  'processUpdate',
  'processDelete',
  'ResourceSet',
  'ResourceRouter',
  'InvalidConfigError',
  'ExecutionFailedError',
  'NoResourceSetError',
  'LoopDetectedError',
  'isInvalidConfig',
  'isExecutionFailed',
  'isNoResourceSet',
  'isLoopDetected',
  'defaultBackOffFactory',
  'backOffAbortable',
  'wrapWithRetry',
  'wrapWithMetrics',
  'underlying',
  'createLogger',
  'silentLogger',
  'RESOURCE_OPERATION_TOTAL',
  'RESOURCE_OPERATION_DURATION_SECONDS',
] as const;

describe('core public API', () => {
  it.each(CORE_NAMES)('exports %s from the package root', (name) => {
    expect(api).toHaveProperty(name);
    expect((api as Record<string, unknown>)[name]).toBeDefined();
  });

  it('uses exactly the metric names of the contract', () => {
    expect(api.RESOURCE_OPERATION_TOTAL).toBe('reconcilekit_resource_operation_total');
    expect(api.RESOURCE_OPERATION_DURATION_SECONDS).toBe('reconcilekit_resource_operation_duration_seconds');
  });

  it('composes end to end: router → set → initCtx → wrapped resources → processUpdate', async () => {
    const calls: string[] = [];
    const ops: api.CRUDResourceOps<api.KubeObject, string[], string[]> = {
      name: 'items',
      getCurrentState: () => ['a', 'b'],
      getDesiredState: () => ['b', 'c'],
      newUpdatePatch: (ctx, _obj, current, desired) => {
        const patch = new api.Patch<string[]>()
          .setCreateChange(desired.filter((d) => !current.includes(d)))
          .setDeleteChange(current.filter((c) => !desired.includes(c)));
        if (api.updateAllowed.is(ctx)) patch.setUpdateChange(desired.filter((d) => current.includes(d)));
        return patch;
      },
      newDeletePatch: (_ctx, _obj, current) => new api.Patch<string[]>().setDeleteChange(current),
      applyCreateChange: (_ctx, _obj, items) => {
        calls.push(`create ${items.join(',')}`);
      },
      applyDeleteChange: (_ctx, _obj, items) => {
        calls.push(`delete ${items.join(',')}`);
      },
      applyUpdateChange: (_ctx, _obj, items) => {
        calls.push(`update ${items.join(',')}`);
      },
    };
    const set = new api.ResourceSet({
      resources: api.wrapWithMetrics(api.wrapWithRetry([new api.CRUDResource({ ops })])),
      initCtx: (ctx) => {
        api.updateAllowed.set(ctx);
      },
    });
    const router = new api.ResourceRouter({ resourceSets: [set] });
    const metadata = new V1ObjectMeta();
    metadata.name = 'x';
    const obj: api.KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata };
    const ctx = new api.ReconcileContext();
    api.installFlags(ctx);
    const chosen = router.resourceSet(obj);
    await chosen.initCtx(ctx, obj);
    await api.processUpdate(ctx, obj, chosen.resources());
    await api.processDelete(ctx, obj, chosen.resources());
    expect(calls).toEqual(['create c', 'delete a', 'update b', 'delete a,b']);
  });
});
