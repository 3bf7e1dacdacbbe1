import type { KubernetesObject } from '@kubernetes/client-node';
import type { ObjectClient, PatchOptions } from '../kube/object-client.js';
import type { ResourceRef } from '../kube/resource-ref.js';

/**
 * JSON-patches the labels of `obj` (of kind `resource`): `ops` gets the JSON-pointer path of a label key
 * (escaped per RFC 6901) and returns the operations, `test` ops included, so a label that changed meanwhile
 * fails the write (422) instead of being overwritten. The one shape of the hand-off's relabel and the
 * shard's acknowledgement of a drain.
 */
export async function patchLabels(
  client: ObjectClient,
  resource: ResourceRef,
  obj: KubernetesObject,
  ops: (path: (key: string) => string) => readonly { op: string; path: string; value?: unknown }[],
  options: PatchOptions,
): Promise<void> {
  const path = (key: string): string => `/metadata/labels/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  await client.patch(
    {
      apiVersion: resource.apiVersion,
      kind: resource.kind,
      ...(resource.plural === undefined ? {} : { plural: resource.plural }),
      ...(obj.metadata?.namespace === undefined ? {} : { namespace: obj.metadata.namespace }),
      name: obj.metadata?.name ?? '',
    },
    ops(path),
    'json',
    options,
  );
}
