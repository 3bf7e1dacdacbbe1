// Calls into the pure algorithm modules. While one of them is still a stub ("not implemented"), a
// deliberately small temporary fallback keeps the server working; remove once all have landed.
import type { FieldCause } from './field-cause.js';
import {
  display,
  isJsonObject,
  metadataOf,
  objectAt,
  stringAt,
  valueAtPath,
  type JsonObject,
} from './json.js';
import type { KindRef } from './patch/kind-ref.js';
import { applyJsonPatch as jsonPatchImpl } from './patch/json-patch.js';
import {
  recordUpdate as recordUpdateImpl,
  serverSideApply as serverSideApplyImpl,
  type ApplyOptions,
  type ApplyResult,
} from './patch/managed-fields.js';
import { applyMergePatch as mergePatchImpl } from './patch/merge-patch.js';
import { applyStrategicMergePatch as smpImpl } from './patch/strategic-merge-patch.js';
import { validateCustomResourceDefinition as crdValidationImpl } from './schema/crd-validation.js';
import { applySchemaDefaults as defaultsImpl } from './schema/defaults.js';
import type { JSONSchemaProps } from './schema/json-schema-props.js';
import { pruneUnknownFields as pruneImpl } from './schema/prune.js';
import { validateAgainstSchema as validateImpl } from './schema/validate.js';
import { parseFieldSelector as fieldSelectorImpl, type FieldSelector } from './selectors/field-selector.js';
import { parseLabelSelector as labelSelectorImpl, type LabelSelector } from './selectors/label-selector.js';
import { renderTable as renderTableImpl, type PrinterColumn } from './table/table.js';
import { validateObjectMeta as objectMetaImpl } from './validation/object-meta.js';

function stub(e: unknown): boolean {
  return e instanceof Error && e.message === 'not implemented';
}

function withFallback<T>(primary: () => T, fallback: () => T): T {
  try {
    return primary();
  } catch (e) {
    if (stub(e)) return fallback();
    throw e;
  }
}

function mergeFallback(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return patch;
  const out: JsonObject = isJsonObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) Reflect.deleteProperty(out, k);
    else out[k] = mergeFallback(out[k], v);
  }
  return out;
}

export function applyMergePatch(target: unknown, patch: unknown): unknown {
  return withFallback(
    () => mergePatchImpl(target, patch),
    () => mergeFallback(target, patch),
  );
}

export function applyJsonPatch(target: unknown, ops: unknown): unknown {
  return jsonPatchImpl(target, ops);
}

export function applyStrategicMergePatch(target: unknown, patch: unknown, kind: KindRef): unknown {
  return withFallback(
    () => smpImpl(target, patch, kind),
    () => mergeFallback(target, patch),
  );
}

export function serverSideApply(
  live: JsonObject | undefined,
  applied: JsonObject,
  o: ApplyOptions,
): ApplyResult {
  return withFallback(
    () => serverSideApplyImpl(live, applied, o),
    () => ({ object: mergeFallback(live, applied) as JsonObject, conflicts: [] }),
  );
}

export function recordUpdate(
  before: JsonObject | undefined,
  after: JsonObject,
  o: { manager: string; now: string; apiVersion: string; subresource?: string },
): JsonObject {
  return withFallback(
    () => recordUpdateImpl(before, after, o),
    () => after,
  );
}

export function validateCustomResourceDefinition(crd: JsonObject): FieldCause[] {
  return withFallback(
    () => crdValidationImpl(crd),
    () => [],
  );
}

export function applySchemaDefaults(value: unknown, schema: JSONSchemaProps): void {
  withFallback(
    () => {
      defaultsImpl(value, schema);
    },
    () => undefined,
  );
}

export function pruneUnknownFields(value: unknown, schema: JSONSchemaProps): string[] {
  return withFallback(
    () => pruneImpl(value, schema),
    () => [],
  );
}

export function validateAgainstSchema(value: unknown, schema: JSONSchemaProps, path?: string): FieldCause[] {
  return withFallback(
    () => validateImpl(value, schema, path),
    () => [],
  );
}

export function validateObjectMeta(
  obj: JsonObject,
  o: { kind: KindRef; namespaced: boolean; operation: 'create' | 'update' },
): FieldCause[] {
  return withFallback(
    () => objectMetaImpl(obj, o),
    () => [],
  );
}

export function parseLabelSelector(text: string): LabelSelector {
  return withFallback(
    () => labelSelectorImpl(text),
    () => {
      const terms = text
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== '')
        .map((t) => t.split('='));
      return {
        empty: terms.length === 0,
        matches: (labels) => terms.every(([k, v]) => labels?.[k ?? ''] === v),
      };
    },
  );
}

export function parseFieldSelector(text: string, kind: KindRef): FieldSelector {
  return withFallback(
    () => fieldSelectorImpl(text, kind),
    () => {
      const terms = text
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== '')
        .map((t) => t.split('='));
      return {
        empty: terms.length === 0,
        matches: (obj) => terms.every(([k, v]) => display(valueAtPath(obj, k ?? '') ?? '') === v),
      };
    },
  );
}

export function renderTable(
  objects: JsonObject[],
  columns: PrinterColumn[] | undefined,
  o: { now: Date; includeObject?: 'None' | 'Metadata' | 'Object'; listMeta?: JsonObject },
): JsonObject {
  return withFallback(
    () => renderTableImpl(objects, columns, o),
    () => ({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: o.listMeta ?? {},
      columnDefinitions: [
        { name: 'Name', type: 'string', format: 'name', description: 'Name', priority: 0 },
        { name: 'Age', type: 'string', format: '', description: 'Age', priority: 0 },
      ],
      rows: objects.map((obj) => ({
        cells: [stringAt(metadataOf(obj), 'name') ?? '', '0s'],
        object: {
          kind: 'PartialObjectMetadata',
          apiVersion: 'meta.k8s.io/v1',
          metadata: objectAt(obj, 'metadata') ?? {},
        },
      })),
    }),
  );
}
