import type { FieldCause } from '../field-cause.js';
import { isJsonObject, objectAt, type JsonObject } from '../json.js';
import { jsonEqual } from '../patch/json-value.js';
import { fieldError } from '../validation/field-errors.js';
import { checkDns1123Label, DNS1123_SUBDOMAIN_MAX_LENGTH } from '../validation/name-rules.js';
import { templateWarnings } from './pod-warnings.js';
import { defaultDeployment, deploymentCauses, deploymentStatusCauses } from './deployment-rules.js';

/**
 * Defaults and validation of the built-in kinds operators trip over, as kube-apiserver v1.34 applies them:
 * defaults from k8s.io/kubernetes/pkg/apis/{core,apps}/v1/defaults.go and the registry strategies
 * (pkg/registry/core/{pod,service,secret}/strategy.go), validation texts from
 * pkg/apis/core/validation/validation.go and pkg/apis/apps/validation/validation.go. Mutates `obj`;
 * returns the field causes of a 422 and, separately, a decode error (a 400, e.g. bad base64).
 */
export interface BuiltInCheck {
  causes: FieldCause[];
  /**
   * The update-only causes (immutability) of kinds whose ValidateXxxUpdate runs the whole create-time
   * validation of the new object after them, metadata included (ConfigMap, Secret): the caller puts the
   * object's create-time metadata causes between these and `causes`.
   */
  updateCauses?: FieldCause[];
  /** Warnings the kind's strategy adds once the object is valid (WarningsOnCreate / WarningsOnUpdate). */
  warnings?: string[];
  /** A body kube could not decode: answered 400 BadRequest with this message. */
  decodeError?: string;
}

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const CONFIG_KEY_MESSAGE =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
const IMMUTABLE_SET = 'field is immutable when `immutable` is set';
/** Largest ConfigMap/Secret payload (core.MaxSecretSize). */
const MAX_DATA_BYTES = 1024 * 1024;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function checkConfigKey(key: string): string[] {
  const problems: string[] = [];
  if (key.length > DNS1123_SUBDOMAIN_MAX_LENGTH) {
    problems.push(`must be no more than ${DNS1123_SUBDOMAIN_MAX_LENGTH} characters`);
  }
  if (!CONFIG_KEY.test(key)) problems.push(CONFIG_KEY_MESSAGE);
  if (key === '.') problems.push("must not be '.'");
  else if (key === '..') problems.push("must not be '..'");
  else if (key.startsWith('..')) problems.push("must not start with '..'");
  return problems;
}

function checkKeys(obj: JsonObject, fields: string[], causes: FieldCause[]): number {
  let size = 0;
  for (const field of fields) {
    const map = objectAt(obj, field);
    if (!map) continue;
    for (const [key, value] of Object.entries(map)) {
      for (const p of checkConfigKey(key)) causes.push(fieldError.invalid(`${field}[${key}]`, key, p));
      if (typeof value === 'string') size += value.length;
    }
  }
  return size;
}

function immutableSet(
  obj: JsonObject,
  old: JsonObject | undefined,
  fields: string[],
  causes: FieldCause[],
): void {
  if (old?.immutable !== true) return;
  if (obj.immutable !== true) causes.push(fieldError.forbidden('immutable', IMMUTABLE_SET));
  for (const field of fields) {
    if (!jsonEqual(obj[field] ?? null, old[field] ?? null))
      causes.push(fieldError.forbidden(field, IMMUTABLE_SET));
  }
}

function configMap(obj: JsonObject, old: JsonObject | undefined): BuiltInCheck {
  const updateCauses: FieldCause[] = [];
  immutableSet(obj, old, ['data', 'binaryData'], updateCauses);
  const causes: FieldCause[] = [];
  const size = checkKeys(obj, ['data', 'binaryData'], causes);
  const data = objectAt(obj, 'data') ?? {};
  const binary = objectAt(obj, 'binaryData') ?? {};
  for (const key of Object.keys(data)) {
    if (Object.hasOwn(binary, key)) {
      causes.push(fieldError.invalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
    }
  }
  if (size > MAX_DATA_BYTES) causes.push(fieldError.tooLong('', MAX_DATA_BYTES));
  return old === undefined ? { causes } : { causes, updateCauses };
}

function secret(obj: JsonObject, old: JsonObject | undefined): BuiltInCheck {
  const data = objectAt(obj, 'data') ?? {};
  for (const value of Object.values(data)) {
    if (typeof value !== 'string' || !BASE64.test(value) || value.length % 4 !== 0) {
      const at = typeof value === 'string' ? Math.max(0, value.search(/[^A-Za-z0-9+/=]/)) : 0;
      return {
        causes: [],
        decodeError: `Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte ${at}`,
      };
    }
  }
  // pkg/apis/core/v1/conversion.go: stringData is written over data, base64-encoded, and dropped.
  const stringData = objectAt(obj, 'stringData');
  if (stringData) {
    for (const [key, value] of Object.entries(stringData)) {
      if (typeof value === 'string') data[key] = Buffer.from(value, 'utf8').toString('base64');
    }
    delete obj.stringData;
  }
  if (Object.keys(data).length > 0 || obj.data !== undefined) obj.data = data;
  if (typeof obj.type !== 'string' || obj.type === '') obj.type = 'Opaque';
  const updateCauses: FieldCause[] = [];
  if (old !== undefined && obj.type !== old.type)
    updateCauses.push(fieldError.invalid('type', obj.type, 'field is immutable'));
  immutableSet(obj, old, ['data'], updateCauses);
  const causes: FieldCause[] = [];
  let size = checkKeys(obj, ['data'], causes);
  size = Math.floor((size * 3) / 4);
  if (size > MAX_DATA_BYTES) causes.push(fieldError.tooLong('data', MAX_DATA_BYTES));
  const required = (key: string): void => {
    if (!Object.hasOwn(data, key)) causes.push(fieldError.required(`data[${key}]`));
  };
  if (obj.type === 'kubernetes.io/tls') {
    required('tls.crt');
    required('tls.key');
  } else if (obj.type === 'kubernetes.io/dockerconfigjson') required('.dockerconfigjson');
  else if (obj.type === 'kubernetes.io/ssh-auth') required('ssh-privatekey');
  return old === undefined ? { causes } : { causes, updateCauses };
}

function defaultContainer(c: JsonObject): void {
  c.terminationMessagePath ??= '/dev/termination-log';
  c.terminationMessagePolicy ??= 'File';
  if (c.imagePullPolicy === undefined && typeof c.image === 'string') {
    const tag = /:([^/:@]+)$/.exec(c.image.split('@')[0] ?? '')?.[1];
    c.imagePullPolicy =
      c.image.includes('@') || (tag !== undefined && tag !== 'latest') ? 'IfNotPresent' : 'Always';
  }
  c.resources ??= {};
  if (Array.isArray(c.ports)) for (const p of c.ports) if (isJsonObject(p)) p.protocol ??= 'TCP';
}

/**
 * SetDefaults_PodSpec and its containers (pkg/apis/core/v1/defaults.go): Pods and the pod templates of
 * Deployments and the other workload kinds alike. What SetDefaults_Pod adds (enableServiceLinks, requests
 * from limits) is for Pods only, in `pod` below.
 */
export function defaultPodSpec(spec: JsonObject): void {
  spec.restartPolicy ??= 'Always';
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.schedulerName ??= 'default-scheduler';
  spec.securityContext ??= {};
  spec.terminationGracePeriodSeconds ??= 30;
  for (const list of ['initContainers', 'containers']) {
    const containers = spec[list];
    if (Array.isArray(containers)) for (const c of containers) if (isJsonObject(c)) defaultContainer(c);
  }
}

function checkPodSpec(spec: JsonObject | undefined, path: string, causes: FieldCause[]): void {
  const containers = spec?.containers;
  if (!Array.isArray(containers) || containers.length === 0) {
    causes.push(fieldError.required(`${path}.containers`));
    return;
  }
  containers.forEach((c, i) => {
    const at = `${path}.containers[${i}]`;
    if (!isJsonObject(c)) return;
    if (typeof c.name !== 'string' || c.name === '') causes.push(fieldError.required(`${at}.name`));
    if (typeof c.image !== 'string' || c.image.trim() === '') causes.push(fieldError.required(`${at}.image`));
  });
}

function pod(obj: JsonObject, old: JsonObject | undefined): BuiltInCheck {
  const spec = objectAt(obj, 'spec') ?? {};
  obj.spec = spec;
  defaultPodSpec(spec);
  spec.enableServiceLinks ??= true;
  spec.serviceAccountName ??= 'default';
  spec.serviceAccount ??= spec.serviceAccountName;
  spec.priority ??= 0;
  spec.preemptionPolicy ??= 'PreemptLowerPriority';
  defaultRequestsToLimits(spec);
  if (old === undefined) addDefaultTolerations(spec);
  if (old === undefined) {
    // pkg/registry/core/pod/strategy.go PrepareForCreate: a new Pod is Pending.
    obj.status = { phase: 'Pending', qosClass: 'BestEffort' };
  }
  const causes: FieldCause[] = [];
  checkPodSpec(spec, 'spec', causes);
  const oldSpec = objectAt(old, 'spec');
  if (oldSpec) checkPodSpecUpdate(spec, oldSpec, causes);
  return { causes };
}

const UPDATABLE_POD_SPEC_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
].join(',');

/**
 * ValidatePodUpdate (pkg/apis/core/validation/validation.go): a Pod's spec keeps everything but container
 * images, activeDeadlineSeconds, added tolerations, removed scheduling gates and a negative grace period
 * set to 1. kube appends a Go struct diff to the message; this server appends the changed JSON paths.
 */
function checkPodSpecUpdate(spec: JsonObject, oldSpec: JsonObject, causes: FieldCause[]): void {
  const oldGates = Array.isArray(oldSpec.schedulingGates) ? oldSpec.schedulingGates : [];
  const gates = Array.isArray(spec.schedulingGates) ? spec.schedulingGates : [];
  gates.forEach((gate, i) => {
    const name: unknown = isJsonObject(gate) ? gate.name : undefined;
    if (!oldGates.some((g) => isJsonObject(g) && g.name === name)) {
      causes.push(
        fieldError.forbidden(
          `spec.schedulingGates[${i}].name`,
          `only deletion is allowed, but found new scheduling gate '${String(name)}'`,
        ),
      );
    }
  });
  const oldTolerations = Array.isArray(oldSpec.tolerations) ? oldSpec.tolerations : [];
  const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations : [];
  const withoutSeconds = (t: unknown): unknown => {
    if (!isJsonObject(t)) return t;
    const { tolerationSeconds: _s, ...rest } = t;
    return rest;
  };
  if (
    !oldTolerations.every((t) => tolerations.some((n) => jsonEqual(withoutSeconds(n), withoutSeconds(t))))
  ) {
    causes.push(
      fieldError.forbidden(
        'spec.tolerations',
        'existing toleration can not be modified except its tolerationSeconds',
      ),
    );
  }
  const munged: JsonObject = { ...spec };
  for (const field of ['containers', 'initContainers']) {
    const list = spec[field];
    const before = oldSpec[field];
    if (!Array.isArray(list) || !Array.isArray(before)) continue;
    munged[field] = list.map((c: unknown, i) => {
      const prior: unknown = before[i];
      if (!isJsonObject(c) || !isJsonObject(prior)) return c;
      const copy: JsonObject = { ...c };
      if (prior.image === undefined) delete copy.image;
      else copy.image = prior.image;
      return copy;
    });
  }
  for (const field of ['activeDeadlineSeconds', 'schedulingGates', 'tolerations']) {
    if (oldSpec[field] === undefined) Reflect.deleteProperty(munged, field);
    else munged[field] = oldSpec[field];
  }
  const grace = oldSpec.terminationGracePeriodSeconds;
  if (typeof grace === 'number' && grace < 0 && munged.terminationGracePeriodSeconds === 1) {
    munged.terminationGracePeriodSeconds = grace;
  }
  if (jsonEqual(munged, oldSpec)) return;
  const changed = Object.keys({ ...munged, ...oldSpec })
    .filter((key) => !jsonEqual(munged[key], oldSpec[key]))
    .map((key) => `spec.${key}`);
  causes.push(
    fieldError.forbidden(
      'spec',
      `pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS}\nchanged: ${changed.join(', ')}`,
    ),
  );
}

/**
 * The DefaultTolerationSeconds admission plugin (on by default in kube-apiserver): a new Pod that does not
 * tolerate the not-ready / unreachable NoExecute taints tolerates them for 300 s.
 */
function addDefaultTolerations(spec: JsonObject): void {
  const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations : [];
  for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
    const tolerated = tolerations.some(
      (t) =>
        isJsonObject(t) &&
        (t.key === key || ((t.key === undefined || t.key === '') && t.operator === 'Exists')) &&
        (t.effect === undefined || t.effect === '' || t.effect === 'NoExecute'),
    );
    if (!tolerated)
      tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
  }
  spec.tolerations = tolerations;
}

/**
 * SetDefaults_Pod (pkg/apis/core/v1/defaults.go): a resource a Pod's container limits but does not request
 * is requested at its limit (Pods only, not templates).
 */
function defaultRequestsToLimits(spec: JsonObject): void {
  for (const field of ['containers', 'initContainers']) {
    const list = spec[field];
    if (!Array.isArray(list)) continue;
    for (const container of list) {
      const resources = isJsonObject(container) ? objectAt(container, 'resources') : undefined;
      const limits = objectAt(resources, 'limits');
      if (!resources || !limits) continue;
      const requests = objectAt(resources, 'requests') ?? {};
      for (const [name, value] of Object.entries(limits))
        if (!Object.hasOwn(requests, name)) requests[name] = value;
      if (Object.keys(requests).length > 0) resources.requests = requests;
    }
  }
}

/**
 * A v1 PodStatus as the round trip through the internal type leaves it (pkg/apis/core/v1/conversion.go):
 * podIP is authoritative when it disagrees with podIPs[0] (podIPs becomes [podIP]) and fills an empty
 * podIPs; on the way out podIP is podIPs[0]. The same for hostIP/hostIPs.
 */
export function convertPodStatusIps(obj: JsonObject): void {
  const status = objectAt(obj, 'status');
  if (!status) return;
  for (const [single, plural] of [
    ['podIP', 'podIPs'],
    ['hostIP', 'hostIPs'],
  ] as const) {
    const ip = status[single];
    const list = Array.isArray(status[plural]) ? status[plural] : [];
    const first: unknown = isJsonObject(list[0]) ? list[0].ip : undefined;
    if (typeof ip === 'string' && ip !== '' && (list.length === 0 || ip !== first)) status[plural] = [{ ip }];
    const items = status[plural];
    const head: unknown = Array.isArray(items) && isJsonObject(items[0]) ? items[0].ip : undefined;
    if (typeof head === 'string' && head !== '') status[single] = head;
  }
}

let nextClusterIp = 1;
function allocateClusterIp(): string {
  const n = nextClusterIp++;
  return `10.96.${Math.floor(n / 254) % 256}.${(n % 254) + 1}`;
}

function service(obj: JsonObject, old: JsonObject | undefined): BuiltInCheck {
  const spec = objectAt(obj, 'spec') ?? {};
  obj.spec = spec;
  const oldSpec = objectAt(old, 'spec');
  spec.type ??= 'ClusterIP';
  spec.sessionAffinity ??= 'None';
  const causes: FieldCause[] = [];
  const ports = Array.isArray(spec.ports) ? spec.ports : [];
  for (const p of ports) {
    if (!isJsonObject(p)) continue;
    p.protocol ??= 'TCP';
    p.targetPort ??= p.port;
  }
  if (spec.type !== 'ExternalName') {
    // pkg/registry/core/service/strategy.go patchAllocatedValues: an update keeps the allocated IP.
    spec.clusterIP ??= oldSpec?.clusterIP ?? allocateClusterIp();
    spec.clusterIPs ??= oldSpec?.clusterIPs ?? [spec.clusterIP];
    spec.ipFamilies ??= oldSpec?.ipFamilies ?? (spec.clusterIP === 'None' ? ['IPv4'] : ['IPv4']);
    spec.ipFamilyPolicy ??= 'SingleStack';
    spec.internalTrafficPolicy ??= 'Cluster';
    if (spec.clusterIP !== 'None' && ports.length === 0) causes.push(fieldError.required('spec.ports'));
    if (oldSpec?.clusterIP !== undefined && spec.clusterIP !== oldSpec.clusterIP) {
      causes.push(fieldError.invalid('spec.clusterIPs[0]', spec.clusterIP, 'may not change once set'));
    }
  }
  return { causes };
}

function deployment(obj: JsonObject, old: JsonObject | undefined): BuiltInCheck {
  const spec = objectAt(obj, 'spec') ?? {};
  obj.spec = spec;
  defaultDeployment(spec);
  const templateSpec = objectAt(objectAt(spec, 'template'), 'spec');
  if (templateSpec) defaultPodSpec(templateSpec);
  // WarningsOnCreate: a name that is no DNS label, and the pod template's; WarningsOnUpdate: the template's
  // when the generation moves (the spec or the annotations changed).
  const warnings: string[] = [];
  if (old === undefined) {
    const name = metadataNameOf(obj);
    // (a generated name is known only later; its prefix decides)
    const problems = name === '' ? [] : checkDns1123Label(name);
    if (problems.length > 0) {
      warnings.push(
        `metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [${problems.join(' ')}]`,
      );
    }
  }
  const moved =
    old === undefined ||
    !jsonEqual(spec, objectAt(old, 'spec') ?? {}) ||
    !jsonEqual(
      objectAt(objectAt(obj, 'metadata'), 'annotations') ?? {},
      objectAt(objectAt(old, 'metadata'), 'annotations') ?? {},
    );
  if (moved) warnings.push(...templateWarnings(obj));
  return { causes: deploymentCauses(obj, old, checkPodSpec), warnings };
}

function metadataNameOf(obj: JsonObject): string {
  const name = objectAt(obj, 'metadata')?.name;
  return typeof name === 'string' ? name : '';
}

/** Applies the rules of `group/kind` (no-op for kinds without any). */
export function checkBuiltIn(group: string, kind: string, obj: JsonObject, old?: JsonObject): BuiltInCheck {
  if (group === '') {
    if (kind === 'ConfigMap') return configMap(obj, old);
    if (kind === 'Secret') return secret(obj, old);
    if (kind === 'Pod') return pod(obj, old);
    if (kind === 'Service') return service(obj, old);
  }
  if (group === 'apps' && kind === 'Deployment') return deployment(obj, old);
  return { causes: [] };
}

/** The rules of a write to `group/kind`'s status subresource (no-op for kinds without any). */
export function checkBuiltInStatus(
  group: string,
  kind: string,
  obj: JsonObject,
  old: JsonObject,
): FieldCause[] {
  if (group === 'apps' && kind === 'Deployment') return deploymentStatusCauses(obj, old);
  return [];
}
