// Progress lines go to stderr so stdout stays the markdown report.

const started = Date.now();

/** Prints one timestamped progress line ("[  12.3s] workload 2: …") to stderr. */
export function progress(message: string): void {
  const seconds = ((Date.now() - started) / 1000).toFixed(1).padStart(6);
  process.stderr.write(`[${seconds}s] ${message}\n`);
}
