import { isJsonObject, objectAt, type JsonObject } from '../json.js';

/**
 * The warnings kube-apiserver adds for a pod spec (pkg/api/pod/warnings.go warningsForPodSpecAndMeta), those
 * about containers: a repeated env name a later item hides, the same container port declared twice (or
 * overlapping), a port name used twice. `at` is the spec's field path (`spec` for a Pod,
 * `spec.template.spec` for a template).
 */
export function podSpecWarnings(spec: JsonObject | undefined, at: string): string[] {
  if (spec === undefined) return [];
  const warnings: string[] = [];
  const containers: { c: JsonObject; path: string }[] = [];
  for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
    const items = spec[list];
    if (!Array.isArray(items)) continue;
    items.forEach((c: unknown, i) => {
      if (isJsonObject(c)) containers.push({ c, path: `${at}.${list}[${String(i)}]` });
    });
  }
  for (const { c, path } of containers) {
    const env = Array.isArray(c.env) ? c.env : [];
    const seen = new Set<string>();
    env.forEach((item: unknown, i) => {
      if (!isJsonObject(item) || typeof item.name !== 'string') return;
      if (!seen.has(item.name)) {
        seen.add(item.name);
        return;
      }
      const ref = `$(${item.name})`;
      const value = typeof item.value === 'string' ? item.value : '';
      if (item.valueFrom !== undefined || value === ref || !value.includes(ref)) {
        warnings.push(
          `${path}.env[${String(i)}]: hides previous definition of ${JSON.stringify(item.name)}, which may be dropped when using apply`,
        );
      }
    });
  }
  const ports = new Map<string, { field: string; hostIP: string; hostPort: number }[]>();
  for (const { c, path } of containers) {
    const list = Array.isArray(c.ports) ? c.ports : [];
    list.forEach((p: unknown, i) => {
      if (!isJsonObject(p)) return;
      const field = `${path}.ports[${String(i)}]`;
      const hostIP = typeof p.hostIP === 'string' ? p.hostIP : '';
      const hostPort = typeof p.hostPort === 'number' ? p.hostPort : 0;
      const key = `${String(p.containerPort)}/${typeof p.protocol === 'string' ? p.protocol : ''}`;
      for (const other of ports.get(key) ?? []) {
        if (hostIP === other.hostIP && hostPort === other.hostPort) {
          warnings.push(`${field}: duplicate port definition with ${other.field}`);
        } else if (hostPort === 0 || other.hostPort === 0) {
          warnings.push(`${field}: overlapping port definition with ${other.field}`);
        } else if (hostPort === other.hostPort && (hostIP === '') !== (other.hostIP === '')) {
          warnings.push(`${field}: dangerously ambiguous port definition with ${other.field}`);
        }
      }
      ports.set(key, [...(ports.get(key) ?? []), { field, hostIP, hostPort }]);
    });
  }
  const names = new Map<string, string>();
  for (const { c, path } of containers) {
    const list = Array.isArray(c.ports) ? c.ports : [];
    list.forEach((p: unknown, i) => {
      if (!isJsonObject(p) || typeof p.name !== 'string' || p.name === '') return;
      const field = `${path}.ports[${String(i)}]`;
      const other = names.get(p.name);
      if (other === undefined) names.set(p.name, field);
      else {
        warnings.push(
          `${field}: duplicate port name ${JSON.stringify(p.name)} with ${other}, services and probes that select ports by name will use ${other}`,
        );
      }
    });
  }
  return warnings;
}

/** The pod template warnings of an object whose `spec.template` is one (Deployment and the workload kinds). */
export function templateWarnings(obj: JsonObject): string[] {
  return podSpecWarnings(objectAt(objectAt(objectAt(obj, 'spec'), 'template'), 'spec'), 'spec.template.spec');
}
