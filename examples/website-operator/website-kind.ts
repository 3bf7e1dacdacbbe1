import { defineKind, KubeType, Type } from 'reconcilekit/kinds';
import {
  DEFAULT_IMAGE,
  DEFAULT_REPLICAS,
  WEBSITE_GROUP,
  WEBSITE_KIND,
  WEBSITE_PLURAL,
  WEBSITE_VERSION,
} from './website.js';

const spec = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 200, description: 'Page title.' }),
  content: Type.String({
    maxLength: 100000,
    description: 'Page body, plain text; blank lines separate paragraphs in version 2.',
  }),
  replicas: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 10, default: DEFAULT_REPLICAS, description: 'Web server pods.' }),
  ),
  image: Type.Optional(
    Type.String({
      default: DEFAULT_IMAGE,
      description: 'Web server image; must serve /usr/share/nginx/html on port 8080.',
    }),
  ),
});

const status = Type.Object({
  observedGeneration: Type.Optional(
    Type.Integer({
      format: 'int64',
      description: '`metadata.generation` of the spec this status describes.',
    }),
  ),
  url: Type.Optional(Type.String({ description: "In-cluster URL of the site's Service." })),
  conditions: Type.Optional(
    KubeType.Conditions({
      description: '`Ready`: every child (ConfigMap, Deployment, Service, page file) matches the spec.',
    }),
  ),
});

/**
 * The Website custom resource, defined once: its TypeScript types (`Website`, `WebsiteSpec`, … in
 * website.ts), its CustomResourceDefinition (`deploy/crd.yaml`, written by `reconcilekit generate`), its
 * validation and typed client all come from here.
 */
export const WebsiteKind = defineKind({
  group: WEBSITE_GROUP,
  kind: WEBSITE_KIND,
  plural: WEBSITE_PLURAL,
  singular: 'website',
  shortNames: ['site'],
  versions: {
    [WEBSITE_VERSION]: {
      served: true,
      storage: true,
      spec,
      status,
      subresources: { status: true },
      printerColumns: [
        { name: 'Title', type: 'string', jsonPath: '.spec.title' },
        { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
        { name: 'URL', type: 'string', jsonPath: '.status.url' },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
    },
  },
});
