/**
 * Finds keys that occur twice in the same JSON object of a request body, which `JSON.parse` silently
 * collapses but kube's strict decoding reports (fieldValidation=Strict → 400
 * `strict decoding error: duplicate field "spec.size"`; Warn → a warning). Returns each duplicate's path
 * (`spec.size`, `spec.items[1].name`) once, in document order. Malformed JSON returns what was found
 * before the error (the caller's JSON.parse reports the syntax error itself).
 */
export function findDuplicateFields(json: string): string[] {
  const scanner = new Scanner(json);
  const found: string[] = [];
  try {
    scanner.skipSpace();
    scanner.value('', found);
  } catch {
    // Syntax errors are reported by JSON.parse; return the duplicates seen so far.
  }
  return [...new Set(found)];
}

class Scanner {
  private i = 0;
  constructor(private readonly text: string) {}

  skipSpace(): void {
    while (this.i < this.text.length && ' \t\n\r'.includes(this.text.charAt(this.i))) this.i++;
  }

  private expect(c: string): void {
    if (this.text.charAt(this.i) !== c) throw new Error(`expected ${c} at ${this.i}`);
    this.i++;
    this.skipSpace();
  }

  value(path: string, found: string[]): void {
    const c = this.text.charAt(this.i);
    if (c === '{') this.object(path, found);
    else if (c === '[') this.array(path, found);
    else if (c === '"') this.string();
    else this.scalar();
    this.skipSpace();
  }

  private object(path: string, found: string[]): void {
    this.expect('{');
    const seen = new Set<string>();
    if (this.text.charAt(this.i) === '}') {
      this.expect('}');
      return;
    }
    for (;;) {
      const key = this.string();
      this.skipSpace();
      const child = path === '' ? key : `${path}.${key}`;
      if (seen.has(key)) found.push(child);
      seen.add(key);
      this.expect(':');
      this.value(child, found);
      if (this.text.charAt(this.i) === ',') {
        this.expect(',');
        continue;
      }
      this.expect('}');
      return;
    }
  }

  private array(path: string, found: string[]): void {
    this.expect('[');
    if (this.text.charAt(this.i) === ']') {
      this.expect(']');
      return;
    }
    for (let index = 0; ; index++) {
      this.value(`${path}[${index}]`, found);
      if (this.text.charAt(this.i) === ',') {
        this.expect(',');
        continue;
      }
      this.expect(']');
      return;
    }
  }

  /** Reads a string literal and returns its decoded value. */
  private string(): string {
    const start = this.i;
    if (this.text.charAt(this.i) !== '"') throw new Error(`expected a string at ${this.i}`);
    this.i++;
    while (this.i < this.text.length && this.text.charAt(this.i) !== '"') {
      this.i += this.text.charAt(this.i) === '\\' ? 2 : 1;
    }
    this.i++;
    return JSON.parse(this.text.slice(start, this.i)) as string;
  }

  private scalar(): void {
    const start = this.i;
    while (this.i < this.text.length && !',]} \t\n\r'.includes(this.text.charAt(this.i))) this.i++;
    if (this.i === start) throw new Error(`expected a value at ${this.i}`);
  }
}
