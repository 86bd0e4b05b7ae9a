/**
 * How a fleet tells what its clusters share: a warning that every cluster gives alike but for the
 * cluster's name is told once, naming the clusters, as a fleet's problems are; a Config setting the
 * fleet lacks is told where its parent is written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/corpus-manifest.js';
import { exampleCopy, runCli } from '../helpers/cli.js';
import { vaultManifest } from '../helpers/vault-manifest.js';

test('a warning every cluster gives alike but for its name (flux-substitute: the Secret to create, each cluster Kustomization named after it) is told once, naming the clusters, <cluster> for the name', async () => {
  const dir = vaultManifest({
    config:
      'output: {layout: flux}\ngitops: {path: out}\nsecrets: {strategy: flux-substitute, public: [EXP_MACHINE_POOL]}\nclusters:\n- name: eu-1\n- name: eu-2\n- name: us-1\n',
  });
  const result = await runCli(['render', '-f', dir, '-o', path.join(tempDir(), 'out'), '--quiet']);
  assert.equal(result.code, 0, result.stderr);
  const told = result.stderr.split('\n').filter((line) => line.includes('--secrets flux-substitute'));
  assert.equal(told.length, 1, result.stderr);
  assert.match(told[0]!, /^warning: clusters eu-1, eu-2, us-1: --secrets flux-substitute: Flux substitutes VAULT_B64ENCODED_CREDENTIALS /);
  assert.match(told[0]!, /postBuild\.substituteFrom in flux\/kustomization-capi-gitops-<cluster>-\d\d-infrastructure-vault\.yaml/);
});

test('a setting a fleet Config lacks (sops.ageRecipients) is told where its parent, secrets:, is written, not at the Config document start', async () => {
  const dir = vaultManifest({
    config: 'secrets:\n  strategy: sops\n  public: [EXP_MACHINE_POOL]\nclusters:\n- name: eu-1\n- name: us-1\n',
  });
  const file = path.join(dir, 'management-cluster.yaml');
  const lines = readFileSync(file, 'utf8').split('\n');
  const result = await runCli(['render', '-f', dir, '-o', path.join(tempDir(), 'out'), '--quiet']);
  assert.equal(result.code, 1, result.stderr);
  const at = /^(.*):(\d+):(\d+): error: clusters eu-1, us-1: Config\.secrets: sops\.ageRecipients: /m.exec(result.stderr);
  assert.ok(at, result.stderr);
  assert.equal(at[1], file);
  // the secrets block: its key's line or the first line of its map
  assert.ok([lines.indexOf('secrets:') + 1, lines.indexOf('  strategy: sops') + 1].includes(Number(at[2])), result.stderr);
});

test('clusters with one-letter names (e, s): the warning they give alike is still told once, the names replaced only where they stand as a word', async () => {
  const dir = vaultManifest({
    config:
      'output: {layout: flux}\ngitops: {path: out}\nsecrets: {strategy: flux-substitute, public: [EXP_MACHINE_POOL]}\nclusters:\n- name: e\n- name: s\n',
  });
  const result = await runCli(['render', '-f', dir, '-o', path.join(tempDir(), 'out'), '--quiet']);
  assert.equal(result.code, 0, result.stderr);
  const told = result.stderr.split('\n').filter((line) => line.includes('--secrets flux-substitute'));
  assert.equal(told.length, 1, result.stderr);
  assert.match(told[0]!, /^warning: clusters e, s: --secrets flux-substitute: Flux substitutes VAULT_B64ENCODED_CREDENTIALS /);
  assert.match(told[0]!, /kustomization-capi-gitops-<cluster>-\d\d-infrastructure-vault\.yaml/);
});

test('a fleet tells, once naming its clusters, what a single cluster tells: a variable set only in the environment, and a Config images key that names no component (as clusterctl keys them by label)', async () => {
  const dir = exampleCopy();
  const manifest = path.join(dir, 'management-cluster');
  const config = path.join(manifest, 'config.yaml');
  writeFileSync(config, readFileSync(config, 'utf8').replace('images:\n', 'images:\n  example:\n    tag: v9.9.9\n'));
  writeFileSync(
    path.join(manifest, 'fleet.yaml'),
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: eu-1\n- name: us-1\n',
  );
  const env = { ...process.env, CLUSTER_TOPOLOGY: 'value-from-env-7f3a' };
  const result = await runCli(['render', '-f', manifest, '-o', path.join(dir, 'out'), '--quiet'], { env });
  assert.equal(result.code, 0, result.stderr);
  const fromEnvironment = result.stderr.split('\n').filter((line) => line.includes('CLUSTER_TOPOLOGY is set in the environment'));
  assert.equal(fromEnvironment.length, 1, result.stderr);
  assert.match(
    fromEnvironment[0]!,
    /providers\.yaml:5:1: warning: clusters eu-1, us-1: CoreProvider\/capi-system\/cluster-api: .*get its default "false"$/,
  );
  const imageKey = result.stderr.split('\n').filter((line) => line.includes('"example" names no component'));
  assert.equal(imageKey.length, 1, result.stderr);
  assert.ok(
    imageKey[0]!.startsWith(
      `${config}:${readFileSync(config, 'utf8').split('\n').indexOf('  example:') + 1}:3: warning: clusters eu-1, us-1: `,
    ),
    imageKey[0],
  );
  assert.ok(!result.stderr.includes('value-from-env-7f3a'), 'the environment value is never shown');
});
