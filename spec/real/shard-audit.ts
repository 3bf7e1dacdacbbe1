// The no-overlap audit of the multi-process sharding spec, over the replicas' pass logs (JSON lines, one
// clock: the replicas run on one machine). A key must never be in a pass on two replicas at once:
// - interval check: per key, no pass of one replica starts before the pass of another replica that is
//   still open ended (a pass of a SIGKILLed replica that never logged its end ends at the kill);
// - claim check: a pass that found another replica's claim on the object (`found`) must find it from a
//   pass that had ended (or a replica already killed) — a claim of a pass still running is an overlap.

export interface PassLine {
  t: 'boot' | 'start' | 'end' | 'claim' | 'found';
  replica: string;
  at: number;
  key?: string;
  other?: string;
  token?: number;
}

export interface Interval {
  replica: string;
  key: string;
  start: number;
  end: number;
}

/** Passes per key, from the logs; a pass with no end closes at its replica's kill time (or never). */
export function intervals(lines: readonly PassLine[], killedAt: ReadonlyMap<string, number>): Interval[] {
  const open = new Map<string, PassLine[]>();
  const out: Interval[] = [];
  for (const line of [...lines].sort((a, b) => a.at - b.at)) {
    if (line.key === undefined) continue;
    const id = `${line.replica}\n${line.key}`;
    if (line.t === 'start') open.set(id, [...(open.get(id) ?? []), line]);
    if (line.t === 'end') {
      const started = open.get(id)?.shift();
      if (started !== undefined)
        out.push({ replica: line.replica, key: line.key, start: started.at, end: line.at });
    }
  }
  for (const list of open.values()) {
    for (const started of list) {
      const key = started.key ?? '';
      out.push({
        replica: started.replica,
        key,
        start: started.at,
        end: killedAt.get(started.replica) ?? Infinity,
      });
    }
  }
  return out;
}

/** Every overlap the logs show, described; empty when none. */
export function auditOverlaps(lines: readonly PassLine[], killedAt: ReadonlyMap<string, number>): string[] {
  const problems: string[] = [];
  const byKey = new Map<string, Interval[]>();
  const all = intervals(lines, killedAt);
  for (const i of all) byKey.set(i.key, [...(byKey.get(i.key) ?? []), i]);
  for (const [key, list] of byKey) {
    list.sort((a, b) => a.start - b.start);
    let latest: Interval | undefined;
    for (const cur of list) {
      if (latest !== undefined && latest.replica !== cur.replica && cur.start < latest.end) {
        problems.push(
          `${key}: a pass on ${cur.replica} started at ${cur.start} while the pass on ${latest.replica} (${latest.start}–${latest.end}) ran`,
        );
      }
      if (latest === undefined || cur.end > latest.end) latest = cur;
    }
  }
  for (const found of lines) {
    if (found.t !== 'found' || found.other === undefined || found.other === found.replica) continue;
    const running = all.find(
      (i) => i.key === found.key && i.replica === found.other && i.start <= found.at && found.at < i.end,
    );
    if (running !== undefined) {
      problems.push(
        `${found.key ?? ''}: ${found.replica} found the claim of ${found.other} while its pass (${running.start}–${running.end}) ran`,
      );
    }
  }
  return problems;
}
