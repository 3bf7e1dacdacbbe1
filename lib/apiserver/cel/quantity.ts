/**
 * Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource/quantity.go) as exact rationals,
 * for CEL's `quantity()` library (k8s.io/apiserver/pkg/cel/library/quantity.go). A quantity is
 * `<sign><digits>[.<digits>][<suffix>]` where the suffix is binary (Ki…Ei), decimal SI (n u m "" k M G T
 * P E) or a decimal exponent (e3, E-2).
 */
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;

const BINARY: Record<string, bigint> = { Ki: 1n, Mi: 2n, Gi: 3n, Ti: 4n, Pi: 5n, Ei: 6n };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** Largest decimal exponent accepted (kube caps scale; this bounds the size of the exact numbers). */
const MAX_EXPONENT = 1000;

export class Quantity {
  /** value = num / den, den > 0 */
  readonly num: bigint;
  readonly den: bigint;

  constructor(num: bigint, den = 1n) {
    const g = gcd(num < 0n ? -num : num, den) || 1n;
    this.num = num / g;
    this.den = den / g;
  }

  isInteger(): boolean {
    return this.den === 1n;
  }

  sign(): bigint {
    return this.num > 0n ? 1n : this.num < 0n ? -1n : 0n;
  }

  compareTo(other: Quantity): bigint {
    const a = this.num * other.den;
    const b = other.num * this.den;
    return a > b ? 1n : a < b ? -1n : 0n;
  }

  add(other: Quantity): Quantity {
    return new Quantity(this.num * other.den + other.num * this.den, this.den * other.den);
  }

  sub(other: Quantity): Quantity {
    return new Quantity(this.num * other.den - other.num * this.den, this.den * other.den);
  }

  asApproximateFloat(): number {
    return Number(this.num) / Number(this.den);
  }

  toString(): string {
    return this.den === 1n ? `${this.num}` : `${this.asApproximateFloat()}`;
  }
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** Parses a quantity string; undefined when it is not one (kube: "quantities must match the regular expression…"). */
export function parseQuantity(text: string): Quantity | undefined {
  const match = QUANTITY.exec(text);
  if (!match) return undefined;
  const [, sign = '', digits = '', suffix = ''] = match;
  const [whole = '', fraction = ''] = digits.split('.');
  let num = BigInt((whole || '0') + fraction) * (sign === '-' ? -1n : 1n);
  let den = 10n ** BigInt(fraction.length);
  if (Object.hasOwn(BINARY, suffix)) {
    num *= 1024n ** (BINARY[suffix] ?? 0n);
  } else {
    const exponent = Object.hasOwn(DECIMAL, suffix) ? (DECIMAL[suffix] ?? 0) : Number(suffix.slice(1));
    if (!Number.isFinite(exponent) || Math.abs(exponent) > MAX_EXPONENT) return undefined;
    if (exponent >= 0) num *= 10n ** BigInt(exponent);
    else den *= 10n ** BigInt(-exponent);
  }
  return new Quantity(num, den);
}
