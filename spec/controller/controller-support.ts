import type { Registry } from 'prom-client';
import { API_VERSION, type Harness } from '../crud/harness.js';

export {
  eventually,
  ref,
  startHarness,
  widget,
  WIDGET,
  API_VERSION,
  type Harness,
  type Widget,
} from '../crud/harness.js';

/** The value of one series of a counter/gauge in `registry` (0 when absent). */
export async function metricValue(
  registry: Registry,
  name: string,
  labels: Record<string, string>,
): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return 0;
  const data = await metric.get();
  const match = data.values.find((v) =>
    Object.entries(labels).every(([k, val]) => String((v.labels as Record<string, unknown>)[k]) === val),
  );
  return match?.value ?? 0;
}

/** Events posted about `name` in `default`. */
export async function eventsAbout(h: Harness, name: string): Promise<{ type?: string; reason?: string }[]> {
  const list = await h.client.list<{ apiVersion: string; kind: string } & Record<string, unknown>>({
    apiVersion: 'v1',
    kind: 'Event',
    plural: 'events',
    namespace: 'default',
  });
  return list.items.filter((e) => (e.involvedObject as { name?: string } | undefined)?.name === name) as {
    type?: string;
    reason?: string;
  }[];
}

/** Whether the Widget `name` is gone. */
export async function gone(h: Harness, name: string): Promise<boolean> {
  try {
    await h.client.get({
      apiVersion: API_VERSION,
      kind: 'Widget',
      plural: 'widgets',
      namespace: 'default',
      name,
    });
    return false;
  } catch {
    return true;
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
