import type { Logger } from '../observability/logger.js';

/**
 * A logger whose `child(meta)` only remembers `meta` and merges it into each line, instead of building
 * a new logger per call. The engine creates a child per reconciliation and the core one per resource
 * and CRUD step; with winston's `child` that was most of the engine's per-object overhead, while most
 * of those children never write a line. Lines are identical to the base logger's children.
 */
export class FlatLogger implements Logger {
  private readonly base: Logger;
  private readonly meta: Record<string, unknown>;

  constructor(base: Logger, meta: Record<string, unknown> = {}) {
    this.base = base;
    this.meta = meta;
  }

  child(meta: Record<string, unknown>): Logger {
    return new FlatLogger(this.base, { ...this.meta, ...meta });
  }

  debug(message: string, meta?: Record<string, unknown>): void {
    this.base.debug(message, meta === undefined ? this.meta : { ...this.meta, ...meta });
  }

  info(message: string, meta?: Record<string, unknown>): void {
    this.base.info(message, meta === undefined ? this.meta : { ...this.meta, ...meta });
  }

  warn(message: string, meta?: Record<string, unknown>): void {
    this.base.warn(message, meta === undefined ? this.meta : { ...this.meta, ...meta });
  }

  error(message: string, meta?: Record<string, unknown>): void {
    this.base.error(message, meta === undefined ? this.meta : { ...this.meta, ...meta });
  }
}
