import type { KindRef } from '../patch/kind-ref.js';
import { isJsonObject } from '../patch/json-value.js';
import { SelectorError } from './selector-error.js';

/** A parsed `fieldSelector`: terms ANDed together; the empty selector matches everything. */
export interface FieldSelector {
  matches(obj: Record<string, unknown>): boolean;
  readonly empty: boolean;
}

interface Term {
  field: string;
  operator: '=' | '!=';
  value: string;
}

/** Extracts a field's selector value from an object (kube's per-kind "fields.Set"). */
type FieldGetter = (obj: Record<string, unknown>) => string;

function at(obj: unknown, path: string): unknown {
  let current = obj;
  for (const part of path.split('.')) {
    current = isJsonObject(current) && Object.hasOwn(current, part) ? current[part] : undefined;
  }
  return current;
}

function text(path: string): FieldGetter {
  return (obj) => {
    const value = at(obj, path);
    if (value === undefined || value === null) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  };
}

function bool(path: string): FieldGetter {
  return (obj) => String(at(obj, path) === true);
}

function fields(...paths: string[]): Record<string, FieldGetter> {
  return Object.fromEntries(paths.map((p) => [p, text(p)]));
}

const COMMON = fields('metadata.name', 'metadata.namespace');

/** Extra selectable fields by "<group>/<Kind>", as kube-apiserver registers them. */
const EXTRA_FIELDS: Record<string, Record<string, FieldGetter>> = {
  '/Pod': {
    ...fields(
      'spec.nodeName',
      'spec.restartPolicy',
      'spec.schedulerName',
      'spec.serviceAccountName',
      'status.phase',
      'status.podIP',
      'status.nominatedNodeName',
    ),
    'spec.hostNetwork': bool('spec.hostNetwork'),
  },
  '/Event': {
    ...fields(
      'involvedObject.kind',
      'involvedObject.namespace',
      'involvedObject.name',
      'involvedObject.uid',
      'involvedObject.apiVersion',
      'involvedObject.resourceVersion',
      'involvedObject.fieldPath',
      'reason',
      'reportingComponent',
      'type',
    ),
    source: text('source.component'),
  },
  'events.k8s.io/Event': fields(
    'regarding.kind',
    'regarding.namespace',
    'regarding.name',
    'regarding.uid',
    'regarding.apiVersion',
    'regarding.resourceVersion',
    'regarding.fieldPath',
    'reason',
    'reportingController',
    'type',
  ),
  '/Secret': fields('type'),
  '/Namespace': fields('status.phase'),
  '/Node': { 'spec.unschedulable': bool('spec.unschedulable') },
  '/ReplicationController': { 'status.replicas': text('status.replicas') },
  'batch/Job': { 'status.successful': (obj) => text('status.succeeded')(obj) || '0' },
  '/Service': fields('spec.clusterIP', 'spec.type'),
};

/** Splits on unescaped `sep`, keeping escapes in place. */
function splitUnescaped(input: string, sep: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < input.length; i++) {
    const c = input.charAt(i);
    if (c === '\\' && i + 1 < input.length) {
      current += c + input.charAt(i + 1);
      i++;
    } else if (c === sep) {
      parts.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  parts.push(current);
  return parts;
}

function unescape(value: string, term: string): string {
  return value.replace(/\\(.?)/g, (_match, next: string) => {
    if (next === '\\' || next === ',' || next === '=') return next;
    throw new SelectorError(`invalid field selector: '${term}': invalid escape sequence`);
  });
}

function parseTerm(term: string): Term {
  for (let i = 0; i < term.length; i++) {
    if (term.charAt(i) === '\\') {
      i++;
      continue;
    }
    for (const op of ['!=', '==', '='] as const) {
      if (term.startsWith(op, i)) {
        return {
          field: unescape(term.slice(0, i), term).trim(),
          operator: op === '!=' ? '!=' : '=',
          value: unescape(term.slice(i + op.length), term),
        };
      }
    }
  }
  throw new SelectorError(`invalid selector: '${term}'; can't understand '${term}'`);
}

/**
 * Kinds whose field labels kube converts with a function of their own (pkg/apis/core/v1/conversion.go,
 * events/v1, batch/v1): an unknown field gets that function's text instead of the default conversion's.
 */
const OWN_CONVERSION = new Set([
  '/Pod',
  '/Node',
  '/ReplicationController',
  '/Event',
  '/Namespace',
  '/Secret',
  '/Service',
  'events.k8s.io/Event',
]);

/** kube's text for a field label the kind does not support (→ 400). */
function unsupportedField(kind: KindRef, field: string, custom: boolean): string {
  const key = `${kind.group}/${kind.kind}`;
  if (custom || OWN_CONVERSION.has(key)) return `field label not supported: ${field}`;
  if (key === 'batch/Job') return `field label ${JSON.stringify(field)} not supported for Job`;
  // runtime.DefaultMetaV1FieldSelectorConversion
  return `${JSON.stringify(field)} is not a known field selector: only "metadata.name", "metadata.namespace"`;
}

/**
 * Parses a `fieldSelector` query value: `f=v`, `f==v`, `f!=v` joined by commas (`\,` `\=` `\\` escape).
 * Supported fields: metadata.name and metadata.namespace for every kind, the per-kind fields kube-apiserver
 * registers (pods, events, secrets, namespaces, nodes, replication controllers, jobs, services), and
 * `extraFields` (e.g. a CRD's selectableFields, as paths without the leading dot). An unsupported field is a
 * SelectorError (→ 400) with kube's text for the kind; `custom` marks a custom resource (default: a group
 * that is not a built-in one).
 */
export function parseFieldSelector(
  text: string,
  kind: KindRef,
  extraFields: readonly string[] = [],
  custom = kind.group.includes('.') && !kind.group.endsWith('.k8s.io'),
): FieldSelector {
  const supported: Record<string, FieldGetter> = {
    ...COMMON,
    ...(Object.hasOwn(EXTRA_FIELDS, `${kind.group}/${kind.kind}`)
      ? EXTRA_FIELDS[`${kind.group}/${kind.kind}`]
      : {}),
    ...fields(...extraFields.map((f) => f.replace(/^\./, ''))),
  };
  const terms = splitUnescaped(text, ',')
    .filter((part) => part.trim() !== '')
    .map(parseTerm);
  const checks = terms.map((term) => {
    const getter = Object.hasOwn(supported, term.field) ? supported[term.field] : undefined;
    if (getter === undefined) throw new SelectorError(unsupportedField(kind, term.field, custom));
    return (obj: Record<string, unknown>) => (getter(obj) === term.value) === (term.operator === '=');
  });
  return { empty: checks.length === 0, matches: (obj) => checks.every((check) => check(obj)) };
}
