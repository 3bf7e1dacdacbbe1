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
 * Validates `metadata` of an object as kube-apiserver does before storing it (§7 of the reference):
 * name / generateName, namespace, labels, annotations, finalizers, ownerReferences, and with `old`
 * the immutable identity fields. Returns one cause per problem with fields like `metadata.labels`.
 */
export function validateObjectMeta(
  obj: Record<string, unknown>,
  options: ObjectMetaValidationOptions,
): FieldCause[] {
  const causes: FieldCause[] = [];
  const meta = isJsonObject(obj.metadata) ? obj.metadata : {};
  const name = stringOf(meta.name) ?? '';
  const generateName = stringOf(meta.generateName) ?? '';
  if (name === '') {
    if (options.operation === 'create' && generateName === '') {
      causes.push(fieldError.required('metadata.name', 'name or generateName is required'));
    } else if (options.operation === 'update') {
      causes.push(fieldError.required('metadata.name', 'name is required'));
    }
  } else {
    for (const p of checkName(options.kind, name)) causes.push(fieldError.invalid('metadata.name', name, p));
  }
  if (generateName !== '' && name === '') {
    // A trailing '-' is allowed in the prefix: the random suffix follows it.
    const masked = generateName.endsWith('-') ? `${generateName.slice(0, -1)}a` : generateName;
    for (const p of checkName(options.kind, masked))
      causes.push(fieldError.invalid('metadata.generateName', generateName, p));
  }
  causes.push(...validateNamespace(meta, options.namespaced));
  causes.push(...validateLabels(meta.labels));
  causes.push(...validateAnnotations(meta.annotations));
  causes.push(...validateFinalizers(meta.finalizers, options));
  causes.push(...validateOwnerReferences(meta.ownerReferences));
  if (options.operation === 'update' && options.old) causes.push(...validateImmutable(meta, options.old));
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

function validateFinalizers(finalizers: unknown, options: ObjectMetaValidationOptions): FieldCause[] {
  if (finalizers === undefined || finalizers === null) return [];
  if (!Array.isArray(finalizers))
    return [fieldError.typeInvalid('metadata.finalizers', finalizers, 'must be a list of strings')];
  const causes: FieldCause[] = [];
  const builtIn = isBuiltInGroup(options.kind.group);
  finalizers.forEach((finalizer, i) => {
    const field = `metadata.finalizers[${i}]`;
    if (typeof finalizer !== 'string') {
      causes.push(fieldError.typeInvalid(field, finalizer, 'must be a string'));
      return;
    }
    for (const p of checkQualifiedName(finalizer)) causes.push(fieldError.invalid(field, finalizer, p));
    if (builtIn && !finalizer.includes('/') && !STANDARD_FINALIZERS.includes(finalizer)) {
      causes.push(
        fieldError.invalid(
          field,
          finalizer,
          'name is neither a standard finalizer name nor is it fully qualified',
        ),
      );
    }
  });
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    causes.push(
      fieldError.invalid(
        'metadata.finalizers',
        finalizers,
        'finalizer orphan and foregroundDeletion cannot be both set',
      ),
    );
  }
  const oldMeta = isJsonObject(options.old?.metadata) ? options.old.metadata : undefined;
  if (options.operation === 'update' && oldMeta?.deletionTimestamp) {
    const oldFinalizers = Array.isArray(oldMeta.finalizers) ? oldMeta.finalizers : [];
    const added = finalizers.filter((f) => !oldFinalizers.includes(f));
    if (added.length > 0) {
      causes.push(
        fieldError.forbidden(
          'metadata.finalizers',
          `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
        ),
      );
    }
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

function validateImmutable(meta: Record<string, unknown>, old: Record<string, unknown>): FieldCause[] {
  const oldMeta = isJsonObject(old.metadata) ? old.metadata : {};
  // A field the update omits is not a change: the server carries system fields over from the stored object.
  const changed = IMMUTABLE_FIELDS.filter(
    (key) => meta[key] !== undefined && !jsonEqual(meta[key], oldMeta[key] ?? null),
  );
  return changed.map((key) => fieldError.invalid(`metadata.${key}`, meta[key] ?? null, 'field is immutable'));
}
