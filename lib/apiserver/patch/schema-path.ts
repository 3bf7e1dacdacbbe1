import type { JSONSchemaProps } from '../schema/json-schema-props.js';
import { propertySchema } from '../schema/property-schema.js';

/**
 * The schema node of the field at `path` (field names from the object root, list items skipped: the
 * names of fields inside a list's items follow the list's name). Undefined where the schema does not
 * describe the field (preserve-unknown-fields subtrees, or no schema).
 */
export function schemaAtPath(
  schema: JSONSchemaProps | undefined,
  path: readonly string[],
): JSONSchemaProps | undefined {
  let node = schema;
  for (const name of path) {
    while (node?.type === 'array' && node.items !== undefined) node = node.items;
    if (node === undefined) return undefined;
    const child = propertySchema(node, name);
    if (child !== undefined) node = child;
    else if (typeof node.additionalProperties === 'object') node = node.additionalProperties;
    else return undefined;
  }
  return node;
}
