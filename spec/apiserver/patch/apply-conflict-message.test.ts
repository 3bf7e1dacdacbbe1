import { describe, expect, it } from 'vitest';
import { formatInvalidMessage } from '../../../lib/apiserver/field-cause.js';
import { formatApplyConflictMessage } from '../../../lib/apiserver/patch/apply-conflict-message.js';
import { serverSideApply } from '../../../lib/apiserver/patch/managed-fields.js';
import { validateAgainstSchema } from '../../../lib/apiserver/schema/validate.js';

describe('formatApplyConflictMessage', () => {
  const options = { force: false, now: '2026-11-21T10:00:00Z', apiVersion: 'example.com/v1' };
  const obj = (spec: Record<string, unknown>) => ({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w' },
    spec,
  });

  it('formats one conflict like kube-apiserver', () => {
    const live = serverSideApply(undefined, obj({ a: 1 }), { ...options, fieldManager: 'alice' }).object;
    const { conflicts } = serverSideApply(live, obj({ a: 2 }), { ...options, fieldManager: 'bob' });
    expect(formatApplyConflictMessage(conflicts)).toBe(
      'Apply failed with 1 conflict: conflict with "alice": .spec.a',
    );
  });

  it('groups several conflicts by manager', () => {
    const first = serverSideApply(undefined, obj({ a: 1, b: 1 }), { ...options, fieldManager: 'zed' }).object;
    const live = serverSideApply(first, obj({ c: 1 }), { ...options, fieldManager: 'amy' }).object;
    const { conflicts } = serverSideApply(live, obj({ a: 2, b: 2, c: 2 }), {
      ...options,
      fieldManager: 'bob',
    });
    expect(formatApplyConflictMessage(conflicts)).toBe(
      'Apply failed with 3 conflicts: conflicts with "amy":\n- .spec.c\nconflicts with "zed":\n- .spec.a\n- .spec.b',
    );
  });
});

describe('formatInvalidMessage', () => {
  const schema = {
    type: 'object',
    properties: { spec: { type: 'object', required: ['b'], properties: { a: { type: 'integer' } } } },
  };

  it('formats a single cause', () => {
    const causes = validateAgainstSchema({ spec: { a: 'x', b: 1 } }, schema);
    expect(formatInvalidMessage('Widget.example.com', 'w', causes)).toBe(
      'Widget.example.com "w" is invalid: spec.a: Invalid value: "string": spec.a in body must be of type integer: "string"',
    );
  });

  it('brackets several causes', () => {
    const causes = validateAgainstSchema({ spec: { a: 'x' } }, schema);
    expect(formatInvalidMessage('Widget.example.com', 'w', causes)).toBe(
      'Widget.example.com "w" is invalid: [spec.b: Required value, spec.a: Invalid value: "string": spec.a in body must be of type integer: "string"]',
    );
  });
});
