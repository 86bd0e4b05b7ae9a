/**
 * The lock against OCI artifacts in a real registry (docker-registry), where a release's
 * provenance is the manifest digest in each file's URL:
 * - `lock --accept-digest` records the URL the accepted bytes came from (the manifest fetched now),
 *   not the old manifest, whose layer is the rejected file.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../../helpers/cli.js';
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
