import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const distSegment = `${sep}dist${sep}examples${sep}`;

/**
 * Directory of the example's sources and data files (crd.yaml, samples/), whether this module runs from
 * the sources (tests) or from the build in `dist/examples/` (which holds only JavaScript).
 */
export function exampleDir(): string {
  const index = here.lastIndexOf(distSegment);
  if (index === -1) return here;
  const source = here.slice(0, index) + `${sep}examples${sep}` + here.slice(index + distSegment.length);
  return existsSync(source) ? source : here;
}

/** Path of a file of the example (e.g. `examplePath('deploy', 'crd.yaml')`). */
export function examplePath(...segments: string[]): string {
  return join(exampleDir(), ...segments);
}
