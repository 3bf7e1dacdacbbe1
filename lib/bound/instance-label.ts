import { createHash } from 'node:crypto';

/** Longest label value the API accepts. */
const MAX_LABEL_VALUE = 63;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/**
 * `name` as a label value: unchanged when valid (≤ 63 characters — most object names), else the first
 * 52 characters, `-` and 10 hex characters of its SHA-256, so long names still get a stable, unique value.
 * @category Phases, status and guards
 */
export function instanceLabelValue(name: string): string {
  if (name.length <= MAX_LABEL_VALUE && LABEL_VALUE.test(name)) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 10);
  const head = name.slice(0, MAX_LABEL_VALUE - 11).replace(/[^A-Za-z0-9]+$/, '');
  return `${head}-${hash}`.replace(/^[^A-Za-z0-9]+/, '');
}
