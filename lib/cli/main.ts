// Each command is imported when it runs: `reconcilekit apiserver` loads the API server only, not the operator
// engine and client the other commands need (half a second of module loading at every restart).

import { closest } from './suggest.js';

const USAGE = `usage: reconcilekit <command> [--help]

commands:
  init <dir>        scaffold a new operator project (CRD, operator, test, Dockerfile, deploy manifests)
  dev <entry.js>    run your operator against an embedded API server (or KUBECONFIG's cluster), CRDs installed
  apiserver         run the embedded API server
  run-spec <f.yaml> run a declarative operator (YAML: sources, pipeline, target) until Ctrl-C
  plan <entry.js>   what your operator would change, object by object, without changing anything
  generate [all|crd|rbac|helm] <entry.js>
                    write deploy/: CRDs of its kinds, least-privilege RBAC, a Helm chart

exit codes (every command): 0 done, 1 failed (the operator failed, a file is stale, an error), 2 usage
(unknown command or flag, a missing argument) — except plan, where 2 means changes are planned and a
usage error is 1. apiserver and run-spec stopped by SIGINT/SIGTERM exit 0 once stopped; dev exits with
your operator's code.
`;

const io = {
  stdout: (t: string) => process.stdout.write(t),
  stderr: (t: string) => process.stderr.write(t),
};

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
  if (command === 'plan') return (await import('./plan-command.js')).runPlanCommand(rest, io);
  if (command === 'generate') return (await import('./generate-command.js')).runGenerateCommand(rest, io);
  if (command === 'init') return (await import('./init-command.js')).runInitCommand(rest, io);
  if (command === 'apiserver' || command === 'dev' || command === 'run-spec') {
    const stop = signalsToAbort();
    try {
      const run =
        command === 'dev'
          ? (await import('./dev-command.js')).runDevCommand
          : command === 'run-spec'
            ? (await import('./run-spec-command.js')).runRunSpecCommand
            : (await import('./apiserver-command.js')).runApiServerCommand;
      return await run(rest, { ...io, stopSignal: stop.signal });
    } finally {
      stop.dispose();
    }
  }
  const hint = closest(command, ['init', 'dev', 'plan', 'apiserver', 'run-spec', 'generate', 'help']);
  process.stderr.write(
    `reconcilekit: unknown command "${command}"${hint === undefined ? '' : ` (did you mean ${hint}?)`} (try "reconcilekit help")\n`,
  );
  return 2;
}
