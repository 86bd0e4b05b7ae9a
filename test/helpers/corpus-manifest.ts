import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CORPUS_REPOSITORY } from './paths.js';

/** file:// URL of a corpus release file, clusterctl local-repository form. */
export function corpusUrl(label: string, version: string, file: string): string {
  return pathToFileURL(path.join(CORPUS_REPOSITORY, label, version, file)).href;
}

export type FetchRoute = 'repository' | 'configmap';

/** Core, kubeadm bootstrap and control plane at `version`, plus cert-manager v1.13.0, from the corpus. */
export function corpusManifest(version = 'v1.12.0', route: FetchRoute = 'repository', extraSpec: Record<string, string> = {}): string {
  const provider = (
    kind: string,
    name: string,
    namespace: string,
    label: string,
    file: string,
    cmType: string,
  ) => `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: ${kind}
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  version: ${version}
  fetchConfig:
${
  route === 'repository'
    ? `    url: ${corpusUrl(label, 'latest', file)}`
    : `    selector:
      matchLabels:
        provider.cluster.x-k8s.io/name: ${name}
        provider.cluster.x-k8s.io/type: ${cmType}`
}
${extraSpec[kind] ?? ''}`;
  return [
    provider('CoreProvider', 'cluster-api', 'capi-system', 'cluster-api', 'core-components.yaml', 'core'),
    provider(
      'BootstrapProvider',
      'kubeadm',
      'capi-kubeadm-bootstrap-system',
      'bootstrap-kubeadm',
      'bootstrap-components.yaml',
      'bootstrap',
    ),
    provider(
      'ControlPlaneProvider',
      'kubeadm',
      'capi-kubeadm-control-plane-system',
      'control-plane-kubeadm',
      'control-plane-components.yaml',
      'controlplane',
    ),
    `apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager:
  version: v1.13.0
  url: ${corpusUrl('cert-manager', 'v1.13.0', 'cert-manager.yaml')}
`,
  ].join('---\n');
}

/** A fresh temporary directory. */
/** The corpus's CoreProvider at `version`, read from the local repository, with `extraSpec` lines under spec (indented two spaces). */
export function corpusCoreProvider(version = 'v1.12.0', extraSpec = ''): string {
  return `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
  namespace: capi-system
spec:
  version: ${version}
${extraSpec}  fetchConfig:
    url: ${corpusUrl('cluster-api', version, 'core-components.yaml')}
`;
}

export function tempDir(prefix = 'capi-gitops-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Writes `files` (name → text) into a new temp dir and returns its path. */
export function writeTempManifest(files: Record<string, string>): string {
  const dir = tempDir('capi-gitops-manifest-');
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

/**
 * A fleet of `clusters` on the corpus's core and kubeadm providers: the shared manifest pins
 * `version`, the Config's default release is `release`, and each of `releases` (name → version)
 * is a kind: Release moving the three providers together.
 */
export function corpusFleetManifest(clusters: readonly string[], release: string, releases: Record<string, string>): string {
  const entries = clusters.map((name) => `  - name: ${name}\n`).join('');
  const documents = Object.entries(releases).map(
    ([name, version]) => `---
apiVersion: capi-gitops.dev/v1alpha1
kind: Release
metadata: {name: ${name}}
providers:
  CoreProvider/cluster-api: ${version}
  BootstrapProvider/kubeadm: ${version}
  ControlPlaneProvider/kubeadm: ${version}
`,
  );
  return `${corpusManifest(releases[release])}release: ${release}\nclusters:\n${entries}${documents.join('')}`;
}
