// The work every system under test does, defined once: a Website custom resource gets one ConfigMap
// (owned by it, data derived from its spec) and status.observedGeneration = metadata.generation.

export const WEBSITE_GROUP = 'bench.reconcilekit.io';
export const WEBSITE_VERSION = 'v1';
export const WEBSITE_API_VERSION = `${WEBSITE_GROUP}/${WEBSITE_VERSION}`;
export const WEBSITE_KIND = 'Website';
export const WEBSITE_PLURAL = 'websites';

/** The fields of a Website the bench reads. */
export interface Website {
  apiVersion: string;
  kind: string;
  metadata: {
    name?: string;
    namespace?: string;
    uid?: string;
    generation?: number;
    resourceVersion?: string;
  };
  spec?: { domain?: string; content?: string; replicas?: number };
  status?: { observedGeneration?: number };
}

/** The ConfigMap fields the bench reads and writes. */
export interface SiteConfigMap {
  apiVersion: 'v1';
  kind: 'ConfigMap';
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    ownerReferences?: {
      apiVersion: string;
      kind: string;
      name: string;
      uid: string;
      controller?: boolean;
    }[];
  };
  data?: Record<string, string>;
}

/** The CustomResourceDefinition of Website (namespaced, status subresource). */
export function websiteCrd(): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${WEBSITE_PLURAL}.${WEBSITE_GROUP}` },
    spec: {
      group: WEBSITE_GROUP,
      scope: 'Namespaced',
      names: { plural: WEBSITE_PLURAL, singular: 'website', kind: WEBSITE_KIND, listKind: 'WebsiteList' },
      versions: [
        {
          name: WEBSITE_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    domain: { type: 'string' },
                    content: { type: 'string' },
                    replicas: { type: 'integer' },
                  },
                },
                status: { type: 'object', properties: { observedGeneration: { type: 'integer' } } },
              },
            },
          },
        },
      ],
    },
  };
}

/** The i-th Website of a run. */
export function newWebsite(namespace: string, i: number): Website {
  return {
    apiVersion: WEBSITE_API_VERSION,
    kind: WEBSITE_KIND,
    metadata: { name: `site-${String(i).padStart(5, '0')}`, namespace },
    spec: { domain: `site-${i}.example.com`, content: `<h1>site ${i}</h1>`, replicas: 1 + (i % 3) },
  };
}

/** Name of the ConfigMap that belongs to a Website. */
export function configMapName(websiteName: string): string {
  return `${websiteName}-site`;
}

/** The data a Website's ConfigMap must hold. */
export function desiredData(site: Website): Record<string, string> {
  return {
    domain: site.spec?.domain ?? '',
    'index.html': site.spec?.content ?? '',
    replicas: String(site.spec?.replicas ?? 1),
  };
}

/** The ConfigMap a Website must have: owned by it (controller reference), data from its spec. */
export function desiredConfigMap(site: Website): SiteConfigMap {
  const name = site.metadata.name ?? '';
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: configMapName(name),
      namespace: site.metadata.namespace,
      labels: { 'app.kubernetes.io/managed-by': 'bench', website: name },
      ownerReferences: [
        {
          apiVersion: WEBSITE_API_VERSION,
          kind: WEBSITE_KIND,
          name,
          uid: site.metadata.uid ?? '',
          controller: true,
        },
      ],
    },
    data: desiredData(site),
  };
}

/** True when the ConfigMap holds exactly the data the Website asks for. */
export function dataMatches(cm: { data?: Record<string, string> } | undefined, site: Website): boolean {
  if (!cm) return false;
  const want = desiredData(site);
  const have = cm.data ?? {};
  const keys = Object.keys(want);
  return keys.length === Object.keys(have).length && keys.every((k) => have[k] === want[k]);
}

/** True when status.observedGeneration has caught up with metadata.generation. */
export function statusObserved(site: Website): boolean {
  return (
    site.status?.observedGeneration !== undefined &&
    site.status.observedGeneration === site.metadata.generation
  );
}

/** Base path of a namespace's Websites, e.g. /apis/bench.reconcilekit.io/v1/namespaces/ns/websites. */
export function websitesPath(namespace: string): string {
  return `/apis/${WEBSITE_API_VERSION}/namespaces/${namespace}/${WEBSITE_PLURAL}`;
}

/** Base path of a namespace's ConfigMaps. */
export function configMapsPath(namespace: string): string {
  return `/api/v1/namespaces/${namespace}/configmaps`;
}
