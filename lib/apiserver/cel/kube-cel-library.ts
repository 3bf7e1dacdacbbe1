import { isIP } from 'node:net';
import { Environment, Optional } from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';
import { compileLinearRegex } from '../schema/linear-regex.js';
import { checkFormat } from '../schema/formats.js';
import {
  checkDns1035Label,
  checkDns1123Label,
  checkDns1123Subdomain,
  checkLabelValue,
  checkQualifiedName,
} from '../validation/name-rules.js';
import { parseQuantity, Quantity } from './quantity.js';

/**
 * The CEL environment CRD validation rules compile in: cel-js's standard library plus the Kubernetes
 * extensions CRD authors use (k8s.io/apiserver/pkg/cel/library: lists, sets, regex, urls, quantity,
 * format, ip/cidr predicates; cel-go ext strings). Namespaced functions (`sets.contains`, `format.named`,
 * `strings.quote`) are methods of constants named `sets`, `format` and `strings`.
 */
export class CelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CelError';
  }
}

class SetsLibrary {}
class StringsLibrary {}
class FormatLibrary {}

/** A named format of `format.named()` / `format.dns1123Label()`; `validate` returns the problems. */
export class KubeFormat {
  constructor(
    readonly name: string,
    readonly check: (value: string) => string[],
  ) {}
}

/** A parsed URL of `url()` (k8s.io/apiserver/pkg/cel/library/urls.go). */
export class KubeUrl {
  constructor(readonly url: URL) {}
}

const FORMATS: Record<string, (v: string) => string[]> = {
  dns1123Label: checkDns1123Label,
  dns1123Subdomain: checkDns1123Subdomain,
  dns1035Label: checkDns1035Label,
  qualifiedName: checkQualifiedName,
  labelValue: checkLabelValue,
  dns1123LabelPrefix: (v) => checkDns1123Label(v.endsWith('-') ? `${v}a` : v),
  dns1123SubdomainPrefix: (v) => checkDns1123Subdomain(v.endsWith('-') || v.endsWith('.') ? `${v}a` : v),
  dns1035LabelPrefix: (v) => checkDns1035Label(v.endsWith('-') ? `${v}a` : v),
  uri: (v) => (isUrl(v) ? [] : ['invalid URI']),
  uuid: (v) => (checkFormat('uuid', v) ? [] : ['does not match the UUID format']),
  byte: (v) => (checkFormat('byte', v) ? [] : ['invalid base64']),
  date: (v) => (checkFormat('date', v) ? [] : ['invalid date']),
  datetime: (v) => (checkFormat('date-time', v) ? [] : ['invalid datetime']),
};

function isUrl(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(value) && !value.startsWith('/')) return false;
  try {
    new URL(value, 'http://relative.invalid');
    return true;
  } catch {
    return false;
  }
}

function toUrl(value: string): KubeUrl {
  if (!isUrl(value)) throw new CelError(`URL parse error during conversion from string: ${value}`);
  return new KubeUrl(new URL(value, value.startsWith('/') ? 'http://relative.invalid' : undefined));
}

function quantity(value: string): Quantity {
  const q = parseQuantity(value);
  if (!q) throw new CelError('quantities must match the regular expression');
  return q;
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (a instanceof Quantity && b instanceof Quantity) return Number(a.compareTo(b));
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number'))
    return a < b ? -1 : a > b ? 1 : 0;
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  throw new CelError('no such overload');
}

function celEqual(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => celEqual(x, b[i]));
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
    const ka = Object.keys(a);
    return (
      ka.length === Object.keys(b).length && ka.every((k) => celEqual(Reflect.get(a, k), Reflect.get(b, k)))
    );
  }
  return (typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')
    ? a == b
    : a === b;
}

function regexFind(s: string, pattern: string, limit: number): string[] {
  compileLinearRegex(pattern); // RE2 syntax check with the shared error type
  const matcher = RE2JS.compile(pattern).matcher(s);
  const found: string[] = [];
  while (found.length !== limit && matcher.find()) found.push(matcher.group() ?? '');
  return found;
}

function findAll(s: string, pattern: string, limit: bigint): string[] {
  return regexFind(s, pattern, limit < 0n ? -1 : Number(limit));
}

/**
 * Builds an environment: `self` is dynamic; `oldSelf` is dynamic, or `optional<dyn>` for rules with
 * `optionalOldSelf: true`.
 */
export function createKubeCelEnvironment(
  optionalOldSelf = false,
  variables: 'schema' | 'admission' = 'schema',
): Environment {
  const env = new Environment({
    enableOptionalTypes: true,
    homogeneousAggregateLiterals: false,
  });
  env
    .registerType('kubernetes.SetsLibrary', SetsLibrary)
    .registerType('kubernetes.StringsLibrary', StringsLibrary)
    .registerType('kubernetes.FormatLibrary', FormatLibrary)
    .registerType('net.URL', KubeUrl)
    .registerType('kubernetes.Quantity', Quantity)
    .registerType('kubernetes.NamedFormat', KubeFormat)
    .registerConstant('sets', 'kubernetes.SetsLibrary', new SetsLibrary())
    .registerConstant('strings', 'kubernetes.StringsLibrary', new StringsLibrary())
    .registerConstant('format', 'kubernetes.FormatLibrary', new FormatLibrary());
  if (variables === 'admission') {
    // A webhook's matchConditions: the request's objects and the request itself.
    env
      .registerVariable('object', 'dyn')
      .registerVariable('oldObject', 'dyn')
      .registerVariable('request', 'dyn')
      .registerVariable('namespaceObject', 'dyn');
  } else {
    env
      .registerVariable('self', 'dyn')
      .registerVariable('oldSelf', optionalOldSelf ? 'optional<dyn>' : 'dyn');
  }
  // Handlers get CEL values whose types the signature guarantees; cel-js types them loosely.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const fn = (signature: string, handler: (...args: any[]) => unknown): void => {
    env.registerFunction(signature, handler);
  };

  // lists (k8s.io/apiserver/pkg/cel/library/lists.go)
  fn('list.isSorted(): bool', (l: unknown[]) => l.every((x, i) => i === 0 || compare(l[i - 1], x) <= 0));
  fn('list.sum(): dyn', (l: unknown[]) => {
    if (l.length === 0) return 0n;
    return l.reduce((a: unknown, b: unknown) => {
      if (a instanceof Quantity && b instanceof Quantity) return a.add(b);
      if (typeof a === 'bigint' && typeof b === 'bigint') return a + b;
      if (typeof a === 'number' && typeof b === 'number') return a + b;
      throw new CelError('no such overload');
    });
  });
  fn('list.min(): dyn', (l: unknown[]) => {
    if (l.length === 0) throw new CelError('min called on empty list');
    return l.reduce((a, b) => (compare(b, a) < 0 ? b : a));
  });
  fn('list.max(): dyn', (l: unknown[]) => {
    if (l.length === 0) throw new CelError('max called on empty list');
    return l.reduce((a, b) => (compare(b, a) > 0 ? b : a));
  });
  fn('list.indexOf(dyn): int', (l: unknown[], v: unknown) => BigInt(l.findIndex((x) => celEqual(x, v))));
  fn('list.lastIndexOf(dyn): int', (l: unknown[], v: unknown) => {
    for (let i = l.length - 1; i >= 0; i--) if (celEqual(l[i], v)) return BigInt(i);
    return -1n;
  });
  fn('list.distinct(): list', (l: unknown[]) => l.filter((x, i) => l.findIndex((y) => celEqual(x, y)) === i));
  fn('list.reverse(): list', (l: unknown[]) => [...l].reverse());
  fn('list.slice(int, int): list', (l: unknown[], a: bigint, b: bigint) => {
    if (a < 0n || b > BigInt(l.length) || a > b) throw new CelError(`index out of bounds: ${a}, ${b}`);
    return l.slice(Number(a), Number(b));
  });
  fn('list.flatten(): list', (l: unknown[]) =>
    l.flatMap((x): unknown[] => (Array.isArray(x) ? (x as unknown[]) : [x])),
  );

  // sets (k8s.io/apiserver/pkg/cel/library/sets.go → cel-go ext.Sets)
  const contains = (a: unknown[], b: unknown[]): boolean => b.every((y) => a.some((x) => celEqual(x, y)));
  fn('kubernetes.SetsLibrary.contains(list, list): bool', (_s, a: unknown[], b: unknown[]) => contains(a, b));
  fn(
    'kubernetes.SetsLibrary.equivalent(list, list): bool',
    (_s, a: unknown[], b: unknown[]) => contains(a, b) && contains(b, a),
  );
  fn('kubernetes.SetsLibrary.intersects(list, list): bool', (_s, a: unknown[], b: unknown[]) =>
    a.some((x) => b.some((y) => celEqual(x, y))),
  );

  // strings (cel-go ext.Strings, version 2 as kube-apiserver 1.34 enables)
  fn('string.charAt(int): string', (s: string, i: bigint) => {
    const chars = Array.from(s);
    if (i < 0n || i > BigInt(chars.length)) throw new CelError(`index out of range: ${i}`);
    return chars[Number(i)] ?? '';
  });
  fn('string.replace(string, string): string', (s: string, a: string, b: string) => s.split(a).join(b));
  fn('string.replace(string, string, int): string', (s: string, a: string, b: string, n: bigint) => {
    if (n < 0n) return s.split(a).join(b);
    const parts = s.split(a);
    const k = Number(n);
    return parts.slice(0, k + 1).join(b) + (parts.length > k + 1 ? a + parts.slice(k + 1).join(a) : '');
  });
  fn('string.reverse(): string', (s: string) => Array.from(s).reverse().join(''));
  fn('kubernetes.StringsLibrary.quote(string): string', (_s, v: string) => JSON.stringify(v));

  // regex (k8s.io/apiserver/pkg/cel/library/regex.go); `matches` itself is rebound to the linear engine
  fn('string.find(string): string', (s: string, p: string) => regexFind(s, p, 1)[0] ?? '');
  fn('string.findAll(string): list<string>', (s: string, p: string) => findAll(s, p, -1n));
  fn('string.findAll(string, int): list<string>', findAll);

  // urls (k8s.io/apiserver/pkg/cel/library/urls.go)
  fn('url(string): net.URL', toUrl);
  fn('isURL(string): bool', isUrl);
  fn('net.URL.getScheme(): string', (u: KubeUrl) => u.url.protocol.replace(/:$/, ''));
  fn('net.URL.getHost(): string', (u: KubeUrl) => (u.url.hostname === 'relative.invalid' ? '' : u.url.host));
  fn('net.URL.getHostname(): string', (u: KubeUrl) =>
    u.url.hostname === 'relative.invalid' ? '' : u.url.hostname.replace(/^\[|\]$/g, ''),
  );
  fn('net.URL.getPort(): string', (u: KubeUrl) => u.url.port);
  fn('net.URL.getEscapedPath(): string', (u: KubeUrl) => u.url.pathname);
  fn('net.URL.getQuery(): map', (u: KubeUrl) => {
    const out: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
    for (const [k, v] of u.url.searchParams) (out[k] ??= []).push(v);
    return out;
  });

  // quantity (k8s.io/apiserver/pkg/cel/library/quantity.go)
  fn('quantity(string): kubernetes.Quantity', quantity);
  fn('isQuantity(string): bool', (s: string) => parseQuantity(s) !== undefined);
  fn('kubernetes.Quantity.isInteger(): bool', (q: Quantity) => q.isInteger());
  fn('kubernetes.Quantity.asInteger(): int', (q: Quantity) => {
    if (!q.isInteger() || q.num > 2n ** 63n - 1n || q.num < -(2n ** 63n))
      throw new CelError('cannot convert value to integer');
    return q.num;
  });
  fn('kubernetes.Quantity.asApproximateFloat(): double', (q: Quantity) => q.asApproximateFloat());
  fn('kubernetes.Quantity.sign(): int', (q: Quantity) => q.sign());
  fn('kubernetes.Quantity.add(kubernetes.Quantity): kubernetes.Quantity', (a: Quantity, b: Quantity) =>
    a.add(b),
  );
  fn('kubernetes.Quantity.add(int): kubernetes.Quantity', (a: Quantity, b: bigint) => a.add(new Quantity(b)));
  fn('kubernetes.Quantity.sub(kubernetes.Quantity): kubernetes.Quantity', (a: Quantity, b: Quantity) =>
    a.sub(b),
  );
  fn('kubernetes.Quantity.sub(int): kubernetes.Quantity', (a: Quantity, b: bigint) => a.sub(new Quantity(b)));
  fn(
    'kubernetes.Quantity.isGreaterThan(kubernetes.Quantity): bool',
    (a: Quantity, b: Quantity) => a.compareTo(b) > 0n,
  );
  fn(
    'kubernetes.Quantity.isLessThan(kubernetes.Quantity): bool',
    (a: Quantity, b: Quantity) => a.compareTo(b) < 0n,
  );
  fn('kubernetes.Quantity.compareTo(kubernetes.Quantity): int', (a: Quantity, b: Quantity) => a.compareTo(b));

  // format (k8s.io/apiserver/pkg/cel/library/format.go)
  for (const [name, check] of Object.entries(FORMATS)) {
    fn(`kubernetes.FormatLibrary.${name}(): kubernetes.NamedFormat`, () => new KubeFormat(name, check));
  }
  fn('kubernetes.FormatLibrary.named(string): optional<kubernetes.NamedFormat>', (_f, name: string) => {
    const check = Object.hasOwn(FORMATS, name) ? FORMATS[name] : undefined;
    return check ? Optional.of(new KubeFormat(name, check)) : Optional.none();
  });
  fn('kubernetes.NamedFormat.validate(string): optional<list<string>>', (f: KubeFormat, v: string) => {
    const problems = f.check(v);
    return problems.length > 0 ? Optional.of(problems) : Optional.none();
  });

  // ip / cidr predicates (k8s.io/apiserver/pkg/cel/library/ip.go, cidr.go; the ip/cidr types are not served)
  fn('isIP(string): bool', (s: string) => isIP(s) !== 0);
  fn('isCIDR(string): bool', (s: string) => {
    const [addr = '', bits, ...rest] = s.split('/');
    const family = isIP(addr);
    if (family === 0 || bits === undefined || rest.length > 0 || !/^\d{1,3}$/.test(bits)) return false;
    return Number(bits) <= (family === 4 ? 32 : 128);
  });
  return env;
}

/** `s.matches(p)` with RE2 semantics in linear time (replaces cel-js's backtracking RegExp). */
export function linearMatches(s: unknown, pattern: unknown): boolean {
  if (typeof s !== 'string' || typeof pattern !== 'string') throw new CelError('no such overload');
  return compileLinearRegex(pattern).test(s);
}
