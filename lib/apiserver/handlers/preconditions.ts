import type { FieldCause } from '../field-cause.js';
import { display } from '../json.js';
import { typeKey, type ResourceType } from '../resource-type.js';
import { ApiError, conflict, failureStatus, type StatusDetails } from '../status.js';

/** Resources kube-apiserver stores under another etcd prefix than their plural (pkg/registry/…/storage). */
const STORAGE_PREFIX: Record<string, string> = {
  '/services': 'services/specs',
  '/endpoints': 'services/endpoints',
  '/nodes': 'minions',
  '/replicationcontrollers': 'controllers',
  'networking.k8s.io/ingresses': 'ingress',
  'apiextensions.k8s.io/customresourcedefinitions': 'apiextensions.k8s.io/customresourcedefinitions',
};

/** The etcd key kube-apiserver keeps an object under: `/registry/configmaps/ns/name`, `/registry/<group>/<plural>/…` for custom resources. */
export function storageKey(type: ResourceType, namespace: string | undefined, name: string): string {
  const prefix =
    STORAGE_PREFIX[typeKey(type)] ?? (type.builtin ? type.resource : `${type.group}/${type.resource}`);
  return `/registry/${prefix}/${namespace === undefined ? '' : `${namespace}/`}${name}`;
}

/**
 * A PUT whose body carries another object's uid: the storage layer's precondition failure, as
 * kube-apiserver words it (k8s.io/apiserver/pkg/storage/errors.go NewInvalidObjError in GuaranteedUpdate).
 */
export function updateUidConflict(
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  given: unknown,
  stored: unknown,
): ApiError {
  return conflict(
    type,
    name,
    `StorageError: invalid object, Code: 4, Key: ${storageKey(type, namespace, name)}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${display(given)}, UID in object meta: ${display(stored)}`,
  );
}

/**
 * A PATCH that changes metadata.uid: ValidateObjectMetaUpdate's 422 (kube reports the cause twice: the
 * strategy and the generic update path both validate it; the message once).
 */
export function patchUidImmutable(type: ResourceType, name: string, given: unknown): ApiError {
  const message = `Invalid value: ${JSON.stringify(display(given))}: field is immutable`;
  const cause: FieldCause = { reason: 'FieldValueInvalid', message, field: 'metadata.uid' };
  const qualified = type.group === '' ? type.kind : `${type.kind}.${type.group}`;
  const detailsBody: StatusDetails = { name, kind: type.kind, causes: [cause, { ...cause }] };
  if (type.group !== '') detailsBody.group = type.group;
  return new ApiError(
    failureStatus(422, 'Invalid', `${qualified} "${name}" is invalid: metadata.uid: ${message}`, detailsBody),
  );
}

/**
 * A DELETE whose preconditions do not hold: the registry's texts (k8s.io/apiserver/pkg/registry/generic/
 * registry/store.go), on the kind (`ConfigMap`, `Thing.example.com`), not the plural.
 */
export function deletePreconditionConflict(
  type: ResourceType,
  name: string,
  field: 'UID' | 'ResourceVersion',
  given: string,
  stored: unknown,
): ApiError {
  const qualified = type.group === '' ? type.kind : `${type.kind}.${type.group}`;
  const tail =
    field === 'UID'
      ? 'The object might have been deleted and then recreated'
      : 'The object might have been modified';
  const detailsBody: StatusDetails = { name, kind: type.kind };
  if (type.group !== '') detailsBody.group = type.group;
  return new ApiError(
    failureStatus(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualified} "${name}": the ${field} in the precondition (${given}) does not match the ${field} in record (${display(stored)}). ${tail}`,
      detailsBody,
    ),
  );
}
