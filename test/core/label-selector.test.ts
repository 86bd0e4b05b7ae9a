import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatSelector,
  matchesLabelSelector,
  matchesSelector,
  parseLabelSelector,
  selectorProblems,
  selectorRequirements,
} from '../../src/core/label-selector.js';
import { isDns1123Label, isDns1123Subdomain, isValidLabelKey, isValidLabelValue } from '../../src/core/names.js';

test('a metav1.LabelSelector and its kubectl string select the same labels through the one matcher (apimachinery LabelSelectorAsSelector)', () => {
  const selector = {
    matchLabels: { app: 'capi' },
    matchExpressions: [
      { key: 'tier', operator: 'In' as const, values: ['a', 'b'] },
      { key: 'legacy', operator: 'DoesNotExist' as const },
    ],
  };
  const asString = parseLabelSelector(formatSelector(selector));
  assert.deepEqual(selectorRequirements(selector), [
    { key: 'app', operator: '=', values: ['capi'] },
    { key: 'tier', operator: 'in', values: ['a', 'b'] },
    { key: 'legacy', operator: '!', values: [] },
  ]);
  const cases: Record<string, string>[] = [
    { app: 'capi', tier: 'a' },
    { app: 'capi', tier: 'c' },
    { app: 'capi', tier: 'b', legacy: 'x' },
    { tier: 'a' },
    {},
  ];
  for (const labels of cases) {
    assert.equal(matchesSelector(labels, selector), matchesLabelSelector(asString, labels), JSON.stringify(labels));
  }
  assert.equal(matchesSelector({ app: 'capi', tier: 'b' }, selector), true);
  assert.equal(matchesSelector({}, {}), true, 'an empty selector matches everything');
});

test('one name rule for keys, values and DNS-1123 names (apimachinery pkg/util/validation)', () => {
  assert.equal(isValidLabelKey('cluster.x-k8s.io/provider'), true);
  assert.equal(isValidLabelKey('Example.com/x'), false, 'the prefix is a lower-case DNS subdomain');
  assert.equal(isValidLabelKey('a/b/c'), false);
  assert.equal(isValidLabelValue(''), true);
  assert.equal(isValidLabelValue('x'.repeat(64)), false);
  assert.equal(isDns1123Subdomain('cluster-api'), true);
  assert.equal(isDns1123Subdomain('a'.repeat(254)), false);
  assert.equal(isDns1123Label('a.b'), false);
  assert.deepEqual(selectorProblems({ matchExpressions: [{ key: 'k', operator: 'In', values: [] }] }), [
    'matchExpressions[0]: operator In needs at least one value',
  ]);
});
