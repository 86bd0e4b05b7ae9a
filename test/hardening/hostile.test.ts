/**
 * Bounded work on hostile input, and a property test: random mutations of the example's
 * manifests and artifacts never give a stack trace and never change the output when they fail.
 * Bounded by iteration count (no timed assertions); seeded, so a failure replays.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/corpus-manifest.js';
import { readTree } from '../helpers/tree.js';
import { assertNoStackTrace, EXAMPLE, exampleCopy, runCli } from '../helpers/cli.js';

test('an artifact that is one huge flow list is refused by the node bound, naming the file and the variable that raises it', async () => {
  const example = exampleCopy();
  const components = path.join(example, 'repository', 'bootstrap-example', 'v0.2.0', 'bootstrap-components.yaml');
  writeFileSync(components, `${readFileSync(components, 'utf8')}---\nbomb: [${'1,'.repeat(1_100_000)}1]\n`);
  rmSync(path.join(example, 'management-cluster', 'capi-gitops.lock.yaml')); // not a re-tag: a new release
  const result = await runCli(['render', '-f', path.join(example, 'management-cluster'), '-o', path.join(tempDir(), 'out')]);
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /bootstrap-components\.yaml:\d+:\d+: error: a YAML document here holds more than 1000000 nodes/);
  assert.match(result.stderr, /CAPI_GITOPS_YAML_MAX_NODES=2000000/);
  // Raised, the same input is accepted as far as the bound goes (it then fails as a non-object).
  const raised = await runCli(['render', '-f', path.join(example, 'management-cluster'), '-o', path.join(tempDir(), 'out')], {
    env: { ...process.env, CAPI_GITOPS_YAML_MAX_NODES: '3000000' },
  });
  assertNoStackTrace(raised);
  assert.doesNotMatch(raised.stderr, /holds more than/);
});

test('deep nesting in a manifest (100,000 "[") is refused by the depth bound, not a stack overflow', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  writeFileSync(path.join(manifest, 'deep.yaml'), `x: ${'['.repeat(100_000)}\n`);
  const result = await runCli(['render', '-f', manifest, '-o', path.join(tempDir(), 'out')]);
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /deep\.yaml:1:\d+: error: YAML nesting here is deeper than 512 levels/);
});

test('deep nesting in a file convert reads (20,000 "[" in a provider\'s version) is refused by the depth bound, as render refuses it; it overflowed the stack (internal error)', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const providers = path.join(manifest, 'providers.yaml');
  const text = readFileSync(providers, 'utf8');
  const deep = text.replace('  version: v0.2.0\n', `  version: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`);
  writeFileSync(providers, deep);
  const line = text.slice(0, text.indexOf('  version: v0.2.0\n')).split('\n').length;
  for (const args of [
    ['convert', '-f', manifest],
    ['convert', '-f', manifest, '--in-place'],
  ]) {
    const result = await runCli(args);
    assertNoStackTrace(result);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, new RegExp(`providers\\.yaml:${line}:\\d+: error: YAML nesting here is deeper than 512 levels`));
  }
  assert.equal(readFileSync(providers, 'utf8'), deep);
});

// Before, the hint doubled the limit whatever the parser could read: 1024 levels overflowed its stack,
// "invalid YAML: maximum call stack size exceeded", with a hint about indentation.
test('the depth bound\'s hint, followed as printed as often as it is given, never leads to "maximum call stack size exceeded"', async () => {
  for (const [style, depth] of [
    ['flow', 600],
    ['flow', 1000],
    ['block', 1000],
  ] as const) {
    const example = exampleCopy();
    const manifest = path.join(example, 'management-cluster');
    const deep =
      style === 'flow'
        ? `x: ${'['.repeat(depth)}${']'.repeat(depth)}\n`
        : Array.from({ length: depth }, (_, i) => `${'  '.repeat(i)}k:`).join('\n') + ' 1\n';
    writeFileSync(path.join(manifest, 'deep.yaml'), deep);
    const env: Record<string, string> = {};
    for (let round = 0; round < 5; round++) {
      const result = await runCli(['render', '-f', manifest, '-o', path.join(tempDir(), 'out')], { env: { ...process.env, ...env } });
      assertNoStackTrace(result);
      assert.equal(result.code, 1, result.stderr);
      assert.doesNotMatch(result.stderr, /call stack/i, `${style} ${depth} with ${JSON.stringify(env)}`);
      const raise = /CAPI_GITOPS_YAML_MAX_DEPTH=(\d+)/.exec(result.stderr);
      if (!raise) break;
      env.CAPI_GITOPS_YAML_MAX_DEPTH = raise[1]!;
    }
  }
});

test('an artifact nested by 100,000 compact entries separated by tabs or several spaces is refused by the depth bound', async () => {
  for (const separator of ['\t', '   ']) {
    const example = exampleCopy();
    const components = path.join(example, 'repository', 'bootstrap-example', 'v0.2.0', 'bootstrap-components.yaml');
    const text = readFileSync(components, 'utf8');
    writeFileSync(components, `${text}---\n${`-${separator}`.repeat(100_000)}x\n`);
    rmSync(path.join(example, 'management-cluster', 'capi-gitops.lock.yaml'));
    const result = await runCli(['render', '-f', path.join(example, 'management-cluster'), '-o', path.join(tempDir(), 'out')]);
    assertNoStackTrace(result);
    assert.equal(result.code, 1, result.stderr);
    const line = text.split('\n').length + 1;
    assert.match(result.stderr, new RegExp(`bootstrap-components\\.yaml:${line}:\\d+: error: YAML nesting here is deeper than 512 levels`));
    assert.match(result.stderr, /CAPI_GITOPS_YAML_MAX_DEPTH=640/);
  }
});

test('an artifact integer JavaScript cannot hold exactly (9007199254740993) is an error at its file:line, not a silently rounded replicas', async () => {
  const example = exampleCopy();
  const components = path.join(example, 'repository', 'bootstrap-example', 'v0.2.0', 'bootstrap-components.yaml');
  const text = readFileSync(components, 'utf8');
  const at = text.indexOf('  replicas: 1\n');
  assert.ok(at > 0, 'the example Deployment sets replicas');
  writeFileSync(components, `${text.slice(0, at)}  replicas: 9007199254740993\n${text.slice(at + '  replicas: 1\n'.length)}`);
  rmSync(path.join(example, 'management-cluster', 'capi-gitops.lock.yaml'));
  const out = path.join(tempDir(), 'out');
  const result = await runCli(['render', '-f', path.join(example, 'management-cluster'), '-o', out]);
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  const line = text.slice(0, at).split('\n').length;
  assert.match(
    result.stderr,
    new RegExp(`bootstrap-components\\.yaml:${line}(:\\d+)?: error: .*the integer 9007199254740993 cannot be held exactly`),
  );
  assert.ok(!existsSync(out));
});

/** mulberry32: a small seeded PRNG, so every run tries the same mutations. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) return yamlFiles(file);
      return name.endsWith('.yaml') && name !== 'capi-gitops.lock.yaml' ? [file] : [];
    })
    .sort();
}

const MUTATIONS: Record<string, (bytes: Buffer, random: () => number) => Buffer> = {
  truncate: (bytes, random) => bytes.subarray(0, Math.floor(random() * bytes.length)),
  flip: (bytes, random) => {
    const copy = Buffer.from(bytes);
    for (let k = 0; k < 1 + Math.floor(random() * 8); k++) copy[Math.floor(random() * copy.length)] = Math.floor(random() * 256);
    return copy;
  },
  duplicate: (bytes) => Buffer.concat([bytes, Buffer.from('\n---\n'), bytes]),
  nest: (bytes, random) => {
    const depth = 100 + Math.floor(random() * 2000);
    return Buffer.concat([bytes, Buffer.from(`\n---\nnested: ${'{a: '.repeat(depth)}1${'}'.repeat(depth)}\n`)]);
  },
  control: (bytes, random) => {
    const at = Math.floor(random() * bytes.length);
    return Buffer.concat([bytes.subarray(0, at), Buffer.from('\u001b[2K\r\u0000'), bytes.subarray(at)]);
  },
};

test('property: 16 seeded random mutations of manifests and artifacts never print a stack trace and never change the output when they fail', async () => {
  const random = prng(0x5eed);
  const names = Object.keys(MUTATIONS).sort();
  // the example rendered once; each iteration mutates its own copy of both
  const rendered = tempDir();
  cpSync(EXAMPLE, path.join(rendered, 'example'), { recursive: true });
  assert.equal(
    (await runCli(['render', '-f', path.join(rendered, 'example', 'management-cluster'), '-o', path.join(rendered, 'out')])).code,
    0,
  );
  const before = readTree(path.join(rendered, 'out'));
  for (let iteration = 0; iteration < 16; iteration++) {
    const copy = tempDir();
    cpSync(rendered, copy, { recursive: true });
    const example = path.join(copy, 'example');
    const manifest = path.join(example, 'management-cluster');
    const out = path.join(copy, 'out');
    assert.deepEqual(readTree(out), before);
    const lockBefore = readFileSync(path.join(manifest, 'capi-gitops.lock.yaml'), 'utf8');
    const files = yamlFiles(example);
    const file = files[Math.floor(random() * files.length)]!;
    const mutation = names[Math.floor(random() * names.length)]!;
    writeFileSync(file, MUTATIONS[mutation]!(readFileSync(file), random));
    const what = `iteration ${iteration}: ${mutation} ${path.relative(example, file)}`;
    const result = await runCli(['render', '-f', manifest, '-o', out]);
    assertNoStackTrace(result, what);
    assert.ok(result.code === 0 || result.code === 1, `${what}: exit ${result.code}\n${result.stderr}`);
    if (result.code !== 0) {
      assert.deepEqual(readTree(out), before, `${what}: the output changed on failure`);
      assert.equal(
        readFileSync(path.join(manifest, 'capi-gitops.lock.yaml'), 'utf8'),
        lockBefore,
        `${what}: the lockfile changed on failure`,
      );
      assert.ok(!/[\u0000\u001b\r]/.test(result.stderr), `${what}: an unescaped control character reached stderr`);
    }
  }
});

test('a CAPI_GITOPS_YAML_* limit that is no whole number above 0 (abc, -1, 0, 1e6) is a usage error naming it, as CAPI_GITOPS_NETWORK_DEADLINE is; it was read as the default without a word', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const values = path.join(example, 'values.yaml');
  writeFileSync(values, 'core:\n  cluster-api:\n    version: v1.12.0\n');
  for (const name of ['CAPI_GITOPS_YAML_MAX_NODES', 'CAPI_GITOPS_YAML_MAX_DEPTH', 'CAPI_GITOPS_YAML_MAX_NODES_PER_RUN']) {
    for (const value of ['abc', '-1', '0', '1e6']) {
      for (const args of [
        ['render', '-f', manifest, '-o', path.join(tempDir(), 'out')],
        ['convert', '-f', manifest],
        ['import', 'helm-values', '-f', values],
      ]) {
        const result = await runCli(args, { env: { ...process.env, [name]: value } });
        assertNoStackTrace(result);
        assert.equal(result.code, 2, `${name}=${value} ${args[0]}: ${result.stderr}`);
        assert.match(
          result.stderr,
          new RegExp(`^error: ${name} "${value}": expected a whole number greater than 0, e\\.g\\. ${name}=\\d+$`, 'm'),
        );
      }
    }
  }
  // unset or empty: the default, as before
  const empty = await runCli(['convert', '-f', manifest], { env: { ...process.env, CAPI_GITOPS_YAML_MAX_DEPTH: '' } });
  assert.equal(empty.code, 0, empty.stderr);
});

test('a local artifact path that names a device (certManager.url: /dev/zero) is refused at the url, never read: reading it did not end', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const config = path.join(manifest, 'config.yaml');
  const text = readFileSync(config, 'utf8');
  writeFileSync(config, text.replace('url: ../repository/cert-manager/v0.1.0/cert-manager.yaml', 'url: /dev/zero'));
  const line = text.split('\n').findIndex((l) => l.includes('cert-manager/v0.1.0/cert-manager.yaml')) + 1;
  const result = await runCli(['render', '-f', manifest, '--list-variables']);
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stderr,
    new RegExp(`config\\.yaml:${line}:\\d+: error: .*cannot read .* from "/dev/zero": it is a device or other special file, not a file`),
  );
});
