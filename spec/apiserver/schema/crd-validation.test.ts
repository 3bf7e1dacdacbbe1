import { describe, expect, it } from 'vitest';
import {
  defaultCustomResourceDefinitionNames,
  validateCustomResourceDefinition,
} from '../../../lib/apiserver/schema/crd-validation.js';

function crd(overrides: { spec?: Record<string, unknown>; name?: string } = {}): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: overrides.name ?? 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: {
        plural: 'widgets',
        singular: 'widget',
        kind: 'Widget',
        listKind: 'WidgetList',
        shortNames: ['wd'],
      },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
            },
          },
          subresources: {
            status: {},
            scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.size' },
          },
          additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
        },
      ],
      ...overrides.spec,
    },
  };
}

const version = (extra: Record<string, unknown>) => ({
  name: 'v1',
  served: true,
  storage: true,
  schema: { openAPIV3Schema: { type: 'object' } },
  ...extra,
});

describe('validateCustomResourceDefinition', () => {
  it('accepts a valid CRD', () => {
    expect(validateCustomResourceDefinition(crd())).toEqual([]);
  });

  it.each([
    [
      'a name that is not plural.group',
      crd({ name: 'widget.example.com' }),
      'metadata.name',
      'must be spec.names.plural+"."+spec.group',
    ],
    [
      'a group without a dot',
      crd({ name: 'widgets.example', spec: { group: 'example' } }),
      'spec.group',
      'should be a domain with at least one dot',
    ],
    [
      'an unknown scope',
      crd({ spec: { scope: 'Global' } }),
      'spec.scope',
      'Unsupported value: "Global": supported values: "Namespaced", "Cluster"',
    ],
    [
      'an uppercase plural',
      crd({
        name: 'Widgets.example.com',
        spec: { names: { plural: 'Widgets', kind: 'Widget', listKind: 'WidgetList' } },
      }),
      'spec.names.plural',
      'RFC 1123 label',
    ],
    [
      'a missing kind',
      crd({ spec: { names: { plural: 'widgets', listKind: 'WidgetList' } } }),
      'spec.names.kind',
      'Required value',
    ],
    [
      'kind equal to listKind',
      crd({ spec: { names: { plural: 'widgets', kind: 'Widget', listKind: 'Widget' } } }),
      'spec.names.listKind',
      'may not be the same',
    ],
    [
      'no storage version',
      crd({ spec: { versions: [version({ storage: false })] } }),
      'spec.versions',
      'exactly one version marked as storage version',
    ],
    [
      'two storage versions',
      crd({ spec: { versions: [version({}), version({ name: 'v2' })] } }),
      'spec.versions',
      'exactly one version marked as storage version',
    ],
    [
      'no served version',
      crd({ spec: { versions: [version({ served: false })] } }),
      'spec.versions',
      'at least one served version',
    ],
    [
      'duplicate version names',
      crd({ spec: { versions: [version({}), version({ storage: false })] } }),
      'spec.versions[1].name',
      'Duplicate value: "v1"',
    ],
    [
      'a missing schema',
      crd({ spec: { versions: [version({ schema: undefined })] } }),
      'spec.versions[0].schema.openAPIV3Schema',
      'Required value',
    ],
    [
      'a non-object root',
      crd({ spec: { versions: [version({ schema: { openAPIV3Schema: { type: 'string' } } })] } }),
      'spec.validation.openAPIV3Schema.type',
      'must be object at the root',
    ],
    [
      'an untyped property',
      crd({
        spec: {
          versions: [version({ schema: { openAPIV3Schema: { type: 'object', properties: { spec: {} } } } })],
        },
      }),
      'spec.validation.openAPIV3Schema.properties[spec].type',
      'must not be empty for specified object fields',
    ],
    [
      'a bad printer column type',
      crd({
        spec: {
          versions: [
            version({ additionalPrinterColumns: [{ name: 'X', type: 'float', jsonPath: '.spec.x' }] }),
          ],
        },
      }),
      'spec.additionalPrinterColumns[0].type',
      'Unsupported value: "float"',
    ],
    [
      'a scale path outside spec',
      crd({
        spec: {
          versions: [
            version({
              subresources: { scale: { specReplicasPath: '.status.x', statusReplicasPath: '.status.y' } },
            }),
          ],
        },
      }),
      'spec.subresources.scale.specReplicasPath',
      'under .spec',
    ],
  ])('rejects %s', (_name, object, field, message) => {
    const causes = validateCustomResourceDefinition(object);
    expect(causes).toEqual([expect.objectContaining({ field, message: expect.stringContaining(message) })]);
  });

  it('accepts untyped nodes marked int-or-string or preserve-unknown-fields', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { 'x-kubernetes-int-or-string': true },
        b: { 'x-kubernetes-preserve-unknown-fields': true },
      },
    };
    expect(
      validateCustomResourceDefinition(
        crd({ spec: { versions: [version({ schema: { openAPIV3Schema: schema } })] } }),
      ),
    ).toEqual([]);
  });

  it('defaults singular and listKind from kind without touching its input', () => {
    const input = crd({ spec: { names: { plural: 'widgets', kind: 'Widget' } } });
    const defaulted: any = defaultCustomResourceDefinitionNames(input);
    expect(defaulted.spec.names).toEqual({
      plural: 'widgets',
      kind: 'Widget',
      singular: 'widget',
      listKind: 'WidgetList',
    });
    expect((input.spec as any).names).toEqual({ plural: 'widgets', kind: 'Widget' });
    expect(validateCustomResourceDefinition(defaulted)).toEqual([]);
  });
});

describe('malformed schema keywords', () => {
  it.each([
    ['enum', 5, 'must be of type array'],
    ['required', 'size', 'must be of type string[]'],
    ['minimum', '1', 'must be of type number'],
    ['properties', [], 'must be of type schema-map'],
    ['nullable', 'yes', 'must be of type boolean'],
  ])('rejects %s: %j', (keyword, value, message) => {
    const schema = { type: 'object', properties: { spec: { type: 'object', [keyword]: value } } };
    const causes = validateCustomResourceDefinition(
      crd({ spec: { versions: [version({ schema: { openAPIV3Schema: schema } })] } }),
    );
    expect(causes).toContainEqual(
      expect.objectContaining({
        field: `spec.validation.openAPIV3Schema.properties[spec].${keyword}`,
        reason: 'FieldValueTypeInvalid',
        message: expect.stringContaining(message),
      }),
    );
  });

  it('rejects a pattern that does not compile', () => {
    const schema = { type: 'object', properties: { spec: { type: 'string', pattern: '([' } } };
    const causes = validateCustomResourceDefinition(
      crd({ spec: { versions: [version({ schema: { openAPIV3Schema: schema } })] } }),
    );
    expect(causes).toEqual([
      expect.objectContaining({ field: 'spec.validation.openAPIV3Schema.properties[spec].pattern' }),
    ]);
  });
});
