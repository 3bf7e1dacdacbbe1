import { readFileSync } from 'node:fs';
import { loadYaml, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { examplePath } from './example-path.js';

/** The Website CustomResourceDefinition, read from `deploy/crd.yaml` (the one file that defines it). */
export function loadWebsiteCrd(): V1CustomResourceDefinition {
  return loadYaml<V1CustomResourceDefinition>(readFileSync(examplePath('deploy', 'crd.yaml'), 'utf8'));
}
