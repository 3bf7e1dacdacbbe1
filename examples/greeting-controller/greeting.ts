// The Greeting kind, defined once: its CRD (crd.yaml beside it, written by `make manifests`) and its type.
import { defineKind, Type, type ObjectOf } from 'reconcilekit/kinds';

export const Greeting = defineKind({
  group: 'example.com',
  kind: 'Greeting',
  plural: 'greetings',
  singular: 'greeting',
  versions: {
    v1: { served: true, storage: true, spec: Type.Object({ message: Type.String() }) },
  },
});

/** A Greeting object: `spec.message` is a string, typed from the schema above. */
export type Greeting = ObjectOf<typeof Greeting>;
