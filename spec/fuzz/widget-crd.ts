// The custom resource the fuzzer writes: a structural schema with defaults, enums, bounds, CEL rules (one a
// transition rule), a list-map, a set, a status and a scale subresource, and two versions whose schemas
// differ by one field (v2's `spec.extra`, pruned when stored through v1).
import { WIDGET_GROUP } from './kinds.js';
import type { JsonObject } from './request.js';

export const WIDGET_CRD_NAME = `fuzzwidgets.${WIDGET_GROUP}`;

function schema(withExtra: boolean): JsonObject {
  const spec: JsonObject = {
    type: 'object',
    properties: {
      size: { type: 'integer', minimum: 0, maximum: 100, default: 1 },
      color: { type: 'string', enum: ['red', 'green', 'blue'], default: 'red' },
      replicas: { type: 'integer', minimum: 0 },
      note: { type: 'string', maxLength: 40 },
      frozen: {
        type: 'string',
        maxLength: 20,
        'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'frozen is immutable' }],
      },
      tags: {
        type: 'array',
        maxItems: 6,
        items: { type: 'string', maxLength: 20 },
        'x-kubernetes-list-type': 'set',
      },
      ports: {
        type: 'array',
        maxItems: 6,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', maxLength: 15 },
            port: { type: 'integer', minimum: 1, maximum: 65535 },
            protocol: { type: 'string', default: 'TCP', maxLength: 5 },
          },
        },
      },
      settings: {
        type: 'object',
        maxProperties: 5,
        additionalProperties: { type: 'string', maxLength: 20 },
      },
      ...(withExtra ? { extra: { type: 'string', maxLength: 10 } } : {}),
    },
    'x-kubernetes-validations': [
      { rule: "self.color != 'blue' || self.size <= 50", message: 'blue widgets have at most size 50' },
      {
        rule: '!has(self.replicas) || self.replicas <= self.size',
        message: 'replicas must not exceed size',
        fieldPath: '.replicas',
      },
    ],
  };
  const status: JsonObject = {
    type: 'object',
    properties: {
      phase: { type: 'string', enum: ['Pending', 'Ready', 'Failed'] },
      replicas: { type: 'integer', minimum: 0 },
      conditions: {
        type: 'array',
        maxItems: 8,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
        items: {
          type: 'object',
          required: ['type', 'status'],
          properties: {
            type: { type: 'string', maxLength: 30 },
            status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
            reason: { type: 'string', maxLength: 40 },
          },
        },
      },
    },
  };
  return { openAPIV3Schema: { type: 'object', properties: { spec, status } } };
}

const subresources = {
  status: {},
  scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
};

export const WIDGET_CRD: JsonObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: WIDGET_CRD_NAME },
  spec: {
    group: WIDGET_GROUP,
    scope: 'Namespaced',
    names: { plural: 'fuzzwidgets', singular: 'fuzzwidget', kind: 'FuzzWidget', listKind: 'FuzzWidgetList' },
    versions: [
      { name: 'v1', served: true, storage: true, subresources, schema: schema(false) },
      { name: 'v2', served: true, storage: false, subresources, schema: schema(true) },
    ],
  },
};
