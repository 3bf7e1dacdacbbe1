// Watches Websites and their ConfigMaps from the driver and knows, event by event, which Websites have
// converged (ConfigMap data matches the spec and status.observedGeneration == generation). The moment the
// last one converges is the end of a run; the driver's cost is the same for every system under test.
import { performance } from 'node:perf_hooks';
import { isRestStatus, type KubeRest } from './kube-rest.js';
import { configMapsPath, dataMatches, statusObserved, websitesPath, type Website } from './website.js';

interface Waiter {
  check: () => boolean;
  resolve: (at: number) => void;
}

/** Tracks convergence of every Website in one namespace. */
export class ConvergenceTracker {
  readonly sites = new Map<string, Website>();
  private readonly configMaps = new Map<string, { data?: Record<string, string> }>();
  private readonly converged = new Set<string>();
  private readonly abort = new AbortController();
  private waiters: Waiter[] = [];
  private loops: Promise<void>[] = [];

  constructor(
    private readonly rest: KubeRest,
    private readonly namespace: string,
  ) {}

  /** Number of converged Websites. */
  get convergedCount(): number {
    return this.converged.size;
  }

  /** Lists both kinds, then watches them; resolves once both watches are open. */
  async start(): Promise<void> {
    const opened: Promise<void>[] = [];
    for (const kind of ['site', 'cm'] as const) {
      const path = kind === 'site' ? websitesPath(this.namespace) : configMapsPath(this.namespace);
      const list = await this.listRetrying(path);
      for (const item of list.items) this.apply(kind, 'ADDED', item);
      let openResolve!: () => void;
      opened.push(new Promise<void>((r) => (openResolve = r)));
      this.loops.push(this.watchLoop(kind, path, list.metadata.resourceVersion, openResolve));
    }
    await Promise.all(opened);
  }

  /** Lists `path`; a 429 (a kube-apiserver whose watch cache is still initializing) is retried for up to 60 s. */
  private async listRetrying(path: string): Promise<{ items: any[]; metadata: { resourceVersion: string } }> {
    const deadline = performance.now() + 60_000;
    for (;;) {
      try {
        return await this.rest.request('GET', path);
      } catch (err) {
        if (!isRestStatus(err, 429) || performance.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** True when the named Website has converged. */
  isConverged(name: string): boolean {
    return this.converged.has(name);
  }

  /** Resolves with performance.now() of the first event after which check() holds (or now, if it holds). */
  until(check: () => boolean, timeoutMs: number): Promise<number> {
    if (check()) return Promise.resolve(performance.now());
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`not converged within ${timeoutMs} ms (${this.converged.size} converged)`));
      }, timeoutMs);
      const waiter: Waiter = {
        check,
        resolve: (at) => {
          clearTimeout(timer);
          resolve(at);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /** Stops both watches. */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.allSettled(this.loops);
  }

  private stopped(): boolean {
    return this.abort.signal.aborted;
  }

  private async watchLoop(
    kind: 'site' | 'cm',
    path: string,
    from: string,
    onOpen: () => void,
  ): Promise<void> {
    let resourceVersion = from;
    let first = true;
    while (!this.abort.signal.aborted) {
      const query = `?watch=true&allowWatchBookmarks=true&resourceVersion=${resourceVersion}`;
      try {
        await this.rest.watch(
          path + query,
          this.abort.signal,
          (type, object) => {
            const rv = object?.metadata?.resourceVersion;
            if (typeof rv === 'string') resourceVersion = rv;
            if (type !== 'BOOKMARK' && type !== 'ERROR') this.apply(kind, type, object);
          },
          () => {
            if (first) onOpen();
            first = false;
          },
        );
      } catch (err) {
        if (this.stopped()) return;
        process.stderr.write(`convergence watch ${kind}: ${String(err)}; retrying\n`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  private apply(kind: 'site' | 'cm', type: string, object: any): void {
    const now = performance.now();
    let siteName: string;
    if (kind === 'site') {
      siteName = object.metadata.name;
      if (type === 'DELETED') this.sites.delete(siteName);
      else this.sites.set(siteName, object as Website);
    } else {
      const website = object.metadata?.labels?.website;
      if (typeof website !== 'string') return;
      siteName = website;
      if (type === 'DELETED') this.configMaps.delete(siteName);
      else this.configMaps.set(siteName, object);
    }
    const site = this.sites.get(siteName);
    if (site && statusObserved(site) && dataMatches(this.configMaps.get(siteName), site))
      this.converged.add(siteName);
    else this.converged.delete(siteName);
    if (this.waiters.length > 0) {
      const done = this.waiters.filter((w) => w.check());
      if (done.length > 0) {
        this.waiters = this.waiters.filter((w) => !done.includes(w));
        for (const w of done) w.resolve(now);
      }
    }
  }
}
