/** Entry point of the `reconcilekit` command line; returns the process exit code. */
export function main(argv: readonly string[]): Promise<number> {
  const [command] = argv;
  if (command === undefined || command === 'help' || command === '--help') {
    process.stdout.write(
      'usage: reconcilekit <command>\n\ncommands:\n  apiserver   run the embedded API server\n',
    );
    return Promise.resolve(0);
  }
  process.stderr.write(`reconcilekit: unknown command "${command}" (try "reconcilekit help")\n`);
  return Promise.resolve(2);
}
