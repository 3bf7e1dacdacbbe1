import { builtinTypes } from '../builtin-types.js';
import { GENERATED_SCHEMAS } from '../builtin/builtin-schemas.js';
import { goJsonSyntaxError, summarizeBody } from '../go-json.js';
import { parseJsonObject } from '../http-io.js';
import { display, isJsonObject, metadataOf, stringAt, type JsonObject } from '../json.js';
import { apiVersionOf } from '../resource-type.js';
import { ApiError, badRequest, failureStatus } from '../status.js';
import type { RequestContext } from './request-context.js';

/** The Go type kube's SimpleMetaFactory decodes a body's apiVersion and kind into (serializer/json/meta.go). */
const FIND_KIND_TYPE =
  'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

function goTypeOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

/**
 * A create or update body, with kube's decode errors (k8s.io/apiserver/pkg/endpoints/handlers/rest.go
 * transformDecodeError): invalid JSON or a non-object is `the object provided is unrecognized (must be of
 * type <Kind>): couldn't get version/kind; json parse error: <Go's error> (<first 30 bytes>)`.
 */
export function parseObjectBody(ctx: RequestContext): JsonObject {
  const unrecognized = (why: string): ApiError =>
    badRequest(
      `the object provided is unrecognized (must be of type ${ctx.type.kind}): couldn't get version/kind; json parse error: ${why} (${summarizeBody(ctx.body)})`,
    );
  const syntax = goJsonSyntaxError(ctx.body);
  if (syntax !== undefined) throw unrecognized(syntax);
  const value: unknown = JSON.parse(ctx.body.toString('utf8'));
  if (!isJsonObject(value) && value !== null) {
    throw unrecognized(`json: cannot unmarshal ${goTypeOf(value)} into Go value of type ${FIND_KIND_TYPE}`);
  }
  // Custom resources are decoded as unstructured objects, which must name their kind (a built-in body may
  // leave it to the URL; `null` is then an empty object).
  if (!ctx.type.builtin && (!isJsonObject(value) || typeof value.kind !== 'string' || value.kind === '')) {
    const text = ctx.body.toString('utf8');
    throw badRequest(
      `the object provided is unrecognized (must be of type ${ctx.type.kind}): Object 'Kind' is missing in '${text}' (${summarizeBody(ctx.body)})`,
    );
  }
  return value === null ? {} : parseJsonObject(ctx.body);
}

/**
 * A merge or JSON patch body, with kube's texts (`error decoding patch: <Go's error>`; a strategic merge
 * patch reports Go's error alone), or undefined for a well-formed one.
 */
export function patchDecodeError(body: Buffer, kind: 'merge' | 'json' | 'strategic'): ApiError | undefined {
  const prefix = kind === 'strategic' ? '' : 'error decoding patch: ';
  const syntax = goJsonSyntaxError(body);
  if (syntax !== undefined) return badRequest(`${prefix}${syntax}`);
  if (kind === 'json') return undefined;
  const value: unknown = JSON.parse(body.toString('utf8'));
  if (!isJsonObject(value) && value !== null) {
    return badRequest(
      `${prefix}json: cannot unmarshal ${goTypeOf(value)} into Go value of type map[string]interface {}`,
    );
  }
  return undefined;
}

/** The Go package of a built-in group's internal types, as kube's conversion errors name it. */
const INTERNAL_PACKAGE: Record<string, string> = {
  '': 'core',
  'events.k8s.io': 'core',
  'rbac.authorization.k8s.io': 'rbac',
  'apiextensions.k8s.io': 'apiextensions',
};

export function internalPackage(group: string): string {
  return INTERNAL_PACKAGE[group] ?? group.split('.')[0] ?? group;
}

let registered: Set<string> | undefined;

/** Whether kube-apiserver's scheme knows `kind` at `apiVersion` (the kinds this server knows of). */
function isRegistered(apiVersion: string, kind: string): boolean {
  if (registered === undefined) {
    registered = new Set();
    for (const t of builtinTypes())
      for (const v of t.versions) registered.add(`${apiVersionOf(t.group, v.name)}/${t.kind}`);
    for (const k of GENERATED_SCHEMAS.kinds) registered.add(`${apiVersionOf(k.group, k.version)}/${k.kind}`);
  }
  return registered.has(`${apiVersion}/${kind}`);
}

/**
 * The error kube-apiserver answers when a body's apiVersion/kind is not the URL's, or undefined when they
 * match. Built-ins: the decoder's 400 (`Secret in version "v1" cannot be handled as a ConfigMap: converting
 * (v1.Secret) to (core.ConfigMap): unknown conversion`, or `no kind "Foo" is registered for version …`);
 * custom resources: the apiextensions handler's 400 for the apiVersion and a 422 on `kind`.
 */
export function typeMetaMismatch(ctx: RequestContext, obj: JsonObject): ApiError | undefined {
  const expected = apiVersionOf(ctx.type.group, ctx.version.name);
  // An unstructured custom resource must carry its apiVersion; a built-in one may leave it to the URL.
  const apiVersion = obj.apiVersion ?? (ctx.type.builtin ? expected : '');
  const kind = obj.kind ?? ctx.type.kind;
  if (apiVersion === expected && kind === ctx.type.kind) return undefined;
  if (ctx.type.builtin && typeof apiVersion === 'string' && typeof kind === 'string' && kind !== '') {
    const version = apiVersion.split('/').pop() ?? apiVersion;
    const why = isRegistered(apiVersion, kind)
      ? `converting (${version}.${kind}) to (${internalPackage(ctx.type.group)}.${ctx.type.kind}): unknown conversion`
      : `no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/runtime/scheme.go:110"`;
    return badRequest(`${kind} in version "${version}" cannot be handled as a ${ctx.type.kind}: ${why}`);
  }
  if (apiVersion !== expected) {
    return badRequest(
      `the API version in the data (${display(apiVersion)}) does not match the expected API version (${expected})`,
    );
  }
  if (!ctx.type.builtin && typeof kind === 'string') {
    // apiextensions-apiserver validates the decoded object: kind must be the CRD's (customresource_handler.go).
    const name = stringAt(metadataOf(obj), 'name') ?? '';
    const message = `Invalid value: ${JSON.stringify(kind)}: must be ${ctx.type.kind}`;
    return new ApiError(
      failureStatus(422, 'Invalid', `${kind}.${ctx.type.group} "${name}" is invalid: kind: ${message}`, {
        name,
        group: ctx.type.group,
        kind,
        causes: [{ reason: 'FieldValueInvalid', message, field: 'kind' }],
      }),
    );
  }
  return badRequest(
    `the kind in the data (${display(kind)}) does not match the expected kind (${ctx.type.kind})`,
  );
}
