/**
 * The lock against OCI artifacts in a real registry (docker-registry), where a release's
 * provenance is the manifest digest in each file's URL:
 * - `lock --accept-digest` records the URL the accepted bytes came from (the manifest fetched now),
 *   not the old manifest, whose layer is the rejected file;
 * - a provider moved to another mirror at the same version is held to the locked digests: other
 *   bytes are refused as a re-tag is, the same bytes move quietly;
 * - `--offline` with an empty cache tells each provider with its own repository at its own line.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { assertNoStackTrace, runCli } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/corpus-manifest.js';
import { CORPUS_REPOSITORY } from '../../helpers/paths.js';
import { pushArtifact, Registry, registrySkipReason, type PushFile } from '../../helpers/registry.js';

const skip = registrySkipReason();
let registry: Registry;
before(async () => {
  if (!skip) registry = await Registry.start();
});
after(async () => {
  await registry?.stop();
});

const corpus = (provider: string, file: string) => readFileSync(path.join(CORPUS_REPOSITORY, provider, 'v1.10.4', file), 'utf8');
/** A provider's release as `oras push` publishes it: one layer per file, titled with its name. */
const release = (provider: string, components: string, edit: (text: string) => string = (text) => text): PushFile[] => [
  { title: 'metadata.yaml', content: corpus(provider, 'metadata.yaml') },
  { title: components, content: edit(corpus(provider, components)) },
];
/** The one-line change a rebuilt (re-tagged) release carries. */
const rebuilt = (text: string) => text.replace('--leader-elect', '--leader-elect=false');

const KINDS = {
  core: { kind: 'CoreProvider', name: 'cluster-api', namespace: 'capi-system' },
  bootstrap: { kind: 'BootstrapProvider', name: 'kubeadm', namespace: 'capi-kubeadm-bootstrap-system' },
  controlPlane: { kind: 'ControlPlaneProvider', name: 'kubeadm', namespace: 'capi-kubeadm-control-plane-system' },
};

/** A site's manifest: each provider at v1.10.4 from its own repository of the registry, as an air-gapped team writes it. */
function writeManifest(dir: string, repositories: Partial<Record<keyof typeof KINDS, string>>): void {
  const providers = Object.entries(repositories).map(([key, repository]) => {
    const { kind, name, namespace } = KINDS[key as keyof typeof KINDS];
    return `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: ${kind}
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  version: v1.10.4
  fetchConfig:
    oci: http://${registry.host}/${repository}
`;
  });
  const config = 'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\ncertManager:\n  enabled: false\nnetwork:\n  retries: 0\n';
  writeFileSync(path.join(dir, 'providers.yaml'), [...providers, config].join('---\n'));
}

function site(name: string) {
  const dir = tempDir(`capi-gitops-oci-${name}-`);
  const cache = path.join(dir, 'cache');
  const run = (...args: string[]) => runCli([...args, '-f', 'providers.yaml', '--cache-dir', cache], { cwd: dir });
  const lockFile = path.join(dir, 'capi-gitops.lock.yaml');
  return { dir, cache, run, lockFile, lock: () => readFileSync(lockFile, 'utf8') };
}

test(
  'lock --accept-digest on a re-tagged OCI release records the manifest the accepted bytes came from, for every file of the release',
  { skip },
  async () => {
    const s = site('accept');
    const old = await pushArtifact(registry.url, 'retag/cluster-api', 'v1.10.4', release('cluster-api', 'core-components.yaml'));
    writeManifest(s.dir, { core: 'retag/cluster-api' });
    const locked = await s.run('lock');
    assert.equal(locked.code, 0, locked.stderr);
    assert.match(s.lock(), new RegExp(`@${old.manifest.digest}#core-components\\.yaml`));

    const retagged = await pushArtifact(
      registry.url,
      'retag/cluster-api',
      'v1.10.4',
      release('cluster-api', 'core-components.yaml', rebuilt),
    );
    const accepted = await s.run('lock', '--accept-digest', 'cluster-api');
    assert.equal(accepted.code, 0, accepted.stderr);
    const lock = s.lock();
    const prefix = `oci://${registry.host}/retag/cluster-api@`;
    // both files name the manifest fetched now: the old one's core-components.yaml layer is the rejected file
    assert.ok(lock.includes(`url: ${prefix}${retagged.manifest.digest}#core-components.yaml`), lock);
    assert.ok(lock.includes(`url: ${prefix}${retagged.manifest.digest}#metadata.yaml`), lock);
    assert.ok(!lock.includes(old.manifest.digest), lock);
    assert.match(lock, new RegExp(`#core-components\\.yaml\\n\\s+sha256: ${retagged.layers[1]!.digest.slice('sha256:'.length)}`));
    assert.match(
      accepted.stdout,
      new RegExp(`accepted cluster-api v1\\.10\\.4 core-components\\.yaml from ${prefix}${retagged.manifest.digest}#`),
    );
    const frozen = await s.run('render', '-o', 'out', '--frozen', '--offline');
    assert.equal(frozen.code, 0, frozen.stderr);
  },
);

test(
  'a provider moved to another mirror at the same version: the same bytes move quietly; other bytes are refused as a re-tag is, until lock --accept-digest takes them',
  { skip },
  async () => {
    const s = site('mirror');
    await pushArtifact(registry.url, 'mirror1/cluster-api', 'v1.10.4', release('cluster-api', 'core-components.yaml'));
    await pushArtifact(registry.url, 'mirror2/cluster-api', 'v1.10.4', release('cluster-api', 'core-components.yaml'));
    const changed = await pushArtifact(
      registry.url,
      'mirror3/cluster-api',
      'v1.10.4',
      release('cluster-api', 'core-components.yaml', rebuilt),
    );
    writeManifest(s.dir, { core: 'mirror1/cluster-api' });
    const first = await s.run('render', '-o', 'out');
    assert.equal(first.code, 0, first.stderr);

    // a plain mirror move: identical files, the lock follows the source
    writeManifest(s.dir, { core: 'mirror2/cluster-api' });
    const moved = await s.run('render', '-o', 'out');
    assert.equal(moved.code, 0, moved.stderr);
    assert.doesNotMatch(moved.stderr, /error|warning/);
    assert.match(s.lock(), new RegExp(`oci: http://${registry.host}/mirror2/cluster-api`));

    // a mirror serving other content for v1.10.4
    const lockBefore = s.lock();
    writeManifest(s.dir, { core: 'mirror3/cluster-api' });
    const newSha = changed.layers[1]!.digest.slice('sha256:'.length);
    const oldSha = /core-components\.yaml\n\s+sha256: ([0-9a-f]{64})/.exec(lockBefore)![1]!;
    const lines = lockBefore.split('\n');
    const line = lines.findIndex((l) => l.includes(oldSha));
    for (const args of [['render', '-o', 'out'], ['lock']]) {
      const refused = await s.run(...args);
      assert.equal(refused.code, 1, args.join(' '));
      assertNoStackTrace(refused);
      assert.ok(
        refused.stderr.includes(
          `capi-gitops.lock.yaml:${line + 1}:${lines[line]!.indexOf(oldSha) + 1}: error: cluster-api v1.10.4: core-components.yaml from oci://${registry.host}/mirror3/cluster-api@${changed.manifest.digest}#`,
        ),
        refused.stderr,
      );
      assert.ok(
        refused.stderr.includes(
          `has sha256 ${newSha}, but the lockfile recorded sha256 ${oldSha}; the source changed (oci http://${registry.host}/mirror2/cluster-api → oci http://${registry.host}/mirror3/cluster-api) but the version did not`,
        ),
        refused.stderr,
      );
      assert.match(refused.stderr, /hint: .*`capi-gitops lock -f providers\.yaml --cache-dir \S+ --accept-digest cluster-api`/);
      assert.equal(s.lock(), lockBefore, 'nothing written');
    }

    // the hint, followed literally
    const refused = await s.run('render', '-o', 'out');
    const command = /`capi-gitops (lock [^`]+)`/.exec(refused.stderr)![1]!.split(' ');
    const accepted = await runCli(command, { cwd: s.dir });
    assert.equal(accepted.code, 0, accepted.stderr);
    assert.match(
      accepted.stdout,
      new RegExp(
        `accepted cluster-api v1\\.10\\.4 core-components\\.yaml from oci://${registry.host}/mirror3/cluster-api@${changed.manifest.digest}#\\S+ sha256 ${oldSha} → ${newSha}\\n`,
      ),
    );
    assert.ok(s.lock().includes(`sha256: ${newSha}`));
    const rendered = await s.run('render', '-o', 'out', '--frozen');
    assert.equal(rendered.code, 0, rendered.stderr);
  },
);

test(
  '--offline with an empty cache: providers with their own OCI repositories are told each at its own fetchConfig.oci, though their metadata.yaml bytes are the same',
  { skip },
  async () => {
    const s = site('offline');
    await pushArtifact(registry.url, 'offline/cluster-api', 'v1.10.4', release('cluster-api', 'core-components.yaml'));
    await pushArtifact(registry.url, 'offline/bootstrap-kubeadm', 'v1.10.4', release('bootstrap-kubeadm', 'bootstrap-components.yaml'));
    await pushArtifact(
      registry.url,
      'offline/control-plane-kubeadm',
      'v1.10.4',
      release('control-plane-kubeadm', 'control-plane-components.yaml'),
    );
    writeManifest(s.dir, {
      core: 'offline/cluster-api',
      bootstrap: 'offline/bootstrap-kubeadm',
      controlPlane: 'offline/control-plane-kubeadm',
    });
    const locked = await s.run('lock');
    assert.equal(locked.code, 0, locked.stderr);

    const empty = path.join(s.dir, 'empty-cache');
    const offline = await runCli(['render', '-f', 'providers.yaml', '-o', 'out', '--frozen', '--offline', '--cache-dir', empty], {
      cwd: s.dir,
    });
    assert.equal(offline.code, 1);
    const manifest = readFileSync(path.join(s.dir, 'providers.yaml'), 'utf8').split('\n');
    const ociLine = (repository: string) => manifest.findIndex((l) => l.endsWith(`/${repository}`)) + 1;
    for (const [object, repository] of [
      ['CoreProvider/capi-system/cluster-api', 'offline/cluster-api'],
      ['BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm', 'offline/bootstrap-kubeadm'],
      ['ControlPlaneProvider/capi-kubeadm-control-plane-system/kubeadm', 'offline/control-plane-kubeadm'],
    ]) {
      assert.match(
        offline.stderr,
        new RegExp(
          `providers\\.yaml:${ociLine(repository!)}:\\d+: error: ${object}: spec\\.fetchConfig\\.oci: --offline: the locked metadata\\.yaml \\(v1\\.10\\.4, sha256 [0-9a-f]{64}\\) from oci://${registry.host}/${repository}@sha256:[0-9a-f]{64}#\\S+ is not in the cache`,
        ),
      );
    }
    assert.match(offline.stderr, /3 problems; nothing was written/);
    assert.ok(!existsSync(path.join(s.dir, 'out')));
  },
);
