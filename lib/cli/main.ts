import { runApiServerCommand } from './apiserver-command.js';

const USAGE = 'usage: reconcilekit <command>\n\ncommands:\n  apiserver   run the embedded API server\n';

/** Aborts when the process receives SIGINT or SIGTERM (and stops listening afterwards). */
function signalsToAbort(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onSignal = (): void => {
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** Entry point of the `reconcilekit` command line; returns the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command === 'apiserver') {
    const stop = signalsToAbort();
    try {
      return await runApiServerCommand(rest, {
        stdout: (t) => process.stdout.write(t),
        stderr: (t) => process.stderr.write(t),
        stopSignal: stop.signal,
      });
    } finally {
      stop.dispose();
    }
  }
  process.stderr.write(`reconcilekit: unknown command "${command}" (try "reconcilekit help")\n`);
  return 2;
}
