import { spawn, type ChildProcess } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
  type WriteStream,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { CHILD_READY_LINE, type ChildConfig } from './child-protocol.js';

const RELIABILITY_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = resolve(RELIABILITY_DIR, '../..');
/** The modules a child operator runs, beside the built library in dist/lib. */
const CHILD_SOURCES = [
  'fixtures/gadget-operator-main.ts',
  'fixtures/gadget-operator.ts',
  'fixtures/gadget-resources.ts',
  'support/gadget.ts',
  'support/side-effect-log.ts',
  'support/child-protocol.ts',
  '../real/real-backend.ts',
];

let built: string | undefined;

/**
 * Compiles the child operator's sources next to the built library (dist/spec/reliability/…, so their
 * relative imports of lib/ resolve to dist/lib/) and returns the entry file. tsconfig.build.json builds
 * only lib/ and examples/; the fixtures are plain transpiles (types are checked by `make lint`).
 */
export function buildChildOperator(): string {
  if (built !== undefined) return built;
  const library = join(ROOT, 'dist/lib/crud/framework.js');
  if (!existsSync(library)) {
    throw new Error(`${library} is missing: build first (make build, or npx tsc -p tsconfig.build.json)`);
  }
  for (const source of CHILD_SOURCES) {
    const from = join(RELIABILITY_DIR, source);
    const to = join(ROOT, 'dist', relative(ROOT, from)).replace(/\.ts$/, '.js');
    const output = ts.transpileModule(readFileSync(from, 'utf8'), {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
      },
      fileName: from,
    });
    mkdirSync(dirname(to), { recursive: true });
    // Test files run in parallel processes: never let a child import a file another one is rewriting.
    if (existsSync(to) && readFileSync(to, 'utf8') === output.outputText) continue;
    const temporary = `${to}.${process.pid}.tmp`;
    writeFileSync(temporary, output.outputText);
    renameSync(temporary, to);
  }
  built = join(ROOT, 'dist/spec/reliability/fixtures/gadget-operator-main.js');
  return built;
}

/** How a child ended. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One operator process: its stdout goes to `logFile`, its readiness and exit are promises. */
export class ChildOperator {
  readonly process: ChildProcess;
  /** Resolves once the framework in the child started. */
  readonly ready: Promise<void>;
  /** Resolves when the process ended. */
  readonly exited: Promise<ChildExit>;
  private stderrText = '';
  private readonly out: WriteStream;

  constructor(config: ChildConfig, logFile: string) {
    const entry = buildChildOperator();
    this.out = createWriteStream(logFile, { flags: 'a' });
    this.process = spawn(process.execPath, [entry], {
      env: { ...process.env, RELIABILITY_CHILD: JSON.stringify(config) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let buffered = '';
    this.ready = new Promise<void>((resolveReady, rejectReady) => {
      this.process.stdout?.on('data', (chunk: Buffer) => {
        this.out.write(chunk);
        buffered = (buffered + chunk.toString('utf8')).slice(-200);
        if (buffered.includes(CHILD_READY_LINE)) resolveReady();
      });
      this.process.once('exit', (code, signal) => {
        rejectReady(
          new Error(`child exited before ready (code ${code}, signal ${signal}): ${this.stderrText}`),
        );
      });
    });
    this.ready.catch(() => undefined);
    this.process.stderr?.on('data', (chunk: Buffer) => {
      this.stderrText = (this.stderrText + chunk.toString('utf8')).slice(-4000);
    });
    this.exited = new Promise<ChildExit>((resolveExit) => {
      this.process.once('close', (code, signal) => {
        this.out.end();
        resolveExit({ code, signal });
      });
    });
  }

  /** The last 4000 characters of stderr. */
  get stderr(): string {
    return this.stderrText;
  }

  /** Sends `signal`; resolves when the process ended. */
  async kill(signal: NodeJS.Signals): Promise<ChildExit> {
    if (this.process.exitCode === null && this.process.signalCode === null) this.process.kill(signal);
    return this.exited;
  }
}
