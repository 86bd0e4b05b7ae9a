/**
 * Which clusters of a fleet share an Argo CD destination (layout/fleet-destinations.ts): Argo CD's
 * own cluster is `in-cluster` by name and `https://kubernetes.default.svc` by server
 * (argo-cd common/common.go InClusterName, KubernetesInternalAPIServerAddr).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedDestinationWarnings } from '../../src/layout/fleet-destinations.js';
import { sharedWiringProblems } from '../../src/layout/fleet-applicationset.js';

const cluster = (name: string, destination?: Record<string, string | null>) => ({
  name,
  values: destination === undefined ? {} : { destination },
  entry: { file: 'fleet.yaml', line: 1, column: 3 },
});

test("Argo CD's own cluster by name (in-cluster) and by server is one destination for the fleet's ApplicationSet; with one root per cluster it is each management cluster's own Argo CD's, and not refused", () => {
  const clusters = [
    cluster('eu-1', { name: 'in-cluster', server: null }),
    cluster('us-1', { name: null, server: 'https://kubernetes.default.svc/' }),
    cluster('lab-1', { name: 'lab-1' }),
  ];
  assert.deepEqual(
    sharedDestinationWarnings(clusters, true).map((d) => d.message.split(':')[0]),
    ["the clusters eu-1, us-1 have Argo CD's own cluster as destination (in-cluster, https"],
  );
  assert.deepEqual(sharedDestinationWarnings(clusters, false), []);
});

test("clusters whose chart values have no destination (a chart of one's own without one) are not compared", () => {
  assert.deepEqual(sharedDestinationWarnings([cluster('eu-1'), cluster('us-1')], true), []);
});

test('a destination a run of numbered clusters share is told once with their range, not every name (a fleet of hundreds)', () => {
  const clusters = Array.from({ length: 200 }, (_, i) => cluster(`c${String(i).padStart(3, '0')}`, { name: 'in-cluster' }));
  const [warning, ...more] = sharedDestinationWarnings(clusters, true);
  assert.equal(more.length, 0);
  assert.match(warning!.message, /^the clusters c000–c199 have Argo CD's own cluster as destination/);
  assert.deepEqual(
    sharedWiringProblems(new Map([['AppProject argocd/platform', ['c000', 'c001', 'c002', 'eu-1']]])).map(
      (d) => d.message.split(' each')[0],
    ),
    ['the clusters c000–c002, eu-1'],
  );
});
