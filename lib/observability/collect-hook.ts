/** A prom-client metric's optional scrape-time hook (prom-client calls it before reading values). */
interface Collectable {
  collect?: (() => void | Promise<void>) | undefined;
}

const hooks = new WeakMap<object, Set<() => void>>();

/**
 * Runs `flush` whenever `metric` is read (scrape, `get()`), before its own `collect` hook, so hot paths
 * can count in plain fields and hand the totals to prom-client only when someone looks (a labelled
 * `inc` costs a label hash per call). Several owners may hook one shared metric. Returns a function
 * that removes the hook.
 */
export function onCollect(metric: object, flush: () => void): () => void {
  let flushes = hooks.get(metric);
  if (flushes === undefined) {
    const set = new Set<() => void>();
    flushes = set;
    hooks.set(metric, set);
    const target = metric as Collectable;
    const previous = target.collect;
    target.collect = function collect(this: unknown): void | Promise<void> {
      for (const f of set) f();
      return previous?.call(this);
    };
  }
  flushes.add(flush);
  return () => {
    hooks.get(metric)?.delete(flush);
  };
}
