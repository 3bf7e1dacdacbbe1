import type { ApiServerCore } from './core.js';
import { CRD_KEY, cleanupCustomResourceDefinition } from './crd-cleanup.js';
import { collectDependent, collectOwner, isMarked, ownerRefs } from './garbage-collector.js';
import { deepEqual, metadataOf, stringAt, stringsAt } from './json.js';
import { deploymentNeedsStatus, writeDeploymentStatus } from './controller-stand-ins.js';
import {
  DEFAULT_SERVICE_ACCOUNT,
  ROOT_CA_CONFIGMAP,
  ensureNamespaceDefaults,
  finalizeNamespace,
} from './namespace-lifecycle.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, deleteObject } from './object-lifecycle.js';
import type { StoreEvent } from './store.js';

/**
 * The server's controllers (garbage collector, namespace lifecycle, CRD cleanup, and the stand-ins for
 * kube-controller-manager and the kubelet: namespace defaults, Deployment status, the end of a Pod's
 * grace period), driven by store events: each event queues only the owners, dependents, namespaces,
 * CRDs and objects it can affect, so plain writes cost O(1) and nothing scans the whole store.
 */
export class BackgroundControllers {
  private owners = new Set<string>();
  private dependents = new Map<string, string>();
  private namespaces = new Set<string>();
  private crds = new Set<string>();
  private namespaceDefaults = new Set<string>();
  private deployments = new Set<string>();
  /** Pods in their grace period, by uid: the timer that removes them when it ends (the kubelet's part). */
  private readonly graceTimers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly core: ApiServerCore) {}

  /** Stops the grace-period timers (server closing). */
  close(): void {
    for (const timer of this.graceTimers.values()) clearTimeout(timer);
    this.graceTimers.clear();
  }

  /** Queues the work an event implies; returns true when there is work to run. */
  observe(event: StoreEvent): boolean {
    const obj = event.object;
    const meta = metadataOf(obj);
    const uid = stringAt(meta, 'uid') ?? '';
    const refs = ownerRefs(obj);
    const standIns = this.observeStandIns(event);
    if (event.type === 'DELETED') {
      this.owners.add(uid);
      for (const ref of refs) this.owners.add(stringAt(ref, 'uid') ?? '');
      const ns = stringAt(meta, 'namespace');
      if (ns !== undefined) this.namespaces.add(ns);
      const crdName = this.core.registry.byKey(event.typeKey)?.crdName;
      if (crdName !== undefined) this.crds.add(crdName);
      return true;
    }
    let queued = standIns;
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

  /** The stand-ins' share of an event; true when it queued work for run(). */
  private observeStandIns(event: StoreEvent): boolean {
    const { settings } = this.core;
    const meta = metadataOf(event.object);
    const namespace = stringAt(meta, 'namespace') ?? '';
    const name = stringAt(meta, 'name') ?? '';
    if (event.typeKey === '/pods') {
      this.watchGracePeriod(event);
      return false;
    }
    if (settings.namespaceDefaults !== undefined) {
      if (event.typeKey === '/namespaces' && event.type === 'ADDED') {
        this.namespaceDefaults.add(name);
        return true;
      }
      const watched =
        (event.typeKey === '/serviceaccounts' &&
          name === DEFAULT_SERVICE_ACCOUNT &&
          event.type === 'DELETED') ||
        (event.typeKey === '/configmaps' && name === ROOT_CA_CONFIGMAP && event.type !== 'ADDED');
      if (watched) {
        this.namespaceDefaults.add(namespace);
        return true;
      }
    }
    if (
      settings.deploymentStatus === true &&
      event.typeKey === 'apps/deployments' &&
      event.type !== 'DELETED'
    ) {
      if (deploymentNeedsStatus(event.object)) {
        this.deployments.add(`${namespace}/${name}`);
        return true;
      }
    }
    return false;
  }

  /**
   * A Pod marked with a grace period is removed when the period ends, as the kubelet would after
   * stopping its containers (a delete with grace 0; finalizers still hold it).
   */
  private watchGracePeriod(event: StoreEvent): void {
    const meta = metadataOf(event.object);
    const uid = stringAt(meta, 'uid') ?? '';
    const previous = this.graceTimers.get(uid);
    if (previous !== undefined) clearTimeout(previous);
    this.graceTimers.delete(uid);
    const grace = meta.deletionGracePeriodSeconds;
    const at = Date.parse(stringAt(meta, 'deletionTimestamp') ?? '');
    if (event.type === 'DELETED' || typeof grace !== 'number' || grace <= 0 || Number.isNaN(at)) return;
    const namespace = stringAt(meta, 'namespace');
    const name = stringAt(meta, 'name') ?? '';
    const delay = Math.max(0, at - this.core.clock().getTime());
    const timer = setTimeout(() => {
      this.graceTimers.delete(uid);
      const current = this.core.store.get('/pods', namespace, name);
      const type = this.core.registry.byKey('/pods');
      if (current === undefined || type === undefined || stringAt(metadataOf(current), 'uid') !== uid) return;
      try {
        deleteObject(this.core, type, current, undefined, false, 0);
      } catch (e) {
        this.core.log('error', 'removing a pod after its grace period failed', { error: String(e) });
      }
    }, delay);
    timer.unref();
    this.graceTimers.set(uid, timer);
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
    const namespaceDefaults = this.namespaceDefaults;
    const deployments = this.deployments;
    this.namespaceDefaults = new Set();
    this.deployments = new Set();
    this.owners = new Set();
    this.dependents = new Map();
    this.namespaces = new Set();
    this.crds = new Set();
    for (const [uid, typeKey] of dependents) collectDependent(this.core, typeKey, uid);
    for (const uid of owners) collectOwner(this.core, uid);
    for (const name of namespaces) finalizeNamespace(this.core, name);
    for (const name of crds) cleanupCustomResourceDefinition(this.core, name);
    const defaults = this.core.settings.namespaceDefaults;
    if (defaults !== undefined)
      for (const name of namespaceDefaults) ensureNamespaceDefaults(this.core, name, defaults.caPem);
    for (const key of deployments) {
      const [namespace = '', name = ''] = key.split('/');
      writeDeploymentStatus(this.core, namespace, name);
    }
  }

  /** True when work is queued. */
  get pending(): boolean {
    return (
      this.owners.size +
        this.dependents.size +
        this.namespaces.size +
        this.crds.size +
        this.namespaceDefaults.size +
        this.deployments.size >
      0
    );
  }
}
