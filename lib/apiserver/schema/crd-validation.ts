import type { FieldCause } from '../field-cause.js';
import { isJsonObject, jsonEqual } from '../patch/json-value.js';
import { fieldError } from '../validation/field-errors.js';
import { checkDns1035Label, checkDns1123Label, checkDns1123Subdomain } from '../validation/name-rules.js';
import { validateStructuralSchema } from './structural-schema.js';
import { validateSchemaRules } from '../cel/compiled-rules.js';

const SCOPES = ['Namespaced', 'Cluster'];
const COLUMN_TYPES = ['integer', 'number', 'string', 'boolean', 'date'];
const KIND_PATTERN = /^[A-Za-z]([-A-Za-z0-9]*[A-Za-z0-9])?$/;

function record(value: unknown): Record<string, unknown> {
  return isJsonObject(value) ? value : {};
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * Validates an `apiextensions.k8s.io/v1` CustomResourceDefinition as kube-apiserver does on create and
 * update (the subset that matters): metadata.name = `<plural>.<group>`, group with a dot, names, scope,
 * versions (unique names, exactly one storage, at least one served, a structural schema each), printer
 * columns and the scale subresource paths. Call it after defaulting `names.singular` and `listKind`
 * (see defaultCustomResourceDefinitionNames). Returns one cause per problem.
 */
export function validateCustomResourceDefinition(crd: Record<string, unknown>): FieldCause[] {
  const causes: FieldCause[] = [];
  const spec = record(crd.spec);
  const names = record(spec.names);
  const group = text(spec.group);
  const plural = text(names.plural);
  const name = text(record(crd.metadata).name);
  if (name !== `${plural}.${group}`) {
    causes.push(fieldError.invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  }
  if (group === '') causes.push(fieldError.required('spec.group'));
  else {
    for (const p of checkDns1123Subdomain(group)) causes.push(fieldError.invalid('spec.group', group, p));
    if (!group.includes('.'))
      causes.push(fieldError.invalid('spec.group', group, 'should be a domain with at least one dot'));
  }
  if (!SCOPES.includes(text(spec.scope)))
    causes.push(fieldError.notSupported('spec.scope', spec.scope ?? '', SCOPES));
  causes.push(...validateNames(names));
  causes.push(...validateVersions(spec.versions));
  return causes;
}

function validateNames(names: Record<string, unknown>): FieldCause[] {
  const causes: FieldCause[] = [];
  for (const key of ['plural', 'singular']) {
    const value = text(names[key]);
    if (value === '') {
      if (key === 'plural') causes.push(fieldError.required('spec.names.plural'));
      continue;
    }
    for (const p of checkDns1123Label(value)) causes.push(fieldError.invalid(`spec.names.${key}`, value, p));
  }
  for (const key of ['kind', 'listKind']) {
    const value = text(names[key]);
    if (value === '') {
      causes.push(fieldError.required(`spec.names.${key}`));
    } else if (!KIND_PATTERN.test(value)) {
      causes.push(
        fieldError.invalid(
          `spec.names.${key}`,
          value,
          'may have mixed case, but should otherwise match: [a-z]([-a-z0-9]*[a-z0-9])?',
        ),
      );
    }
  }
  if (text(names.kind) !== '' && names.kind === names.listKind) {
    causes.push(
      fieldError.invalid('spec.names.listKind', names.listKind, 'kind and listKind may not be the same'),
    );
  }
  const shortNames = Array.isArray(names.shortNames) ? names.shortNames : [];
  shortNames.forEach((shortName, i) => {
    for (const p of checkDns1123Label(text(shortName)))
      causes.push(fieldError.invalid(`spec.names.shortNames[${i}]`, shortName, p));
  });
  return causes;
}

function validateVersions(versions: unknown): FieldCause[] {
  if (!Array.isArray(versions) || versions.length === 0) {
    return [
      fieldError.invalid(
        'spec.versions',
        versions ?? null,
        'must have exactly one version marked as storage version',
      ),
    ];
  }
  const causes: FieldCause[] = [];
  const seen = new Set<string>();
  let storage = 0;
  let served = 0;
  // kube validates the internal CRD: a schema, columns or subresources every version shares identically
  // are moved to spec.validation / spec.additionalPrinterColumns / spec.subresources first
  // (pkg/apis/apiextensions/v1/conversion.go), and their errors name those paths.
  const shared = (field: string): boolean =>
    versions.every((v) => jsonEqual(record(v)[field], record(versions[0])[field]));
  const sharedSchema = shared('schema') && isJsonObject(record(record(versions[0]).schema).openAPIV3Schema);
  const sharedColumns = shared('additionalPrinterColumns');
  const sharedSubresources = shared('subresources');
  versions.forEach((raw, i) => {
    const path = `spec.versions[${i}]`;
    const version = record(raw);
    const name = text(version.name);
    if (name === '') causes.push(fieldError.required(`${path}.name`));
    else {
      for (const p of checkDns1035Label(name)) causes.push(fieldError.invalid(`${path}.name`, name, p));
      if (seen.has(name)) causes.push(fieldError.duplicate(`${path}.name`, name));
      seen.add(name);
    }
    if (version.storage === true) storage++;
    if (version.served === true) served++;
    if (!sharedSchema || i === 0) {
      const schemaPath = sharedSchema ? 'spec.validation.openAPIV3Schema' : `${path}.schema.openAPIV3Schema`;
      const schema = record(record(version.schema).openAPIV3Schema);
      if (!isJsonObject(record(version.schema).openAPIV3Schema)) {
        causes.push(fieldError.required(schemaPath));
      } else {
        const structural = validateStructuralSchema(schema, schemaPath);
        causes.push(...structural);
        if (structural.length === 0) causes.push(...validateSchemaRules(schema, schemaPath));
      }
    }
    causes.push(...validateDeprecationWarning(version, `${path}.deprecationWarning`));
    if (!sharedColumns || i === 0) {
      const columnsPath = sharedColumns
        ? 'spec.additionalPrinterColumns'
        : `${path}.additionalPrinterColumns`;
      causes.push(...validateColumns(version.additionalPrinterColumns, columnsPath));
    }
    if (!sharedSubresources || i === 0) {
      const scalePath = sharedSubresources ? 'spec.subresources.scale' : `${path}.subresources.scale`;
      causes.push(...validateScale(record(record(version.subresources).scale), scalePath, version));
    }
  });
  if (storage !== 1) {
    causes.push(
      fieldError.invalid(
        'spec.versions',
        versions,
        'must have exactly one version marked as storage version',
      ),
    );
  }
  if (served === 0)
    causes.push(fieldError.invalid('spec.versions', versions, 'must have at least one served version'));
  return causes;
}

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/**
 * deprecationWarning: at most 256 bytes, only on a deprecated version, printable characters only
 * (k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go).
 */
function validateDeprecationWarning(version: Record<string, unknown>, path: string): FieldCause[] {
  const warning = version.deprecationWarning;
  if (typeof warning !== 'string') return [];
  const causes: FieldCause[] = [];
  if (Buffer.byteLength(warning) > 256) {
    causes.push(fieldError.invalid(path, warning, 'must be <= 256 characters long'));
  }
  if (version.deprecated !== true) {
    causes.push(fieldError.invalid(path, warning, 'can only be set for deprecated versions'));
  }
  let index = 0;
  for (const char of warning) {
    if (!PRINTABLE.test(char)) {
      causes.push(
        fieldError.invalid(
          path,
          warning,
          `must only contain printable UTF-8 characters; non-printable character found at index ${index}`,
        ),
      );
      break;
    }
    index += Buffer.byteLength(char);
  }
  return causes;
}

function validateColumns(columns: unknown, path: string): FieldCause[] {
  if (!Array.isArray(columns)) return [];
  const causes: FieldCause[] = [];
  columns.forEach((raw, i) => {
    const column = record(raw);
    if (text(column.name) === '') causes.push(fieldError.required(`${path}[${i}].name`));
    if (!COLUMN_TYPES.includes(text(column.type))) {
      causes.push(fieldError.notSupported(`${path}[${i}].type`, column.type ?? '', COLUMN_TYPES));
    }
    if (text(column.jsonPath) === '') causes.push(fieldError.required(`${path}[${i}].jsonPath`));
  });
  return causes;
}

function validateScale(
  scale: Record<string, unknown>,
  path: string,
  version: Record<string, unknown>,
): FieldCause[] {
  if (!isJsonObject(record(version.subresources).scale)) return [];
  const causes: FieldCause[] = [];
  const spec = text(scale.specReplicasPath);
  const status = text(scale.statusReplicasPath);
  if (spec === '') causes.push(fieldError.required(`${path}.specReplicasPath`));
  else if (!spec.startsWith('.spec.'))
    causes.push(fieldError.invalid(`${path}.specReplicasPath`, spec, 'should be a json path under .spec'));
  if (status === '') causes.push(fieldError.required(`${path}.statusReplicasPath`));
  else if (!status.startsWith('.status.')) {
    causes.push(
      fieldError.invalid(`${path}.statusReplicasPath`, status, 'should be a json path under .status'),
    );
  }
  const selector = text(scale.labelSelectorPath);
  if (selector !== '' && !selector.startsWith('.spec.') && !selector.startsWith('.status.')) {
    causes.push(
      fieldError.invalid(
        `${path}.labelSelectorPath`,
        selector,
        'should be a json path under either .spec or .status',
      ),
    );
  }
  return causes;
}

/**
 * Returns a copy of a CRD with kube's defaults for names filled in: singular = lower-cased kind,
 * listKind = `<Kind>List`. Apply before validateCustomResourceDefinition.
 */
export function defaultCustomResourceDefinitionNames(crd: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(crd);
  const spec = record(copy.spec);
  const names = record(spec.names);
  const kind = text(names.kind);
  if (kind !== '' && isJsonObject(spec.names)) {
    if (text(names.singular) === '') spec.names.singular = kind.toLowerCase();
    if (text(names.listKind) === '') spec.names.listKind = `${kind}List`;
  }
  return copy;
}
