import { appendFileSync } from 'node:fs';

/** Environment variable naming a JSON-lines file that scenario figures are appended to (`make soak` sets it). */
export const FIGURES_FILE_ENV = 'RELIABILITY_FIGURES_FILE';

/** Appends one scenario's figures to the file named by {@link FIGURES_FILE_ENV}, if set. */
export function recordFigures(scenario: string, figures: object): void {
  const file = process.env[FIGURES_FILE_ENV];
  if (file === undefined || file === '') return;
  appendFileSync(file, `${JSON.stringify({ scenario, at: new Date().toISOString(), ...figures })}\n`);
}
