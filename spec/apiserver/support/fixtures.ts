/** A namespaced CRD with status subresource, printer columns, defaults and validation. */
export function widgetCrd(group = 'example.com'): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: {
        plural: 'widgets',
        singular: 'widget',
        kind: 'Widget',
        shortNames: ['wd'],
        categories: ['all'],
      },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: {
            status: {},
            scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.size' },
          },
          selectableFields: [{ jsonPath: '.spec.color' }],
          additionalPrinterColumns: [
            { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    size: { type: 'integer', minimum: 1, default: 3 },
                    color: { type: 'string', enum: ['red', 'green', 'blue'] },
                    tags: { type: 'array', items: { type: 'string' } },
                  },
                },
                // `ready` is declared as well: client-node's model serializer drops the
                // x-kubernetes-* keys of a plain object, and kube prunes undeclared status fields.
                status: {
                  type: 'object',
                  'x-kubernetes-preserve-unknown-fields': true,
                  properties: { ready: { type: 'boolean' } },
                },
              },
            },
          },
        },
      ],
    },
  };
}

/** The same CRD as YAML-compatible JSON text (kubectl accepts JSON manifests). */
export function manifest(obj: unknown): string {
  return JSON.stringify(obj, null, 2);
}
