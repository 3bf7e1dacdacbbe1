// The Greeting kind of docs/getting-started.md, defined once: its CRD (crd.yaml, written by
// `make manifests`), its TypeScript type, its validation and typed client.
import { defineKind, Type, type ObjectOf } from 'reconcilekit/kinds';

export const Greeting = defineKind({
  group: 'example.com',
  kind: 'Greeting',
  plural: 'greetings',
  singular: 'greeting',
  versions: {
    v1: {
      served: true,
      storage: true,
      spec: Type.Object({
        message: Type.String({ description: 'What the ConfigMap <name>-greeting says.' }),
      }),
    },
  },
});

/** A Greeting object: `spec.message` is what its ConfigMap should say. */
export type Greeting = ObjectOf<typeof Greeting>;
