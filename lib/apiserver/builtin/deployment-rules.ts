import type { FieldCause } from '../field-cause.js';
import { isJsonObject, objectAt, type JsonObject } from '../json.js';
import { jsonEqual } from '../patch/json-value.js';
import { fieldError } from '../validation/field-errors.js';
import { checkLabelValue, checkQualifiedName } from '../validation/name-rules.js';

/**
 * A Deployment as kube-apiserver v1.34 defaults and validates it: SetDefaults_Deployment
 * (pkg/apis/apps/v1/defaults.go) and ValidateDeploymentSpec / ValidateDeploymentUpdate /
 * ValidateDeploymentStatus (pkg/apis/apps/validation/validation.go), texts as kube prints them.
 */

const NEGATIVE = 'must be greater than or equal to 0';
const PERCENT =
  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/** The labels as field.Invalid shows a map value in v1.34: JSON with sorted keys (json.Marshal). */
export function goMap(map: JsonObject): string {
  const entries = Object.keys(map)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(map[k])}`);
  return `{${entries.join(',')}}`;
}

/** A LabelSelector as json.Marshal writes it: matchLabels (sorted keys), then matchExpressions. */
function goSelector(selector: JsonObject): string {
  const parts: string[] = [];
  const labels = objectAt(selector, 'matchLabels');
  if (labels !== undefined && Object.keys(labels).length > 0) parts.push(`"matchLabels":${goMap(labels)}`);
  if (Array.isArray(selector.matchExpressions) && selector.matchExpressions.length > 0) {
    const items = selector.matchExpressions.map((e: unknown) => {
      const r = isJsonObject(e) ? e : {};
      const fields = [
        `"key":${JSON.stringify(r.key ?? '')}`,
        `"operator":${JSON.stringify(r.operator ?? '')}`,
      ];
      if (Array.isArray(r.values) && r.values.length > 0) fields.push(`"values":${JSON.stringify(r.values)}`);
      return `{${fields.join(',')}}`;
    });
    parts.push(`"matchExpressions":[${items.join(',')}]`);
  }
  return `{${parts.join(',')}}`;
}

function invalidRaw(field: string, shown: string, detail: string): FieldCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${shown}: ${detail}`, field };
}

function nonNegative(value: unknown, field: string, causes: FieldCause[]): void {
  if (typeof value === 'number' && value < 0) causes.push(fieldError.invalid(field, value, NEGATIVE));
}

/** SetDefaults_Deployment. */
export function defaultDeployment(spec: JsonObject): void {
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  const strategy = objectAt(spec, 'strategy') ?? {};
  strategy.type ??= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const rolling = objectAt(strategy, 'rollingUpdate') ?? {};
    rolling.maxUnavailable ??= '25%';
    rolling.maxSurge ??= '25%';
    strategy.rollingUpdate = rolling;
  }
  spec.strategy = strategy;
}

/** ValidateLabelSelector (matchLabels and matchExpressions) under `field`. */
function selectorCauses(selector: JsonObject, field: string, causes: FieldCause[]): void {
  for (const [key, value] of Object.entries(objectAt(selector, 'matchLabels') ?? {})) {
    for (const p of checkQualifiedName(key)) causes.push(fieldError.invalid(`${field}.matchLabels`, key, p));
    if (typeof value === 'string') {
      for (const p of checkLabelValue(value))
        causes.push(fieldError.invalid(`${field}.matchLabels`, value, p));
    }
  }
  const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  expressions.forEach((e: unknown, i) => {
    if (!isJsonObject(e)) return;
    const at = `${field}.matchExpressions[${String(i)}]`;
    const values = Array.isArray(e.values) ? e.values : [];
    if (e.operator === 'In' || e.operator === 'NotIn') {
      if (values.length === 0) {
        causes.push(
          fieldError.required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"),
        );
      }
    } else if (e.operator === 'Exists' || e.operator === 'DoesNotExist') {
      if (values.length > 0) {
        causes.push(
          fieldError.forbidden(
            `${at}.values`,
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
          ),
        );
      }
    } else {
      causes.push(fieldError.invalid(`${at}.operator`, e.operator, 'not a valid selector operator'));
    }
    if (typeof e.key === 'string')
      for (const p of checkQualifiedName(e.key)) causes.push(fieldError.invalid(`${at}.key`, e.key, p));
  });
}

/** Whether `labels` satisfy the selector's matchLabels and matchExpressions. */
function selects(selector: JsonObject, labels: JsonObject): boolean {
  const wanted = objectAt(selector, 'matchLabels') ?? {};
  if (!Object.entries(wanted).every(([k, v]) => labels[k] === v)) return false;
  const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  return expressions.every((e: unknown) => {
    if (!isJsonObject(e) || typeof e.key !== 'string') return true;
    const values = Array.isArray(e.values) ? e.values : [];
    const has = Object.hasOwn(labels, e.key);
    switch (e.operator) {
      case 'In':
        return has && values.includes(labels[e.key]);
      case 'NotIn':
        return !has || !values.includes(labels[e.key]);
      case 'Exists':
        return has;
      case 'DoesNotExist':
        return !has;
      default:
        return true;
    }
  });
}

/** ValidatePositiveIntOrPercent. */
function intOrPercentCauses(value: unknown, field: string, causes: FieldCause[]): void {
  if (typeof value === 'string') {
    if (!/^[0-9]+%$/.test(value)) causes.push(fieldError.invalid(field, value, PERCENT));
  } else nonNegative(value, field, causes);
}

function intOrPercentValue(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^[0-9]+%$/.test(value)) return Number(value.slice(0, -1));
  return 0;
}

/** ValidateDeploymentStrategy. */
function strategyCauses(strategy: JsonObject, causes: FieldCause[]): void {
  const rolling = objectAt(strategy, 'rollingUpdate');
  if (strategy.type === 'Recreate') {
    if (strategy.rollingUpdate !== undefined && strategy.rollingUpdate !== null) {
      causes.push(
        fieldError.forbidden(
          'spec.strategy.rollingUpdate',
          "may not be specified when strategy `type` is 'Recreate'",
        ),
      );
    }
  } else if (strategy.type === 'RollingUpdate' && rolling !== undefined) {
    const at = 'spec.strategy.rollingUpdate';
    intOrPercentCauses(rolling.maxUnavailable, `${at}.maxUnavailable`, causes);
    intOrPercentCauses(rolling.maxSurge, `${at}.maxSurge`, causes);
    if (intOrPercentValue(rolling.maxUnavailable) === 0 && intOrPercentValue(rolling.maxSurge) === 0) {
      causes.push(
        fieldError.invalid(
          `${at}.maxUnavailable`,
          rolling.maxUnavailable,
          'may not be 0 when `maxSurge` is 0',
        ),
      );
    }
    if (typeof rolling.maxUnavailable === 'string' && intOrPercentValue(rolling.maxUnavailable) > 100) {
      causes.push(
        fieldError.invalid(`${at}.maxUnavailable`, rolling.maxUnavailable, 'must not be greater than 100%'),
      );
    }
  }
}

/**
 * ValidateDeploymentSpec (with ValidatePodTemplateSpecForReplicaSet's checks on the template; the pod spec
 * itself through `podSpec`) and, on update, the immutable selector.
 */
export function deploymentCauses(
  obj: JsonObject,
  old: JsonObject | undefined,
  podSpec: (spec: JsonObject | undefined, path: string, causes: FieldCause[]) => void,
): FieldCause[] {
  const causes: FieldCause[] = [];
  const spec = objectAt(obj, 'spec') ?? {};
  nonNegative(spec.replicas, 'spec.replicas', causes);
  const selector = objectAt(spec, 'selector');
  let selectorOk = false;
  if (selector === undefined) causes.push(fieldError.required('spec.selector'));
  else {
    const before = causes.length;
    selectorCauses(selector, 'spec.selector', causes);
    const empty =
      Object.keys(objectAt(selector, 'matchLabels') ?? {}).length === 0 &&
      (!Array.isArray(selector.matchExpressions) || selector.matchExpressions.length === 0);
    if (empty)
      causes.push(
        invalidRaw('spec.selector', goSelector(selector), 'empty selector is invalid for deployment'),
      );
    selectorOk = causes.length === before || !empty;
  }
  const template = objectAt(spec, 'template') ?? {};
  const templateMeta = objectAt(template, 'metadata') ?? {};
  const labels = objectAt(templateMeta, 'labels') ?? {};
  // A nil map is shown as null.
  const shownLabels = objectAt(templateMeta, 'labels') === undefined ? 'null' : goMap(labels);
  const templateSpec = objectAt(template, 'spec');
  // No selector selects nothing (LabelSelectorAsSelector(nil)), so the template never matches it; an empty
  // one selects everything and is not compared.
  if (selector === undefined) {
    causes.push(
      invalidRaw('spec.template.metadata.labels', shownLabels, '`selector` does not match template `labels`'),
    );
  } else if (selectorOk) {
    const empty =
      Object.keys(objectAt(selector, 'matchLabels') ?? {}).length === 0 &&
      (!Array.isArray(selector.matchExpressions) || selector.matchExpressions.length === 0);
    if (!empty && !selects(selector, labels)) {
      causes.push(
        invalidRaw(
          'spec.template.metadata.labels',
          shownLabels,
          '`selector` does not match template `labels`',
        ),
      );
    }
  }
  for (const [key, value] of Object.entries(labels)) {
    for (const p of checkQualifiedName(key))
      causes.push(fieldError.invalid('spec.template.metadata.labels', key, p));
    if (typeof value === 'string') {
      for (const p of checkLabelValue(value))
        causes.push(fieldError.invalid('spec.template.metadata.labels', value, p));
    }
  }
  podSpec(templateSpec, 'spec.template.spec', causes);
  const restartPolicy = templateSpec?.restartPolicy;
  if (restartPolicy !== undefined && restartPolicy !== 'Always') {
    causes.push(fieldError.notSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
  }
  if (templateSpec?.activeDeadlineSeconds !== undefined && templateSpec.activeDeadlineSeconds !== null) {
    causes.push(
      fieldError.forbidden(
        'spec.template.spec.activeDeadlineSeconds',
        'activeDeadlineSeconds in ReplicaSet is not Supported',
      ),
    );
  }
  strategyCauses(objectAt(spec, 'strategy') ?? {}, causes);
  nonNegative(spec.minReadySeconds, 'spec.minReadySeconds', causes);
  nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit', causes);
  const deadline = spec.progressDeadlineSeconds;
  if (typeof deadline === 'number') {
    nonNegative(deadline, 'spec.progressDeadlineSeconds', causes);
    const minReady = typeof spec.minReadySeconds === 'number' ? spec.minReadySeconds : 0;
    if (deadline <= minReady) {
      causes.push(
        fieldError.invalid('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds'),
      );
    }
  }
  const oldSelector = objectAt(objectAt(old, 'spec'), 'selector');
  if (old !== undefined && !jsonEqual(selector ?? null, oldSelector ?? null)) {
    causes.push(
      invalidRaw(
        'spec.selector',
        selector === undefined ? 'null' : goSelector(selector),
        'field is immutable',
      ),
    );
  }
  return causes;
}

/** ValidateDeploymentStatusUpdate: counts non-negative and consistent, collisionCount never decremented. */
export function deploymentStatusCauses(obj: JsonObject, old: JsonObject | undefined): FieldCause[] {
  const causes: FieldCause[] = [];
  const status = objectAt(obj, 'status') ?? {};
  const count = (name: string): number => (typeof status[name] === 'number' ? status[name] : 0);
  for (const name of [
    'observedGeneration',
    'replicas',
    'updatedReplicas',
    'readyReplicas',
    'availableReplicas',
    'unavailableReplicas',
    'terminatingReplicas',
    'collisionCount',
  ]) {
    nonNegative(status[name], `status.${name}`, causes);
  }
  const greater = 'cannot be greater than status.replicas';
  for (const name of ['updatedReplicas', 'readyReplicas', 'availableReplicas']) {
    if (count(name) > count('replicas'))
      causes.push(fieldError.invalid(`status.${name}`, count(name), greater));
  }
  if (count('availableReplicas') > count('readyReplicas')) {
    causes.push(
      fieldError.invalid(
        'status.availableReplicas',
        count('availableReplicas'),
        'cannot be greater than readyReplicas',
      ),
    );
  }
  const oldCount = objectAt(old, 'status')?.collisionCount;
  if (
    typeof oldCount === 'number' &&
    (typeof status.collisionCount !== 'number' || status.collisionCount < oldCount)
  ) {
    causes.push(
      fieldError.invalid(
        'status.collisionCount',
        typeof status.collisionCount === 'number' ? status.collisionCount : 0,
        'cannot be decremented',
      ),
    );
  }
  return causes;
}
