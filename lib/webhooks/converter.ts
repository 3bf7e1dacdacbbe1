/**
 * A CRD conversion webhook. Two ways to write the conversions:
 *
 * - hub and spoke (controller-runtime's `Hub`/`Convertible`): one version is the hub; every other version
 *   (a spoke) converts to and from it, so n versions need 2(n−1) functions, and v1 → v3 goes v1 → hub → v3;
 * - pairwise: one `convert(obj, toVersion)` function that handles every pair itself.
 *
 * The framework sets `apiVersion` on each result and keeps the object's metadata as the API server
 * requires (only labels and annotations may change), so a conversion function deals with the body only.
 */
import type { JsonObject } from './admission-review.js';
import { describeValue } from './admission-handler.js';
import { conversionReviewOf, parseConversionReview, type ConversionResponse } from './conversion-review.js';
import { isMalformedReview } from './admission-review.js';
import type { WebhookHandler } from './webhook-handler.js';

/** Converts one object between a spoke version and the hub. */
export interface SpokeConversion<Spoke extends object = JsonObject, Hub extends object = JsonObject> {
  toHub(obj: Spoke): Hub | Promise<Hub>;
  fromHub(obj: Hub): Spoke | Promise<Spoke>;
}

interface ConverterBase {
  /** API group of the CRD. */
  group: string;
  /** The CRD's kind. */
  kind: string;
  /** The CRD's plural resource (its name is `<resource>.<group>`). */
  resource: string;
  /** URL path; default `/convert/<group>/<resource>`. */
  path?: string;
}

/** Hub-and-spoke conversion: `spokes[version]` converts that version to and from `hub`. */
export interface HubConverterOptions extends ConverterBase {
  hub: string;
  spokes: Record<string, SpokeConversion>;
}

/** Pairwise conversion: `convert` turns `obj` into `toVersion` (any pair of `versions`). */
export interface PairwiseConverterOptions extends ConverterBase {
  versions: string[];
  convert(obj: JsonObject, toVersion: string): JsonObject | Promise<JsonObject>;
}

/** Options of {@link converter}. */
export type ConverterOptions = HubConverterOptions | PairwiseConverterOptions;

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function versionOf(apiVersion: string): string {
  return apiVersion.slice(apiVersion.indexOf('/') + 1);
}

function checkResult(result: unknown, from: string, to: string): JsonObject {
  if (!isObject(result)) {
    throw new Error(`converting ${from} to ${to} returned ${describeValue(result)}, expected an object`);
  }
  return result;
}

/** Builds the conversion function for either style; throws for a version it does not know. */
function conversionOf(options: ConverterOptions): {
  versions: string[];
  convert: (obj: JsonObject, from: string, to: string) => Promise<JsonObject>;
} {
  if ('hub' in options) {
    const spokes = options.spokes;
    const versions = [options.hub, ...Object.keys(spokes)];
    const spoke = (v: string): SpokeConversion => {
      const s = spokes[v];
      if (s === undefined) throw new Error(`version ${v} is neither the hub (${options.hub}) nor a spoke`);
      return s;
    };
    return {
      versions,
      convert: async (obj, from, to) => {
        const hub = from === options.hub ? obj : checkResult(await spoke(from).toHub(obj), from, options.hub);
        if (to === options.hub) return hub;
        return checkResult(await spoke(to).fromHub(hub), options.hub, to);
      },
    };
  }
  const versions = [...options.versions];
  return {
    versions,
    convert: async (obj, from, to) => {
      if (!versions.includes(from)) throw new Error(`version ${from} is not one of ${versions.join(', ')}`);
      if (!versions.includes(to)) throw new Error(`version ${to} is not one of ${versions.join(', ')}`);
      return checkResult(await options.convert(obj, to), from, to);
    },
  };
}

/** Builds a conversion webhook handler for one CRD. */
export function converter(options: ConverterOptions): WebhookHandler {
  const { versions, convert } = conversionOf(options);
  const group = options.group;
  const path = options.path ?? `/convert/${group}/${options.resource}`;
  const failure = (uid: string, message: string): unknown =>
    conversionReviewOf({ uid, convertedObjects: [], result: { status: 'Failure', message } });
  return {
    kind: 'conversion',
    path,
    conversion: { crdName: `${options.resource}.${group}`, group, kind: options.kind, versions },
    review: async (body) => {
      let review;
      try {
        review = parseConversionReview(body);
      } catch (e) {
        if (!isMalformedReview(e)) throw e;
        return failure(e.uid, `malformed ConversionReview: ${e.message}`);
      }
      const { uid, desiredAPIVersion, objects } = review.request;
      const to = versionOf(desiredAPIVersion);
      const converted: JsonObject[] = [];
      try {
        for (const obj of objects) {
          const apiVersion = String(obj.apiVersion);
          const from = versionOf(apiVersion);
          if (apiVersion === desiredAPIVersion) {
            converted.push(obj);
            continue;
          }
          if (!apiVersion.startsWith(`${group}/`)) {
            throw new Error(`object of apiVersion ${apiVersion} is not in group ${group}`);
          }
          const copy = structuredClone(obj);
          const result = await convert(copy, from, to);
          converted.push(keepMetadata(obj, result, desiredAPIVersion));
        }
      } catch (e) {
        return failure(uid, `conversion failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      const response: ConversionResponse = {
        uid,
        convertedObjects: converted,
        result: { status: 'Success' },
      };
      return conversionReviewOf(response);
    },
  };
}

/**
 * The converted object with the original's metadata (labels and annotations as the conversion left them),
 * and the wanted apiVersion: kube-apiserver rejects a conversion that changes any other metadata.
 */
function keepMetadata(original: JsonObject, result: JsonObject, apiVersion: string): JsonObject {
  const meta = isObject(original.metadata) ? { ...original.metadata } : {};
  const changed = isObject(result.metadata) ? result.metadata : {};
  for (const key of ['labels', 'annotations']) {
    if (changed[key] === undefined) Reflect.deleteProperty(meta, key);
    else meta[key] = changed[key];
  }
  return { ...result, apiVersion, kind: original.kind, metadata: meta };
}
