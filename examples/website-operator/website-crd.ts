import { readFileSync } from 'node:fs';
import { loadYaml, type KubernetesObject } from '@kubernetes/client-node';
import { examplePath } from './example-path.js';

/**
 * The Website CustomResourceDefinition, read from `deploy/crd.yaml` (the one file that defines it), in
 * wire form. It is parsed nested under a key because client-node's `loadYaml` would otherwise convert it
 * into its typed model, renaming fields such as a schema's `default` — and the server would drop them.
 */
export function loadWebsiteCrd(): KubernetesObject {
  const yaml = readFileSync(examplePath('deploy', 'crd.yaml'), 'utf8');
  const crd = loadYaml<{ crd?: KubernetesObject }>(`crd:\n${yaml.replace(/^/gm, '  ')}`).crd;
  if (crd?.kind !== 'CustomResourceDefinition')
    throw new Error('deploy/crd.yaml must hold one CustomResourceDefinition');
  return crd;
}
