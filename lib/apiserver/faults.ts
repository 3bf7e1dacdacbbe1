import type { Verb } from './request-info.js';

/** A fault to inject into matching requests. Exactly one action field should be set. */
export interface FaultRule {
  /** Only requests with this verb; default any. */
  verb?: Verb;
  /** Only this resource (plural, e.g. 'configmaps'); default any. */
  resource?: string;
  /** Only this namespace; default any. */
  namespace?: string;
  /** Only this object name; default any. */
  name?: string;
  /** Chance (0..1) that a matching request is affected; default 1. */
  probability?: number;
  /** How many requests the rule affects before it retires itself; default unlimited. */
  times?: number;
  /** Answer with this HTTP status and a matching Status body (e.g. 500, 503, 429, 409). */
  status?: number;
  /** With `status`: send Retry-After and details.retryAfterSeconds. */
  retryAfterSeconds?: number;
  /** With `status`: the Status message; default "injected fault: <reason>". */
  message?: string;
  /** Delay the request this long before handling it normally. */
  delayMs?: number;
  /** End matching watches (open ones and new ones) this long after they start or the rule is added. */
  dropWatchAfterMs?: number;
  /** Watches that resume from a resourceVersion get ERROR 410 Expired, so the client relists. */
  expireWatch?: boolean;
}

/** Removes one injected rule. */
export interface FaultHandle {
  remove(): void;
}

/** The request coordinates faults match on. */
export interface FaultTarget {
  verb: Verb;
  resource: string;
  namespace?: string;
  name?: string;
}

interface ActiveRule {
  rule: FaultRule;
  remaining: number;
}

/**
 * Fault injection for reliability tests: `inject(rule)` → handle; `clear()`. Rules are matched in the
 * order they were added; each applies independently.
 */
export class Faults {
  private rules: ActiveRule[] = [];
  /** Called when a dropWatchAfterMs rule is added, so open watches can be scheduled to drop. */
  onDropRule: ((rule: FaultRule) => void) | undefined;

  constructor(private readonly random: () => number = Math.random) {}

  /** Adds a rule; returns a handle that removes it. */
  inject(rule: FaultRule): FaultHandle {
    const active: ActiveRule = { rule: { ...rule }, remaining: rule.times ?? Infinity };
    this.rules.push(active);
    if (rule.dropWatchAfterMs !== undefined) this.onDropRule?.(active.rule);
    return {
      remove: () => {
        this.rules = this.rules.filter((r) => r !== active);
      },
    };
  }

  /** Removes every rule. */
  clear(): void {
    this.rules = [];
  }

  /** True when a rule's selectors match (without consuming it). */
  static matches(rule: FaultRule, target: FaultTarget): boolean {
    if (rule.verb !== undefined && rule.verb !== target.verb) return false;
    if (rule.resource !== undefined && rule.resource !== target.resource) return false;
    if (rule.namespace !== undefined && rule.namespace !== target.namespace) return false;
    if (rule.name !== undefined && rule.name !== target.name) return false;
    return true;
  }

  /** The rules that fire for this request (consumes `times` and rolls `probability`). */
  fire(target: FaultTarget, filter: (rule: FaultRule) => boolean): FaultRule[] {
    const fired: FaultRule[] = [];
    for (const active of [...this.rules]) {
      if (!filter(active.rule) || !Faults.matches(active.rule, target)) continue;
      if (active.remaining <= 0) continue;
      if (this.random() >= (active.rule.probability ?? 1)) continue;
      active.remaining -= 1;
      if (active.remaining <= 0) this.rules = this.rules.filter((r) => r !== active);
      fired.push(active.rule);
    }
    return fired;
  }
}
