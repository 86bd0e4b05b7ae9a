/** `-n, --namespace` on every command that reads a manifest, as kubectl's default namespace. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { renderOptions } from '../../src/cli/commands.js';
import { UsageError } from '../../src/cli/errors.js';
import { EXAMPLE, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/corpus-manifest.js';

const quiet = { onProgress: () => undefined, log: () => undefined, warn: () => undefined, stop: () => undefined };

test('render, check, diff, lock, plan and update take -n/--namespace; convert, import and version do not', () => {
  const program = buildProgram();
  const takes = (name: string) =>
    program.commands.find((c: Command) => c.name() === name)!.options.some((o) => o.short === '-n' && o.long === '--namespace');
  assert.deepEqual(
    ['render', 'check', 'diff', 'lock', 'plan', 'update', 'convert', 'import', 'version'].map((name) => [name, takes(name)]),
    [
      ['render', true],
      ['check', true],
      ['diff', true],
      ['lock', true],
      ['plan', true],
      ['update', true],
      ['convert', false],
      ['import', false],
      ['version', false],
    ],
  );
});

test('--namespace reaches the run; a name that is no namespace is a usage error', () => {
  assert.equal(renderOptions({ file: ['m.yaml'], namespace: 'kcm-system' }, quiet).namespace, 'kcm-system');
  assert.equal(renderOptions({ file: ['m.yaml'] }, quiet).namespace, undefined);
  assert.throws(() => renderOptions({ file: ['m.yaml'], namespace: 'KCM_System' }, quiet), UsageError);
});

test('render -n renders providers printed without a namespace, records -n in the output README, and check -n agrees', async () => {
  const dir = tempDir();
  const repository = path.join(EXAMPLE, 'repository');
  writeFileSync(
    path.join(dir, 'providers.yaml'),
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
spec:
  version: v0.2.0
  fetchConfig:
    url: ${path.join(repository, 'cluster-api', 'latest', 'core-components.yaml')}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
`,
  );
  const out = path.join(dir, 'out');
  const render = await runCli(['render', '-f', 'providers.yaml', '-n', 'kcm-system', '-o', 'out', '--quiet'], { cwd: dir });
  assert.equal(render.code, 0, render.stderr);
  assert.match(readFileSync(path.join(out, '01-cluster-api', 'provider-cluster-api.yaml'), 'utf8'), /namespace: kcm-system/);
  assert.match(readFileSync(path.join(out, 'README.md'), 'utf8'), /capi-gitops render -f providers\.yaml --namespace kcm-system -o out/);
  const check = await runCli(['check', '-f', 'providers.yaml', '--namespace', 'kcm-system', '-o', 'out'], { cwd: dir });
  assert.equal(check.code, 0, check.stderr + check.stdout);
});

test('-n that no object takes (each names its own: not clusterctl --target-namespace) is a warning saying where to set it', async () => {
  const dir = tempDir();
  const core = path.join(EXAMPLE, 'repository', 'cluster-api', 'latest', 'core-components.yaml');
  const manifest = (namespace: string) =>
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n${namespace}spec:\n` +
    `  version: v0.2.0\n  fetchConfig:\n    url: ${core}\n---\n` +
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\ncertManager: {enabled: false}\n';
  writeFileSync(path.join(dir, 'providers.yaml'), manifest('  namespace: capi-system\n'));
  const render = await runCli(['render', '-f', 'providers.yaml', '-n', 'capi-infra', '-o', 'out'], { cwd: dir });
  assert.equal(render.code, 0, render.stderr);
  assert.match(
    render.stderr,
    /^warning: -n\/--namespace capi-infra changed nothing: every provider, Secret and ConfigMap names its own namespace\n {2}hint: /m,
  );
  assert.match(readFileSync(path.join(dir, 'out', '01-cluster-api', 'provider-cluster-api.yaml'), 'utf8'), /namespace: capi-system/);
  // taken by an object without one: no warning
  writeFileSync(path.join(dir, 'providers.yaml'), manifest(''));
  const taken = await runCli(['render', '-f', 'providers.yaml', '-n', 'capi-infra', '-o', 'out'], { cwd: dir });
  assert.equal(taken.code, 0, taken.stderr);
  assert.doesNotMatch(taken.stderr, /changed nothing/);
});
