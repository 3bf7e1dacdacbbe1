import { ApiError, failureStatus } from '../status.js';
import type { FieldCause } from '../field-cause.js';

function forbidden(message: string): FieldCause {
  return { reason: 'FieldValueForbidden', message: `Forbidden: ${message}`, field: 'resourceVersionMatch' };
}

function notSupported(value: string, supported: string[]): FieldCause {
  const list = supported.map((s) => JSON.stringify(s)).join(', ');
  return {
    reason: 'FieldValueNotSupported',
    message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${list}`,
    field: 'resourceVersionMatch',
  };
}

/**
 * kube's ValidateListOptions (k8s.io/apimachinery/pkg/apis/meta/internalversion/validation): the
 * `resourceVersionMatch` / `resourceVersion` / `continue` / `sendInitialEvents` combinations of a list or a
 * watch, every violation a cause of one 422 on `ListOptions.meta.k8s.io ""` (no name in the details).
 */
export function checkListOptions(query: URLSearchParams, watch: boolean): void {
  const match = query.get('resourceVersionMatch') ?? '';
  const rv = query.get('resourceVersion') ?? '';
  const continued = (query.get('continue') ?? '') !== '';
  const sendInitial = query.get('sendInitialEvents') || null;
  const causes: FieldCause[] = [];
  if (watch) {
    if (sendInitial !== null && match !== 'NotOlderThan') {
      causes.push(forbidden('sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    }
    if (match !== '') {
      if (sendInitial === null)
        causes.push(
          forbidden('resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'),
        );
      if (match !== 'NotOlderThan') causes.push(notSupported(match, ['NotOlderThan']));
      if (continued) causes.push(forbidden('resourceVersionMatch is forbidden when continue is provided'));
    }
  } else {
    if (match !== '') {
      if (rv === '')
        causes.push(forbidden('resourceVersionMatch is forbidden unless resourceVersion is provided'));
      if (continued) causes.push(forbidden('resourceVersionMatch is forbidden when continue is provided'));
      if (match !== 'Exact' && match !== 'NotOlderThan')
        causes.push(notSupported(match, ['Exact', 'NotOlderThan', '']));
      if (match === 'Exact' && rv === '0')
        causes.push(forbidden('resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
    if (sendInitial !== null) {
      causes.push({
        reason: 'FieldValueForbidden',
        message: 'Forbidden: sendInitialEvents is forbidden for list',
        field: 'sendInitialEvents',
      });
    }
  }
  if (causes.length === 0) return;
  const parts = causes.map((c) => `${c.field}: ${c.message}`);
  const summary = parts.length === 1 ? (parts[0] ?? '') : `[${parts.join(', ')}]`;
  throw new ApiError(
    failureStatus(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${summary}`, {
      group: 'meta.k8s.io',
      kind: 'ListOptions',
      causes,
    }),
  );
}
