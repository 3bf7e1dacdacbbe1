import { isJsonObject } from '../patch/json-value.js';
import { humanDuration } from './human-duration.js';
import { evaluateJsonPath } from './json-path.js';

/** A column as a CRD declares it in `additionalPrinterColumns`. */
export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  priority?: number;
  format?: string;
  /** Computes the cell instead of `jsonPath` (built-in kinds' columns such as Ready `1/2`). */
  cell?: (obj: Record<string, unknown>, now: Date) => unknown;
}

export interface RenderTableOptions {
  /** Reference time for `date` columns (rendered as ages like `5m`). */
  now: Date;
  /** What each row's `object` holds: None (omitted), Metadata (PartialObjectMetadata, kube's default), Object. */
  includeObject?: 'None' | 'Metadata' | 'Object';
  /** The list's metadata (resourceVersion, continue) copied to the Table's metadata; default {}. */
  listMeta?: Record<string, unknown>;
}

/** Columns of a kind without declared printer columns, as kube-apiserver serves custom resources. */
export const DEFAULT_PRINTER_COLUMNS: readonly PrinterColumn[] = [
  {
    name: 'Age',
    type: 'date',
    jsonPath: '.metadata.creationTimestamp',
    description:
      'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.',
  },
];

const NAME_COLUMN = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated.',
  priority: 0,
};

/**
 * Renders objects as a `meta.k8s.io/v1` Table (what kubectl asks for with
 * `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`): a Name column, then `columns` (or Age when
 * none are given); `date` cells are ages relative to `now`; missing values are null cells (kubectl shows
 * `<none>`). Cells follow kube's CRD table convertor. For a watch event, render a one-row table per event and drop columnDefinitions after the first.
 */
export function renderTable(
  objects: Record<string, unknown>[],
  columns: PrinterColumn[] | undefined,
  options: RenderTableOptions,
): Record<string, unknown> {
  const declared = columns !== undefined && columns.length > 0 ? columns : DEFAULT_PRINTER_COLUMNS;
  const columnDefinitions = [
    NAME_COLUMN,
    ...declared.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format ?? '',
      description: c.description ?? '',
      priority: c.priority ?? 0,
    })),
  ];
  const includeObject = options.includeObject ?? 'Metadata';
  const rows = objects.map((obj) => {
    const metadata = isJsonObject(obj.metadata) ? obj.metadata : {};
    const cells = [
      typeof metadata.name === 'string' ? metadata.name : '',
      ...declared.map((c) => cell(obj, c, options.now)),
    ];
    const row: Record<string, unknown> = { cells };
    if (includeObject === 'Object') row.object = structuredClone(obj);
    if (includeObject === 'Metadata') {
      row.object = {
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: structuredClone(metadata),
      };
    }
    return row;
  });
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: structuredClone(options.listMeta ?? {}),
    columnDefinitions,
    rows,
  };
}

/** A cell as kube's CRD table convertor computes it: only the first JSONPath result counts. */
function cell(obj: Record<string, unknown>, column: PrinterColumn, now: Date): unknown {
  if (column.cell) return column.cell(obj, now);
  let first: unknown;
  try {
    first = evaluateJsonPath(obj, column.jsonPath)[0];
  } catch {
    return null;
  }
  if (first === undefined || first === null) return null;
  switch (column.type) {
    case 'integer':
      return typeof first === 'number' ? Math.trunc(first) : null;
    case 'number':
      return typeof first === 'number' ? first : null;
    case 'boolean':
      return typeof first === 'boolean' ? first : null;
    case 'date': {
      if (typeof first !== 'string') return null;
      const time = Date.parse(first);
      return Number.isNaN(time) ? '<invalid>' : humanDuration(now.getTime() - time);
    }
    default:
      return goFormat(first);
  }
}

/** Go's fmt.Sprint of a JSON value, which kube's JSONPath printer uses for string columns. */
function goFormat(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return `[${value.map(goFormat).join(' ')}]`;
  if (isJsonObject(value)) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${key}:${goFormat(value[key])}`);
    return `map[${entries.join(' ')}]`;
  }
  if (value === null || value === undefined) return '<nil>';
  return JSON.stringify(value);
}
