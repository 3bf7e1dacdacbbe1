import type { Logger, LogLevel } from '../observability/logger.js';

/**
 * A logger whose `child(meta)` only links to its parent and keeps `meta`; the chain is merged into a line
 * (outermost first, per-call meta last) only when one is written, and not at all for a level the base
 * logger drops (`base.isLevelEnabled`, when it has one). The engine creates a child per reconciliation
 * and the core one per resource and CRUD step; most of those never write a line, so with an eager
 * `child` (winston's, or a merge per call) that was most of the engine's per-object overhead. Lines
 * are identical to the base logger's children.
 */
export class FlatLogger implements Logger {
  private readonly base: Logger;
  private readonly parent: FlatLogger | undefined;
  private readonly own: Record<string, unknown>;

  constructor(base: Logger, meta: Record<string, unknown> = {}, parent?: FlatLogger) {
    this.base = base;
    this.own = meta;
    this.parent = parent;
  }

  child(meta: Record<string, unknown>): Logger {
    return new FlatLogger(this.base, meta, this);
  }

  isLevelEnabled(level: LogLevel): boolean {
    return this.base.isLevelEnabled?.(level) ?? true;
  }

  debug(message: string, meta?: Record<string, unknown>): void {
    if (this.isLevelEnabled('debug')) this.base.debug(message, this.merged(meta));
  }

  info(message: string, meta?: Record<string, unknown>): void {
    if (this.isLevelEnabled('info')) this.base.info(message, this.merged(meta));
  }

  warn(message: string, meta?: Record<string, unknown>): void {
    if (this.isLevelEnabled('warn')) this.base.warn(message, this.merged(meta));
  }

  error(message: string, meta?: Record<string, unknown>): void {
    if (this.isLevelEnabled('error')) this.base.error(message, this.merged(meta));
  }

  private merged(meta: Record<string, unknown> | undefined): Record<string, unknown> {
    if (this.parent === undefined && meta === undefined) return this.own;
    const chain: Record<string, unknown>[] = [this.own];
    for (let node = this.parent; node !== undefined; node = node.parent) chain.push(node.own);
    const out: Record<string, unknown> = {};
    for (let i = chain.length - 1; i >= 0; i--) Object.assign(out, chain[i]);
    if (meta !== undefined) Object.assign(out, meta);
    return out;
  }
}
