import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { handleSignals } from '../../lib/host/handle-signals.js';
import { runUntilSignal } from '../../lib/host/run-until-signal.js';

class FakeProcess extends EventEmitter {
  readonly exits: number[] = [];
  exit(code?: number): void {
    this.exits.push(code ?? 0);
  }
}

describe('shutdown on signals', () => {
  it('stops gracefully on SIGTERM and exits 0', async () => {
    const proc = new FakeProcess();
    let stops = 0;
    const { stopped } = handleSignals(
      {
        stop: async () => {
          stops++;
        },
      },
      { process: proc },
    );
    proc.emit('SIGTERM');
    await stopped;
    expect(stops).toBe(1);
    expect(proc.exits).toEqual([0]);
    expect(proc.listenerCount('SIGTERM')).toBe(0);
  });

  it('exits at once with 1 on a second signal during a slow stop', async () => {
    const proc = new FakeProcess();
    let finish: () => void = () => undefined;
    handleSignals({ stop: () => new Promise<void>((r) => (finish = r)) }, { process: proc });
    proc.emit('SIGINT');
    proc.emit('SIGINT');
    expect(proc.exits).toEqual([1]);
    finish();
  });

  it('runUntilSignal starts, then resolves after a signal-triggered stop', async () => {
    const proc = new FakeProcess();
    const log: string[] = [];
    const running = runUntilSignal(
      { start: async () => void log.push('start'), stop: async () => void log.push('stop') },
      { process: proc, exit: false },
    );
    await new Promise((r) => setTimeout(r, 5));
    proc.emit('SIGTERM');
    await running;
    expect(log).toEqual(['start', 'stop']);
    expect(proc.exits).toEqual([]);
  });

  it('runUntilSignal exits 1 when start fails', async () => {
    const proc = new FakeProcess();
    await expect(
      runUntilSignal(
        { start: () => Promise.reject(new Error('no api')), stop: async () => {} },
        { process: proc },
      ),
    ).rejects.toThrow('no api');
    expect(proc.exits).toEqual([1]);
  });
});
