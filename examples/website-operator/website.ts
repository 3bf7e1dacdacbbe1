import type { KubernetesObject, V1OwnerReference } from '@kubernetes/client-node';
import type { ObjectOf, SpecOf, StatusOf } from 'reconcilekit/kinds';
import type { WebsiteKind } from './website-kind.js';

/** API group of the Website custom resource. */
export const WEBSITE_GROUP = 'demo.reconcilekit.io';
/** Served and stored version of the Website custom resource. */
export const WEBSITE_VERSION = 'v1';
/** `apiVersion` of a Website. */
export const WEBSITE_API_VERSION = `${WEBSITE_GROUP}/${WEBSITE_VERSION}`;
/** Kind of the custom resource. */
export const WEBSITE_KIND = 'Website';
/** Plural resource name (URL segment). */
export const WEBSITE_PLURAL = 'websites';

/** Label choosing the resource set (operator version) that reconciles a Website: `"1"` or `"2"`. */
export const VERSION_LABEL = `${WEBSITE_GROUP}/version`;
/** Version used for Websites without {@link VERSION_LABEL}: legacy objects go to the oldest set. */
export const DEFAULT_WEBSITE_VERSION = '1';
/** Label put on every child object, naming the Website it belongs to (used for selection). */
export const WEBSITE_LABEL = `${WEBSITE_GROUP}/website`;

/** Replicas when `spec.replicas` is not given (the CRD defaults it too; this covers older objects). */
export const DEFAULT_REPLICAS = 1;
/** Image when `spec.image` is not given: a small, unprivileged nginx that listens on 8080. */
export const DEFAULT_IMAGE = 'nginxinc/nginx-unprivileged:1.27-alpine';
/** Port the web server listens on inside the pod (nginx-unprivileged's default). */
export const CONTAINER_PORT = 8080;
/** Port the Service exposes. */
export const SERVICE_PORT = 80;

/** What the user asks for: `title`, `content`, `replicas` (default {@link DEFAULT_REPLICAS}), `image` (default {@link DEFAULT_IMAGE}). */
export type WebsiteSpec = SpecOf<typeof WebsiteKind>;

/** What the operator reports: `observedGeneration`, `url`, `conditions` (`Ready`). */
export type WebsiteStatus = NonNullable<StatusOf<typeof WebsiteKind>>;

/** A status condition as stored (times as RFC 3339 strings, as they travel on the wire). */
export type WebsiteCondition = NonNullable<WebsiteStatus['conditions']>[number];

/** The Website custom resource (its schema: {@link WebsiteKind} in website-kind.ts). */
export type Website = ObjectOf<typeof WebsiteKind>;

/** The resource set version handling `site`: its {@link VERSION_LABEL}, or {@link DEFAULT_WEBSITE_VERSION}. */
export function websiteVersion(site: KubernetesObject): string {
  return site.metadata?.labels?.[VERSION_LABEL] ?? DEFAULT_WEBSITE_VERSION;
}

/** Name and namespace of `site`; throws when the object has none (never the case for a stored object). */
export function websiteKey(site: KubernetesObject): { name: string; namespace: string } {
  const name = site.metadata?.name;
  if (name === undefined || name === '') throw new Error('website has no metadata.name');
  return { name, namespace: site.metadata?.namespace ?? 'default' };
}

/** Labels on every child object: standard app labels plus the owner's name and version. */
export function childLabels(site: KubernetesObject): Record<string, string> {
  const { name } = websiteKey(site);
  return {
    'app.kubernetes.io/name': 'website',
    'app.kubernetes.io/instance': name,
    'app.kubernetes.io/managed-by': 'website-operator',
    [WEBSITE_LABEL]: name,
    [VERSION_LABEL]: websiteVersion(site),
  };
}

/** Labels selecting the site's pods (a stable subset: a Deployment selector is immutable). */
export function podSelector(site: KubernetesObject): Record<string, string> {
  const { name } = websiteKey(site);
  return { 'app.kubernetes.io/name': 'website', 'app.kubernetes.io/instance': name };
}

/** The controller ownerReference children carry, so the cluster's garbage collector removes them too. */
export function ownerReference(site: KubernetesObject): V1OwnerReference {
  const { name } = websiteKey(site);
  const uid = site.metadata?.uid;
  if (uid === undefined) throw new Error(`website ${name} has no metadata.uid`);
  return {
    apiVersion: WEBSITE_API_VERSION,
    kind: WEBSITE_KIND,
    name,
    uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Replicas with the default applied. */
export function replicasOf(site: Website): number {
  return site.spec.replicas ?? DEFAULT_REPLICAS;
}

/** Image with the default applied. */
export function imageOf(site: Website): string {
  return site.spec.image ?? DEFAULT_IMAGE;
}

/** Name of the ConfigMap holding the rendered page. */
export function configMapName(site: KubernetesObject): string {
  return `${websiteKey(site).name}-page`;
}

/** Name of the Deployment and the Service (the site's own name). */
export function serverName(site: KubernetesObject): string {
  return websiteKey(site).name;
}

/** In-cluster URL of the site's Service. */
export function serviceUrl(site: KubernetesObject): string {
  const { name, namespace } = websiteKey(site);
  return `http://${name}.${namespace}.svc.cluster.local`;
}
