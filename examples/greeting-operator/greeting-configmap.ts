/* eslint-disable @typescript-eslint/no-misused-spread -- client-node models are plain-data classes. */
// The CRUD resource of docs/getting-started.md: one ConfigMap per Greeting, holding its message.
import type { V1ConfigMap } from '@kubernetes/client-node';
import { clientKey, isNotFound, Patch, type CRUDResourceOps, type ReconcileContext } from 'reconcilekit';
import type { Greeting } from './greeting.js';

type State = V1ConfigMap | undefined;

function client(ctx: ReconcileContext) {
  const c = ctx.get(clientKey);
  if (c === undefined) throw new Error('run under a Framework: it puts its API client in the context');
  return c;
}

function ref(greeting: Greeting) {
  const { name = '', namespace = 'default' } = greeting.metadata;
  return { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace, name: `${name}-greeting` };
}

/** Current state: the ConfigMap as it is (undefined when missing). Desired: as it should be. Patch: the difference. */
export const greetingConfigMap: CRUDResourceOps<Greeting, State, V1ConfigMap> = {
  name: 'greeting-configmap',
  async getCurrentState(ctx, greeting) {
    try {
      return await client(ctx).get<V1ConfigMap>(ref(greeting), { signal: ctx.signal });
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  },
  getDesiredState(_ctx, greeting) {
    const { namespace, name } = ref(greeting);
    return {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace, name },
      data: { message: greeting.spec.message },
    };
  },
  newUpdatePatch(_ctx, _greeting, current, desired) {
    if (desired === undefined) return undefined;
    if (current === undefined) return new Patch<V1ConfigMap>().setCreateChange(desired);
    if (current.data?.message === desired.data?.message) return undefined; // nothing to do
    return new Patch<V1ConfigMap>().setUpdateChange({ ...current, data: desired.data });
  },
  newDeletePatch(_ctx, _greeting, current) {
    return current === undefined ? undefined : new Patch<V1ConfigMap>().setDeleteChange(current);
  },
  async applyCreateChange(ctx, _greeting, configMap) {
    await client(ctx).create(configMap, { signal: ctx.signal });
  },
  async applyDeleteChange(ctx, greeting) {
    try {
      await client(ctx).delete(ref(greeting), { signal: ctx.signal });
    } catch (e) {
      if (!isNotFound(e)) throw e; // already gone is what we wanted
    }
  },
  async applyUpdateChange(ctx, _greeting, configMap) {
    await client(ctx).replace(configMap, { signal: ctx.signal });
  },
};
