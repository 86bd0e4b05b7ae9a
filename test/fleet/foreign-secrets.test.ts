/**
 * A fleet's clusters each with a configSecret of their own: a value of one cluster's Secret that
 * another cluster writes in plain (its own variable) is refused, naming the variable and the
 * cluster whose value it is, never the value; each cluster's own gate knew only its own values.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exampleCopy } from '../helpers/cli.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { renderOutput } from '../../src/app/run.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { rejection } from '../helpers/assertions.js';

const EU_TOKEN = 'eu1-api-token-4f9a2c7e51d0';
const US_TOKEN = 'us1-api-token-8b3e6d2a90f4';

function fleet(usRegion: string): string[] {
  const manifest = path.join(exampleCopy(), 'management-cluster');
  rmSync(path.join(manifest, 'capi-gitops.lock.yaml'));
  const own = (cluster: string) => `  providers: {InfrastructureProvider/example: {spec: {configSecret: {name: ${cluster}-vars}}}}\n`;
  writeFileSync(
    path.join(manifest, 'fleet.yaml'),
    `apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: eu-1\n${own('eu')}- name: us-1\n${own('us')}  variables: {EXAMPLE_REGION: "${usRegion}"}\n`,
  );
  const secrets = path.join(tempDir('capi-gitops-foreign-secrets-'), 'secrets.yaml');
  const secret = (cluster: string, token: string) =>
    `apiVersion: v1\nkind: Secret\nmetadata: {name: ${cluster}-vars, namespace: capex-system}\nstringData: {API_TOKEN: "${token}"}\n`;
  writeFileSync(secrets, [secret('eu', EU_TOKEN), secret('us', US_TOKEN)].join('---\n'));
  return [manifest, secrets];
}

test("a cluster's secret value in another cluster's files is refused, naming the variable and its cluster, never the value", async () => {
  const error = await rejection(renderOutput({ manifestPaths: fleet(EU_TOKEN) }));
  assert.ok(error instanceof CapiGitopsError, String(error));
  const leaks = error.diagnostics.filter((d) => /secret value of API_TOKEN of cluster eu-1/.test(d.message));
  assert.ok(leaks.length > 0, error.message);
  assert.ok(
    leaks.every((d) => d.object?.startsWith('cluster us-1') && d.file?.startsWith('clusters/us-1/')),
    leaks.map((d) => `${d.file} ${d.object}`).join('\n'),
  );
  assert.doesNotMatch(error.message, new RegExp(EU_TOKEN));
});

test('clusters with values of their own render', async () => {
  const result = await renderOutput({ manifestPaths: fleet('us-east-1') });
  assert.ok(result.fleet);
});
