import { appendFileSync, existsSync, readFileSync } from 'node:fs';

/** One line of the external side-effect log: what the test operator did outside Kubernetes, and when. */
export interface SideEffect {
  /** `create-begin`/`create-end`: writing a Gadget's external file; `delete-*`: removing it; `call`: one resource call. */
  op: 'create-begin' | 'create-end' | 'delete-begin' | 'delete-end' | 'call';
  /** Gadget key `namespace/name`. */
  key: string;
  /** Gadget uid (the external file is per uid, so a re-created Gadget is a different thing). */
  uid: string;
  /** Process that wrote the line. */
  pid: number;
  /** Wall-clock ms when the step began. */
  start: number;
  /** Wall-clock ms when the step ended (equal to start for begin markers). */
  end: number;
  /** For `call`: the resource and path (`external.create`, …). */
  what?: string;
}

/**
 * An append-only JSON-lines file shared by every operator process of a scenario. `appendFileSync` is one
 * O_APPEND write: a line is in the kernel's page cache before the call returns, so a SIGKILL right after
 * does not lose it, and lines of concurrent processes never interleave.
 */
export class SideEffectLog {
  constructor(readonly path: string) {}

  append(entry: Omit<SideEffect, 'pid'>): void {
    appendFileSync(this.path, `${JSON.stringify({ ...entry, pid: process.pid })}\n`);
  }

  read(): SideEffect[] {
    if (!existsSync(this.path)) return [];
    const lines = readFileSync(this.path, 'utf8').split('\n');
    // A process killed mid-write can leave a torn last line; it carries no completed step.
    return lines
      .filter((l) => l.trim() !== '')
      .flatMap((l) => {
        try {
          return [JSON.parse(l) as SideEffect];
        } catch {
          return [];
        }
      });
  }
}
