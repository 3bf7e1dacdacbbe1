import { formatTime, isJsonObject, objectAt, stringAt, stringsAt, type JsonObject } from './json.js';
import { compareVersions } from './registry.js';
import type { ResourceType, ServedVersion } from './resource-type.js';
import type { PrinterColumn } from './table/table.js';

/** Fills the defaults kube-apiserver sets on a CRD spec (singular, listKind, conversion). */
export function defaultCrdSpec(crd: JsonObject): void {
  const spec = objectAt(crd, 'spec');
  const names = objectAt(spec, 'names');
  if (!spec || !names) return;
  const kind = stringAt(names, 'kind') ?? '';
  if (stringAt(names, 'singular') === undefined || names.singular === '') names.singular = kind.toLowerCase();
  if (stringAt(names, 'listKind') === undefined || names.listKind === '') names.listKind = `${kind}List`;
  if (spec.conversion === undefined) spec.conversion = { strategy: 'None' };
}

/** The server-maintained status of an established CRD. */
export function crdStatus(crd: JsonObject, now: Date, previous?: JsonObject): JsonObject {
  const spec = objectAt(crd, 'spec');
  const time = formatTime(now);
  const prevConditions = Array.isArray(previous?.conditions) ? (previous.conditions as unknown[]) : [];
  const since = (type: string): string => {
    const found = prevConditions.find((c) => isJsonObject(c) && c.type === type);
    return isJsonObject(found) ? (stringAt(found, 'lastTransitionTime') ?? time) : time;
  };
  const versions = Array.isArray(spec?.versions) ? spec.versions.filter(isJsonObject) : [];
  const storage = versions.find((v) => v.storage === true);
  const stored = stringsAt(previous, 'storedVersions');
  const storageName = stringAt(storage, 'name');
  if (storageName !== undefined && !stored.includes(storageName)) stored.push(storageName);
  return {
    conditions: [
      {
        type: 'NamesAccepted',
        status: 'True',
        lastTransitionTime: since('NamesAccepted'),
        reason: 'NoConflicts',
        message: 'no conflicts found',
      },
      {
        type: 'Established',
        status: 'True',
        lastTransitionTime: since('Established'),
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
      },
    ],
    acceptedNames: { ...(objectAt(spec, 'names') ?? {}) },
    storedVersions: stored,
  };
}

function printerColumnsOf(version: JsonObject): PrinterColumn[] | undefined {
  const cols = version.additionalPrinterColumns;
  if (!Array.isArray(cols)) return undefined;
  return cols.filter(isJsonObject).map((c) => {
    const col: PrinterColumn = {
      name: stringAt(c, 'name') ?? '',
      type: stringAt(c, 'type') ?? 'string',
      jsonPath: stringAt(c, 'jsonPath') ?? '',
    };
    const description = stringAt(c, 'description');
    if (description !== undefined) col.description = description;
    if (typeof c.priority === 'number') col.priority = c.priority;
    const format = stringAt(c, 'format');
    if (format !== undefined) col.format = format;
    return col;
  });
}

/**
 * The Warning text for a deprecated version: its deprecationWarning, or kube's default naming the most
 * preferred served, non-deprecated version newer than it
 * (k8s.io/apiextensions-apiserver/pkg/apiserver/customresource_handler.go, defaultDeprecationWarning).
 */
function deprecationWarningOf(spec: JsonObject, version: JsonObject, served: JsonObject[]): string {
  const custom = stringAt(version, 'deprecationWarning');
  if (custom !== undefined) return custom;
  const group = stringAt(spec, 'group') ?? '';
  const kind = stringAt(objectAt(spec, 'names'), 'kind') ?? '';
  const name = stringAt(version, 'name') ?? '';
  const text = `${group}/${name} ${kind} is deprecated`;
  const newer = served
    .filter((v) => v.deprecated !== true)
    .map((v) => stringAt(v, 'name') ?? '')
    .filter((v) => compareVersions(v, name) < 0)
    .sort(compareVersions);
  return newer[0] === undefined ? text : `${text}; use ${group}/${newer[0]} ${kind}`;
}

/** The resource type a (valid) CRD registers. */
export function crdToType(crd: JsonObject): ResourceType {
  const spec = objectAt(crd, 'spec') ?? {};
  const names = objectAt(spec, 'names') ?? {};
  const versions = (Array.isArray(spec.versions) ? spec.versions.filter(isJsonObject) : []).filter(
    (v) => v.served !== false,
  );
  versions.sort((a, b) => compareVersions(stringAt(a, 'name') ?? '', stringAt(b, 'name') ?? ''));
  const storage =
    versions.find((v) => v.storage === true) ?? versions[0] ?? ({ name: 'v1' } satisfies JsonObject);
  const subresources = objectAt(storage, 'subresources');
  const scale = objectAt(subresources, 'scale');
  const kind = stringAt(names, 'kind') ?? '';
  const served: ServedVersion[] = versions.map((v) => {
    const sv: ServedVersion = { name: stringAt(v, 'name') ?? '' };
    const schema = objectAt(objectAt(v, 'schema'), 'openAPIV3Schema');
    if (schema) sv.schema = schema;
    const cols = printerColumnsOf(v);
    if (cols) sv.printerColumns = cols;
    if (v.deprecated === true) sv.deprecationWarning = deprecationWarningOf(spec, v, versions);
    return sv;
  });
  const selectable = Array.isArray(storage.selectableFields)
    ? storage.selectableFields.filter(isJsonObject).map((f) => stringAt(f, 'jsonPath') ?? '')
    : [];
  const type: ResourceType = {
    group: stringAt(spec, 'group') ?? '',
    versions: served,
    storageVersion: stringAt(storage, 'name') ?? 'v1',
    resource: stringAt(names, 'plural') ?? '',
    singular: stringAt(names, 'singular') ?? kind.toLowerCase(),
    kind,
    listKind: stringAt(names, 'listKind') ?? `${kind}List`,
    namespaced: spec.scope !== 'Cluster',
    shortNames: stringsAt(names, 'shortNames'),
    categories: stringsAt(names, 'categories'),
    statusSubresource: objectAt(subresources, 'status') !== undefined,
    builtin: false,
    tracksGeneration: true,
    deleteReturnsObject: false,
    unconditionalUpdate: false,
    crdName: stringAt(objectAt(crd, 'metadata'), 'name') ?? '',
    selectableFields: selectable,
  };
  const allVersions = Array.isArray(spec.versions) ? spec.versions.filter(isJsonObject) : [];
  const storageSchema = objectAt(
    objectAt(
      allVersions.find((v) => v.storage === true),
      'schema',
    ),
    'openAPIV3Schema',
  );
  if (storageSchema) type.storageSchema = storageSchema;
  if (scale) {
    type.scale = {
      specReplicasPath: stringAt(scale, 'specReplicasPath') ?? '.spec.replicas',
      statusReplicasPath: stringAt(scale, 'statusReplicasPath') ?? '.status.replicas',
    };
    const selectorPath = stringAt(scale, 'labelSelectorPath');
    if (selectorPath !== undefined) type.scale.labelSelectorPath = selectorPath;
  }
  return type;
}
