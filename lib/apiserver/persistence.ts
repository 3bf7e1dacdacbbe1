import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isJsonObject, type JsonObject } from './json.js';

/** What the data file holds: the RV counter and every object by type key. */
export interface PersistedState {
  rv: number;
  objects: Record<string, JsonObject[]>;
}

/** Reads a data file; undefined when it does not exist. Throws on a corrupt file (refuse to start). */
export function readState(path: string): PersistedState | undefined {
  if (!existsSync(path)) return undefined;
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (!isJsonObject(parsed) || typeof parsed.rv !== 'number' || !isJsonObject(parsed.objects)) {
    throw new Error(`${path} is not a reconcilekit apiserver data file`);
  }
  const objects: Record<string, JsonObject[]> = {};
  for (const [key, list] of Object.entries(parsed.objects)) {
    if (Array.isArray(list)) objects[key] = list.filter(isJsonObject);
  }
  return { rv: parsed.rv, objects };
}

/** Writes the state atomically (temp file + rename), so a crash never leaves half a file. */
export function writeState(path: string, state: PersistedState): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify({ version: 1, ...state }));
  renameSync(tmp, path);
}
