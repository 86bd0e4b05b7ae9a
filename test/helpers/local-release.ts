import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { tempDir } from './corpus-manifest.js';

/**
 * Releases of `label` in the clusterctl local repository at `root`: for each tag, its components
 * file `file` holding `text(tag)` and a metadata.yaml listing `series` (metadata.yaml
 * `releaseSeries` lines); returns the `latest` URL a fetchConfig names.
 */
export function localReleases(
  root: string,
  label: string,
  file: string,
  tags: string[],
  series: string,
  text: (tag: string) => string,
): string {
  for (const tag of tags) {
    const dir = path.join(root, label, tag);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, file), text(tag));
    writeFileSync(
      path.join(dir, 'metadata.yaml'),
      `apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n${series}`,
    );
  }
  return pathToFileURL(path.join(root, label, 'latest', file)).href;
}

/** Release v0.1.0 (contract v1beta2) of `label` at `root`, its components file `file` holding `text`. */
export function localRelease(root: string, label: string, file: string, text: string): string {
  return localReleases(root, label, file, ['v0.1.0'], '- {major: 0, minor: 1, contract: v1beta2}\n', () => text);
}

/** A repository of its own holding one core provider release whose components are `components`. */
export function localCoreRelease(components: string): string {
  return localRelease(tempDir(), 'cluster-api', 'core-components.yaml', components);
}

/** A manifest of the core provider at v0.1.0 from `url` (a localRelease), without cert-manager, its Config ending in `config`. */
export function coreManifest(url: string, config = ''): string {
  return `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec:
  version: v0.1.0
  fetchConfig: {url: "${url}"}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
${config}`;
}

/** A provider's manager Deployment, the smallest a render accepts as a release's; its image registry.example/<app>:<tag>. */
export function managerDeployment(name: string, namespace: string, app: string, tag: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ${namespace}}
spec:
  selector: {matchLabels: {app: ${app}}}
  template:
    metadata: {labels: {app: ${app}}}
    spec:
      containers:
      - {name: manager, image: registry.example/${app}:${tag}}
`;
}

/** The core provider's manager Deployment at v0.1.0. */
export const CORE_MANAGER_DEPLOYMENT = managerDeployment('capi-controller-manager', 'capi-system', 'capi', 'v0.1.0');

/** Serves `root` read-only over HTTP on 127.0.0.1 (a plain HTTPS template's releases, say). */
export async function serveDirectory(root: string): Promise<{ url: string; close: () => void }> {
  const server = http.createServer((req, res) => {
    try {
      res.end(readFileSync(path.join(root, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname))));
    } catch {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}
