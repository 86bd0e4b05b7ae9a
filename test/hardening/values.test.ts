/**
 * Values Kubernetes or a registry cannot take, written into a real manifest tree and rendered
 * with the CLI: integers outside their field's type, integers JavaScript cannot hold exactly,
 * and image references outside the reference grammar. Each must be an error at its
 * file:line:column naming the field and what is allowed, before anything is written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/corpus-manifest.js';
import { assertNoStackTrace, exampleCopy, runCli } from '../helpers/cli.js';

/** The example with `edit` applied to providers.yaml (and config.yaml); returns the manifest dir and its text. */
function exampleWith(edit: { providers?: (text: string) => string; config?: (text: string) => string; extra?: string }): {
  manifest: string;
  providers: string;
  config: string;
} {
  const manifest = path.join(exampleCopy(), 'management-cluster');
  const providersFile = path.join(manifest, 'providers.yaml');
  const configFile = path.join(manifest, 'config.yaml');
  const providers = (edit.providers ?? ((t) => t))(readFileSync(providersFile, 'utf8'));
  const config = (edit.config ?? ((t) => t))(readFileSync(configFile, 'utf8'));
  writeFileSync(providersFile, providers);
  writeFileSync(configFile, config);
  if (edit.extra) writeFileSync(path.join(manifest, 'extra.yaml'), edit.extra);
  return { manifest, providers, config };
}

/** `file:line:column` of `needle` where it first follows `before` in `text`. */
function at(file: string, text: string, needle: string, before = ''): string {
  const found = text.indexOf(before + needle);
  assert.ok(found >= 0, `${before}${needle} is in the fixture`);
  const offset = found + before.length;
  const prefix = text.slice(0, offset);
  return `${file}:${prefix.split('\n').length}:${offset - prefix.lastIndexOf('\n')}`;
}

function replaceOnce(text: string, from: string, to: string): string {
  assert.ok(text.includes(from), `${from} is in the example`);
  return text.replace(from, to);
}

const INFRA_MANAGER = '  manager:\n    verbosity: 2';
const INFRA_DEPLOYMENT = '  deployment:\n    replicas: 2';

test("integers outside their field's type (operator component_customizer.go: replicas → int32 Deployment.spec.replicas, verbosity → klog int32, ports): errors at file:line:column with the field and the range", async () => {
  const { manifest, providers } = exampleWith({
    providers: (text) =>
      replaceOnce(
        replaceOnce(
          replaceOnce(text, INFRA_DEPLOYMENT, '  deployment:\n    replicas: 100000000000000000000000000000'),
          'maxConcurrentReconciles: 5',
          'maxConcurrentReconciles: 9007199254740993',
        ),
        INFRA_MANAGER,
        '  manager:\n    verbosity: 2147483648\n    webhook:\n      port: 65536\n    controller:\n      cacheSyncTimeout: 9223372036854775807\n      groupKindConcurrency:\n        Cluster: -9007199254740993',
      ).replace(
        '      args:\n        --sync-period: 10m',
        '      args:\n        --sync-period: 10m\n      resources:\n        limits:\n          memory: 123456789012345678901234',
      ),
  });
  const out = path.join(tempDir(), 'out');
  const result = await runCli(['render', '-f', manifest, '-o', out]);
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  const file = path.join(manifest, 'providers.yaml');
  const expected: Array<[string, string, string]> = [
    [
      '9007199254740993',
      'spec.manager.maxConcurrentReconciles',
      'must be an integer from 1 to 9007199254740991 (9007199254740993 is written)',
    ],
    [
      '100000000000000000000000000000',
      'spec.deployment.replicas',
      'must be an integer from 0 to 2147483647 (100000000000000000000000000000 is written)',
    ],
    [
      '123456789012345678901234',
      'spec.deployment.containers[0].resources.limits.memory',
      'is an integer beyond ±9007199254740991, which cannot be held exactly',
    ],
    ['2147483648', 'spec.manager.verbosity', 'must be an integer from 0 to 2147483647 (2147483648 is written)'],
    ['65536', 'spec.manager.webhook.port', 'must be an integer from 0 to 65535 (65536 is written)'],
    ['9223372036854775807', 'spec.manager.controller.cacheSyncTimeout', 'must be an integer from -9007199254740991 to 9007199254740991'],
    [
      '-9007199254740993',
      'spec.manager.controller.groupKindConcurrency.Cluster',
      'must be an integer from -9007199254740991 to 9007199254740991',
    ],
  ];
  for (const [needle, field, message] of expected) {
    const where = at(file, providers, needle, ': ');
    assert.ok(
      result.stderr.includes(`${where}: error: `) && result.stderr.includes(`${field}: ${message}`),
      `${field} at ${where}:\n${result.stderr}`,
    );
  }
  assert.match(result.stderr, /expected: an integer from 0 to 2147483647 \(an int32 field/);
  assert.match(result.stderr, /7 problems; nothing was written/);
  assert.ok(!existsSync(out));
});

test('the largest values each type holds are accepted and written exactly into the flags (no 2.1e+9, no rounding)', async () => {
  const { manifest } = exampleWith({
    providers: (text) =>
      replaceOnce(
        replaceOnce(text, INFRA_DEPLOYMENT, '  deployment:\n    replicas: 2147483647'),
        INFRA_MANAGER,
        '  manager:\n    verbosity: 2147483647\n    maxConcurrentReconciles: 9007199254740991\n    webhook:\n      port: 65535',
      ),
  });
  const out = path.join(tempDir(), 'out');
  const result = await runCli(['render', '-f', manifest, '-o', out]);
  assert.equal(result.code, 0, result.stderr);
  const deployment = readFileSync(path.join(out, '04-infrastructure-example', 'deployment-capex-controller-manager.yaml'), 'utf8');
  assert.match(deployment, /replicas: 2147483647\n/);
  for (const flag of ['--v=2147483647', '--max-concurrent-reconciles=9007199254740991', '--webhook-port=65535'])
    assert.ok(deployment.includes(flag), `${flag}:\n${deployment}`);
});

const CONTAINERS = '    - name: manager\n      args:\n        --sync-period: 10m';
const BAD_IMAGES: Array<[string, RegExp]> = [
  ['Registry.Example.com/Capi/Manager:v1', /repository name must be lowercase/],
  ['registry.example.com/capi/manager:v1 beta', /invalid reference format/],
  ['https://registry.example.com/capi/manager:v1', /invalid reference format/],
  ['registry.example.com/capi/manager@sha256:abc', /invalid reference format/],
  ['registry.example.com/capi/manager@md5:' + 'a'.repeat(32), /unsupported digest algorithm "md5"/],
  ['a'.repeat(64), /cannot specify 64-byte hexadecimal strings/],
  ['', /an empty image reference/],
];

test('imageUrl outside the reference grammar (distribution/reference regexp.go): an error at its position with the grammar, not a broken render', async () => {
  const { manifest, providers } = exampleWith({
    providers: (text) =>
      replaceOnce(
        text,
        CONTAINERS,
        BAD_IMAGES.map(([image], i) => `    - name: c${i}\n      imageUrl: ${JSON.stringify(image)}`).join('\n') + '\n' + CONTAINERS,
      ),
  });
  const out = path.join(tempDir(), 'out');
  const result = await runCli(['render', '-f', manifest, '-o', out]);
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  const lines = result.stderr.split('\n');
  BAD_IMAGES.forEach(([image, reason], i) => {
    const where = at(path.join(manifest, 'providers.yaml'), providers, JSON.stringify(image), 'imageUrl: ');
    const line = lines.find((l) => l.startsWith(`${where}: error: `));
    assert.ok(line, `no error at ${where}:\n${result.stderr}`);
    assert.ok(line.includes(`spec.deployment.containers[${i}].imageUrl: is not a valid image reference`), line);
    assert.match(line, reason);
  });
  assert.match(result.stderr, /expected: an image reference: \[registry\[:port\]\/\]path\[:tag\]\[@digest\]/);
  assert.match(result.stderr, new RegExp(`${BAD_IMAGES.length} problems; nothing was written`));
  assert.ok(!existsSync(out));
});

test('Config.images fields are each checked against their part of the reference grammar, at their position', async () => {
  const { manifest, config } = exampleWith({
    config: (text) =>
      replaceOnce(
        text,
        '    repository: mirror.example.internal/capi',
        "    repository: Mirror.Example.Internal/CAPI\n    tag: 'v1 beta'\n  cluster-api:\n    name: 'controller:v1'",
      ),
  });
  const result = await runCli(['render', '-f', manifest, '-o', path.join(tempDir(), 'out')]);
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  const file = path.join(manifest, 'config.yaml');
  assert.ok(
    result.stderr.includes(
      `${at(file, config, 'Mirror.Example')}: error: Config: images.all.repository: is not a valid image repository: repository names must be lower-case`,
    ),
    result.stderr,
  );
  assert.ok(
    result.stderr.includes(
      `${at(file, config, "'v1 beta'")}: error: Config: images.all.tag: is not a valid image tag: contains white space`,
    ),
    result.stderr,
  );
  assert.ok(
    result.stderr.includes(`${at(file, config, "'controller:v1'")}: error: Config: images["cluster-api"].name: is not a valid image name`),
    result.stderr,
  );
  assert.match(result.stderr, /3 problems; nothing was written/);
});

test("the configSecret's images are checked like Config.images, and the Secret's values are never quoted", async () => {
  const secretValue = 'Secret Registry/With Spaces';
  const { manifest } = exampleWith({
    providers: (text) =>
      replaceOnce(text, 'spec:\n  version: v0.2.0\n---', 'spec:\n  version: v0.2.0\n  configSecret:\n    name: bootstrap-settings\n---'),
    extra: `apiVersion: v1\nkind: Secret\nmetadata:\n  name: bootstrap-settings\n  namespace: capex-bootstrap-system\nstringData:\n  images: |\n    all:\n      repository: "${secretValue}"\n      tag: "v1@"\n`,
  });
  const out = path.join(tempDir(), 'out');
  const result = await runCli(['render', '-f', manifest, '-o', out]);
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /images\.all\.repository: is not a valid image repository: contains white space/);
  assert.match(result.stderr, /images\.all\.tag: is not a valid image tag: not a valid tag/);
  assert.ok(!result.stderr.includes('Secret Registry') && !result.stderr.includes('v1@'), `a Secret value was quoted:\n${result.stderr}`);
  assert.ok(!existsSync(out));
});
