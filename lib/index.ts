// reconcilekit — Kubernetes operators as CRUD resources.
// Re-exports only; one concept per module. Sections are owned by their layer.

// --- core: util, context, resource, router, errors, logging (issue: CRUD core) ---

// --- engine: kube, watch, queue, observability, leader, framework (issue: Framework) ---
export const VERSION = '0.1.0';
