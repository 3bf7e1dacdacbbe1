import { PatchError } from './patch-error.js';
import { cloneJson, deleteKey, isJsonObject, jsonEqual, setKey } from './json-value.js';

/** kube-apiserver refuses JSON patches with more operations than this (413 there; 400 here). */
export const DEFAULT_MAX_JSON_PATCH_OPERATIONS = 10_000;

type Container = Record<string, unknown> | unknown[];

interface Operation {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
  hasValue: boolean;
}

/**
 * RFC 6902 JSON patch (add, remove, replace, move, copy, test) with RFC 6901 pointers.
 * A body that is not an array of operations → PatchError 400 BadRequest; an operation that cannot be
 * applied (missing path, bad index, failed `test`) → PatchError 422 Invalid, as kube-apiserver answers.
 * Never mutates its inputs.
 */
export function applyJsonPatch(target: unknown, operations: unknown): unknown {
  const ops = decodeOperations(operations);
  // The document is wrapped so that the root pointer "" is just another member.
  const root: Record<string, unknown> = { doc: cloneJson(target) };
  for (const op of ops) applyOperation(root, op);
  return root.doc;
}

function decodeOperations(operations: unknown): Operation[] {
  if (!Array.isArray(operations)) {
    throw new PatchError('json patch must be an array of operations', 400, 'BadRequest');
  }
  if (operations.length > DEFAULT_MAX_JSON_PATCH_OPERATIONS) {
    throw new PatchError(
      `The allowed maximum operations in a JSON patch is ${DEFAULT_MAX_JSON_PATCH_OPERATIONS}, got ${operations.length}`,
      400,
      'BadRequest',
    );
  }
  return operations.map((raw, i) => {
    if (!isJsonObject(raw))
      throw new PatchError(`json patch operation ${i} is not an object`, 400, 'BadRequest');
    const { op, path, from } = raw;
    if (typeof op !== 'string')
      throw new PatchError(`json patch operation ${i} has no "op"`, 400, 'BadRequest');
    if (typeof path !== 'string') {
      throw new PatchError(`json patch operation ${i} (${op}) has no "path"`, 400, 'BadRequest');
    }
    if (from !== undefined && typeof from !== 'string') {
      throw new PatchError(`json patch operation ${i} (${op}) has a non-string "from"`, 400, 'BadRequest');
    }
    return { op, path, from, value: raw.value, hasValue: 'value' in raw };
  });
}

/** Splits an RFC 6901 pointer into unescaped reference tokens, prefixed by the wrapper's 'doc'. */
function parsePointer(pointer: string): string[] {
  if (pointer === '') return ['doc'];
  if (!pointer.startsWith('/')) throw invalid(`invalid JSON pointer "${pointer}": must start with "/"`);
  return [
    'doc',
    ...pointer
      .slice(1)
      .split('/')
      .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~')),
  ];
}

function invalid(message: string): PatchError {
  return new PatchError(message, 422, 'Invalid');
}

/** Walks to the container holding the last token; throws 422 when an intermediate member is missing. */
function resolveParent(root: Record<string, unknown>, tokens: string[], op: string, path: string): Container {
  let current: unknown = root;
  for (const token of tokens.slice(0, -1)) {
    const next = getMember(current, token);
    if (next === undefined) throw missing(op, path);
    current = next;
  }
  if (!Array.isArray(current) && !isJsonObject(current)) throw missing(op, path);
  return current;
}

function missing(op: string, path: string): PatchError {
  return invalid(`${op} operation does not apply: doc is missing path: "${path}": missing value`);
}

function getMember(container: unknown, token: string): unknown {
  if (Array.isArray(container)) {
    const index = parseIndex(token, container.length - 1);
    return index === undefined ? undefined : container[index];
  }
  if (isJsonObject(container) && Object.hasOwn(container, token)) return container[token];
  return undefined;
}

/** Array index per RFC 6901: digits without leading zeros, at most `max`. */
function parseIndex(token: string, max: number): number | undefined {
  if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
  const index = Number(token);
  return index <= max ? index : undefined;
}

function lastToken(tokens: string[]): string {
  return tokens[tokens.length - 1] ?? '';
}

function getValue(root: Record<string, unknown>, pointer: string, op: string): unknown {
  const tokens = parsePointer(pointer);
  const parent = resolveParent(root, tokens, op, pointer);
  const value = getMember(parent, lastToken(tokens));
  if (value === undefined) throw missing(op, pointer);
  return value;
}

function addValue(root: Record<string, unknown>, pointer: string, value: unknown, op: string): void {
  const tokens = parsePointer(pointer);
  const parent = resolveParent(root, tokens, op, pointer);
  const token = lastToken(tokens);
  if (Array.isArray(parent)) {
    const index = token === '-' ? parent.length : parseIndex(token, parent.length);
    if (index === undefined)
      throw invalid(`${op} operation does not apply: invalid index ${token} for "${pointer}"`);
    parent.splice(index, 0, value);
  } else {
    setKey(parent, token, value);
  }
}

function removeValue(root: Record<string, unknown>, pointer: string, op: string): unknown {
  const tokens = parsePointer(pointer);
  if (tokens.length === 1) throw invalid(`${op} operation does not apply: cannot remove the whole document`);
  const parent = resolveParent(root, tokens, op, pointer);
  const token = lastToken(tokens);
  if (Array.isArray(parent)) {
    const index = parseIndex(token, parent.length - 1);
    if (index === undefined) throw missing(op, pointer);
    return parent.splice(index, 1)[0];
  }
  if (!Object.hasOwn(parent, token)) throw missing(op, pointer);
  const removed = parent[token];
  deleteKey(parent, token);
  return removed;
}

function requireValue(op: Operation): unknown {
  if (!op.hasValue) throw new PatchError(`${op.op} operation requires a "value"`, 400, 'BadRequest');
  return cloneJson(op.value);
}

function requireFrom(op: Operation): string {
  if (op.from === undefined) throw new PatchError(`${op.op} operation requires a "from"`, 400, 'BadRequest');
  return op.from;
}

function applyOperation(root: Record<string, unknown>, op: Operation): void {
  switch (op.op) {
    case 'add':
      addValue(root, op.path, requireValue(op), 'add');
      return;
    case 'remove':
      removeValue(root, op.path, 'remove');
      return;
    case 'replace': {
      const value = requireValue(op);
      const tokens = parsePointer(op.path);
      if (tokens.length === 1) {
        root.doc = value;
        return;
      }
      removeValue(root, op.path, 'replace');
      addValue(root, op.path, value, 'replace');
      return;
    }
    case 'move': {
      const from = requireFrom(op);
      if (from === op.path) return;
      if (op.path.startsWith(`${from}/`)) {
        throw invalid(`move operation does not apply: "from" ${from} is a prefix of "path" ${op.path}`);
      }
      addValue(root, op.path, removeValue(root, from, 'move'), 'move');
      return;
    }
    case 'copy':
      addValue(root, op.path, cloneJson(getValue(root, requireFrom(op), 'copy')), 'copy');
      return;
    case 'test': {
      const expected = requireValue(op);
      const tokens = parsePointer(op.path);
      const parent = resolveParent(root, tokens, 'test', op.path);
      const actual = getMember(parent, lastToken(tokens));
      if (!jsonEqual(actual ?? null, expected ?? null) || (actual === undefined && expected !== null)) {
        throw invalid(`testing value ${op.path} failed: test failed`);
      }
      return;
    }
    default:
      throw new PatchError(`Unexpected kind: ${op.op}`, 400, 'BadRequest');
  }
}
