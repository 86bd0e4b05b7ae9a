/**
 * The values a review shows old → new for a changed wiring object (review/field-paths.ts
 * changedScalars): where and how it syncs, never a Helm parameter's value or a Flux substitution,
 * which may hold a value the secrets gate of this run never saw.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changedPaths, changedScalars } from '../../src/review/field-paths.js';

test('changedScalars shows a sync field (targetRevision, interval) and leaves out Helm parameter values, inline values and postBuild substitutions', () => {
  const application = (revision: string, token: string) => ({
    spec: {
      source: {
        targetRevision: revision,
        helm: { parameters: [{ name: 'token', value: token }], values: `token: ${token}` },
      },
    },
  });
  assert.deepEqual(changedScalars(application('HEAD', 'old-Tq8ZrLw5'), application('main', 'new-Tq8ZrLw5')), [
    { path: 'spec.source.targetRevision', from: 'HEAD', to: 'main' },
  ]);
  const kustomization = (interval: string, password: string) => ({
    spec: { interval, postBuild: { substitute: { PROXY_PASSWORD: password } } },
  });
  assert.deepEqual(changedScalars(kustomization('10m', 'old-Tq8ZrLw5'), kustomization('1m', 'new-Tq8ZrLw5')), [
    { path: 'spec.interval', from: '10m', to: '1m' },
  ]);
});

test('changedPaths lists list items by index, rules[2] before rules[10], as a ClusterRole of 12 rules reads (not rules[10], rules[11], rules[1])', () => {
  const role = (verb: string) => ({
    rules: Array.from({ length: 12 }, (_, i) => ({ apiGroups: [''], resources: [`r${i}`], verbs: [verb] })),
  });
  assert.deepEqual(
    changedPaths(role('get'), role('list')),
    Array.from({ length: 12 }, (_, i) => `rules[${i}].verbs`),
  );
  // a name that holds digits is text: the index order applies to indexes only
  const named = (image: string) => ({ containers: ['a10', 'a2'].map((name) => ({ name, image })) });
  assert.deepEqual(changedPaths(named('x'), named('y')), ['containers[name=a10].image', 'containers[name=a2].image']);
});
