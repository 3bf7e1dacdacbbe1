import type { KubernetesObject, V1OwnerReference } from '@kubernetes/client-node';
import { AlreadyOwnedError } from '../errors/already-owned-error.js';
import { InvalidConfigError } from '../errors/invalid-config-error.js';

/**
 * Makes `owner` the controller of `child` (controller-runtime's `SetControllerReference`) and returns
 * `child` (mutated in place): appends an ownerReference with `controller: true` and
 * `blockOwnerDeletion: true`, so the garbage collector deletes the child with its owner and
 * `Owns`-watches map the child's changes to the owner. Other owner references are kept; a reference to
 * the same owner (same uid) is updated instead of duplicated.
 *
 * Throws {@link InvalidConfigError} when the owner lacks apiVersion, kind, name or uid (it must have been
 * read from the API server), or when a namespaced owner would own a child in another namespace or a
 * cluster-scoped child (the garbage collector would delete such a child at once); throws
 * {@link AlreadyOwnedError} when the child already has a different controller.
 * @category Engine: Framework and ControllerCore
 */
export function setControllerReference<C extends KubernetesObject>(owner: KubernetesObject, child: C): C {
  const meta = owner.metadata;
  const { apiVersion, kind } = owner;
  const name = meta?.name;
  const uid = meta?.uid;
  if (
    apiVersion === undefined ||
    apiVersion === '' ||
    kind === undefined ||
    kind === '' ||
    name === undefined ||
    name === '' ||
    uid === undefined ||
    uid === ''
  ) {
    throw new InvalidConfigError(
      'setControllerReference(owner, child): owner needs apiVersion, kind, metadata.name and metadata.uid ' +
        '(use the object as read from the API server)',
    );
  }
  const ownerNamespace = meta?.namespace ?? '';
  const childNamespace = child.metadata?.namespace ?? '';
  if (ownerNamespace !== '' && childNamespace !== ownerNamespace) {
    throw new InvalidConfigError(
      `setControllerReference: ${kind} ${ownerNamespace}/${name} is namespaced and cannot own ` +
        (childNamespace === ''
          ? 'a cluster-scoped object or one without a namespace'
          : `an object in namespace '${childNamespace}'`) +
        " (owner references never cross namespaces): set child.metadata.namespace to the owner's",
    );
  }
  child.metadata ??= {};
  const refs = [...(child.metadata.ownerReferences ?? [])];
  const existing = refs.find((r) => r.controller === true && r.uid !== uid);
  if (existing !== undefined) {
    throw new AlreadyOwnedError(
      `${child.kind ?? 'object'} ${child.metadata.name ?? ''} is already controlled by ${existing.kind} ` +
        `${existing.name} (uid ${existing.uid}); an object has one controller: remove that reference first`,
      { apiVersion: existing.apiVersion, kind: existing.kind, name: existing.name, uid: existing.uid },
    );
  }
  const ref: V1OwnerReference = { apiVersion, kind, name, uid, controller: true, blockOwnerDeletion: true };
  const index = refs.findIndex((r) => r.uid === uid);
  if (index >= 0) refs[index] = ref;
  else refs.push(ref);
  child.metadata.ownerReferences = refs;
  return child;
}
