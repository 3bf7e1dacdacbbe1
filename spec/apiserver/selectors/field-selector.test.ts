import { describe, expect, it } from 'vitest';
import { parseFieldSelector } from '../../../lib/apiserver/selectors/field-selector.js';
import { isSelectorError } from '../../../lib/apiserver/selectors/selector-error.js';

const POD = { group: '', version: 'v1', kind: 'Pod' };
const CONFIGMAP = { group: '', version: 'v1', kind: 'ConfigMap' };
const WIDGET = { group: 'example.com', version: 'v1', kind: 'Widget' };

const running = {
  metadata: { name: 'a', namespace: 'ns1' },
  spec: { nodeName: 'n1' },
  status: { phase: 'Running' },
};
const pending = { metadata: { name: 'b', namespace: 'ns2' }, spec: {}, status: { phase: 'Pending' } };

describe('parseFieldSelector', () => {
  it.each([
    ['', [true, true]],
    ['metadata.name=a', [true, false]],
    ['metadata.name==a', [true, false]],
    ['metadata.name!=a', [false, true]],
    ['metadata.namespace=ns2', [false, true]],
    ['status.phase=Running,spec.nodeName=n1', [true, false]],
    ['spec.nodeName=', [false, true]],
    ['spec.nodeName!=', [true, false]],
    ['status.phase!=Running,status.phase!=Succeeded', [false, true]],
    ['metadata.name=a,', [true, false]],
  ])('%j on pods selects %j of [running, pending]', (text, expected) => {
    const selector = parseFieldSelector(text, POD);
    expect([running, pending].map((pod) => selector.matches(pod))).toEqual(expected);
  });

  it.each([
    [{ group: '', version: 'v1', kind: 'Secret' }, 'type=kubernetes.io/tls', { type: 'kubernetes.io/tls' }],
    [{ group: '', version: 'v1', kind: 'Namespace' }, 'status.phase=Active', { status: { phase: 'Active' } }],
    [{ group: '', version: 'v1', kind: 'Node' }, 'spec.unschedulable=false', { spec: {} }],
    [
      { group: '', version: 'v1', kind: 'Event' },
      'involvedObject.kind=Pod,involvedObject.name=a,source=kubelet,type=Normal',
      { involvedObject: { kind: 'Pod', name: 'a' }, source: { component: 'kubelet' }, type: 'Normal' },
    ],
    [
      { group: 'events.k8s.io', version: 'v1', kind: 'Event' },
      'regarding.name=a,reason=Started',
      { regarding: { name: 'a' }, reason: 'Started' },
    ],
    [{ group: 'batch', version: 'v1', kind: 'Job' }, 'status.successful=0', { status: {} }],
    [{ group: '', version: 'v1', kind: 'Pod' }, 'spec.hostNetwork=true', { spec: { hostNetwork: true } }],
  ])('supports the %o selector %j', (kind, text, obj) => {
    expect(parseFieldSelector(text, kind).matches(obj)).toBe(true);
    expect(parseFieldSelector(text.replace('=', '!='), kind).matches(obj)).toBe(false);
  });

  it('unescapes \\, and \\= in values', () => {
    const selector = parseFieldSelector('metadata.name=a\\,b\\=c', CONFIGMAP);
    expect(selector.matches({ metadata: { name: 'a,b=c' } })).toBe(true);
  });

  it('accepts extra fields such as a CRD selectableFields entry', () => {
    const selector = parseFieldSelector('spec.color=red', WIDGET, ['.spec.color']);
    expect(selector.matches({ spec: { color: 'red' } })).toBe(true);
    expect(selector.matches({ spec: { color: 'blue' } })).toBe(false);
  });

  it('reports empty only for no terms', () => {
    expect(parseFieldSelector('', POD).empty).toBe(true);
    expect(parseFieldSelector('metadata.name=a', POD).empty).toBe(false);
  });

  it.each([
    [
      'spec.nodeName=x',
      CONFIGMAP,
      '"spec.nodeName" is not a known field selector: only "metadata.name", "metadata.namespace"',
    ],
    [
      'spec.x=1',
      { group: 'batch', version: 'v1', kind: 'Job' },
      'field label "spec.x" not supported for Job',
    ],
    [
      'status.replicas=1',
      { group: 'apps', version: 'v1', kind: 'ReplicaSet' },
      '"status.replicas" is not a known field selector',
    ],
    ['spec.color=red', WIDGET, 'field label not supported: spec.color'],
    ['status.phase', POD, "invalid selector: 'status.phase'"],
    ['constructor=x', POD, 'field label not supported: constructor'],
    ['toString=x', CONFIGMAP, '"toString" is not a known field selector'],
    ['metadata.name=a\\x', POD, 'invalid escape sequence'],
  ])('rejects %j on %o', (text, kind, message) => {
    try {
      parseFieldSelector(text, kind);
      expect.fail('expected a SelectorError');
    } catch (e) {
      expect(isSelectorError(e)).toBe(true);
      expect((e as Error).message).toContain(message);
    }
  });
});
