import type { FieldCause } from '../field-cause.js';
import type { KindRef } from '../patch/kind-ref.js';
import { isBuiltInGroup } from '../patch/list-strategy.js';
import { isJsonObject, jsonEqual } from '../patch/json-value.js';
import { fieldError } from './field-errors.js';
import {
  checkDns1035Label,
  checkDns1123Label,
  checkDns1123Subdomain,
  checkLabelValue,
  checkQualifiedName,
} from './name-rules.js';

/** Total size of all annotation keys and values, in bytes (kube's TotalAnnotationSizeLimitB). */
export const ANNOTATIONS_MAX_TOTAL_BYTES = 256 * 1024;

/** Finalizers built-in kinds accept without a domain prefix. */
export const STANDARD_FINALIZERS: readonly string[] = ['kubernetes', 'orphan', 'foregroundDeletion'];

export interface ObjectMetaValidationOptions {
  /** Kind of the object; selects the name rule and whether unqualified finalizers are errors. */
  kind: KindRef;
  /** True for namespaced kinds: the namespace is then required (the server copies it from the URL first). */
  namespaced: boolean;
  /** create: name or generateName required; update: identity fields compared with `old`. */
  operation: 'create' | 'update';
  /** The stored object, on update: enables immutability checks and the no-new-finalizer-while-deleting rule. */
  old?: Record<string, unknown>;
}

/** Which name grammar a kind uses. */
function checkName(kind: KindRef, name: string): string[] {
  if (kind.group === '' && kind.kind === 'Namespace') return checkDns1123Label(name);
  if (kind.group === '' && kind.kind === 'Service') return checkDns1035Label(name);
  return checkDns1123Subdomain(name);
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * Validates `metadata` of an object as the kind's own validation does in kube-apiserver (the strategy's
 * ValidateObjectMeta on create, ValidateObjectMetaUpdate on update; for built-in kinds followed by the
 * check that an unqualified finalizer is a standard one): name / generateName, namespace, labels,
 * annotations, ownerReferences, finalizers on create; with `old`, deletion-time finalizers, the immutable
 * identity fields, labels, annotations and ownerReferences. Causes in kube's order, with fields like
 * `metadata.labels`.
 */
export function validateObjectMeta(
  obj: Record<string, unknown>,
  options: ObjectMetaValidationOptions,
): FieldCause[] {
  const meta = isJsonObject(obj.metadata) ? obj.metadata : {};
  const oldMeta = isJsonObject(options.old?.metadata) ? options.old.metadata : undefined;
  const causes =
    options.operation === 'update' && oldMeta !== undefined
      ? metaUpdateCauses(meta, oldMeta)
      : metaCreateCauses(
          meta,
          options.namespaced,
          (name) => checkName(options.kind, name),
          options.operation,
        );
  if (isBuiltInGroup(options.kind.group)) causes.push(...kubeFinalizerNameCauses(meta.finalizers));
  return causes;
}

/**
 * The metadata checks kube-apiserver's generic update path (rest.BeforeUpdate's validateCommonFields) runs
 * before the kind's own: ValidateObjectMetaAccessor with the path-segment name rule, then
 * ValidateObjectMetaAccessorUpdate. They repeat what the kind checks, so a bad label on update is a cause
 * several times over (the Status message lists it once).
 */
export function commonUpdateMetaCauses(
  obj: Record<string, unknown>,
  old: Record<string, unknown>,
  namespaced: boolean,
): FieldCause[] {
  const meta = isJsonObject(obj.metadata) ? obj.metadata : {};
  const oldMeta = isJsonObject(old.metadata) ? old.metadata : {};
  return [
    ...metaCreateCauses(meta, namespaced, checkPathSegmentName, 'update'),
    ...metaUpdateCauses(meta, oldMeta),
  ];
}

/** ValidatePathSegmentName: what any name must be to appear in a URL path. */
function checkPathSegmentName(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

/** ValidateObjectMetaAccessor: generateName, name, namespace, labels, annotations, ownerReferences, finalizers. */
function metaCreateCauses(
  meta: Record<string, unknown>,
  namespaced: boolean,
  nameRule: (name: string) => string[],
  operation: 'create' | 'update',
): FieldCause[] {
  const causes: FieldCause[] = [];
  const name = stringOf(meta.name) ?? '';
  const generateName = stringOf(meta.generateName) ?? '';
  if (generateName !== '') {
    // A trailing '-' is allowed in the prefix: the random suffix follows it.
    const masked = generateName.endsWith('-') ? `${generateName.slice(0, -1)}a` : generateName;
    for (const p of nameRule(masked))
      causes.push(fieldError.invalid('metadata.generateName', generateName, p));
  }
  if (name === '' && generateName !== '' && operation === 'create') {
    // The server generates the name from the prefix before kube validates it.
  } else if (name === '') {
    causes.push(
      fieldError.required(
        'metadata.name',
        operation === 'create' ? 'name or generateName is required' : 'name is required',
      ),
    );
  } else {
    for (const p of nameRule(name)) causes.push(fieldError.invalid('metadata.name', name, p));
  }
  causes.push(...validateNamespace(meta, namespaced));
  if (typeof meta.generation === 'number' && meta.generation < 0) {
    causes.push(
      fieldError.invalid('metadata.generation', meta.generation, 'must be greater than or equal to 0'),
    );
  }
  causes.push(...validateLabels(meta.labels));
  causes.push(...validateAnnotations(meta.annotations));
  causes.push(...validateOwnerReferences(meta.ownerReferences));
  causes.push(...validateFinalizers(meta.finalizers));
  return causes;
}

/** ValidateObjectMetaAccessorUpdate: no new finalizers while deleting, identity fields, labels, annotations, owners. */
function metaUpdateCauses(meta: Record<string, unknown>, oldMeta: Record<string, unknown>): FieldCause[] {
  const causes: FieldCause[] = [];
  if (oldMeta.deletionTimestamp !== undefined && oldMeta.deletionTimestamp !== null) {
    const before = new Set(Array.isArray(oldMeta.finalizers) ? oldMeta.finalizers : []);
    const now = Array.isArray(meta.finalizers) ? meta.finalizers : [];
    const added = [...new Set(now.filter((f) => !before.has(f)).map(String))].sort();
    if (added.length > 0) {
      causes.push(
        fieldError.forbidden(
          'metadata.finalizers',
          `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
        ),
      );
    }
  }
  causes.push(...validateImmutable(meta, oldMeta));
  causes.push(...validateLabels(meta.labels));
  causes.push(...validateAnnotations(meta.annotations));
  causes.push(...validateOwnerReferences(meta.ownerReferences));
  return causes;
}

/** validateKubeFinalizerName (built-in kinds): an unqualified finalizer must be a standard one. */
function kubeFinalizerNameCauses(finalizers: unknown): FieldCause[] {
  if (!Array.isArray(finalizers)) return [];
  const causes: FieldCause[] = [];
  finalizers.forEach((finalizer: unknown, i) => {
    if (
      typeof finalizer === 'string' &&
      !finalizer.includes('/') &&
      !STANDARD_FINALIZERS.includes(finalizer)
    ) {
      causes.push(
        fieldError.invalid(
          `metadata.finalizers[${String(i)}]`,
          finalizer,
          'name is neither a standard finalizer name nor is it fully qualified',
        ),
      );
    }
  });
  return causes;
}

function validateNamespace(meta: Record<string, unknown>, namespaced: boolean): FieldCause[] {
  const namespace = stringOf(meta.namespace) ?? '';
  if (!namespaced) {
    return namespace === '' ? [] : [fieldError.forbidden('metadata.namespace', 'not allowed on this type')];
  }
  if (namespace === '') return [fieldError.required('metadata.namespace')];
  return checkDns1123Label(namespace).map((p) => fieldError.invalid('metadata.namespace', namespace, p));
}

function validateLabels(labels: unknown): FieldCause[] {
  if (labels === undefined || labels === null) return [];
  if (!isJsonObject(labels))
    return [fieldError.typeInvalid('metadata.labels', labels, 'must be a map of strings')];
  const causes: FieldCause[] = [];
  for (const [key, value] of Object.entries(labels)) {
    for (const p of checkQualifiedName(key)) causes.push(fieldError.invalid('metadata.labels', key, p));
    if (typeof value !== 'string') {
      causes.push(fieldError.typeInvalid('metadata.labels', value, 'label values must be strings'));
      continue;
    }
    for (const p of checkLabelValue(value)) causes.push(fieldError.invalid('metadata.labels', value, p));
  }
  return causes;
}

function validateAnnotations(annotations: unknown): FieldCause[] {
  if (annotations === undefined || annotations === null) return [];
  if (!isJsonObject(annotations)) {
    return [fieldError.typeInvalid('metadata.annotations', annotations, 'must be a map of strings')];
  }
  const causes: FieldCause[] = [];
  let total = 0;
  for (const [key, value] of Object.entries(annotations)) {
    for (const p of checkQualifiedName(key.toLowerCase()))
      causes.push(fieldError.invalid('metadata.annotations', key, p));
    if (typeof value !== 'string') {
      causes.push(fieldError.typeInvalid('metadata.annotations', value, 'annotation values must be strings'));
      continue;
    }
    total += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (total > ANNOTATIONS_MAX_TOTAL_BYTES)
    causes.push(fieldError.tooLong('metadata.annotations', ANNOTATIONS_MAX_TOTAL_BYTES));
  return causes;
}

/** ValidateFinalizers: each a qualified name (causes on `metadata.finalizers`), not orphan and foregroundDeletion both. */
function validateFinalizers(finalizers: unknown): FieldCause[] {
  if (finalizers === undefined || finalizers === null) return [];
  if (!Array.isArray(finalizers))
    return [fieldError.typeInvalid('metadata.finalizers', finalizers, 'must be a list of strings')];
  const causes: FieldCause[] = [];
  for (const finalizer of finalizers) {
    if (typeof finalizer !== 'string') {
      causes.push(fieldError.typeInvalid('metadata.finalizers', finalizer, 'must be a string'));
      continue;
    }
    for (const p of checkQualifiedName(finalizer))
      causes.push(fieldError.invalid('metadata.finalizers', finalizer, p));
  }
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    causes.push(
      fieldError.invalid(
        'metadata.finalizers',
        finalizers,
        'finalizer orphan and foregroundDeletion cannot be both set',
      ),
    );
  }
  return causes;
}

function validateOwnerReferences(ownerReferences: unknown): FieldCause[] {
  if (ownerReferences === undefined || ownerReferences === null) return [];
  const field = 'metadata.ownerReferences';
  if (!Array.isArray(ownerReferences))
    return [fieldError.typeInvalid(field, ownerReferences, 'must be a list')];
  const causes: FieldCause[] = [];
  const controllers: string[] = [];
  for (const ref of ownerReferences) {
    if (!isJsonObject(ref)) {
      causes.push(fieldError.typeInvalid(field, ref, 'must be an object'));
      continue;
    }
    const apiVersion = stringOf(ref.apiVersion) ?? '';
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    if (version === '')
      causes.push(fieldError.invalid(`${field}.apiVersion`, apiVersion, 'version must not be empty'));
    for (const key of ['kind', 'name', 'uid'] as const) {
      if (!stringOf(ref[key]))
        causes.push(fieldError.invalid(`${field}.${key}`, ref[key] ?? '', `${key} must not be empty`));
    }
    if (apiVersion === 'v1' && ref.kind === 'Event') {
      causes.push(fieldError.invalid(`${field}.kind`, 'Event', 'is disallowed from being an owner'));
    }
    if (ref.controller === true) controllers.push(stringOf(ref.name) ?? '');
  }
  if (controllers.length > 1) {
    causes.push(
      fieldError.invalid(
        field,
        ownerReferences,
        `Only one reference can have Controller set to true. Found "true" in references for ${controllers.join(' and ')}`,
      ),
    );
  }
  return causes;
}

const IMMUTABLE_FIELDS = [
  'name',
  'namespace',
  'uid',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
];

function validateImmutable(meta: Record<string, unknown>, oldMeta: Record<string, unknown>): FieldCause[] {
  // A field the update omits is not a change: the server carries system fields over from the stored object.
  const changed = IMMUTABLE_FIELDS.filter(
    (key) => meta[key] !== undefined && !jsonEqual(meta[key], oldMeta[key] ?? null),
  );
  return changed.map((key) => fieldError.invalid(`metadata.${key}`, meta[key] ?? null, 'field is immutable'));
}
