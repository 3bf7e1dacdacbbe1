import { join } from 'node:path';
import { ChildOperator } from '../support/child-operator.js';
import type { ChildConfig } from '../support/child-protocol.js';
import {
  convergence,
  Driver,
  eventually,
  extDirIn,
  removeDir,
  scratchDir,
  startCluster,
} from '../support/cluster.js';
import { GADGET_OPERATOR_NAME } from '../fixtures/gadget-operator.js';
import { SideEffectLog, type SideEffect } from '../support/side-effect-log.js';

export interface CrashSafetyOptions {
  /** SIGKILLs of the operator process. */
  kills: number;
  /** Bound on the time to converge after the last restart. */
  convergeTimeoutMs: number;
  /** Pause of the driver between operations. Default 25 ms. */
  driverPauseMs?: number;
}

export interface CrashSafetyFigures {
  kills: number;
  /** Kills that landed between the begin and end of an external write or removal. */
  killsMidStep: number;
  creates: number;
  updates: number;
  deletes: number;
  live: number;
  /** Completed external cleanups (delete-end lines) and Gadgets cleaned up more than once. */
  cleanups: number;
  cleanedMoreThanOnce: number;
  /** External writes begun but never finished by their process (the kill cut them), later repaired. */
  interruptedCreates: number;
  interruptedDeletes: number;
  convergeMs: number;
  problems: string[];
  /** Children that exited on their own (not by our signal), e.g. after an unhandled rejection. */
  unexpectedExits: string[];
  /** Exit of the last child on SIGTERM (0 = graceful). */
  finalExitCode: number | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Lines that began in a process and have no matching end from the same process. */
function interrupted(entries: SideEffect[], begin: SideEffect['op'], end: SideEffect['op']): number {
  const open = new Map<string, number>();
  for (const e of entries) {
    const id = `${e.pid}/${e.uid}`;
    if (e.op === begin) open.set(id, (open.get(id) ?? 0) + 1);
    if (e.op === end) open.set(id, (open.get(id) ?? 1) - 1);
  }
  return [...open.values()].filter((n) => n > 0).length;
}

/**
 * Scenario 2: the operator process is SIGKILLed at random points (half of the kills timed to land
 * inside an external write or removal) while the driver keeps creating, updating and deleting Gadgets.
 * After the last restart everything must converge, and the side-effect log must show a completed
 * cleanup for every Gadget that got an external file and is gone.
 */
export async function runCrashSafety(o: CrashSafetyOptions): Promise<CrashSafetyFigures> {
  const dir = scratchDir('crash');
  const extDir = extDirIn(dir);
  const log = new SideEffectLog(join(dir, 'side-effects.jsonl'));
  const cluster = await startCluster(dir);
  const driver = new Driver(cluster.client);
  const config: ChildConfig = {
    kubeconfigPath: cluster.kubeconfigPath,
    extDir,
    logPath: log.path,
    stepDelayMs: 30,
    workers: 4,
    logLevel: 'warn',
  };
  const unexpectedExits: string[] = [];
  const state = { driving: true };
  const counter = { next: 0 };
  const drive = (async () => {
    while (state.driving) {
      await driver.randomOp('k', counter);
      await sleep(o.driverPauseMs ?? 25);
    }
  })();
  let child: ChildOperator | undefined;
  let killsMidStep = 0;
  try {
    for (let i = 0; i < o.kills; i++) {
      child = new ChildOperator(config, join(dir, `child-${i}.log`));
      const current = child;
      void current.exited.then((exit) => {
        if (exit.signal !== 'SIGKILL')
          unexpectedExits.push(`child ${i}: ${JSON.stringify(exit)} ${current.stderr}`);
      });
      await child.ready;
      if (i % 2 === 0) {
        await sleep(200 + Math.random() * 1_000);
      } else {
        // Wait for this process to begin an external step, then kill it inside that step.
        const pid = child.process.pid;
        const seen = log.read().length;
        await eventually(
          () =>
            log
              .read()
              .slice(seen)
              .some((e) => e.pid === pid && e.op.endsWith('-begin')),
          3_000,
          'the child to begin an external step',
          5,
        ).catch(() => undefined);
      }
      const before = log.read();
      await child.kill('SIGKILL');
      const pid = child.process.pid;
      const mine = before.filter((e) => e.pid === pid);
      if (
        interrupted(mine, 'create-begin', 'create-end') + interrupted(mine, 'delete-begin', 'delete-end') >
        0
      ) {
        killsMidStep += 1;
      }
    }
    child = new ChildOperator(config, join(dir, 'child-final.log'));
    const last = child;
    void last.exited.then((exit) => {
      if (exit.code !== 0) unexpectedExits.push(`final child: ${JSON.stringify(exit)} ${last.stderr}`);
    });
    await child.ready;
    await sleep(500);
    state.driving = false;
    await drive;
    const stopped = Date.now();
    const finalizer = `reconcilekit.io/${GADGET_OPERATOR_NAME}`;
    let problems: string[] = [];
    try {
      await eventually(
        async () => (await convergence(cluster.client, driver, extDir, finalizer, log)).problems.length === 0,
        o.convergeTimeoutMs,
        'convergence after the last restart',
        100,
      );
    } catch {
      problems = (await convergence(cluster.client, driver, extDir, finalizer, log)).problems;
    }
    const convergeMs = Date.now() - stopped;
    const exit = await child.kill('SIGTERM');
    const entries = log.read();
    const cleanupsPerUid = new Map<string, number>();
    for (const e of entries)
      if (e.op === 'delete-end') cleanupsPerUid.set(e.uid, (cleanupsPerUid.get(e.uid) ?? 0) + 1);
    return {
      kills: o.kills,
      killsMidStep,
      creates: driver.creates,
      updates: driver.updates,
      deletes: driver.deletes,
      live: driver.live.size,
      cleanups: [...cleanupsPerUid.values()].reduce((a, b) => a + b, 0),
      cleanedMoreThanOnce: [...cleanupsPerUid.values()].filter((n) => n > 1).length,
      interruptedCreates: interrupted(entries, 'create-begin', 'create-end'),
      interruptedDeletes: interrupted(entries, 'delete-begin', 'delete-end'),
      convergeMs,
      problems,
      unexpectedExits,
      finalExitCode: exit.code,
    };
  } finally {
    state.driving = false;
    await drive.catch(() => undefined);
    await child?.kill('SIGKILL');
    await cluster.close();
    removeDir(dir);
  }
}
