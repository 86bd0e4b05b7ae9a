/**
 * A fleet's warnings: one that every cluster gives alike but for the cluster's name is told once,
 * naming the clusters, as a fleet's problems are.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { tempDir } from '../helpers/corpus-manifest.js';
import { runCli } from '../helpers/cli.js';
import { vaultManifest } from '../helpers/vault-manifest.js';

test('a warning every cluster gives alike but for its name (flux-substitute: the Secret to create, each cluster Kustomization named after it) is told once, naming the clusters, <cluster> for the name', () => {
  const dir = vaultManifest({
    config:
      'output: {layout: flux}\ngitops: {path: out}\nsecrets: {strategy: flux-substitute, public: [EXP_MACHINE_POOL]}\nclusters:\n- name: eu-1\n- name: eu-2\n- name: us-1\n',
  });
  const result = runCli(['render', '-f', dir, '-o', path.join(tempDir(), 'out'), '--quiet']);
  assert.equal(result.code, 0, result.stderr);
  const told = result.stderr.split('\n').filter((line) => line.includes('--secrets flux-substitute'));
  assert.equal(told.length, 1, result.stderr);
  assert.match(told[0]!, /^warning: clusters eu-1, eu-2, us-1: --secrets flux-substitute: Flux substitutes VAULT_B64ENCODED_CREDENTIALS /);
  assert.match(told[0]!, /postBuild\.substituteFrom in flux\/kustomization-capi-gitops-<cluster>-\d\d-infrastructure-vault\.yaml/);
});
