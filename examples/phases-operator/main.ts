// A phase operator (docs/phases-and-status.md): every Note gets a ConfigMap (phase 1) and a "remote" copy
// (phase 2, a file in NOTES_DIR standing in for an external API). The remote write runs under
// `bindObject(...).guard(...)`, which locks the Ready condition before the side effect and sets it after.
// Deleting a Note removes its file first (the engine holds a finalizer while `hooks.delete` runs).
import { realpathSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { V1ConfigMap } from '@kubernetes/client-node';
import {
  Controller,
  StdK8sReconciler,
  bindObject,
  clientKey,
  isNotFound,
  runUntilSignal,
  setControllerReference,
  type K8sPhaseReconciler,
  type RbacDeclaration,
  type ReconcileContext,
} from 'reconcilekit';
import { Note } from './note.js';

const NOTES_DIR = process.env.NOTES_DIR ?? '/tmp/notes';
const FIELD_MANAGER = 'phases-operator';

function client(ctx: ReconcileContext) {
  const c = ctx.get(clientKey);
  if (c === undefined) throw new Error('no API client in the reconcile context');
  return c;
}

function notePath(note: Note): string {
  return join(NOTES_DIR, `${note.metadata.namespace ?? ''}.${note.metadata.name ?? ''}.txt`);
}

// Phase 1: a ConfigMap child, created or updated when its text differs from the Note's.
const configMapPhase: K8sPhaseReconciler<Note> = {
  name: 'configmap',
  async read(ctx, note, data) {
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' };
    const name = `${note.metadata.name ?? ''}-note`;
    try {
      data.set(
        'current',
        await client(ctx).get<V1ConfigMap>({ ...ref, namespace: note.metadata.namespace, name }),
      );
    } catch (err) {
      if (!isNotFound(err)) throw err; // no ConfigMap yet: diff asks for create
    }
  },
  diff(_ctx, note, data) {
    const current = data.get('current') as V1ConfigMap | undefined;
    return { needCreate: current === undefined, needUpdate: current?.data?.text !== note.spec.text };
  },
  create: (ctx, note) => applyConfigMap(ctx, note),
  update: (ctx, note) => applyConfigMap(ctx, note),
};

async function applyConfigMap(ctx: ReconcileContext, note: Note): Promise<void> {
  const configMap: V1ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: note.metadata.namespace, name: `${note.metadata.name ?? ''}-note` },
    data: { text: note.spec.text },
  };
  await client(ctx).apply(setControllerReference(note, configMap), {
    fieldManager: FIELD_MANAGER,
    force: true,
  });
}

// Phase 2: the remote copy. Only a missing or different file is written, so a settled Note writes nothing.
const remotePhase: K8sPhaseReconciler<Note> = {
  name: 'remote',
  async read(_ctx, note, data) {
    data.set('remote', await readFile(notePath(note), 'utf8').catch(() => undefined));
  },
  diff(_ctx, note, data) {
    const remote = data.get('remote') as string | undefined;
    return { needCreate: remote === undefined, needUpdate: remote !== note.spec.text };
  },
  create: (ctx, note) => writeRemote(ctx, note),
  update: (ctx, note) => writeRemote(ctx, note),
};

async function writeRemote(ctx: ReconcileContext, note: Note): Promise<void> {
  // A stale Note fails at the lock write (StaleObjectError), before the file is touched; the engine
  // retries in about a second. The task's result becomes the Ready condition.
  const bound = bindObject(ctx, note, { conditionType: 'Ready' });
  await bound.guard('WritingRemote', async (signal) => {
    await writeFile(notePath(note), note.spec.text, { signal });
    return { status: 'True', reason: 'Synced', message: `written to ${notePath(note)}` };
  });
}

// Exported, not started: `reconcilekit generate rbac` and `reconcilekit plan` import this module.
export const controller = new Controller<Note>({
  name: 'phases-operator',
  resource: Note,
  owns: [{ apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' }],
  reconciler: new StdK8sReconciler<Note>({
    phases: [configMapPhase, remotePhase],
    hooks: {
      // Defining delete makes the engine manage a finalizer: the Note stays until its file is gone.
      delete: (_ctx, note) => rm(notePath(note), { force: true }),
    },
  }),
});

/** What the phases do themselves, beyond what the configuration shows (make manifests writes rbac.yaml). */
export const rbac: RbacDeclaration = {
  uses: [
    {
      apiVersion: 'v1',
      plural: 'configmaps',
      verbs: ['patch'],
      reason: 'phase 1: server-side apply of the ConfigMap (reads come from the cache of owns)',
    },
    {
      apiVersion: Note.apiVersion,
      plural: 'notes',
      subresource: 'status',
      verbs: ['update'],
      reason: 'phase 2: the guarded Ready condition (bindObject), written with the resourceVersion read',
    },
  ],
};

// Run as the process (node main.js): stops gracefully on SIGTERM/SIGINT and exits 0; KUBECONFIG,
// ~/.kube/config or in-cluster.
const main = process.argv[1];
if (main !== undefined && import.meta.url === pathToFileURL(realpathSync(main)).href) {
  await runUntilSignal(controller);
}
