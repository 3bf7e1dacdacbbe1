import { checkLabelValue, checkQualifiedName } from '../validation/name-rules.js';
import { SelectorError } from './selector-error.js';

/** A parsed `labelSelector`: requirements ANDed together; the empty selector matches everything. */
export interface LabelSelector {
  matches(labels: Record<string, string> | undefined): boolean;
  readonly empty: boolean;
}

type Operator = '=' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

type Token =
  | { kind: 'identifier'; text: string }
  | { kind: 'in' | 'notin' | '!' | '=' | '==' | '!=' | '(' | ')' | ',' | '>' | '<' | 'end'; text: string };

const SPECIAL = new Set(['!', '=', '(', ')', ',', '<', '>', ' ', '\t', '\n', '\r']);

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charAt(i);
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (c === '=' && text.charAt(i + 1) === '=') {
      tokens.push({ kind: '==', text: '==' });
      i += 2;
    } else if (c === '!' && text.charAt(i + 1) === '=') {
      tokens.push({ kind: '!=', text: '!=' });
      i += 2;
    } else if (c === '!' || c === '=' || c === '(' || c === ')' || c === ',' || c === '<' || c === '>') {
      tokens.push({ kind: c, text: c });
      i++;
    } else {
      let j = i;
      while (j < text.length && !SPECIAL.has(text.charAt(j))) j++;
      const word = text.slice(i, j);
      tokens.push(
        word === 'in' || word === 'notin' ? { kind: word, text: word } : { kind: 'identifier', text: word },
      );
      i = j;
    }
  }
  tokens.push({ kind: 'end', text: '' });
  return tokens;
}

/**
 * kube's label selector parser (k8s.io/apimachinery/pkg/labels/selector.go), with its error texts: a
 * failing requirement is reported as `unable to parse requirement: <why>`, the rest as they are.
 */
class Parser {
  private position = 0;
  constructor(private readonly tokens: Token[]) {}

  /** The next token; in the Values context `in`/`notin` are plain identifiers, as in kube's lexer. */
  private lookahead(values = true): Token {
    const token = this.tokens[this.position] ?? { kind: 'end', text: '' };
    return values && (token.kind === 'in' || token.kind === 'notin')
      ? { kind: 'identifier', text: token.text }
      : token;
  }

  private consume(values = true): Token {
    const token = this.lookahead(values);
    this.position++;
    return token;
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    for (;;) {
      const token = this.lookahead();
      if (token.kind === 'end') return requirements;
      if (token.kind !== 'identifier' && token.kind !== '!') {
        throw new SelectorError(`found '${token.text}', expected: !, identifier, or 'end of string'`);
      }
      try {
        requirements.push(this.requirement());
      } catch (e) {
        if (e instanceof SelectorError) throw new SelectorError(`unable to parse requirement: ${e.message}`);
        throw e;
      }
      const after = this.consume();
      if (after.kind === 'end') return requirements;
      if (after.kind !== ',')
        throw new SelectorError(`found '${after.text}', expected: ',' or 'end of string'`);
      const next = this.lookahead();
      if (next.kind !== 'identifier' && next.kind !== '!')
        throw new SelectorError(`found '${next.text}', expected: identifier after ','`);
    }
  }

  private requirement(): Requirement {
    let token = this.consume();
    const negated = token.kind === '!';
    if (negated) token = this.consume();
    if (token.kind !== 'identifier') throw new SelectorError(`found '${token.text}', expected: identifier`);
    const key = token.text;
    // parseKeyAndInferOperator validates the key with the parser's (nil) path: "<nil>: Invalid value…".
    const keyProblems = checkQualifiedName(key);
    if (keyProblems.length > 0)
      throw new SelectorError(`<nil>: Invalid value: ${JSON.stringify(key)}: ${keyProblems.join('; ')}`);
    const following = this.lookahead().kind;
    if (negated) return newRequirement(key, '!', []);
    if (following === ',' || following === 'end') return newRequirement(key, 'exists', []);
    const operator = this.consume(false);
    switch (operator.kind) {
      case '=':
      case '==':
        return newRequirement(key, '=', this.exactValue());
      case '!=':
        return newRequirement(key, '!=', this.exactValue());
      case '>':
      case '<':
        return newRequirement(key, operator.kind === '>' ? 'gt' : 'lt', this.exactValue());
      case 'in':
      case 'notin':
        return newRequirement(key, operator.kind, this.values());
      default:
        throw new SelectorError(`found '${operator.text}', expected: in, notin, =, ==, !=, gt, lt`);
    }
  }

  private exactValue(): string[] {
    const ahead = this.lookahead();
    if (ahead.kind === 'end' || ahead.kind === ',') return [''];
    const token = this.consume();
    if (token.kind === 'identifier') return [token.text];
    throw new SelectorError(`found '${token.text}', expected: identifier`);
  }

  private values(): string[] {
    const open = this.consume();
    if (open.kind !== '(') throw new SelectorError(`found '${open.text}' expected: '('`);
    const ahead = this.lookahead();
    if (ahead.kind === ')') {
      this.consume();
      return [''];
    }
    if (ahead.kind !== 'identifier' && ahead.kind !== ',')
      throw new SelectorError(`found '${ahead.text}', expected: ',', ')' or identifier`);
    const list = this.identifiers();
    if (this.consume().kind !== ')') throw new SelectorError(`found '${ahead.text}', expected: ')'`);
    return list;
  }

  /** parseIdentifiersList: a possibly empty, comma-separated list of possibly empty identifiers. */
  private identifiers(): string[] {
    const set = new Set<string>();
    for (;;) {
      const token = this.consume();
      if (token.kind === 'identifier') {
        set.add(token.text);
        const next = this.lookahead();
        if (next.kind === ',') continue;
        if (next.kind === ')') return [...set];
        throw new SelectorError(`found '${next.text}', expected: ',' or ')'`);
      } else if (token.kind === ',') {
        if (set.size === 0) set.add('');
        const next = this.lookahead();
        if (next.kind === ')') {
          set.add('');
          return [...set];
        }
        if (next.kind === ',') {
          this.consume();
          set.add('');
        }
      } else {
        throw new SelectorError(`found '${token.text}', expected: ',', or identifier`);
      }
    }
  }
}

/** NewRequirement's checks: values sorted (a string set), Gt/Lt integers, each value a label value. */
function newRequirement(key: string, operator: Operator, raw: string[]): Requirement {
  const values = [...new Set(raw)].sort();
  const errors: string[] = [];
  if ((operator === 'gt' || operator === 'lt') && values.length === 1) {
    if (!/^-?[0-9]+$/.test(values[0] ?? ''))
      errors.push(
        `values[0]: Invalid value: ${JSON.stringify(values[0])}: for 'Gt', 'Lt' operators, the value must be an integer`,
      );
  }
  values.forEach((value, i) => {
    const problems = checkLabelValue(value);
    if (problems.length > 0)
      errors.push(`values[${i}][${key}]: Invalid value: ${JSON.stringify(value)}: ${problems.join('; ')}`);
  });
  if (errors.length === 1) throw new SelectorError(errors[0] ?? '');
  if (errors.length > 1) throw new SelectorError(`[${errors.join(', ')}]`);
  return { key, operator, values };
}

function matchesRequirement(requirement: Requirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, requirement.key);
  const value = labels[requirement.key];
  switch (requirement.operator) {
    case '=':
    case 'in':
      return has && requirement.values.includes(value ?? '');
    case '!=':
    case 'notin':
      return !has || !requirement.values.includes(value ?? '');
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^-?[0-9]+$/.test(value ?? '')) return false;
      const actual = Number(value);
      const bound = Number(requirement.values[0]);
      return requirement.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

/**
 * Parses a `labelSelector` query value with kube's grammar: `a=b`, `a==b`, `a!=b`, `a in (x,y)`,
 * `a notin (x)`, `a`, `!a` (and `a>1`, `a<1`), comma = AND, whitespace ignored. Keys must be qualified
 * names and values label values. The empty string selects everything. Throws SelectorError (→ 400).
 */
export function parseLabelSelector(text: string): LabelSelector {
  const requirements = new Parser(tokenize(text)).parse();
  return {
    empty: requirements.length === 0,
    matches: (labels) => requirements.every((r) => matchesRequirement(r, labels ?? {})),
  };
}
