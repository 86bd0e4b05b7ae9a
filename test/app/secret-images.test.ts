/**
 * Image overrides given in a provider's configSecret (its `images` key, clusterctl's images
 * setting): written only when the strategy allows the Secret's values in the output, and the
 * refusal's hint works when followed literally.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { assertNoStackTrace, exampleCopy, runCli } from '../helpers/cli.js';
import { corpusCoreProvider, tempDir } from '../helpers/corpus-manifest.js';

const DEPLOYMENT = '04-infrastructure-example/deployment-capex-controller-manager.yaml';

/** The example with the infrastructure provider reading its image overrides from a configSecret. */
function exampleWithSecretImages(images: string): { dir: string; manifest: string; out: string } {
  const dir = exampleCopy();
  const manifest = path.join(dir, 'management-cluster');
  const providers = path.join(manifest, 'providers.yaml');
  appendFileSync(providers, '  configSecret:\n    name: capex-variables\n');
  writeFileSync(
    path.join(manifest, 'secret.yaml'),
    `apiVersion: v1\nkind: Secret\nmetadata:\n  name: capex-variables\n  namespace: capex-system\nstringData:\n  images: |\n${images}`,
  );
  return { dir, manifest, out: path.join(dir, 'out') };
}

/** The line of `configSecret:`'s name in the example's providers.yaml (the last provider's). */
function configSecretNameLine(manifest: string): number {
  const lines = readFileSync(path.join(manifest, 'providers.yaml'), 'utf8').split('\n');
  return lines.lastIndexOf('    name: capex-variables') + 1;
}

// a tag: the Config's `all` repository applies over a repository the Secret sets (the operator's second pass)
const OVERRIDE = '    infrastructure-example:\n      tag: v0.2.0-private\n';

test('an image override from a configSecret is refused by default, at the provider spec.configSecret, with nothing written', async () => {
  const { manifest, out } = exampleWithSecretImages(OVERRIDE);
  const result = await runCli(['render', '-f', manifest, '-o', out]);
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  const at = `${path.join(manifest, 'providers.yaml')}:${configSecretNameLine(manifest)}:5`;
  assert.equal(
    result.stderr,
    `${at}: error: InfrastructureProvider/capex-system/example: spec.configSecret: image overrides from Secret capex-system/capex-variables ` +
      'would be written to the output: images\n' +
      '  expected: no value that comes from a Secret in files committed to Git\n' +
      '  hint: declare `images` in Config.secrets.public, move the overrides to `images:` in the Config document, ' +
      'or pass --secrets inline --allow-secret-values to accept them in the output\n' +
      'nothing was written\n',
  );
  assert.equal(existsSync(out), false);
});

test('the refusal is the same under a strategy that places Secret data (external-secrets): an image is no Secret data', async () => {
  const { manifest, out } = exampleWithSecretImages(OVERRIDE);
  appendFileSync(
    path.join(manifest, 'config.yaml'),
    'secrets:\n  strategy: external-secrets\n  externalSecrets:\n    secretStoreRef: {name: vault}\n',
  );
  const result = await runCli(['render', '-f', manifest, '-o', out]);
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /spec\.configSecret: image overrides from Secret capex-system\/capex-variables would be written/);
  assert.equal(existsSync(out), false);
});

test('following the hint: `images` in Config.secrets.public writes the configSecret override, Config.images over the image it wrote', async () => {
  const { manifest, out } = exampleWithSecretImages(OVERRIDE);
  appendFileSync(path.join(manifest, 'config.yaml'), 'secrets:\n  public: [images]\n');
  const result = await runCli(['render', '-f', manifest, '-o', out]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    readFileSync(path.join(out, DEPLOYMENT), 'utf8'),
    /\n {8}image: mirror\.example\.internal\/capi\/capex-controller:v0\.2\.0-private\n/,
  );
  // the other providers keep Config.images
  assert.match(
    readFileSync(path.join(out, '02-bootstrap-example/deployment-capex-bootstrap-controller-manager.yaml'), 'utf8'),
    /image: mirror\.example\.internal\/capi\/example-bootstrap-controller:v0\.2\.0\n/,
  );
});

test('following the hint: --secrets inline --allow-secret-values writes the override, warns and lists its file as holding secret values', async () => {
  const { manifest, out } = exampleWithSecretImages(OVERRIDE);
  const result = await runCli(['render', '-f', manifest, '-o', out, '--secrets', 'inline', '--allow-secret-values']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    readFileSync(path.join(out, DEPLOYMENT), 'utf8'),
    /image: mirror\.example\.internal\/capi\/capex-controller:v0\.2\.0-private\n/,
  );
  // a value from a Secret written to Git: warned every run, and the README lists the file so
  // that diff and review hide its values, as for an inline Secret
  assert.match(
    result.stderr,
    new RegExp(`warning: --secrets inline: these files hold secret values and will be committed to Git: ${DEPLOYMENT}\n`),
  );
  assert.match(
    readFileSync(path.join(out, 'README.md'), 'utf8'),
    new RegExp(`## Warning: files holding secret values\n[^#]*- \`${DEPLOYMENT}\``),
  );
});

test('a configSecret override that changes no image of its provider is no refusal (only a changed image would be written)', async () => {
  // the key names another provider's label: this provider's images stay Config.images
  const { manifest, out } = exampleWithSecretImages('    cluster-api:\n      repository: registry.private.example/capi\n');
  const result = await runCli(['render', '-f', manifest, '-o', out]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(readFileSync(path.join(out, DEPLOYMENT), 'utf8'), /image: mirror\.example\.internal\/capi\/capex-controller:v0\.2\.0\n/);
});

test("a configSecret repository that Config.images' own repository overrides after it reaches no image, so it is no refusal (cluster-api-operator internal/controller/phase_fetch.go: the mounted clusterctl.yaml's overrides last, over every image)", async () => {
  const { manifest, out } = exampleWithSecretImages('    infrastructure-example:\n      repository: registry.private.example/capex\n');
  const result = await runCli(['render', '-f', manifest, '-o', out]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(readFileSync(path.join(out, DEPLOYMENT), 'utf8'), /image: mirror\.example\.internal\/capi\/capex-controller:v0\.2\.0\n/);
});

test("a configSecret images key for another component (clusterctl.yaml's images are global, these are not) is a warning at its key", async () => {
  const { manifest, out } = exampleWithSecretImages(
    OVERRIDE + '    bootstrap-example:\n      tag: v9.9.9\n    example:\n      tag: v9.9.8\n',
  );
  appendFileSync(path.join(manifest, 'config.yaml'), 'secrets:\n  public: [images]\n');
  const result = await runCli(['render', '-f', manifest, '-o', out]);
  assert.equal(result.code, 0, result.stderr);
  const at = `${path.join(manifest, 'secret.yaml')}:7:3: warning: Secret/capex-system/capex-variables`;
  const own = "a configSecret's image overrides are read for its own providers only (infrastructure-example)";
  assert.ok(
    result.stderr.includes(
      `${at}: images.bootstrap-example: "bootstrap-example" changes no image: ${own}\n` +
        "  hint: move it to images: in the Config document, which every component reads (as clusterctl.yaml's images:)\n",
    ),
    result.stderr,
  );
  assert.ok(
    result.stderr.includes(`${at}: images.example: "example" changes no image: ${own}\n  hint: rename it to infrastructure-example\n`),
  );
  assert.doesNotMatch(result.stderr, /images\.infrastructure-example/);
  // as the operator does: the bootstrap provider keeps its image
  assert.match(
    readFileSync(path.join(out, '02-bootstrap-example/deployment-capex-bootstrap-controller-manager.yaml'), 'utf8'),
    /image: mirror\.example\.internal\/capi\/example-bootstrap-controller:v0\.2\.0\n/,
  );
});

test('an image override and a variable from the same configSecret that lands in a container arg are told in one run, not one after the other', async () => {
  const dir = tempDir();
  writeFileSync(
    path.join(dir, 'providers.yaml'),
    `${corpusCoreProvider('v1.12.0', '  configSecret: {name: capi-vars}\n')}---
apiVersion: v1
kind: Secret
metadata: {name: capi-vars, namespace: capi-system}
stringData:
  CAPI_DIAGNOSTICS_ADDRESS: ":9443"
  images: |
    all:
      repository: mirror.example.internal/capi
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
`,
  );
  const result = await runCli(['render', '-f', dir, '-o', path.join(dir, 'out')]);
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stderr,
    /spec\.configSecret: image overrides from Secret capi-system\/capi-vars would be written to the output: images/,
  );
  assert.match(result.stderr, /args\[1\]: would receive the secret value of CAPI_DIAGNOSTICS_ADDRESS/);
  assert.match(result.stderr, /2 problems; nothing was written/);
});
