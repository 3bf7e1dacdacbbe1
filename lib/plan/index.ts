/**
 * `plan`: what an operator would change, without changing anything; field-level and unified diffs.
 *
 * @module reconcilekit/plan
 */
export {
  plan,
  type Plan,
  type PlanOptions,
  type PlannedObject,
  type PlannedResource,
  type PlannedPart,
  type Plannable,
} from './plan.js';
export { NotPlannableError } from './planning-client.js';
export { renderDiff, type RenderDiffOptions } from './render-diff.js';
export type { FieldChange } from './field-diff.js';
