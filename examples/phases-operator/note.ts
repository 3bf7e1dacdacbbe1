// The Note kind, defined once: its CRD (crd.yaml, written by `make manifests`), its TypeScript type, its
// validation and typed client.
import { defineKind, KubeType, Type, type ObjectOf } from 'reconcilekit/kinds';

export const Note = defineKind({
  group: 'example.com',
  kind: 'Note',
  plural: 'notes',
  singular: 'note',
  versions: {
    v1: {
      served: true,
      storage: true,
      spec: Type.Object({
        text: Type.String({ description: 'Written into the ConfigMap <name>-note and the remote copy.' }),
      }),
      // The guarded remote write keeps its Ready condition here (bindObject).
      status: Type.Object({ conditions: Type.Optional(KubeType.Conditions()) }),
      subresources: { status: true },
      printerColumns: [
        { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
        { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason' },
      ],
    },
  },
});

/** A Note object: `spec.text`, and its status conditions. */
export type Note = ObjectOf<typeof Note>;
