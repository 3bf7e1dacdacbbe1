import type { FieldCause, JSONSchemaProps } from '../apiserver/index.js';
import { ERROR_KIND, hasCause, hasKind } from '../errors/has-cause.js';
import type { CustomResourceDefinition } from './crd-types.js';
import { KindDefinitionError } from './kind-definition-error.js';

/**
 * One problem with an object, as kube-apiserver reports it in a 422's `details.causes`: the field path
 * (`spec.replicas`), kube's reason (`FieldValueInvalid`, `FieldValueRequired`, …) and its message.
 * @category Kinds
 */
export type KindFieldCause = FieldCause;

/**
 * An object that the kind's schema or CEL rules refuse (what the API server would answer with 422
 * Invalid), found in the operator before any request. `causes` holds one entry per problem.
 * @category Kinds
 */
export class KindValidationError extends Error {
  readonly [ERROR_KIND] = 'KindValidation';
  readonly causes: readonly KindFieldCause[];

  constructor(qualifiedKind: string, name: string, causes: readonly KindFieldCause[]) {
    const parts = causes.map((c) => (c.field === '' ? c.message : `${c.field}: ${c.message}`));
    const detail = parts.length === 1 ? (parts[0] ?? '') : `[${parts.join(', ')}]`;
    super(`${qualifiedKind} ${JSON.stringify(name)} is invalid: ${detail}`);
    this.name = 'KindValidationError';
    this.causes = causes;
  }
}

/**
 * Whether `err`, or any error on its `cause` chain, is a {@link KindValidationError}.
 * @category Kinds
 */
export function isKindValidationError(err: unknown): boolean {
  return hasCause(
    err,
    (candidate) => candidate instanceof KindValidationError || hasKind(candidate, 'KindValidation'),
  );
}

/**
 * What checking an object against its kind found: the object as the server would store it (unknown fields
 * pruned, defaults applied), the pruned field paths, and the causes (empty when valid).
 * @category Kinds
 */
export interface KindAdmission<Obj> {
  object: Obj;
  prunedFields: string[];
  causes: KindFieldCause[];
}

/**
 * The embedded API server's checks, loaded on first use: importing a kind (or the package) must not load the
 * server and its CEL evaluator.
 */
type ServerChecks = Pick<
  typeof import('../apiserver/index.js'),
  'admitCustomObject' | 'checkCustomResourceDefinition' | 'checkSchemaDefaults'
>;
let serverChecks: Promise<ServerChecks> | undefined;
function loadServerChecks(): Promise<ServerChecks> {
  serverChecks ??= import('../apiserver/index.js');
  return serverChecks;
}

/** Runs the API server's own checks of `object` against a version's schema. */
export async function admit<Obj>(
  schema: JSONSchemaProps,
  object: unknown,
  old?: unknown,
): Promise<KindAdmission<Obj>> {
  const { admitCustomObject } = await loadServerChecks();
  if (typeof object !== 'object' || object === null || Array.isArray(object)) {
    return {
      object: object as Obj,
      prunedFields: [],
      causes: [{ field: '', reason: 'FieldValueTypeInvalid', message: 'the object must be a JSON object' }],
    };
  }
  const oldObject =
    typeof old === 'object' && old !== null && !Array.isArray(old)
      ? (old as Record<string, unknown>)
      : undefined;
  const result = admitCustomObject(object as Record<string, unknown>, schema, oldObject);
  return { object: result.object as Obj, prunedFields: result.prunedFields, causes: result.causes };
}

/**
 * kube-apiserver's own checks of a generated CRD (compiled CEL rules, schema keywords, defaults that do not
 * validate, printer columns), thrown as a {@link KindDefinitionError} whose field is the definition's path.
 */
export async function checkWithApiServer(kind: string, crd: CustomResourceDefinition): Promise<void> {
  const { checkCustomResourceDefinition, checkSchemaDefaults } = await loadServerChecks();
  const raw = crd as unknown as Record<string, unknown>;
  const causes = [...checkCustomResourceDefinition(raw)];
  crd.spec.versions.forEach((v, i) => {
    causes.push(
      ...checkSchemaDefaults(v.schema.openAPIV3Schema, `spec.versions[${String(i)}].schema.openAPIV3Schema`),
    );
  });
  const first = causes[0];
  if (first === undefined) return;
  const names = crd.spec.versions.map((v) => v.name);
  const more = causes.length > 1 ? ` (and ${String(causes.length - 1)} more)` : '';
  throw new KindDefinitionError(
    kind,
    definitionField(first.field, names),
    `the API server would refuse the CRD: ${first.message}${more}`,
  );
}

/**
 * Maps a CRD field path from kube's validation (`spec.versions[1].schema.openAPIV3Schema.properties[spec]
 * .properties[ports]…`) to the definition's (`versions.v1.spec.ports…`).
 */
export function definitionField(field: string, versionNames: readonly string[]): string {
  let version: string | undefined;
  let rest: string;
  const perVersion = /^spec\.versions\[(\d+)\]\.?(.*)$/.exec(field);
  const shared = /^spec\.(validation|additionalPrinterColumns|subresources)\.?(.*)$/.exec(field);
  if (perVersion !== null) {
    version = versionNames[Number(perVersion[1])];
    rest = perVersion[2] ?? '';
  } else if (shared !== null) {
    version = versionNames[0];
    rest = `${shared[1] === 'validation' ? 'schema' : (shared[1] ?? '')}.${shared[2] ?? ''}`;
  } else return field.replace(/^spec\.names\./, '').replace(/^spec\./, '');
  rest = rest
    .replace(/^schema\.openAPIV3Schema\.?/, '')
    .replace(/^x-kubernetes-validations/, 'validations')
    .replace(/^additionalPrinterColumns/, 'printerColumns')
    .replace(/properties\[([^\]]+)\]/g, '$1');
  return `versions.${version ?? '?'}${rest === '' ? '' : `.${rest.replace(/\.$/, '')}`}`;
}
