/**
 * The real corpus end to end: CAPI core, kubeadm bootstrap and control plane v1.12.0 plus
 * cert-manager v1.13.0, rendered offline and built by `kubectl kustomize`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderManagementCluster } from '../src/app/cluster.js';
import { writeOutput } from '../src/output/write.js';
import { isNamespaced } from '../src/render/namespace.js';
import type { KObject } from '../src/core/kobject.js';
import { CORPUS_CONFIGMAPS, CORPUS_REPOSITORY } from './helpers/paths.js';
import { corpusManifest, tempDir, writeTempManifest } from './helpers/corpus-manifest.js';
import { kubectlAvailable, kubectlKustomize, readTree } from './helpers/tree.js';

async function renderTo(manifestPaths: string[]): Promise<{
  out: string;
  files: Map<string, string>;
  objects: KObject[];
  byComponent: Map<string, { namespace: string; objects: KObject[] }>;
}> {
  const result = await renderManagementCluster({ manifestPaths });
  const out = path.join(tempDir(), 'out');
  await writeOutput(out, result.files);
  const byComponent = new Map(result.components.map((c) => [c.label, { namespace: c.namespace, objects: c.objects }]));
  return { out, files: readTree(out), objects: result.components.flatMap((c) => c.objects), byComponent };
}

const repositoryRender = renderTo([writeTempManifest({ 'providers.yaml': corpusManifest('v1.12.0', 'repository') })]);

test(
  'the corpus renders; kubectl kustomize builds it with the same object count',
  { skip: !kubectlAvailable() && 'kubectl not installed' },
  async () => {
    const { out, objects, files } = await repositoryRender;
    // kustomize writes one document an object, each after a `---` line but the first
    const built = kubectlKustomize(out).split('\n---\n');
    assert.equal(built.length, objects.length);
    const objectFiles = [...files.keys()].filter((f) => f.endsWith('.yaml') && !f.endsWith('kustomization.yaml'));
    assert.equal(objectFiles.length, objects.length, 'one file per object');
    // 3 providers (each with its inventory Provider) + the inventory CRD + cert-manager
    assert.ok(objects.length > 100, `expected the whole corpus, got ${objects.length} objects`);
  },
);

test('no ${ remains anywhere in the output (clusterctl yamlprocessor simple_processor.go)', async () => {
  const { files } = await repositoryRender;
  for (const [file, text] of files) assert.ok(!text.includes('${'), `${file} still contains \${`);
});

test('kubeadm CRD descriptions have $ where the source had $$ (drone/envsubst escape)', async () => {
  const { files } = await repositoryRender;
  const source = readFileSync(path.join(CORPUS_REPOSITORY, 'control-plane-kubeadm/v1.12.0/control-plane-components.yaml'), 'utf8');
  const sample = /[^\n]*\$\$[^\n]*/.exec(source)![0].trim();
  const expected = sample.replaceAll('$$', '$');
  const crds = [...files].filter(([f]) => f.startsWith('03-control-plane-kubeadm/crds/'));
  assert.ok(
    crds.some(([, text]) => text.includes(expected.replace(/^[^:]*:\s*/, '').slice(0, 60))),
    `no CRD carries "${expected}"`,
  );
  assert.ok(
    crds.every(([, text]) => !text.includes('$$')),
    'a $$ survived',
  );
});

test('every provider object carries the cluster.x-k8s.io/provider label (clusterctl components.go addCommonLabels)', async () => {
  const { byComponent } = await repositoryRender;
  for (const [label, component] of byComponent) {
    for (const obj of component.objects) {
      if (label === 'cert-manager') {
        assert.equal(obj.metadata.labels?.['clusterctl.cluster.x-k8s.io/core'], 'cert-manager', `${obj.kind}/${obj.metadata.name}`);
        continue;
      }
      if (obj.kind === 'CustomResourceDefinition' && obj.metadata.name === 'providers.clusterctl.cluster.x-k8s.io') continue;
      assert.equal(obj.metadata.labels?.['cluster.x-k8s.io/provider'], label, `${obj.kind}/${obj.metadata.name}`);
      assert.equal(obj.metadata.labels?.['clusterctl.cluster.x-k8s.io'], '', `${obj.kind}/${obj.metadata.name}`);
    }
  }
});

test("every namespaced object is in its provider's namespace (clusterctl components.go fixTargetNamespace)", async () => {
  const { byComponent } = await repositoryRender;
  const expected: Record<string, string> = {
    'cluster-api': 'capi-system',
    'bootstrap-kubeadm': 'capi-kubeadm-bootstrap-system',
    'control-plane-kubeadm': 'capi-kubeadm-control-plane-system',
    'cert-manager': 'cert-manager',
  };
  for (const [label, component] of byComponent) {
    assert.equal(component.namespace, expected[label]);
    // cert-manager keeps the namespaces it was published with (its leader-election RBAC lives in kube-system)
    if (label === 'cert-manager') continue;
    for (const obj of component.objects) {
      if (isNamespaced(obj)) assert.equal(obj.metadata.namespace, expected[label], `${label} ${obj.kind}/${obj.metadata.name}`);
      else assert.equal(obj.metadata.namespace, undefined, `${label} cluster-scoped ${obj.kind}/${obj.metadata.name} has a namespace`);
    }
  }
});

test('a clusterctl inventory Provider per provider, and its CRD once (clusterctl components.go InventoryObject)', async () => {
  const { objects } = await repositoryRender;
  const inventory = objects.filter((o) => o.apiVersion === 'clusterctl.cluster.x-k8s.io/v1alpha3' && o.kind === 'Provider');
  assert.deepEqual(inventory.map((o) => [o.metadata.namespace, o.metadata.name, o.providerName, o.type, o.version]).sort(), [
    ['capi-kubeadm-bootstrap-system', 'bootstrap-kubeadm', 'kubeadm', 'BootstrapProvider', 'v1.12.0'],
    ['capi-kubeadm-control-plane-system', 'control-plane-kubeadm', 'kubeadm', 'ControlPlaneProvider', 'v1.12.0'],
    ['capi-system', 'cluster-api', 'cluster-api', 'CoreProvider', 'v1.12.0'],
  ]);
  assert.equal(
    objects.filter((o) => o.kind === 'CustomResourceDefinition' && o.metadata.name === 'providers.clusterctl.cluster.x-k8s.io').length,
    1,
  );
  assert.equal(objects.filter((o) => o.metadata.ownerReferences !== undefined).length, 0, 'no ownerReferences');
});

test('the ConfigMap route (fetchConfig.selector) gives byte-identical output to the repository route', async () => {
  const { files: viaRepository } = await repositoryRender;
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest('v1.12.0', 'configmap') });
  const { files: viaConfigMaps } = await renderTo([dir, CORPUS_CONFIGMAPS]);
  assert.deepEqual([...viaConfigMaps.keys()], [...viaRepository.keys()]);
  for (const [file, text] of viaRepository) assert.equal(viaConfigMaps.get(file), text, file);
});

test('the same input gives the same bytes whatever the order of -f arguments', async () => {
  const { files } = await repositoryRender;
  const manifest = corpusManifest('v1.12.0', 'repository').split('---\n');
  const dir = tempDir();
  // the same documents, split over two files and given in the other order
  writeFileSync(path.join(dir, 'b.yaml'), manifest.slice(0, 2).join('---\n'));
  writeFileSync(path.join(dir, 'a.yaml'), manifest.slice(2).join('---\n'));
  const { files: again } = await renderTo([path.join(dir, 'a.yaml'), path.join(dir, 'b.yaml')]);
  assert.deepEqual(again, files);
});

test('a manifest using every ManagerSpec and DeploymentSpec field renders the operator flags (operator component_customizer.go)', async () => {
  const spec = `  manager:
    maxConcurrentReconciles: 7
    cacheNamespace: watched-ns
    syncPeriod: 5m
    profilerAddress: localhost:6060
    verbosity: 4
    featureGates:
      MachinePool: false
      ClusterTopology: true
    additionalArgs:
      --kube-api-qps: "50"
    leaderElection:
      leaderElect: true
      leaseDuration: 1m
      renewDeadline: 40s
      retryPeriod: 1500ms
      resourceLock: leases
      resourceName: capi-leader
      resourceNamespace: capi-system
    controller:
      groupKindConcurrency:
        Cluster.cluster.x-k8s.io: 10
        Machine.cluster.x-k8s.io: 20
    metrics:
      bindAddress: ":8080"
      diagnosticsAddress: ":9443"
      insecureDiagnostics: true
    health:
      healthProbeBindAddress: ":9441"
      livenessEndpointName: live
      readinessEndpointName: ready
    webhook:
      host: 0.0.0.0
      port: 9444
      certDir: /certs
  deployment:
    replicas: 3
    nodeSelector:
      kubernetes.io/os: linux
    serviceAccountName: custom-sa
    imagePullSecrets:
    - name: pull-secret
    tolerations:
    - key: node-role.kubernetes.io/control-plane
      operator: Exists
      effect: NoSchedule
    affinity:
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions:
            - key: kubernetes.io/arch
              operator: In
              values: [amd64]
    containers:
    - name: manager
      imageUrl: registry.example.com/capi/manager:v9
      command: [/manager, --extra]
      args:
        --kube-api-burst: "100"
      env:
      - name: GOMAXPROCS
        value: "2"
      resources:
        limits:
          cpu: "1"
`;
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest('v1.12.0', 'repository', { CoreProvider: spec }) });
  const { byComponent } = await renderTo([dir]);
  const deployment = byComponent.get('cluster-api')!.objects.find((o) => o.kind === 'Deployment')! as any;
  const pod = deployment.spec.template.spec;
  const manager = pod.containers.find((c: any) => c.name === 'manager');
  const args: string[] = manager.args;
  const flag = (name: string) => args.filter((a) => a === name || a.startsWith(`${name}=`));
  const expectFlag = (name: string, value: string) => assert.deepEqual(flag(name), [`${name}=${value}`], name);
  expectFlag('--max-concurrent-reconciles', '7');
  expectFlag('--cluster.cluster.x-k8s.io-concurrency', '10');
  expectFlag('--machine.cluster.x-k8s.io-concurrency', '20');
  expectFlag('--namespace', 'watched-ns');
  expectFlag('--health-addr', ':9441');
  expectFlag('--metrics-bind-addr', ':8080');
  expectFlag('--diagnostics-address', ':9443');
  expectFlag('--insecure-diagnostics', 'true');
  expectFlag('--webhook-host', '0.0.0.0');
  expectFlag('--webhook-cert-dir', '/certs');
  expectFlag('--webhook-port', '9444');
  expectFlag('--profiler-address', 'localhost:6060');
  expectFlag('--leader-election-id', 'capi-system/capi-leader');
  expectFlag('--leader-elect-lease-duration', '60s');
  expectFlag('--leader-elect-renew-deadline', '40s');
  expectFlag('--leader-elect-retry-period', '2s');
  expectFlag('--sync-period', '300s');
  expectFlag('--v', '4');
  expectFlag('--kube-api-qps', '50');
  expectFlag('--kube-api-burst', '100');
  // the bare `--leader-elect` of the release stays; the operator's setArgs appends `=true`
  assert.ok(args.includes('--leader-elect=true'));
  // feature gates merged into the release's own --feature-gates, sorted, user values winning
  const gates = flag('--feature-gates');
  assert.equal(gates.length, 1);
  const gateList = gates[0]!.slice('--feature-gates='.length).split(',');
  assert.deepEqual(gateList, [...gateList].sort());
  assert.ok(gateList.includes('MachinePool=false') && gateList.includes('ClusterTopology=true'), gates[0]);
  assert.ok(gateList.length > 2, 'the release defaults are kept');
  assert.equal(manager.livenessProbe.httpGet.path, '/live');
  assert.equal(manager.readinessProbe.httpGet.path, '/ready');
  assert.equal(manager.image, 'registry.example.com/capi/manager:v9');
  assert.deepEqual(manager.command, ['/manager', '--extra']);
  assert.deepEqual(
    manager.env.find((e: any) => e.name === 'GOMAXPROCS'),
    { name: 'GOMAXPROCS', value: '2' },
  );
  assert.deepEqual(manager.resources, { limits: { cpu: '1' } });
  assert.equal(deployment.spec.replicas, 3);
  assert.deepEqual(pod.nodeSelector, { 'kubernetes.io/os': 'linux' });
  assert.equal(pod.serviceAccountName, 'custom-sa');
  assert.deepEqual(pod.imagePullSecrets, [{ name: 'pull-secret' }]);
  assert.deepEqual(pod.tolerations, [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }]);
  assert.equal(
    pod.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key,
    'kubernetes.io/arch',
  );
});
