import { UsageError } from '../apiserver-command.js';

/** The names a scaffolded project derives from its directory, kind and group. */
export interface ProjectNames {
  /** npm package name, operator name, namespace, ServiceAccount, Lease and image name, e.g. `memcached-operator`. */
  name: string;
  /** Kind, e.g. `Memcached`. */
  kind: string;
  /** Kind in lower case: file names and the singular, e.g. `memcached`. */
  singular: string;
  /** Plural resource name, e.g. `memcacheds`. */
  plural: string;
  /** API group, e.g. `example.com`. */
  group: string;
  /** API version, e.g. `v1`. */
  version: string;
  /** `group/version`. */
  apiVersion: string;
  /** The lowerCamelCase variable stem, e.g. `memcached`. */
  camel: string;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/;
const KIND = /^[A-Z][A-Za-z0-9]*$/;
const VERSION = /^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;

/** English plural the way Kubernetes tooling guesses it (kubebuilder's rule). */
export function pluralise(singular: string): string {
  if (/(s|x|z|ch|sh)$/.test(singular)) return `${singular}es`;
  if (/[^aeiou]y$/.test(singular)) return `${singular.slice(0, -1)}ies`;
  return `${singular}s`;
}

/** Validates and derives every name; a bad one is a {@link UsageError} saying what to pass instead. */
export function projectNames(input: {
  name: string;
  kind: string;
  group: string;
  version: string;
}): ProjectNames {
  if (input.name.length > 63 || !DNS_LABEL.test(input.name)) {
    throw new UsageError(
      `project name "${input.name}" is not a valid Kubernetes name: use lower-case letters, digits and "-" ` +
        `(at most 63), e.g. --name my-operator`,
    );
  }
  if (!KIND.test(input.kind)) {
    throw new UsageError(
      `--kind "${input.kind}" must be UpperCamelCase letters and digits, e.g. --kind Memcached`,
    );
  }
  if (!DNS_SUBDOMAIN.test(input.group)) {
    throw new UsageError(
      `--group "${input.group}" must be a lower-case DNS name with at least one dot, e.g. --group cache.example.com`,
    );
  }
  if (!VERSION.test(input.version)) {
    throw new UsageError(`--api-version "${input.version}" must look like v1, v1beta1 or v2alpha1`);
  }
  const singular = input.kind.toLowerCase();
  return {
    name: input.name,
    kind: input.kind,
    singular,
    plural: pluralise(singular),
    group: input.group,
    version: input.version,
    apiVersion: `${input.group}/${input.version}`,
    camel: input.kind.charAt(0).toLowerCase() + input.kind.slice(1),
  };
}
