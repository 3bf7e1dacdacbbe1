/**
 * A label selector in the API's string form (`app=web,tier!=db,env in (a,b),!legacy`), as a test on an
 * object's labels — for answering a `list` from the cache as the API server would. Undefined when the text
 * is not a selector this parser understands (the list then goes to the API server, which explains the error).
 */
export function labelSelectorMatcher(
  text: string,
): ((labels: Readonly<Record<string, string>> | undefined) => boolean) | undefined {
  const tests: ((labels: Readonly<Record<string, string>>) => boolean)[] = [];
  for (const part of splitTopLevel(text)) {
    const term = part.trim();
    if (term === '') continue;
    const test = parseTerm(term);
    if (test === undefined) return undefined;
    tests.push(test);
  }
  return (labels) => {
    const l = labels ?? {};
    for (const test of tests) if (!test(l)) return false;
    return true;
  };
}

const KEY = /^[A-Za-z0-9]([A-Za-z0-9._/-]*[A-Za-z0-9])?$/;
const VALUE = /^([A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?)?$/;

/** Splits on commas outside parentheses. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function parseTerm(term: string): ((labels: Readonly<Record<string, string>>) => boolean) | undefined {
  const set = /^([^\s!=()]+)\s+(in|notin)\s*\(([^()]*)\)$/.exec(term);
  if (set !== null) {
    const [, key = '', op, list = ''] = set;
    const values = list.split(',').map((v) => v.trim());
    if (!KEY.test(key) || !values.every((v) => VALUE.test(v))) return undefined;
    const allowed = new Set(values);
    return op === 'in'
      ? (l) => Object.hasOwn(l, key) && allowed.has(l[key] ?? '')
      : (l) => !Object.hasOwn(l, key) || !allowed.has(l[key] ?? '');
  }
  const eq = /^([^\s!=()]+)\s*(==|=|!=)\s*([^\s!=(),]*)$/.exec(term);
  if (eq !== null) {
    const [, key = '', op, value = ''] = eq;
    if (!KEY.test(key) || !VALUE.test(value)) return undefined;
    return op === '!='
      ? (l) => !Object.hasOwn(l, key) || l[key] !== value
      : (l) => Object.hasOwn(l, key) && l[key] === value;
  }
  const absent = /^!\s*([^\s!=()]+)$/.exec(term);
  if (absent !== null) {
    const key = absent[1] ?? '';
    return KEY.test(key) ? (l) => !Object.hasOwn(l, key) : undefined;
  }
  return KEY.test(term) ? (l) => Object.hasOwn(l, term) : undefined;
}
