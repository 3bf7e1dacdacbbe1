import type { ApiServerCore } from './core.js';
import { CRD_KEY, cleanupCustomResourceDefinition } from './crd-cleanup.js';
import { collectDependent, collectOwner, isMarked, ownerRefs } from './garbage-collector.js';
import { deepEqual, metadataOf, stringAt, stringsAt } from './json.js';
import { finalizeNamespace } from './namespace-lifecycle.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from './object-lifecycle.js';
import type { StoreEvent } from './store.js';

/**
 * The server's controllers (garbage collector, namespace lifecycle, CRD cleanup), driven by store
 * events: each event queues only the owners, dependents, namespaces and CRDs it can affect, so plain
 * writes cost O(1) and nothing scans the whole store.
 */
export class BackgroundControllers {
  private owners = new Set<string>();
  private dependents = new Map<string, string>();
  private namespaces = new Set<string>();
  private crds = new Set<string>();

  constructor(private readonly core: ApiServerCore) {}

  /** Queues the work an event implies; returns true when there is work to run. */
  observe(event: StoreEvent): boolean {
    const obj = event.object;
    const meta = metadataOf(obj);
    const uid = stringAt(meta, 'uid') ?? '';
    const refs = ownerRefs(obj);
    if (event.type === 'DELETED') {
      this.owners.add(uid);
      for (const ref of refs) this.owners.add(stringAt(ref, 'uid') ?? '');
      const ns = stringAt(meta, 'namespace');
      if (ns !== undefined) this.namespaces.add(ns);
      const crdName = this.core.registry.byKey(event.typeKey)?.crdName;
      if (crdName !== undefined) this.crds.add(crdName);
      return true;
    }
    let queued = false;
    if (isMarked(obj)) {
      const finalizers = stringsAt(meta, 'finalizers');
      if (finalizers.includes(FOREGROUND_FINALIZER) || finalizers.includes(ORPHAN_FINALIZER)) {
        this.owners.add(uid);
        queued = true;
      }
      if (event.typeKey === '/namespaces') {
        this.namespaces.add(stringAt(meta, 'name') ?? '');
        queued = true;
      }
      if (event.typeKey === CRD_KEY) {
        this.crds.add(stringAt(meta, 'name') ?? '');
        queued = true;
      }
    }
    const previousRefs = event.previous ? ownerRefs(event.previous) : [];
    if (refs.length > 0 && (event.type === 'ADDED' || !deepEqual(refs, previousRefs))) {
      this.dependents.set(uid, event.typeKey);
      queued = true;
    }
    return queued;
  }

  /** Queues everything that may need work (after loading a data file). */
  observeAll(): void {
    const { store } = this.core;
    for (const key of store.typeKeys()) {
      for (const object of store.list(key)) {
        this.observe({ typeKey: key, type: 'ADDED', object, rv: store.currentRv });
      }
    }
  }

  /** Runs the queued work once; writes it makes queue further work through their events. */
  run(): void {
    const owners = this.owners;
    const dependents = this.dependents;
    const namespaces = this.namespaces;
    const crds = this.crds;
    this.owners = new Set();
    this.dependents = new Map();
    this.namespaces = new Set();
    this.crds = new Set();
    for (const [uid, typeKey] of dependents) collectDependent(this.core, typeKey, uid);
    for (const uid of owners) collectOwner(this.core, uid);
    for (const name of namespaces) finalizeNamespace(this.core, name);
    for (const name of crds) cleanupCustomResourceDefinition(this.core, name);
  }

  /** True when work is queued. */
  get pending(): boolean {
    return this.owners.size + this.dependents.size + this.namespaces.size + this.crds.size > 0;
  }
}
