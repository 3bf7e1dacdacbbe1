import type { Summary } from './stats.js';

/** One row of a workload table: a system and its summarised metrics (same order as the columns). */
export interface TableRow {
  system: string;
  cells: (Summary | number | string | undefined)[];
}

/** One column: a heading and how to print a number in it. */
export interface TableColumn {
  heading: string;
  digits?: number;
}

/** Formats a number with the given digits, thousands separated; "n/a" for NaN or undefined. */
export function formatNumber(value: number | undefined, digits = 1): string {
  if (value === undefined || !Number.isFinite(value)) return 'n/a';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** "a ÷ b" as "1.23×", or "n/a" when either is missing. */
export function formatRatio(a: number | undefined, b: number | undefined, digits = 2): string {
  if (a === undefined || b === undefined || !Number.isFinite(a / b)) return 'n/a';
  return `${formatNumber(a / b, digits)}×`;
}

function formatCell(cell: Summary | number | string | undefined, digits: number): string {
  if (cell === undefined) return 'n/a';
  if (typeof cell === 'string') return cell;
  if (typeof cell === 'number') return formatNumber(cell, digits);
  if (cell.samples.length <= 1) return formatNumber(cell.median, digits);
  return `${formatNumber(cell.median, digits)} (${formatNumber(cell.min, digits)}–${formatNumber(cell.max, digits)})`;
}

/** Renders a markdown table; Summary cells print as "median (min–max)". */
export function markdownTable(columns: readonly TableColumn[], rows: readonly TableRow[]): string {
  const header = `| system | ${columns.map((c) => c.heading).join(' | ')} |`;
  const rule = `|---|${columns.map(() => '---:').join('|')}|`;
  const body = rows.map(
    (row) =>
      `| ${row.system} | ${columns.map((c, i) => formatCell(row.cells[i], c.digits ?? 1)).join(' | ')} |`,
  );
  return [header, rule, ...body].join('\n');
}
