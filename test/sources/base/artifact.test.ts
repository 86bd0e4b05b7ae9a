/**
 * An artifact that is not UTF-8 (a components.yaml saved by PowerShell 5 is UTF-16): the hint's
 * command must work as printed, so it names a path on this machine, never a URL or a ConfigMap.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { assertNoStackTrace, exampleCopy, runCli } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/corpus-manifest.js';
import { openConfigMapRepository } from '../../../src/sources/configmap/repository.js';
import { rejection } from '../../helpers/assertions.js';

function utf16(text: string): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
}

test("a local repository's components file saved as UTF-16, in a directory whose name has a space: the hint's iconv, run as printed, converts it and render passes", async () => {
  const example = exampleCopy();
  renameSync(path.join(example, 'repository'), path.join(example, 'local repository'));
  for (const file of ['config.yaml', 'providers.yaml', 'capi-gitops.lock.yaml']) {
    const at = path.join(example, 'management-cluster', file);
    writeFileSync(at, readFileSync(at, 'utf8').replaceAll('../repository/', '../local repository/'));
  }
  const components = path.join(example, 'local repository', 'bootstrap-example', 'v0.2.0', 'bootstrap-components.yaml');
  writeFileSync(components, utf16(readFileSync(components, 'utf8')));
  const args = ['render', '-f', 'management-cluster', '-o', path.join(tempDir(), 'out')];
  const failed = await runCli(args, { cwd: example });
  assertNoStackTrace(failed);
  assert.equal(failed.code, 1, failed.stderr);
  assert.doesNotMatch(failed.stderr, /file:\/\//, 'a file is named by its path, which iconv and an editor open');
  const hint = /hint: (?:.*?: )?(iconv .*)$/m.exec(failed.stderr)?.[1];
  assert.ok(hint, failed.stderr);
  execFileSync('sh', ['-c', hint], { cwd: example });
  const passed = await runCli(args, { cwd: example });
  assert.equal(passed.code, 0, `${hint}\n${passed.stderr}`);
});

test('an artifact ConfigMap whose gzip components are UTF-16: the hint names no ConfigMap address as a file to convert', async () => {
  const text = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: capi-system\n';
  const configMap = {
    name: 'core-v1.12.0',
    namespace: 'capi-system',
    labels: {
      'provider.cluster.x-k8s.io/name': 'cluster-api',
      'provider.cluster.x-k8s.io/type': 'core',
      'provider.cluster.x-k8s.io/version': 'v1.12.0',
    },
    annotations: { 'provider.cluster.x-k8s.io/compressed': 'true' },
    data: { metadata: 'apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\n' },
    binaryData: { components: gzipSync(utf16(text)).toString('base64') },
    position: { file: '/m/cms.yaml', line: 1, column: 1 },
  };
  const error = await rejection(
    (async () => {
      const repository = openConfigMapRepository(
        {
          kind: 'CoreProvider',
          name: 'cluster-api',
          label: 'cluster-api',
          namespace: 'capi-system',
          selector: { matchLabels: { 'provider.cluster.x-k8s.io/name': 'cluster-api' } },
          baseDir: '/m',
          origin: { file: '/m/p.yaml', line: 1, column: 1, object: 'CoreProvider/capi-system/cluster-api', path: 'spec' },
        },
        [configMap],
      );
      await repository.getFile('v1.12.0', 'core-components.yaml');
    })(),
  );
  const [diagnostic] = error.diagnostics;
  assert.match(diagnostic!.message, /not valid UTF-8/);
  assert.match(diagnostic!.hint ?? '', /UTF-16/);
  assert.doesNotMatch(diagnostic!.hint ?? '', /iconv [^;]*configmap:/, 'iconv cannot open a ConfigMap address');
  assert.match(diagnostic!.hint ?? '', /ConfigMap/);
});
