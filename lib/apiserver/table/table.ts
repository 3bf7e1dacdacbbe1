export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  priority?: number;
  format?: string;
}

export function renderTable(
  _objects: Record<string, unknown>[],
  _columns: PrinterColumn[] | undefined,
  _options: { now: Date; includeObject?: 'None' | 'Metadata' | 'Object'; listMeta?: Record<string, unknown> },
): Record<string, unknown> {
  throw new Error('not implemented');
}
