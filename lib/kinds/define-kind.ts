import type { CelRule, CrdSchema, CrdVersion, CustomResourceDefinition, PrinterColumn } from './crd-types.js';
import { KindDefinitionError } from './kind-definition-error.js';
import type {
  ApplyConfiguration,
  KIND_TYPES,
  KindObject,
  NewKindObject,
  TypedResource,
} from '../kube/kind-object.js';
import type {
  KindOptions,
  KindVersionOptions,
  SpecOfVersion,
  StatusOfVersion,
  StorageVersionOf,
} from './kind-options.js';
import { celRules, toStructuralSchema, type SchemaProblem } from './structural-schema.js';
import {
  admit,
  checkWithApiServer,
  KindValidationError,
  type KindAdmission,
  type KindFieldCause,
} from './kind-validation.js';

/**
 * One version of a kind: a resource reference (`apiVersion`, `kind`, `plural`, usable wherever a front end
 * or the client takes a resource) that also carries the static types of its objects.
 * @category Kinds
 */
export interface KindVersion<Spec = unknown, Status = unknown> extends TypedResource<Spec, Status> {
  readonly group: string;
  readonly version: string;
  /** This version's `openAPIV3Schema` (a fresh copy). */
  schema(): CrdSchema;
  /**
   * What the API server would do with `object` (checked against the version its apiVersion names, else
   * this one): unknown fields pruned, defaults applied, schema and CEL rules checked (`old`: the previous
   * object, for transition rules). Nothing is sent anywhere.
   */
  admit(object: unknown, old?: unknown): Promise<KindAdmission<KindObject<Spec, Status>>>;
  /** The causes {@link admit} finds; empty when the server would accept the object. */
  validate(object: unknown, old?: unknown): Promise<KindFieldCause[]>;
  /** The admitted object (defaults applied), or a {@link KindValidationError} listing the causes. */
  assertValid(object: unknown, old?: unknown): Promise<KindObject<Spec, Status>>;
}

/**
 * A kind defined once: its CRD, its versions, and (as a {@link KindVersion}) its storage version.
 * @category Kinds
 */
export type Kind<V extends Record<string, KindVersionOptions> = Record<string, KindVersionOptions>> =
  KindVersion<SpecOfVersion<V[StorageVersionOf<V>]>, StatusOfVersion<V[StorageVersionOf<V>]>> & {
    /** Every version by name, each typed by its own schemas. */
    readonly versions: {
      readonly [K in keyof V & string]: KindVersion<SpecOfVersion<V[K]>, StatusOfVersion<V[K]>>;
    };
    /** Name of the storage version. */
    readonly storageVersion: string;
    readonly singular: string;
    readonly listKind: string;
    readonly shortNames: readonly string[];
    readonly scope: 'Namespaced' | 'Cluster';
    /** The CustomResourceDefinition (a fresh copy on every call). */
    crd(): CustomResourceDefinition;
    /**
     * kube-apiserver's own checks of the CRD, beyond those `defineKind` makes at once: CEL rules compile,
     * defaults validate against their schema. Rejects with a {@link KindDefinitionError} naming the field.
     * Runs once per kind (object checks and `reconcilekit generate` run it first).
     */
    check(): Promise<void>;
  };

/**
 * The object type of a kind or kind version: `ObjectOf<typeof Website>`.
 * @category Kinds
 */
export type ObjectOf<K> = K extends KindVersion<infer S, infer St> ? KindObject<S, St> : never;
/**
 * The spec type of a kind or kind version.
 * @category Kinds
 */
export type SpecOf<K> = K extends KindVersion<infer S> ? S : never;
/**
 * The status type of a kind or kind version.
 * @category Kinds
 */
export type StatusOf<K> = K extends KindVersion<unknown, infer St> ? St : never;
/**
 * What `create` takes for a kind.
 * @category Kinds
 */
export type NewObjectOf<K> = K extends KindVersion<infer S> ? NewKindObject<S> : never;
/**
 * A server-side apply configuration for a kind (deep-partial spec and status).
 * @category Kinds
 */
export type ApplyConfigurationOf<K> =
  K extends KindVersion<infer S, infer St> ? ApplyConfiguration<S, St> : never;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const KIND_NAME = /^[A-Za-z]([-A-Za-z0-9]*[A-Za-z0-9])?$/;

class KindVersionRef {
  declare readonly [KIND_TYPES]?: { spec: unknown; status: unknown };
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
  readonly group: string;
  readonly version: string;
  readonly namespaced: boolean;
  readonly #schema: CrdSchema;
  /** Every version's schema by apiVersion: an object is checked against the version it names. */
  readonly #schemas: ReadonlyMap<string, CrdSchema>;
  /** The API server's CRD checks, run once per kind before the first object check. */
  readonly #check: () => Promise<void>;

  constructor(
    group: string,
    version: string,
    kind: string,
    plural: string,
    namespaced: boolean,
    schema: CrdSchema,
    schemas: ReadonlyMap<string, CrdSchema>,
    check: () => Promise<void>,
  ) {
    this.#schemas = schemas;
    this.#check = check;
    this.group = group;
    this.version = version;
    this.apiVersion = `${group}/${version}`;
    this.kind = kind;
    this.plural = plural;
    this.namespaced = namespaced;
    this.#schema = schema;
  }

  schema(): CrdSchema {
    return structuredClone(this.#schema);
  }

  async admit(object: unknown, old?: unknown): Promise<KindAdmission<never>> {
    await this.#check();
    const apiVersion = (object as { apiVersion?: unknown } | null)?.apiVersion;
    const schema =
      (typeof apiVersion === 'string' ? this.#schemas.get(apiVersion) : undefined) ?? this.#schema;
    return admit(schema, object, old);
  }

  async validate(object: unknown, old?: unknown): Promise<KindFieldCause[]> {
    return (await this.admit(object, old)).causes;
  }

  async assertValid(object: unknown, old?: unknown): Promise<never> {
    const { object: admitted, causes } = await this.admit(object, old);
    if (causes.length > 0) {
      const name = (object as { metadata?: { name?: unknown } } | null)?.metadata?.name;
      throw new KindValidationError(
        `${this.kind}.${this.group}`,
        typeof name === 'string' ? name : '',
        causes,
      );
    }
    return admitted;
  }
}

class KindDefinition extends KindVersionRef {
  readonly versions: Record<string, KindVersionRef>;
  readonly storageVersion: string;
  readonly singular: string;
  readonly listKind: string;
  readonly shortNames: readonly string[];
  readonly scope: 'Namespaced' | 'Cluster';
  readonly #crd: CustomResourceDefinition;
  readonly check: () => Promise<void>;

  constructor(crd: CustomResourceDefinition, storage: string) {
    const { group, names, scope } = crd.spec;
    const schemaOf = (v: CrdVersion): CrdSchema => v.schema.openAPIV3Schema;
    const stored = crd.spec.versions.find((v) => v.name === storage);
    if (stored === undefined) throw new Error('storage version missing'); // guarded by buildCrd
    const schemas = new Map(crd.spec.versions.map((v) => [`${group}/${v.name}`, schemaOf(v)]));
    let checked: Promise<void> | undefined;
    const check = (): Promise<void> => (checked ??= checkWithApiServer(names.kind, crd));
    super(group, storage, names.kind, names.plural, scope === 'Namespaced', schemaOf(stored), schemas, check);
    this.check = check;
    this.storageVersion = storage;
    this.singular = names.singular;
    this.listKind = names.listKind;
    this.shortNames = Object.freeze([...(names.shortNames ?? [])]);
    this.scope = scope;
    this.#crd = crd;
    const versions: Record<string, KindVersionRef> = {};
    for (const v of crd.spec.versions) {
      versions[v.name] =
        v.name === storage
          ? this
          : new KindVersionRef(
              group,
              v.name,
              names.kind,
              names.plural,
              this.namespaced,
              schemaOf(v),
              schemas,
              check,
            );
    }
    this.versions = Object.freeze(versions);
  }

  crd(): CustomResourceDefinition {
    return structuredClone(this.#crd);
  }
}

/**
 * Defines a kind once: from the names, scope and per-version TypeBox schemas come the TypeScript types of
 * its objects (`ObjectOf<typeof Website>`, no second declaration), its CustomResourceDefinition
 * (`Website.crd()`, a structural schema kube-apiserver accepts), a resource reference for the front ends
 * and the typed client (`client.of(Website)`).
 *
 * Everything the API server would refuse is refused here, with a {@link KindDefinitionError} naming the
 * field: a schema that is not structural, a missing plural, no or two storage versions, a list-map key
 * that is not a required scalar, a printer column or scale path that is not in the schema.
 * @category Kinds
 */
export function defineKind<const V extends Record<string, KindVersionOptions>>(
  options: KindOptions<V>,
): Kind<V> {
  const { crd, storage } = buildCrd(options);
  return new KindDefinition(crd, storage) as unknown as Kind<V>;
}

function buildCrd(options: KindOptions): { crd: CustomResourceDefinition; storage: string } {
  if (typeof (options as unknown) !== 'object' || (options as unknown) === null) {
    throw new KindDefinitionError('', '', 'defineKind takes { group, kind, plural, versions }');
  }
  const raw = options as unknown as Record<string, unknown>;
  const kind = typeof raw.kind === 'string' ? raw.kind : '';
  const fail = (field: string, detail: string): never => {
    throw new KindDefinitionError(kind, field, detail);
  };
  if (kind === '') fail('kind', 'is required: the kind in CamelCase, e.g. "Website"');
  if (!KIND_NAME.test(kind))
    fail('kind', `"${kind}" must be a CamelCase name (letters, digits, dashes), e.g. "Website"`);
  const group = raw.group;
  if (typeof group !== 'string' || group === '')
    fail('group', 'is required: a DNS subdomain with a dot, e.g. "demo.example.com"');
  const groupName = group as string;
  if (!DNS_SUBDOMAIN.test(groupName) || !groupName.includes('.')) {
    fail(
      'group',
      `"${groupName}" must be a lower-case DNS subdomain with at least one dot, e.g. "demo.example.com"`,
    );
  }
  const plural = raw.plural;
  if (typeof plural !== 'string' || plural === '') {
    fail(
      'plural',
      `is required: the lower-case plural used in URLs, e.g. "${kind.toLowerCase()}s" (it is not guessed)`,
    );
  }
  const pluralName = plural as string;
  if (!DNS_LABEL.test(pluralName))
    fail('plural', `"${pluralName}" must be a lower-case DNS label, e.g. "websites"`);
  const singular = options.singular ?? kind.toLowerCase();
  if (!DNS_LABEL.test(singular)) fail('singular', `"${singular}" must be a lower-case DNS label`);
  if (singular === pluralName && options.singular !== undefined) fail('singular', 'must differ from plural');
  const listKind = options.listKind ?? `${kind}List`;
  if (!KIND_NAME.test(listKind) || listKind === kind)
    fail('listKind', `"${listKind}" must be a CamelCase name other than the kind`);
  const shortNames = [...(options.shortNames ?? [])];
  shortNames.forEach((s, i) => {
    if (!DNS_LABEL.test(s)) fail(`shortNames[${String(i)}]`, `"${s}" must be a lower-case DNS label`);
  });
  const categories = [...(options.categories ?? [])];
  const scopeValue = raw.scope ?? 'Namespaced';
  if (scopeValue !== 'Namespaced' && scopeValue !== 'Cluster')
    fail('scope', `must be "Namespaced" or "Cluster", got ${JSON.stringify(scopeValue)}`);
  const scope = scopeValue as 'Namespaced' | 'Cluster';

  const versionEntries = Object.entries((raw.versions ?? {}) as Record<string, KindVersionOptions>);
  if (typeof raw.versions !== 'object' || raw.versions === null || versionEntries.length === 0) {
    fail('versions', 'needs at least one version, e.g. { v1: { spec: Type.Object({...}) } }');
  }
  const storageVersions = versionEntries.filter(([, v]) => v.storage === true).map(([name]) => name);
  let storage: string;
  if (storageVersions.length === 1) storage = storageVersions[0] as string;
  else if (storageVersions.length > 1) {
    storage = fail(
      `versions.${storageVersions[1] ?? ''}.storage`,
      `${storageVersions.join(' and ')} all have storage: true: objects are stored in exactly one version`,
    );
  } else if (versionEntries.length === 1) storage = versionEntries[0]?.[0] as string;
  else {
    storage = fail(
      'versions',
      `none of ${versionEntries.map(([n]) => n).join(', ')} has storage: true: mark exactly one`,
    );
  }
  const versions = versionEntries.map(([name, v]) => buildVersion(kind, name, v, name === storage));
  if (!versions.some((v) => v.served))
    fail('versions', 'no version is served: set served: true on at least one');
  const crd: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${pluralName}.${groupName}` },
    spec: {
      group: groupName,
      scope,
      names: { kind, listKind, plural: pluralName, singular },
      versions,
    },
  };
  if (shortNames.length > 0) crd.spec.names.shortNames = shortNames;
  if (categories.length > 0) crd.spec.names.categories = categories;
  return { crd, storage };
}

function buildVersion(kind: string, name: string, options: KindVersionOptions, storage: boolean): CrdVersion {
  const base = `versions.${name}`;
  const fail = (field: string, detail: string): never => {
    throw new KindDefinitionError(kind, field, detail);
  };
  if (!DNS_1035_LABEL.test(name))
    fail(
      base,
      `version name "${name}" must be a lower-case DNS label starting with a letter, e.g. v1, v1beta1`,
    );
  if (typeof options !== 'object' || (options as unknown) === null)
    fail(base, 'must be { spec, status?, ... }');
  if ((options as { spec?: unknown }).spec === undefined)
    fail(`${base}.spec`, 'is required: the schema of spec, e.g. Type.Object({...})');
  const problems: SchemaProblem[] = [];
  const spec = convertPart(options.spec, `${base}.spec`, problems);
  const status =
    options.status === undefined ? undefined : convertPart(options.status, `${base}.status`, problems);
  const rules =
    options.validations === undefined
      ? undefined
      : celRules(options.validations, `${base}.validations`, problems);
  const first = problems[0];
  if (first !== undefined) {
    const more =
      problems.length > 1
        ? ` (and ${String(problems.length - 1)} more: ${problems
            .slice(1)
            .map((p) => p.field)
            .join(', ')})`
        : '';
    fail(first.field, first.detail + more);
  }
  const root: CrdSchema = {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec,
    },
  };
  if (options.description !== undefined) root.description = options.description;
  if (spec.default === undefined) root.required = ['spec'];
  if (status !== undefined && root.properties !== undefined) root.properties.status = status;
  if (rules !== undefined && rules.length > 0) root['x-kubernetes-validations'] = rules;

  if (options.deprecationWarning !== undefined && options.deprecated !== true) {
    fail(`${base}.deprecationWarning`, 'is only allowed on a deprecated version: set deprecated: true');
  }
  const version: CrdVersion = {
    name,
    served: options.served ?? true,
    storage,
    schema: { openAPIV3Schema: root },
  };
  if (options.deprecated === true) version.deprecated = true;
  if (options.deprecationWarning !== undefined) version.deprecationWarning = options.deprecationWarning;

  const subresources: NonNullable<CrdVersion['subresources']> = {};
  const wantsStatus = options.subresources?.status ?? status !== undefined;
  if (wantsStatus) {
    if (status === undefined)
      fail(`${base}.subresources.status`, 'a status subresource needs a status schema');
    subresources.status = {};
  }
  const scale = options.subresources?.scale;
  if (scale !== undefined) {
    const field = `${base}.subresources.scale`;
    checkPath(kind, root, scale.specReplicasPath, '.spec.', 'integer', `${field}.specReplicasPath`);
    checkPath(kind, root, scale.statusReplicasPath, '.status.', 'integer', `${field}.statusReplicasPath`);
    if (scale.labelSelectorPath !== undefined) {
      checkPath(kind, root, scale.labelSelectorPath, '.', 'string', `${field}.labelSelectorPath`);
    }
    subresources.scale = { ...scale };
  }
  if (Object.keys(subresources).length > 0) version.subresources = subresources;
  if (options.printerColumns !== undefined && options.printerColumns.length > 0) {
    version.additionalPrinterColumns = options.printerColumns.map((c, i) =>
      checkColumn(kind, root, c, `${base}.printerColumns[${String(i)}]`),
    );
  }
  return version;
}

function convertPart(schema: unknown, field: string, problems: SchemaProblem[]): CrdSchema {
  const { schema: out, problems: found } = toStructuralSchema(schema, '');
  for (const p of found)
    problems.push({ field: p.field === '' ? field : `${field}.${p.field}`, detail: p.detail });
  if (found.length === 0 && out.type !== 'object' && out['x-kubernetes-preserve-unknown-fields'] !== true) {
    problems.push({ field, detail: 'must be an object schema (Type.Object({...}))' });
  }
  return out;
}

const COLUMN_TYPES = new Set(['string', 'integer', 'number', 'boolean', 'date']);

function checkColumn(kind: string, root: CrdSchema, column: PrinterColumn, field: string): PrinterColumn {
  if (typeof column.name !== 'string' || column.name === '')
    throw new KindDefinitionError(kind, `${field}.name`, 'is required');
  if (!COLUMN_TYPES.has(column.type)) {
    throw new KindDefinitionError(
      kind,
      `${field}.type`,
      `must be one of ${[...COLUMN_TYPES].join(', ')}, got ${JSON.stringify(column.type)}`,
    );
  }
  if (typeof column.jsonPath !== 'string' || !column.jsonPath.startsWith('.')) {
    throw new KindDefinitionError(
      kind,
      `${field}.jsonPath`,
      'must be a path starting with ".", e.g. ".spec.replicas"',
    );
  }
  if (!column.jsonPath.startsWith('.metadata.'))
    checkPath(kind, root, column.jsonPath, '.', undefined, `${field}.jsonPath`);
  const out: PrinterColumn = { name: column.name, type: column.type, jsonPath: column.jsonPath };
  if (column.description !== undefined) out.description = column.description;
  if (column.format !== undefined) out.format = column.format;
  if (column.priority !== undefined) out.priority = column.priority;
  return out;
}

/** Checks that a simple `.a.b.c` path names a field of the schema (of `type` when given). */
function checkPath(
  kind: string,
  root: CrdSchema,
  path: string,
  prefix: string,
  type: string | undefined,
  field: string,
): void {
  if (typeof path !== 'string' || !path.startsWith(prefix)) {
    throw new KindDefinitionError(
      kind,
      field,
      `must be a path starting with "${prefix}", got ${JSON.stringify(path)}`,
    );
  }
  if (/[[\]*?@()]/.test(path)) return; // JSONPath beyond plain fields: left to the server
  let node: CrdSchema | undefined = root;
  for (const segment of path.slice(1).split('.')) {
    if (node.properties?.[segment] !== undefined) node = node.properties[segment];
    else if (typeof node.additionalProperties === 'object') node = node.additionalProperties;
    else if (node['x-kubernetes-preserve-unknown-fields'] === true || node.additionalProperties === true)
      return;
    else
      throw new KindDefinitionError(
        kind,
        field,
        `${path} is not a field of the schema ("${segment}" is unknown)`,
      );
  }
  if (type !== undefined && node.type !== type) {
    throw new KindDefinitionError(
      kind,
      field,
      `${path} must be a field of type ${type}, it is ${node.type ?? 'untyped'}`,
    );
  }
}

/** Whether `value` is a kind defined with {@link defineKind} (not one of its other versions). */
export function isKind(value: unknown): value is Kind {
  return value instanceof KindDefinition;
}

/** Whether `value` is a kind or one of its versions. */
export function isKindVersion(value: unknown): value is KindVersion {
  return value instanceof KindVersionRef;
}

/** The CEL rule type, re-exported for definitions written with it. */
export type { CelRule };
