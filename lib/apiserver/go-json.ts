/**
 * The syntax error Go's encoding/json (and sigs.k8s.io/json, which kube-apiserver decodes with) reports for
 * a byte string, so the server's 400 texts read as kube-apiserver's: `invalid character 'o' in literal null
 * (expecting 'u')`, `unexpected end of JSON input`, … A scanner over bytes with Go's states and messages
 * (encoding/json/scanner.go); iterative, so any nesting depth costs no stack.
 */

const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** Go's quoteChar: the byte as a Go character literal. */
function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  const named: Record<number, string> = {
    0x07: '\\a',
    0x08: '\\b',
    0x0c: '\\f',
    0x0a: '\\n',
    0x0d: '\\r',
    0x09: '\\t',
    0x0b: '\\v',
    0x5c: '\\\\',
  };
  const name = named[c];
  if (name !== undefined) return `'${name}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  // A byte ≥ 0x80 becomes the rune U+0080…U+00FF; Go prints the non-printable ones escaped.
  if (c >= 0x80 && (c <= 0x9f || c === 0xa0 || c === 0xad)) return `'\\u${c.toString(16).padStart(4, '0')}'`;
  return `'${String.fromCharCode(c)}'`;
}

function invalid(c: number, context: string): string {
  return `invalid character ${quoteChar(c)} ${context}`;
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** What follows a complete value, by the container it is in. */
type Container = 'object-key' | 'object-value' | 'array';

/** Go's error for the first syntax error in `data`, or undefined when it is one valid JSON value. */
export function goJsonSyntaxError(data: Uint8Array): string | undefined {
  const stack: Container[] = [];
  let i = 0;
  const n = data.length;
  const at = (k: number): number => data[k] ?? -1;
  const skipSpace = (): void => {
    while (i < n && SPACE.has(at(i))) i++;
  };
  /** After a value: the container's separator, or the end of input. Returns an error or undefined. */
  let expectValue = true;
  for (;;) {
    skipSpace();
    if (expectValue) {
      if (i >= n) return 'unexpected end of JSON input';
      const c = at(i);
      if (c === 0x7b) {
        // {
        i++;
        skipSpace();
        if (i >= n) return 'unexpected end of JSON input';
        if (at(i) === 0x7d) {
          i++;
          expectValue = false;
          continue;
        }
        if (at(i) !== 0x22) return invalid(at(i), 'looking for beginning of object key string');
        stack.push('object-key');
        continue; // the key is scanned as a value (a string) below
      }
      if (c === 0x5b) {
        i++;
        skipSpace();
        if (i >= n) return 'unexpected end of JSON input';
        if (at(i) === 0x5d) {
          i++;
          expectValue = false;
          continue;
        }
        stack.push('array');
        continue;
      }
      if (c === 0x22) {
        i++;
        for (;;) {
          if (i >= n) return 'unexpected end of JSON input';
          const s = at(i);
          if (s === 0x22) {
            i++;
            break;
          }
          if (s === 0x5c) {
            i++;
            if (i >= n) return 'unexpected end of JSON input';
            const e = at(i);
            if (e === 0x75) {
              i++;
              for (let k = 0; k < 4; k++, i++) {
                if (i >= n) return 'unexpected end of JSON input';
                if (!isHex(at(i))) return invalid(at(i), 'in \\u hexadecimal character escape');
              }
              continue;
            }
            if (![0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74].includes(e))
              return invalid(e, 'in string escape code');
            i++;
            continue;
          }
          if (s < 0x20) return invalid(s, 'in string literal');
          i++;
        }
        expectValue = false;
        continue;
      }
      if (c === 0x2d || isDigit(c)) {
        if (c === 0x2d) {
          i++;
          if (i >= n) return 'unexpected end of JSON input';
          if (!isDigit(at(i))) return invalid(at(i), 'in numeric literal');
        }
        if (at(i) === 0x30) i++;
        else while (i < n && isDigit(at(i))) i++;
        if (at(i) === 0x2e) {
          i++;
          if (i >= n) return 'unexpected end of JSON input';
          if (!isDigit(at(i))) return invalid(at(i), 'after decimal point in numeric literal');
          while (i < n && isDigit(at(i))) i++;
        }
        if (at(i) === 0x65 || at(i) === 0x45) {
          i++;
          if (at(i) === 0x2b || at(i) === 0x2d) i++;
          if (i >= n) return 'unexpected end of JSON input';
          if (!isDigit(at(i))) return invalid(at(i), 'in exponent of numeric literal');
          while (i < n && isDigit(at(i))) i++;
        }
        expectValue = false;
        continue;
      }
      const literal = c === 0x74 ? 'true' : c === 0x66 ? 'false' : c === 0x6e ? 'null' : undefined;
      if (literal === undefined) return invalid(c, 'looking for beginning of value');
      for (let k = 1; k < literal.length; k++) {
        if (i + k >= n) return 'unexpected end of JSON input';
        const expected = literal.charCodeAt(k);
        if (at(i + k) !== expected)
          return invalid(at(i + k), `in literal ${literal} (expecting ${quoteChar(expected)})`);
      }
      i += literal.length;
      expectValue = false;
      continue;
    }
    // A value just ended.
    const top = stack[stack.length - 1];
    if (top === undefined) {
      if (i >= n) return undefined;
      return invalid(at(i), 'after top-level value');
    }
    if (i >= n) return 'unexpected end of JSON input';
    const c = at(i);
    if (top === 'object-key') {
      if (c !== 0x3a) return invalid(c, 'after object key');
      i++;
      stack[stack.length - 1] = 'object-value';
      expectValue = true;
    } else if (top === 'object-value') {
      if (c === 0x2c) {
        i++;
        skipSpace();
        if (i >= n) return 'unexpected end of JSON input';
        if (at(i) !== 0x22) return invalid(at(i), 'looking for beginning of object key string');
        stack[stack.length - 1] = 'object-key';
        expectValue = true;
      } else if (c === 0x7d) {
        i++;
        stack.pop();
      } else return invalid(c, 'after object key:value pair');
    } else {
      if (c === 0x2c) {
        i++;
        expectValue = true;
      } else if (c === 0x5d) {
        i++;
        stack.pop();
      } else return invalid(c, 'after array element');
    }
  }
}

/** kube-apiserver's summarizeData (endpoints/handlers/rest.go): a body excerpt for decode errors. */
export function summarizeBody(data: Uint8Array, maxLength = 30): string {
  if (data.length === 0) return '<empty>';
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (data[0] === 0x7b) {
    return data.length > maxLength
      ? `${buf.subarray(0, maxLength).toString('utf8')} ...`
      : buf.toString('utf8');
  }
  return data.length > maxLength ? `${buf.subarray(0, maxLength).toString('hex')} ...` : buf.toString('hex');
}
