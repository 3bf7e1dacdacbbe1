import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Collects unhandled promise rejections of this process while started. */
export class UnhandledRejections {
  readonly seen: unknown[] = [];
  private readonly listener = (reason: unknown): void => {
    this.seen.push(reason);
  };

  start(): this {
    process.on('unhandledRejection', this.listener);
    return this;
  }

  stop(): void {
    process.off('unhandledRejection', this.listener);
  }
}

let gcFn: (() => void) | undefined;

/** Heap in use after a full garbage collection, in MiB. */
export async function heapAfterGcMiB(): Promise<number> {
  if (gcFn === undefined) {
    setFlagsFromString('--expose-gc');
    gcFn = runInNewContext('gc') as () => void;
  }
  // Two passes with a turn between, so finalizers and weak callbacks run.
  gcFn();
  await new Promise((r) => setImmediate(r));
  gcFn();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}
