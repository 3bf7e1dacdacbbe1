import { PatchError } from './patch-error.js';
import { cloneJson, getOwn, isJsonObject, jsonEqual, setKey } from './json-value.js';

/** kube-apiserver refuses JSON patches with more operations than this (413 there; 400 here). */
export const DEFAULT_MAX_JSON_PATCH_OPERATIONS = 10_000;
/** Bytes `copy` operations may add to a document in total (kube sets it to its 3 MiB request limit). */
export const DEFAULT_MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

/**
 * kube-apiserver's answer to a JSON patch whose operation fails to apply: a 422 with this generic text
 * (NewGenericServerResponse drops the json-patch library's own message for a 422).
 */
export const JSON_PATCH_FAILED = 'the server rejected our request due to an error in our request';

/** One decoded operation: its members as sent (the library reads each lazily, as kube's does). */
export type JsonPatchOperation = Record<string, unknown> | null;

/** A decoded JSON patch, and the unknown members a strict decoding found (`[0].x`). */
export interface DecodedJsonPatch {
  operations: JsonPatchOperation[];
  unknownFields: string[];
}

const OP_FIELDS = new Set(['op', 'path', 'from', 'value']);

function goKind(value: unknown): string {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'bool';
  return Array.isArray(value) ? 'array' : 'object';
}

/**
 * Decodes a JSON patch body (already valid JSON) as kube-apiserver does
 * (k8s.io/apiserver/pkg/endpoints/handlers/patch.go): with fieldValidation Strict or Warn it is first read
 * strictly into its operation type — a body that is not a list, or an `op`/`path`/`from` that is not a
 * string, is a 400 `error decoding patch: json: cannot unmarshal …`, and members other than op, path, from
 * and value are reported — then by the json-patch library (`json: cannot unmarshal … into Go value of
 * type jsonpatch.Patch`). More than {@link DEFAULT_MAX_JSON_PATCH_OPERATIONS} operations is refused.
 */
export function decodeJsonPatch(body: unknown, strict: boolean): DecodedJsonPatch {
  const unknownFields: string[] = [];
  if (strict) {
    const fail = (what: string): never => {
      throw new PatchError(`error decoding patch: json: cannot unmarshal ${what}`, 400, 'BadRequest');
    };
    if (body !== null && !Array.isArray(body))
      fail(`${goKind(body)} into Go value of type []handlers.jsonPatchOp`);
    let typeError: string | undefined;
    (Array.isArray(body) ? body : []).forEach((item: unknown, i) => {
      if (item === null) return;
      if (!isJsonObject(item)) {
        typeError ??= `${goKind(item)} into Go value of type handlers.jsonPatchOp`;
        return;
      }
      for (const [key, value] of Object.entries(item)) {
        if (!OP_FIELDS.has(key)) unknownFields.push(`[${String(i)}].${key}`);
        else if (key !== 'value' && value !== null && typeof value !== 'string') {
          typeError ??= `${goKind(value)} into Go struct field jsonPatchOp.${key} of type string`;
        }
      }
    });
    if (typeError !== undefined) fail(typeError);
  }
  if (body !== null && !Array.isArray(body)) {
    throw new PatchError(
      `json: cannot unmarshal ${goKind(body)} into Go value of type jsonpatch.Patch`,
      400,
      'BadRequest',
    );
  }
  const operations = (Array.isArray(body) ? body : []).map((item: unknown): JsonPatchOperation => {
    if (item !== null && !isJsonObject(item)) {
      throw new PatchError(
        `json: cannot unmarshal ${goKind(item)} into Go value of type jsonpatch.Operation`,
        400,
        'BadRequest',
      );
    }
    return item;
  });
  if (operations.length > DEFAULT_MAX_JSON_PATCH_OPERATIONS) {
    throw new PatchError(
      `The allowed maximum operations in a JSON patch is ${String(DEFAULT_MAX_JSON_PATCH_OPERATIONS)}, got ${String(operations.length)}`,
      400,
      'BadRequest',
    );
  }
  return { operations, unknownFields };
}

/** A failed operation: kube answers them all alike (see {@link JSON_PATCH_FAILED}). */
class NotApplicable extends Error {}

type Container = Record<string, unknown> | unknown[];

/** Go's strconv.Atoi: an optional sign and decimal digits. */
function atoi(token: string): number | undefined {
  return /^[+-]?[0-9]+$/.test(token) ? Number(token) : undefined;
}

function decodeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The member an operation names, when it is a string (the library's Kind/Path/From). */
function member(op: JsonPatchOperation, name: string): string | undefined {
  const value = op === null ? undefined : getOwn(op, name);
  return typeof value === 'string' ? value : undefined;
}

/**
 * The container a pointer's last token lives in, or undefined (the library's findObject): a pointer with
 * no `/` names nothing; each token before the last must lead to an object or a list.
 */
function findContainer(root: Container, pointer: string): { container: Container; key: string } | undefined {
  const tokens = pointer.split('/');
  if (tokens.length < 2) return undefined;
  let at: Container = root;
  for (const token of tokens.slice(1, -1)) {
    const next = getMember(at, decodeToken(token));
    if (next === undefined) return undefined;
    if (!Array.isArray(next) && !isJsonObject(next)) return undefined;
    at = next;
  }
  return { container: at, key: decodeToken(tokens[tokens.length - 1] ?? '') };
}

/** A list index as the library resolves it: negative counts from the end; out of range is an error. */
function listIndex(list: unknown[], key: string, size = list.length): number {
  const index = atoi(key);
  if (index === undefined) throw new NotApplicable();
  const resolved = index < 0 ? index + size : index;
  if (index < -size || resolved >= size) throw new NotApplicable();
  return resolved;
}

/** An object member (undefined when absent) or a list item (an error when out of range). */
function getMember(container: Container, key: string): unknown {
  if (Array.isArray(container)) {
    const index = atoi(key);
    if (index === undefined) return undefined;
    const resolved = index < 0 ? index + container.length : index;
    return index < -container.length || resolved >= container.length ? undefined : container[resolved];
  }
  return getOwn(container, key);
}

function addMember(container: Container, key: string, value: unknown): void {
  if (!Array.isArray(container)) {
    setKey(container, key, value);
    return;
  }
  if (key === '-') {
    container.push(value);
    return;
  }
  container.splice(listIndex(container, key, container.length + 1), 0, value);
}

function removeMember(container: Container, key: string): unknown {
  if (!Array.isArray(container)) {
    if (!Object.hasOwn(container, key)) throw new NotApplicable();
    const removed = container[key];
    Reflect.deleteProperty(container, key);
    return removed;
  }
  return container.splice(listIndex(container, key), 1)[0];
}

function locate(root: Container, pointer: string | undefined): { container: Container; key: string } {
  const found = pointer === undefined ? undefined : findContainer(root, pointer);
  if (found === undefined) throw new NotApplicable();
  return found;
}

/** The operation's `value`: absent and null are both JSON null once applied. */
function valueOf(op: JsonPatchOperation): unknown {
  const value = op === null ? undefined : getOwn(op, 'value');
  return value === undefined ? null : cloneJson(value);
}

function applyOperation(root: Container, op: JsonPatchOperation, copied: { bytes: number }): Container {
  const kind = member(op, 'op') ?? 'unknown';
  const path = member(op, 'path');
  switch (kind) {
    case 'add': {
      const at = locate(root, path);
      addMember(at.container, at.key, valueOf(op));
      return root;
    }
    case 'remove': {
      const at = locate(root, path);
      removeMember(at.container, at.key);
      return root;
    }
    case 'replace': {
      if (path === '') {
        const value = valueOf(op);
        // The library replaces the whole document only with an object or a list, and ignores anything else.
        return Array.isArray(value) || isJsonObject(value) ? value : root;
      }
      const at = locate(root, path);
      // An absent object member is set (the library does not check it exists); a list index must exist.
      if (Array.isArray(at.container)) at.container[listIndex(at.container, at.key)] = valueOf(op);
      else setKey(at.container, at.key, valueOf(op));
      return root;
    }
    case 'move': {
      const from = locate(root, member(op, 'from'));
      const value = getMember(from.container, from.key);
      removeMember(from.container, from.key);
      const to = locate(root, path);
      addMember(to.container, to.key, value === undefined ? null : value);
      return root;
    }
    case 'copy': {
      const from = locate(root, member(op, 'from'));
      const value = getMember(from.container, from.key);
      const to = locate(root, path);
      const copy = value === undefined ? null : cloneJson(value);
      copied.bytes += JSON.stringify(copy).length;
      if (copied.bytes > DEFAULT_MAX_JSON_PATCH_COPY_BYTES) throw new NotApplicable();
      addMember(to.container, to.key, copy);
      return root;
    }
    case 'test': {
      const expected = op === null ? undefined : getOwn(op, 'value');
      if (path === '') {
        if (!jsonEqual(root, expected)) throw new NotApplicable();
        return root;
      }
      const at = locate(root, path);
      const actual = Array.isArray(at.container)
        ? at.container[listIndex(at.container, at.key)]
        : getMember(at.container, at.key);
      if (actual === undefined ? expected !== null : !jsonEqual(actual, expected ?? null)) {
        throw new NotApplicable();
      }
      return root;
    }
    default:
      throw new NotApplicable();
  }
}

/**
 * Applies a decoded JSON patch as kube-apiserver's json-patch library (gopkg.in/evanphx/json-patch.v4)
 * does, quirks included: `replace` of an absent object member sets it, `add` without a value adds null,
 * negative list indices count from the end, a pointer without `/` names nothing. An operation that does
 * not apply (a missing parent, an index out of range, a failed `test`, an unknown op) is a PatchError 422
 * with kube's generic text. Never mutates its inputs.
 */
export function applyJsonPatch(target: unknown, operations: readonly JsonPatchOperation[]): unknown {
  let root = cloneJson(target) as Container;
  const copied = { bytes: 0 };
  try {
    for (const op of operations) root = applyOperation(root, op, copied);
  } catch (e) {
    if (e instanceof NotApplicable) throw new PatchError(JSON_PATCH_FAILED, 422, 'Invalid', {});
    throw e;
  }
  return root;
}
