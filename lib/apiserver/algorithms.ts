// The pure algorithm modules (patches, schemas, selectors, tables, metadata validation) in one place
// for the handlers.
export { applyJsonPatch, decodeJsonPatch } from './patch/json-patch.js';
export { recordScaleUpdate, recordUpdate, serverSideApply } from './patch/managed-fields.js';
export { applyMergePatch } from './patch/merge-patch.js';
export { applyStrategicMergePatch } from './patch/strategic-merge-patch.js';
export { validateCustomResourceDefinition } from './schema/crd-validation.js';
export { applySchemaDefaults } from './schema/defaults.js';
export { pruneUnknownFields } from './schema/prune.js';
export { validateAgainstSchema } from './schema/validate.js';
export { parseFieldSelector } from './selectors/field-selector.js';
export { parseLabelSelector } from './selectors/label-selector.js';
export { renderTable } from './table/table.js';
export { normalizeObjectMeta } from './validation/normalize-object-meta.js';
export { validateObjectMeta } from './validation/object-meta.js';
export { formatApplyConflictMessage } from './patch/apply-conflict-message.js';
