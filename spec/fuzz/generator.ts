// The seeded generator: a sequence of ordinary requests over the fuzzer's kinds — creates (valid, invalid,
// generated names, dryRun, fieldValidation), gets, PUTs with the current, a stale or no resourceVersion,
// merge / JSON / strategic merge patches, server-side apply by two managers with and without force, status
// and scale writes, finalizers, deletes with preconditions, selector and paged lists, and watch marks.
// A small model of what exists biases requests toward existing objects; the servers' answers decide.
import {
  collectionPath,
  FINALIZER,
  KINDS,
  RUN_LABEL,
  type Change,
  type FuzzKind,
  type Mutation,
} from './kinds.js';
import { SeededRandom } from './random.js';
import type { FuzzRequest, JsonObject, ServerView } from './request.js';

const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const SMP = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';
const MANAGERS = ['fuzz-a', 'fuzz-b'] as const;

function clone<T>(v: T): T {
  return structuredClone(v);
}

/** Applies `changes` to a copy of `obj` (intermediate objects created as needed). */
export function applyChanges(obj: JsonObject, changes: readonly Change[]): JsonObject {
  const out = clone(obj);
  for (const c of changes) {
    let at: JsonObject = out;
    for (const key of c.path.slice(0, -1)) {
      const next = at[key];
      if (typeof next !== 'object' || next === null || Array.isArray(next)) at[key] = {};
      at = at[key] as JsonObject;
    }
    const last = c.path[c.path.length - 1] ?? '';
    if (c.remove === true) Reflect.deleteProperty(at, last);
    else at[last] = clone(c.value);
  }
  return out;
}

/** The changes as an RFC 7386 merge patch (a removal is a null). */
export function mergePatchOf(changes: readonly Change[]): JsonObject {
  const patch: JsonObject = {};
  for (const c of changes) {
    let at = patch;
    for (const key of c.path.slice(0, -1)) {
      if (typeof at[key] !== 'object' || at[key] === null) at[key] = {};
      at = at[key] as JsonObject;
    }
    at[c.path[c.path.length - 1] ?? ''] = c.remove === true ? null : clone(c.value);
  }
  return patch;
}

/** A query value, URL-encoded, with `$NS` left for the runner to fill in. */
const enc = (text: string): string => encodeURIComponent(text).replace(/%24NS/g, '$NS');

const pointer = (path: readonly string[]): string =>
  '/' + path.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The changes as RFC 6902 operations: `add` / `remove`, or `replace` when asked. */
function jsonPatchOf(r: SeededRandom, changes: readonly Change[]): unknown[] {
  return changes.map((c) =>
    c.remove === true
      ? { op: 'remove', path: pointer(c.path) }
      : { op: r.chance(0.3) ? 'replace' : 'add', path: pointer(c.path), value: c.value },
  );
}

/** What the generator believes exists (it is only a bias; the servers' answers are what is compared). */
class Model {
  private readonly live = new Set<string>();
  has(kind: FuzzKind, name: string): boolean {
    return this.live.has(`${kind.plural}/${name}`);
  }
  add(kind: FuzzKind, name: string): void {
    this.live.add(`${kind.plural}/${name}`);
  }
  remove(kind: FuzzKind, name: string): void {
    this.live.delete(`${kind.plural}/${name}`);
  }
}

/** Generates `count` requests from `seed` (the same seed always gives the same sequence). */
export function generateRequests(seed: number, count: number): FuzzRequest[] {
  const r = new SeededRandom(seed);
  const model = new Model();
  const out: FuzzRequest[] = [];
  let marks = 0;
  let lastListPaged = false;
  while (out.length < count) {
    const kind = r.weighted<FuzzKind>([
      [3, KINDS[0] as FuzzKind],
      [1, KINDS[1] as FuzzKind],
      [2, KINDS[2] as FuzzKind],
      [3, KINDS[3] as FuzzKind],
    ]);
    const existing = kind.names.filter((n) => model.has(kind, n));
    const name = existing.length > 0 && r.chance(0.8) ? r.pick(existing) : r.pick(kind.names);
    const version = r.chance(0.8) ? (kind.apiVersions[0] ?? 'v1') : r.pick(kind.apiVersions);
    const g = new Step(r, kind, name, version);
    const op: () => FuzzRequest[] = r.weighted<() => FuzzRequest[]>([
      [10, () => g.create(model)],
      [6, () => [g.get()]],
      [6, () => [g.putCurrent(model)]],
      [2, () => [g.putStale()]],
      [1, () => [g.putWithoutVersion()]],
      [6, () => [g.mergePatch()]],
      [4, () => [g.jsonPatch()]],
      [3, () => [g.strategicPatch()]],
      [6, () => [g.apply(model)]],
      [kind.hasStatus ? 4 : 0, () => [g.statusWrite()]],
      [kind.hasScale ? 1.5 : 0, () => [g.scale()]],
      [3, () => [g.finalizers(model)]],
      [5, () => [g.delete(model)]],
      [5, () => [g.list()]],
      [lastListPaged ? 4 : 0, () => [g.listContinue()]],
      [marks < 3 ? 1 : 0, () => [g.mark(marks++)]],
      [0.5, () => [g.deleteCollection(model)]],
      [0.7, () => [g.malformed()]],
    ]);
    const requests: FuzzRequest[] = op();
    lastListPaged = requests.some((q) => q.path.includes('limit='));
    out.push(...requests);
  }
  return out.slice(0, count);
}

/** The request builders for one kind, object name and version. */
class Step {
  private readonly collection: string;
  private readonly path: string;
  private readonly key: string;

  constructor(
    private readonly r: SeededRandom,
    private readonly kind: FuzzKind,
    private readonly name: string,
    private readonly version: string,
  ) {
    this.collection = collectionPath(kind, version);
    this.path = `${this.collection}/${name}`;
    this.key = `${kind.plural}/${name}`;
  }

  private withVersion(o: JsonObject): JsonObject {
    return { ...o, apiVersion: this.version };
  }

  /** Query options most writes may carry. */
  private writeQuery(extra: string[] = []): string {
    const q = [...extra];
    if (this.r.chance(0.12)) q.push('dryRun=All');
    if (this.r.chance(0.2)) q.push(`fieldValidation=${this.r.pick(['Strict', 'Warn', 'Ignore'])}`);
    if (this.r.chance(0.1)) q.push(`fieldManager=${this.r.pick(MANAGERS)}`);
    return q.length === 0 ? '' : `?${q.join('&')}`;
  }

  create(model: Model): FuzzRequest[] {
    const { r, kind } = this;
    const variant = r.weighted<'valid' | 'invalid' | 'generate'>([
      [6, 'valid'],
      [3, 'invalid'],
      [1, 'generate'],
    ]);
    if (variant === 'generate') {
      const o = kind.valid(r, 'unused');
      const meta: JsonObject = { ...(o.metadata as JsonObject), generateName: 'zz-gen-' };
      delete meta.name;
      delete meta.finalizers;
      const query = this.writeQuery();
      return [
        {
          label: `create ${kind.plural} with generateName`,
          method: 'POST',
          path: `${this.collection}${query}`,
          body: this.withVersion({ ...o, metadata: meta }),
          stored: `${this.collection}/$GEN`,
        },
        {
          label: `delete the generated ${kind.plural}`,
          method: 'DELETE',
          path: `${this.collection}/$GEN`,
          stored: `${this.collection}/$GEN`,
        },
      ];
    }
    const { label, object } =
      variant === 'valid' ? { label: 'valid', object: kind.valid(r, this.name) } : kind.invalid(r, this.name);
    const query = this.writeQuery();
    if (variant === 'valid' && !query.includes('dryRun')) model.add(kind, this.name);
    return [
      {
        label: `create ${this.key} (${label})`,
        method: 'POST',
        path: `${this.collection}${query}`,
        body: this.withVersion(object),
        stored: this.path,
        key: this.key,
      },
    ];
  }

  get(): FuzzRequest {
    const q = this.r.chance(0.2) ? '?resourceVersion=0' : '';
    return { label: `get ${this.key}`, method: 'GET', path: `${this.path}${q}`, key: this.key };
  }

  private mutation(): Mutation {
    return this.kind.mutation(this.r);
  }

  putCurrent(model: Model): FuzzRequest {
    const m = this.mutation();
    const version = this.version;
    if (m.changes.some((c) => c.path[1] === 'finalizers' && c.remove !== true))
      model.add(this.kind, this.name);
    return {
      label: `put ${this.key} with its resourceVersion: ${m.label}`,
      method: 'PUT',
      path: `${this.path}${this.writeQuery()}`,
      read: this.path,
      body: (view: ServerView) =>
        view.current === undefined
          ? this.withVersion(this.kind.valid(new SeededRandom(1), this.name))
          : { ...applyChanges(view.current, m.changes), apiVersion: version },
      stored: this.path,
      key: this.key,
    };
  }

  putStale(): FuzzRequest {
    const m = this.mutation();
    return {
      label: `put ${this.key} with its first resourceVersion: ${m.label}`,
      method: 'PUT',
      path: this.path,
      read: this.path,
      body: (view: ServerView) => {
        const base = view.current ?? this.withVersion(this.kind.valid(new SeededRandom(2), this.name));
        const out = applyChanges(base, m.changes);
        const meta = { ...(out.metadata as JsonObject) };
        const first = view.versions(this.key)[0];
        if (first === undefined) delete meta.resourceVersion;
        else meta.resourceVersion = first;
        return { ...out, metadata: meta };
      },
      stored: this.path,
      key: this.key,
    };
  }

  putWithoutVersion(): FuzzRequest {
    const m = this.mutation();
    return {
      label: `put ${this.key} without a resourceVersion: ${m.label}`,
      method: 'PUT',
      path: this.path,
      read: this.path,
      body: (view: ServerView) => {
        const base = view.current ?? this.withVersion(this.kind.valid(new SeededRandom(3), this.name));
        const out = applyChanges(base, m.changes);
        const meta = { ...(out.metadata as JsonObject) };
        delete meta.resourceVersion;
        delete meta.managedFields;
        return { ...out, metadata: meta };
      },
      stored: this.path,
      key: this.key,
    };
  }

  mergePatch(): FuzzRequest {
    const m = this.mutation();
    const patch = mergePatchOf(m.changes);
    if (this.r.chance(0.1)) {
      const prior = patch.metadata;
      patch.metadata = {
        ...(typeof prior === 'object' && prior !== null ? prior : {}),
        resourceVersion: '1',
      };
    }
    return {
      label: `merge-patch ${this.key}: ${m.label}`,
      method: 'PATCH',
      path: `${this.path}${this.writeQuery()}`,
      contentType: MERGE,
      body: patch,
      stored: this.path,
      key: this.key,
    };
  }

  jsonPatch(): FuzzRequest {
    const { r } = this;
    const m = this.mutation();
    const ops = jsonPatchOf(r, m.changes);
    const variant = r.weighted<string>([
      [5, 'plain'],
      [1, 'failing test'],
      [1, 'passing test'],
      [1, 'remove missing'],
      [1, 'not an array'],
      [1, 'bad op'],
    ]);
    let body: unknown = ops;
    if (variant === 'failing test') body = [{ op: 'test', path: '/metadata/name', value: 'nope' }, ...ops];
    if (variant === 'passing test') body = [{ op: 'test', path: '/metadata/name', value: this.name }, ...ops];
    if (variant === 'remove missing') body = [{ op: 'remove', path: '/metadata/labels/missing' }, ...ops];
    if (variant === 'not an array') body = { op: 'add', path: '/metadata/labels/x', value: 'y' };
    if (variant === 'bad op') body = [{ op: 'frobnicate', path: '/metadata/labels/x' }];
    return {
      label: `json-patch ${this.key} (${variant}): ${m.label}`,
      method: 'PATCH',
      path: `${this.path}${this.writeQuery()}`,
      contentType: JSON_PATCH,
      body,
      stored: this.path,
      key: this.key,
    };
  }

  strategicPatch(): FuzzRequest {
    const { r, kind } = this;
    const m = this.mutation();
    let patch = mergePatchOf(m.changes);
    if (kind.plural === 'deployments' && r.chance(0.4)) {
      // A container merged by name, and sometimes one deleted by the $patch directive.
      const c: JsonObject = r.chance(0.3)
        ? { name: 'side', $patch: 'delete' }
        : { name: r.pick(['c', 'side']), image: r.pick(['alpine', 'nginx']) };
      patch = { spec: { template: { spec: { containers: [c] } } } };
    }
    if (r.chance(0.15)) {
      patch = r.chance(0.5)
        ? { metadata: { finalizers: [FINALIZER] } }
        : { metadata: { '$deleteFromPrimitiveList/finalizers': [FINALIZER] } };
    }
    return {
      label: `strategic-merge-patch ${this.key}: ${m.label}`,
      method: 'PATCH',
      path: `${this.path}${this.writeQuery()}`,
      contentType: SMP,
      body: patch,
      stored: this.path,
      key: this.key,
    };
  }

  apply(model: Model): FuzzRequest {
    const { r, kind } = this;
    const manager = r.pick(MANAGERS);
    const force = r.chance(0.35);
    const q = [`fieldManager=${manager}`];
    if (force) q.push('force=true');
    if (r.chance(0.1)) q.push('dryRun=All');
    if (r.chance(0.1)) q.push(`fieldValidation=${r.pick(['Strict', 'Ignore'])}`);
    const body = this.withVersion(kind.applied(r, this.name, manager));
    if (!q.includes('dryRun=All')) model.add(kind, this.name);
    return {
      label: `apply ${this.key} as ${manager}${force ? ' (force)' : ''}`,
      method: 'PATCH',
      path: `${this.path}?${q.join('&')}`,
      contentType: APPLY,
      body,
      stored: this.path,
      key: this.key,
    };
  }

  statusWrite(): FuzzRequest {
    const { r, kind } = this;
    const m = kind.statusMutation?.(r) ?? { label: 'none', changes: [] };
    const path = `${this.path}/status`;
    const how = r.weighted<'put' | 'merge' | 'apply'>([
      [2, 'put'],
      [2, 'merge'],
      [1, 'apply'],
    ]);
    if (how === 'put') {
      return {
        label: `put ${this.key}/status: ${m.label}`,
        method: 'PUT',
        path: `${path}${this.writeQuery()}`,
        read: this.path,
        body: (view: ServerView) =>
          view.current === undefined
            ? this.withVersion(kind.valid(new SeededRandom(4), this.name))
            : applyChanges(view.current, m.changes),
        stored: this.path,
        key: this.key,
      };
    }
    if (how === 'merge') {
      return {
        label: `merge-patch ${this.key}/status: ${m.label}`,
        method: 'PATCH',
        path: `${path}${this.writeQuery()}`,
        contentType: MERGE,
        body: mergePatchOf(m.changes),
        stored: this.path,
        key: this.key,
      };
    }
    const manager = r.pick(MANAGERS);
    const applied = applyChanges(
      { apiVersion: this.version, kind: kind.kind, metadata: { name: this.name } },
      m.changes,
    );
    return {
      label: `apply ${this.key}/status as ${manager}: ${m.label}`,
      method: 'PATCH',
      path: `${path}?fieldManager=${manager}${r.chance(0.5) ? '&force=true' : ''}`,
      contentType: APPLY,
      body: applied,
      stored: this.path,
      key: this.key,
    };
  }

  scale(): FuzzRequest {
    const { r } = this;
    const path = `${this.path}/scale`;
    if (r.chance(0.4)) return { label: `get ${this.key}/scale`, method: 'GET', path };
    const replicas = r.pick([0, 2, 4, -1]);
    return {
      label: `merge-patch ${this.key}/scale: replicas ${replicas}`,
      method: 'PATCH',
      path,
      contentType: MERGE,
      body: { spec: { replicas } },
      stored: this.path,
      key: this.key,
    };
  }

  finalizers(model: Model): FuzzRequest {
    const { r } = this;
    const add = r.chance(0.5);
    if (add) model.add(this.kind, this.name);
    const how = r.pick(['merge', 'json']);
    const body =
      how === 'merge'
        ? { metadata: { finalizers: add ? [FINALIZER] : null } }
        : add
          ? [{ op: 'add', path: '/metadata/finalizers', value: [FINALIZER] }]
          : [{ op: 'remove', path: '/metadata/finalizers' }];
    return {
      label: `${add ? 'add' : 'remove'} the finalizer of ${this.key} (${how} patch)`,
      method: 'PATCH',
      path: this.path,
      contentType: how === 'merge' ? MERGE : JSON_PATCH,
      body,
      stored: this.path,
      key: this.key,
    };
  }

  delete(model: Model): FuzzRequest {
    const { r } = this;
    const variant = r.weighted<string>([
      [5, 'plain'],
      [2, 'uid precondition'],
      [1, 'wrong uid precondition'],
      [2, 'resourceVersion precondition'],
      [1, 'stale resourceVersion precondition'],
      [1, 'dryRun'],
      [1, 'propagationPolicy'],
      [1, 'options in the query'],
    ]);
    if (variant !== 'dryRun') model.remove(this.kind, this.name);
    const base: FuzzRequest = {
      label: `delete ${this.key} (${variant})`,
      method: 'DELETE',
      path: this.path,
      stored: this.path,
      key: this.key,
    };
    const options = (extra: JsonObject): JsonObject => ({
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      ...extra,
    });
    switch (variant) {
      case 'uid precondition':
        return {
          ...base,
          read: this.path,
          body: (v: ServerView) =>
            options({
              preconditions: {
                uid: v.current?.metadata === undefined ? 'none' : (v.current.metadata as JsonObject).uid,
              },
            }),
        };
      case 'wrong uid precondition':
        return { ...base, body: options({ preconditions: { uid: '00000000-0000-0000-0000-000000000000' } }) };
      case 'resourceVersion precondition':
        return {
          ...base,
          read: this.path,
          body: (v: ServerView) =>
            options({
              preconditions: {
                resourceVersion:
                  v.current?.metadata === undefined
                    ? '1'
                    : (v.current.metadata as JsonObject).resourceVersion,
              },
            }),
        };
      case 'stale resourceVersion precondition':
        return {
          ...base,
          body: (v: ServerView) =>
            options({ preconditions: { resourceVersion: v.versions(this.key)[0] ?? '1' } }),
        };
      case 'dryRun':
        return { ...base, path: `${this.path}?dryRun=All` };
      case 'propagationPolicy': {
        // Orphan and Foreground leave finalizers only kube-controller-manager's garbage collector removes,
        // which the real backend does not run: they are sent as dry runs (see docs/apiserver.md).
        const policy = r.pick(['Orphan', 'Background', 'Foreground', 'Sideways']);
        const dry = policy === 'Orphan' || policy === 'Foreground';
        // (a body's DeleteOptions replace the query's, so the dry run goes in the body)
        return { ...base, body: options({ propagationPolicy: policy, ...(dry ? { dryRun: ['All'] } : {}) }) };
      }
      case 'options in the query':
        return {
          ...base,
          path: `${this.path}?${r.pick(['gracePeriodSeconds=0', 'propagationPolicy=Background', 'orphanDependents=false'])}`,
        };
      default:
        return base;
    }
  }

  list(): FuzzRequest {
    const { r, kind } = this;
    const q: string[] = [];
    const variant = r.weighted<string>([
      [3, 'plain'],
      [3, 'label selector'],
      [1, 'bad label selector'],
      [2, 'field selector'],
      [1, 'bad field selector'],
      [3, 'paged'],
      [1, 'resourceVersion=0'],
      [2, 'all namespaces'],
    ]);
    let collection = this.collection;
    if (variant === 'label selector')
      q.push(
        `labelSelector=${enc(r.pick(['app=web', 'app!=web', 'tier in (front,back)', '!tier', 'tier', 'app=db,tier=back']))}`,
      );
    if (variant === 'bad label selector')
      q.push(`labelSelector=${enc(r.pick(['app==', 'in (x', 'a=b,,c']))}`);
    if (variant === 'field selector')
      q.push(
        `fieldSelector=${enc(r.pick([`metadata.name=${this.name}`, `metadata.name!=${this.name}`, 'metadata.namespace=$NS']))}`,
      );
    if (variant === 'bad field selector')
      q.push(`fieldSelector=${enc(r.pick(['spec.size=1', 'metadata.name']))}`);
    if (variant === 'paged') q.push(`limit=${r.pick([1, 2])}`);
    if (variant === 'resourceVersion=0') q.push('resourceVersion=0');
    if (variant === 'all namespaces') {
      collection = collection.replace('/namespaces/$NS', '');
      q.push(`labelSelector=${enc(`${RUN_LABEL}=`)}$NS`);
    }
    return { label: `list ${kind.plural} (${variant})`, method: 'GET', path: `${collection}?${q.join('&')}` };
  }

  listContinue(): FuzzRequest {
    return {
      label: `list ${this.kind.plural} (next page)`,
      method: 'GET',
      path: `${this.collection}?limit=2&continue=$CONTINUE`,
    };
  }

  mark(n: number): FuzzRequest {
    return {
      label: `list ${this.kind.plural} (watch mark ${n})`,
      method: 'GET',
      path: `${this.collection}?limit=1`,
      mark: true,
    };
  }

  deleteCollection(model: Model): FuzzRequest {
    const selector = this.r.pick(['app=db', 'tier=front']);
    for (const n of this.kind.names) model.remove(this.kind, n);
    return {
      label: `delete collection ${this.kind.plural} (${selector})`,
      method: 'DELETE',
      path: `${this.collection}?labelSelector=${enc(selector)}`,
    };
  }

  malformed(): FuzzRequest {
    const { r } = this;
    const raw = r.pick([
      '{"kind":',
      '[1,2]',
      '{"metadata":{"name":5}}',
      'null',
      '{"apiVersion":"v9","kind":"Nope"}',
    ]);
    return {
      label: `malformed body for ${this.kind.plural}: ${raw}`,
      method: r.pick(['POST', 'PUT'] as const),
      path: r.chance(0.5) ? this.collection : this.path,
      raw,
    };
  }
}
