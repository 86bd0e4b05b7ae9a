/**
 * The README's "Moving from the operator to capi-gitops" guide, run as printed (issue #12): the
 * fenced block after the `migration-guide` marker is handed to bash in an empty directory, with
 * `capi-gitops` on PATH and a `kubectl` whose cluster side is recorded. The "cluster" holds the
 * corpus providers as the operator left them: v1alpha1 objects with status, finalizers and
 * server-set metadata. Everything that needs no cluster (`kubectl kustomize` of the trees the
 * guide diffs and applies) runs with the real kubectl.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments, parseDocument, stringify } from 'yaml';
import { corpusUrl, tempDir } from './helpers/corpus-manifest.js';
import { PROJECT_ROOT } from './helpers/paths.js';
import { kubectlAvailable } from './helpers/tree.js';

/** `capi-gitops` on PATH, as installed: the package's bin. */
const CLI = path.join(PROJECT_ROOT, 'dist', 'bin', 'capi-gitops.mjs');
const MARKER = '<!-- migration-guide';

interface ArgoApplication {
  spec: { source: { path: string } };
}

/** The guide's script: the first ```sh block after the marker, exactly as the README prints it. */
function guideScript(): string {
  const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf(MARKER);
  assert.ok(at >= 0, 'the README has the migration-guide marker');
  const match = /```sh\n([\s\S]*?)\n```/.exec(readme.slice(at));
  assert.ok(match, 'a sh block follows the marker');
  return match[1]!;
}

const PROVIDERS = [
  { kind: 'CoreProvider', name: 'cluster-api', namespace: 'capi-system', label: 'cluster-api', file: 'core-components.yaml' },
  {
    kind: 'BootstrapProvider',
    name: 'kubeadm',
    namespace: 'capi-kubeadm-bootstrap-system',
    label: 'bootstrap-kubeadm',
    file: 'bootstrap-components.yaml',
  },
  {
    kind: 'ControlPlaneProvider',
    name: 'kubeadm',
    namespace: 'capi-kubeadm-control-plane-system',
    label: 'control-plane-kubeadm',
    file: 'control-plane-components.yaml',
  },
];

/** What `kubectl get <provider kinds> -A -o yaml` prints from a cluster the operator (v1alpha1 era) manages. */
function liveExport(): string {
  const items = PROVIDERS.map((p, i) => ({
    apiVersion: 'operator.cluster.x-k8s.io/v1alpha1',
    kind: p.kind,
    metadata: {
      creationTimestamp: '2025-03-01T10:00:00Z',
      finalizers: ['provider.cluster.x-k8s.io'],
      generation: 2,
      managedFields: [
        {
          apiVersion: 'operator.cluster.x-k8s.io/v1alpha1',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:spec': {} },
          manager: 'kubectl-client-side-apply',
          operation: 'Update',
        },
      ],
      name: p.name,
      namespace: p.namespace,
      resourceVersion: String(4711 + i),
      uid: `0000000${i}-1111-2222-3333-444444444444`,
    },
    spec: {
      version: 'v1.12.0',
      fetchConfig: { url: corpusUrl(p.label, 'latest', p.file) },
      // v1alpha1's structured image, which `convert` turns into imageUrl
      ...(p.kind === 'CoreProvider'
        ? {
            deployment: {
              containers: [
                { name: 'manager', image: { repository: 'mirror.example.com/capi', name: 'cluster-api-controller', tag: 'v1.12.0' } },
              ],
            },
          }
        : {}),
    },
    status: {
      contract: 'v1beta2',
      installedVersion: 'v1.12.0',
      observedGeneration: 2,
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2025-03-01T10:05:00Z' }],
    },
  }));
  return stringify({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } });
}

/** A kubectl that records every call; get answers from the export, kustomize (and what diff and apply -k build) is the real kubectl's. */
const KUBECTL_SHIM = `#!/usr/bin/env bash
set -euo pipefail
printf '%s\\n' "$*" >> "$KUBECTL_LOG"
args=("$@")
for ((i = 0; i < \${#args[@]}; i++)); do
  case "\${args[i]}" in
    -n) i=$((i + 1)) ;;
    kustomize) exec "$REAL_KUBECTL" "$@" ;;
    get)
      if [[ " $* " == *" -o yaml "* ]]; then cat "$CLUSTER_EXPORT"; else cat "$CLUSTER_COLUMNS"; fi
      exit 0 ;;
    diff|apply)
      for ((j = 0; j < \${#args[@]}; j++)); do
        if [[ "\${args[j]}" == -k ]]; then "$REAL_KUBECTL" kustomize "\${args[j + 1]}" > /dev/null; fi
      done
      exit 0 ;;
    -*) ;;
    *) exit 0 ;;
  esac
done
`;

test(
  'the migration guide runs as printed against the corpus: export, convert, render, diff, scale the operator to zero, hand over to Argo CD, orphan the provider objects (operator component_customizer.go ownerReferences, genericprovider_controller.go finalizer)',
  { skip: !kubectlAvailable() && 'kubectl is not installed' },
  () => {
    const dir = tempDir('capi-gitops-migration-');
    const bin = path.join(dir, 'bin');
    const work = path.join(dir, 'work');
    mkdirSync(bin);
    mkdirSync(work);
    const real = spawnSync('bash', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(path.join(bin, 'kubectl'), KUBECTL_SHIM);
    writeFileSync(
      path.join(bin, 'capi-gitops'),
      `#!/usr/bin/env bash\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`,
    );
    for (const file of ['kubectl', 'capi-gitops']) chmodSync(path.join(bin, file), 0o755);
    writeFileSync(path.join(dir, 'export.yaml'), liveExport());
    writeFileSync(
      path.join(dir, 'columns.txt'),
      PROVIDERS.map((p) => `${p.kind.padEnd(22)}${p.namespace.padEnd(36)}${p.name}`).join('\n') + '\n',
    );
    const log = path.join(dir, 'kubectl.log');
    writeFileSync(log, '');

    const run = spawnSync('bash', ['-c', guideScript()], {
      cwd: work,
      encoding: 'utf8',
      env: {
        ...process.env,
        PATH: `${bin}${path.delimiter}${process.env.PATH}`,
        KUBECTL_LOG: log,
        REAL_KUBECTL: real,
        CLUSTER_EXPORT: path.join(dir, 'export.yaml'),
        CLUSTER_COLUMNS: path.join(dir, 'columns.txt'),
      },
    });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);

    // convert rewrote the export as v1alpha2: no v1alpha1 left, the structured image now an imageUrl.
    const [list] = parseAllDocuments(readFileSync(path.join(work, 'providers.yaml'), 'utf8')).map(
      (d) => d.toJS() as { items: { apiVersion: string }[] },
    );
    assert.deepEqual(
      list!.items.map((item) => item.apiVersion),
      PROVIDERS.map(() => 'operator.cluster.x-k8s.io/v1alpha2'),
    );
    assert.match(JSON.stringify(list), /"imageUrl":"mirror\.example\.com\/capi\/cluster-api-controller:v1\.12\.0"/);
    // The render used the converted objects; the final tree is the Argo CD layout.
    const deployment = readFileSync(
      path.join(work, 'clusters', 'mgmt', '01-cluster-api', 'deployment-capi-controller-manager.yaml'),
      'utf8',
    );
    assert.match(deployment, /image: mirror\.example\.com\/capi\/cluster-api-controller:v1\.12\.0/);
    assert.doesNotMatch(deployment, /ownerReferences/);
    assert.ok(existsSync(path.join(work, 'clusters', 'mgmt', 'argocd', 'kustomization.yaml')));
    assert.ok(
      !existsSync(path.join(work, 'clusters', 'mgmt', '00-cert-manager')),
      'cert-manager stays where the operator user installed it',
    );
    // The directory is the repository root: every Application looks in Git where the guide wrote.
    const argocd = path.join(work, 'clusters', 'mgmt', 'argocd');
    const applications = readdirSync(argocd).filter((file) => file.startsWith('application-'));
    assert.ok(applications.length > 1);
    for (const file of applications) {
      const application = parseDocument(readFileSync(path.join(argocd, file), 'utf8')).toJS() as ArgoApplication;
      const sourcePath = application.spec.source.path;
      assert.ok(
        existsSync(path.join(work, sourcePath, 'kustomization.yaml')),
        `${file}: spec.source.path ${sourcePath} is not where the guide wrote`,
      );
    }
    assert.ok(existsSync(path.join(work, 'providers.yaml')) && existsSync(path.join(work, 'capi-gitops.lock.yaml')));

    // The cluster side, in order: nothing is deleted before the operator is stopped, each provider
    // object loses its finalizer before it is deleted, and every delete orphans the components.
    const calls = readFileSync(log, 'utf8').trim().split('\n');
    const index = (pattern: RegExp) => calls.findIndex((c) => pattern.test(c));
    assert.match(calls[0]!, /^get coreproviders,.*-A -o yaml$/);
    const diff = index(/^diff --server-side -k clusters\/mgmt$/);
    const scale = index(/^-n capi-operator-system scale deployment --all --replicas=0$/);
    const apply = index(/^apply -k clusters\/mgmt\/argocd$/);
    assert.ok(diff > 0 && scale > diff && apply > scale, calls.join('\n'));
    const deletes = calls.filter((c) => / delete /.test(c));
    assert.deepEqual(
      deletes,
      PROVIDERS.map((p) => `-n ${p.namespace} delete ${p.kind} ${p.name} --cascade=orphan`),
    );
    for (const p of PROVIDERS) {
      const patch = calls.indexOf(`-n ${p.namespace} patch ${p.kind} ${p.name} --type=merge -p {"metadata":{"finalizers":null}}`);
      const remove = calls.indexOf(`-n ${p.namespace} delete ${p.kind} ${p.name} --cascade=orphan`);
      assert.ok(patch > apply && remove > patch, `${p.kind}: patch then delete, after the hand-over\n${calls.join('\n')}`);
    }
  },
);
