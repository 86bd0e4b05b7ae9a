/**
 * A fleet reports every problem of every cluster in one run (issue #10), as a single cluster does:
 * an unknown version in one cluster hides neither a render problem of another cluster nor one of
 * its own other providers. Each test starts from a copy of the bundled example.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli, exampleCopy } from '../helpers/cli.js';
import { renderOutput } from '../../src/app/run.js';
import { CapiGitopsError, type Diagnostic } from '../../src/core/diagnostics.js';

/** The example as a two-cluster fleet: EXAMPLE_REGION moves from the shared Config to eu-1's overlay. */
function fleetExample(fleet: string): { dir: string; manifest: string; fleetFile: string } {
  const dir = exampleCopy();
  const manifest = path.join(dir, 'management-cluster');
  rmSync(path.join(manifest, 'capi-gitops.lock.yaml'));
  const config = path.join(manifest, 'config.yaml');
  const text = readFileSync(config, 'utf8');
  const without = text.replace('variables:\n  EXAMPLE_REGION: eu-west-1\n', '');
  assert.notEqual(without, text, 'the example no longer sets EXAMPLE_REGION in its Config');
  writeFileSync(config, without);
  const fleetFile = path.join(manifest, 'fleet.yaml');
  writeFileSync(fleetFile, fleet);
  return { dir, manifest, fleetFile };
}

async function problems(manifest: string): Promise<Diagnostic[]> {
  try {
    await renderOutput({ manifestPaths: [manifest] });
  } catch (error) {
    if (error instanceof CapiGitopsError) return error.diagnostics;
    throw error;
  }
  assert.fail('expected the run to fail');
}

function lineOf(file: string, text: string): number {
  const index = readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(text));
  assert.ok(index >= 0, `${text} not in ${file}`);
  return index + 1;
}

test("an unknown version in one cluster hides no other cluster's render problem: both in one run, nothing written (CLI)", async () => {
  const { dir, manifest, fleetFile } = fleetExample(`apiVersion: capi-gitops.dev/v1alpha1
kind: Config
clusters:
- name: eu-1
  variables: {EXAMPLE_REGION: eu-west-1}
  providers:
    BootstrapProvider/example: {spec: {version: v0.9.0}}
- name: us-1
`);
  const found = await problems(manifest);
  const text = found.map((d) => `${d.object ?? ''}: ${d.message}`).join('\n');
  assert.equal(found.length, 2, text);
  const version = found.find((d) => /v0\.9\.0/.test(d.message));
  assert.ok(version, text);
  assert.match(version.object ?? '', /^cluster eu-1, overlay: BootstrapProvider\/capex-bootstrap-system\/example/);
  // the version is reported where the overlay chose it
  assert.equal(version.file, fleetFile);
  assert.equal(version.line, lineOf(fleetFile, 'v0.9.0'));
  const variable = found.find((d) => /EXAMPLE_REGION/.test(d.message));
  assert.ok(variable, text);
  assert.match(variable.object ?? '', /^cluster us-1: InfrastructureProvider\/capex-system\/example/);

  const out = path.join(dir, 'out');
  const run = await runCli(['render', '-f', manifest, '-o', out, '--cache-dir', path.join(dir, 'cache')]);
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /v0\.9\.0/);
  assert.match(run.stderr, /EXAMPLE_REGION/);
  assert.match(run.stderr, /2 problems; nothing was written/);
  assert.ok(!existsSync(out));
  assert.ok(!existsSync(path.join(manifest, 'capi-gitops.lock.yaml')));
});

test('within one cluster of a fleet, an unknown version hides no render problem of its other providers', async () => {
  const { manifest } = fleetExample(`apiVersion: capi-gitops.dev/v1alpha1
kind: Config
clusters:
- name: eu-1
  providers:
    BootstrapProvider/example: {spec: {version: v0.9.0}}
`);
  const found = await problems(manifest);
  const text = found.map((d) => `${d.object ?? ''}: ${d.message}`).join('\n');
  assert.equal(found.length, 2, text);
  assert.ok(
    found.some((d) => /v0\.9\.0/.test(d.message) && d.object?.startsWith('cluster eu-1, overlay: BootstrapProvider/')),
    text,
  );
  assert.ok(
    found.some((d) => /EXAMPLE_REGION/.test(d.message) && d.object?.startsWith('cluster eu-1: InfrastructureProvider/')),
    text,
  );
});

test('a problem every cluster shares is reported once, with the other clusters still rendered and checked', async () => {
  // both clusters miss EXAMPLE_REGION (one problem, reported once); us-1 also names an unknown version
  const { manifest } = fleetExample(`apiVersion: capi-gitops.dev/v1alpha1
kind: Config
clusters:
- name: eu-1
- name: us-1
  providers:
    ControlPlaneProvider/example: {spec: {version: v0.8.0}}
`);
  const found = await problems(manifest);
  const text = found.map((d) => `${d.object ?? ''}: ${d.message}`).join('\n');
  assert.equal(found.filter((d) => /EXAMPLE_REGION/.test(d.message)).length, 1, text);
  assert.equal(found.filter((d) => /v0\.8\.0/.test(d.message)).length, 1, text);
  assert.equal(found.length, 2, text);
});

test('--cluster renders fewer clusters, but one that does not resolve still fails the run (the lockfile covers it)', async () => {
  const { manifest } = fleetExample(`apiVersion: capi-gitops.dev/v1alpha1
kind: Config
variables: {EXAMPLE_REGION: eu-west-1}
clusters:
- name: eu-1
  providers:
    BootstrapProvider/example: {spec: {version: v0.9.0}}
- name: us-1
`);
  let found: Diagnostic[] = [];
  try {
    await renderOutput({ manifestPaths: [manifest], clusters: ['us-1'] });
    assert.fail('expected the run to fail');
  } catch (error) {
    if (!(error instanceof CapiGitopsError)) throw error;
    found = error.diagnostics;
  }
  assert.equal(found.length, 1, JSON.stringify(found));
  assert.match(found[0]!.object ?? '', /^cluster eu-1, overlay: BootstrapProvider\//);
  assert.match(found[0]!.message, /v0\.9\.0/);
});

test('a problem of the shared manifest is told once naming every cluster, at the line of the second Config document that wrote it', async () => {
  const { manifest, fleetFile } = fleetExample(`apiVersion: capi-gitops.dev/v1alpha1
kind: Config
repositories:
- {name: example, type: BootstrapProvider, url: ../repository/bootstrap-example/latest/bootstrap-components.yaml}
clusters:
- name: eu-1
  variables: {EXAMPLE_REGION: eu-west-1}
- name: us-1
  variables: {EXAMPLE_REGION: us-east-1}
`);
  const found = (await problems(manifest)).filter((d) => /duplicate repository/.test(d.message));
  assert.deepEqual(
    found.map((d) => `${d.file}:${d.line}:${d.column} ${d.object}: ${d.message}`),
    [`${fleetFile}:4:3 clusters eu-1, us-1, shared manifest: Config: duplicate repository BootstrapProvider "example"`],
  );
});

test("a problem at a provider's field points at the field in the layer that wrote it, as in one cluster: a configSecret in the shared manifest, one in an overlay", async () => {
  const { manifest, fleetFile } = fleetExample(`apiVersion: capi-gitops.dev/v1alpha1
kind: Config
variables: {EXAMPLE_REGION: eu-west-1}
clusters:
- name: eu-1
- name: us-1
  providers:
    BootstrapProvider/example: {spec: {configSecret: {name: us-bootstrap-variables}}}
`);
  const providers = path.join(manifest, 'providers.yaml');
  writeFileSync(
    providers,
    readFileSync(providers, 'utf8').replace('  manager:\n', '  configSecret:\n    name: core-variables\n  manager:\n'),
  );
  const found = (await problems(manifest)).map((d) => `${path.basename(d.file ?? '')}:${d.line}:${d.column} ${d.path}: ${d.message}`);
  assert.deepEqual(found, [
    `fleet.yaml:${lineOf(fleetFile, 'us-bootstrap-variables')}:54 spec.configSecret: Secret capex-bootstrap-system/us-bootstrap-variables is not in the input`,
    `providers.yaml:${lineOf(providers, 'name: core-variables')}:5 spec.configSecret: Secret capi-system/core-variables is not in the input`,
  ]);
});

test("a problem found in a cluster's laid-out files is told at its place in the output (clusters/<name>/…), once for the clusters it reaches, at the first cluster's file", async () => {
  const { manifest } = fleetExample(`apiVersion: capi-gitops.dev/v1alpha1
kind: Config
clusters:
- name: us-1
  variables: {EXAMPLE_REGION: us-east-1}
- name: eu-1
  variables: {EXAMPLE_REGION: eu-west-1}
`);
  const token = 'glpat-FleetWiringUrl0123456789';
  const repoURL = `https://oauth2:${token}@git.example.com/platform/fleet.git`;
  let found: Diagnostic[] = [];
  try {
    await renderOutput({
      manifestPaths: [manifest],
      layout: 'argocd',
      set: [`repoURL=${repoURL}`, 'path=fleet'].map((expression) => ({ expression, forceString: false })),
    });
    assert.fail('rendered');
  } catch (error) {
    if (!(error instanceof CapiGitopsError)) throw error;
    found = error.diagnostics;
  }
  assert.equal(found.length, 1, found.map((d) => `${d.file}: ${d.object}: ${d.message}`).join('\n'));
  const [problem] = found;
  assert.match(problem!.file ?? '', /^clusters\/eu-1\/argocd\/[^/]+\.yaml$/);
  assert.match(problem!.object ?? '', /^clusters eu-1, us-1$/);
  assert.match(problem!.message, /holds a URL with credentials in it/);
  assert.ok(!JSON.stringify(found).includes(token));
});
