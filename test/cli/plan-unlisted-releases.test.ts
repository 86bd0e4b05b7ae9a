/**
 * `plan` for a fork served from a plain HTTPS template (a `{version}` URL, no release listing):
 * it cannot list the releases, and its hint must name what lists them (versions or versionsUrl on
 * a Config repositories entry), at that entry; spec.version is exact already. Followed literally,
 * the hint gives a plan.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/corpus-manifest.js';
import { CORE_MANAGER_DEPLOYMENT, localCoreRelease, localRelease, serveDirectory } from '../helpers/local-release.js';
import { assertNoStackTrace, runCliAsync } from '../helpers/cli.js';

const RKE2_DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: rke2-bootstrap-controller-manager, namespace: rke2-bootstrap-system}
spec:
  selector: {matchLabels: {app: rke2}}
  template:
    metadata: {labels: {app: rke2}}
    spec:
      containers:
      - {name: manager, image: thehejik/cluster-api-provider-rke2-bootstrap:v0.1.0}
`;

function manifest(coreUrl: string, template: string, entryExtra: string): string {
  return `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec:
  fetchConfig: {url: ${coreUrl}}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: BootstrapProvider
metadata: {name: rke2, namespace: rke2-bootstrap-system}
spec:
  version: v0.1.0
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
repositories:
- name: rke2
  type: BootstrapProvider
  url: ${template}
${entryExtra}`;
}

test('plan of a plain HTTPS template without versions: told at its repositories entry; the versions its hint names work', async () => {
  const root = tempDir();
  localRelease(root, 'bootstrap-rke2', 'bootstrap-components.yaml', RKE2_DEPLOYMENT);
  const server = await serveDirectory(root);
  try {
    const dir = tempDir();
    const coreUrl = localCoreRelease(CORE_MANAGER_DEPLOYMENT);
    const template = `${server.url}/bootstrap-rke2/{version}/bootstrap-components.yaml`;
    writeFileSync(path.join(dir, 'providers.yaml'), manifest(coreUrl, template, ''));
    const args = ['-f', dir, '--cache-dir', path.join(dir, 'cache')];
    const render = await runCliAsync(['render', ...args, '-o', path.join(dir, 'out')], process.env);
    assert.equal(render.code, 0, render.stderr);

    const plan = await runCliAsync(['plan', ...args], process.env);
    assertNoStackTrace(plan, 'plan');
    assert.equal(plan.code, 1, plan.stdout);
    assert.match(
      plan.stderr,
      /providers\.yaml:17:3: error: Config: repositories\[0\]: plan cannot tell whether bootstrap-rke2 has a release newer than v0\.1\.0/,
    );
    assert.doesNotMatch(plan.stderr, /set spec\.version/);
    const hint = /hint: add (versions: \[v0\.1\.0\]) \(every published tag\) or versionsUrl .* to this repositories entry/.exec(
      plan.stderr,
    );
    assert.ok(hint, plan.stderr);

    // followed literally: the listing added to the entry the error points at
    writeFileSync(path.join(dir, 'providers.yaml'), manifest(coreUrl, template, `  ${hint[1]}\n`));
    const again = await runCliAsync(['plan', ...args], process.env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /bootstrap-rke2 +rke2-bootstrap-system +BootstrapProvider +v0\.1\.0 +v1beta2 +up to date/);
  } finally {
    server.close();
  }
});

test('a versionsUrl that answers 404, or a listing that is no list of tags, is told at that versionsUrl (file:line:column), not at the provider object', async () => {
  const root = tempDir();
  localRelease(root, 'bootstrap-rke2', 'bootstrap-components.yaml', RKE2_DEPLOYMENT);
  writeFileSync(path.join(root, 'bad-versions.txt'), 'v0.1.0\nnot a tag!\n');
  const server = await serveDirectory(root);
  try {
    const dir = tempDir();
    const coreUrl = localCoreRelease(CORE_MANAGER_DEPLOYMENT);
    const template = `${server.url}/bootstrap-rke2/{version}/bootstrap-components.yaml`;
    const args = ['-f', dir, '--cache-dir', path.join(dir, 'cache')];
    for (const [file, message] of [
      ['nope.txt', /versionsUrl http:\/\/127\.0\.0\.1:\d+\/nope\.txt not found \(HTTP 404\)/],
      ['bad-versions.txt', /not a tag!/],
    ] as const) {
      writeFileSync(path.join(dir, 'providers.yaml'), manifest(coreUrl, template, `  versionsUrl: ${server.url}/${file}\n`));
      const plan = await runCliAsync(['plan', ...args], process.env);
      assertNoStackTrace(plan, 'plan');
      assert.equal(plan.code, 1, plan.stdout);
      assert.match(plan.stderr, /providers\.yaml:20:\d+: error: /, plan.stderr);
      assert.match(plan.stderr, message);
    }
  } finally {
    server.close();
  }
});
