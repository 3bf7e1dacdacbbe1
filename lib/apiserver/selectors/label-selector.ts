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

class Parser {
  private position = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.position] ?? { kind: 'end', text: '' };
  }

  private next(): Token {
    const token = this.peek();
    this.position++;
    return token;
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    if (this.peek().kind === 'end') return requirements;
    for (;;) {
      requirements.push(this.requirement());
      const token = this.next();
      if (token.kind === 'end') return requirements;
      if (token.kind !== ',')
        throw new SelectorError(`found '${token.text}', expected: ',' or 'end of string'`);
      if (this.peek().kind === 'end') throw new SelectorError("found '', expected: identifier after ','");
    }
  }

  private requirement(): Requirement {
    let token = this.next();
    const negated = token.kind === '!';
    if (negated) token = this.next();
    if (token.kind !== 'identifier') {
      throw new SelectorError(`found '${token.text}', expected: !, identifier, or 'end of string'`);
    }
    const key = validateKey(token.text);
    const following = this.peek().kind;
    if (negated || following === ',' || following === 'end') {
      return { key, operator: negated ? '!' : 'exists', values: [] };
    }
    const operator = this.next();
    switch (operator.kind) {
      case '=':
      case '==':
        return { key, operator: '=', values: [this.singleValue()] };
      case '!=':
        return { key, operator: '!=', values: [this.singleValue()] };
      case '>':
      case '<':
        return { key, operator: operator.kind === '>' ? 'gt' : 'lt', values: [this.integerValue()] };
      case 'in':
      case 'notin':
        return { key, operator: operator.kind, values: this.valueSet() };
      default:
        throw new SelectorError(`found '${operator.text}', expected: in, notin, =, ==, !=, gt, lt`);
    }
  }

  private singleValue(): string {
    const token = this.peek();
    if (token.kind === ',' || token.kind === 'end') return validateValue('');
    this.position++;
    if (token.kind !== 'identifier' && token.kind !== 'in' && token.kind !== 'notin') {
      throw new SelectorError(`found '${token.text}', expected: identifier`);
    }
    return validateValue(token.text);
  }

  private integerValue(): string {
    const token = this.next();
    if (token.kind !== 'identifier' || !/^-?[0-9]+$/.test(token.text)) {
      throw new SelectorError(`for 'Gt', 'Lt' operators, the value must be an integer: '${token.text}'`);
    }
    return token.text;
  }

  private valueSet(): string[] {
    const open = this.next();
    if (open.kind !== '(') throw new SelectorError(`found '${open.text}', expected: '('`);
    const values: string[] = [];
    for (;;) {
      let token = this.next();
      let value = '';
      if (token.kind === 'identifier' || token.kind === 'in' || token.kind === 'notin') {
        value = token.text;
        token = this.next();
      }
      values.push(validateValue(value));
      if (token.kind === ')') return [...new Set(values)];
      if (token.kind !== ',')
        throw new SelectorError(`found '${token.text}', expected: ',', ')' or identifier`);
    }
  }
}

function validateKey(key: string): string {
  const problems = checkQualifiedName(key);
  if (problems.length > 0)
    throw new SelectorError(
      `unable to parse requirement: key: Invalid value: "${key}": ${problems.join('; ')}`,
    );
  return key;
}

function validateValue(value: string): string {
  const problems = checkLabelValue(value);
  if (problems.length > 0)
    throw new SelectorError(
      `unable to parse requirement: values[0]: Invalid value: "${value}": ${problems.join('; ')}`,
    );
  return value;
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
