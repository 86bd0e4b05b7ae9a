import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { corpusManifest, writeTempManifest } from '../helpers/corpus-manifest.js';
import { runCli } from '../helpers/cli.js';
import type { KObject } from '../../src/core/kobject.js';
import { CapiGitopsError, type Diagnostic } from '../../src/core/diagnostics.js';
import { renderManagementCluster } from '../../src/app/cluster.js';
import { CORE_MANAGER_DEPLOYMENT, coreManifest, localCoreRelease } from '../helpers/local-release.js';
import {
  alterImage,
  applyImageOverrides,
  imageMetaFor,
  inspectImages,
  parseImagesValue,
  unreadImageKeys,
} from '../../src/render/images.js';
import { parseImage, type ImageReference } from '../../src/core/image-reference.js';
import { corpusObjects } from '../helpers/corpus-objects.js';

function deployment(
  name: string,
  containers: Record<string, unknown>[],
  initContainers?: Record<string, unknown>[],
  kind = 'Deployment',
): KObject {
  const podSpec: Record<string, unknown> = { containers };
  if (initContainers) podSpec.initContainers = initContainers;
  return { apiVersion: 'apps/v1', kind, metadata: { name, namespace: 'ns' }, spec: { template: { spec: podSpec } } };
}

function imagesOf(obj: KObject, list: 'containers' | 'initContainers' = 'containers'): string[] {
  const spec = (obj.spec as any).template.spec;
  return (spec[list] as { image: string }[]).map((c) => c.image);
}

const DIGEST = 'sha256:' + 'a'.repeat(64);

/** The string form of a reference, as reference.String() prints it. */
function formatImageReference(ref: ImageReference): string {
  let text = ref.domain ? `${ref.domain}/${ref.path}` : ref.path;
  if (ref.tag) text += `:${ref.tag}`;
  if (ref.digest) text += `@${ref.digest}`;
  return text;
}

// ---- reference parsing ---------------------------------------------------------------------

test('familiar names normalise as Docker does: docker.io, library/ for single names (distribution/reference normalize.go splitDockerDomain)', () => {
  const cases: [string, string][] = [
    ['busybox', 'docker.io/library/busybox'],
    ['busybox:1.36', 'docker.io/library/busybox:1.36'],
    ['org/img:tag', 'docker.io/org/img:tag'],
    ['thehejik/cluster-api-provider-rke2-controlplane:dev', 'docker.io/thehejik/cluster-api-provider-rke2-controlplane:dev'],
    ['docker.io/busybox', 'docker.io/library/busybox'],
    ['index.docker.io/library/busybox:1', 'docker.io/library/busybox:1'],
    ['docker.io/library/busybox:1.36', 'docker.io/library/busybox:1.36'],
    ['registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0', 'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0'],
    ['registry.k8s.io/pause', 'registry.k8s.io/pause'],
    ['localhost/foo', 'localhost/foo'],
    ['localhost:5000/team/foo:1', 'localhost:5000/team/foo:1'],
    ['[::1]:5000/foo:1', '[::1]:5000/foo:1'],
    ['My.Registry.io/foo:1', 'My.Registry.io/foo:1'],
    [`quay.io/jetstack/cert-manager-controller:v1.13.0@${DIGEST}`, `quay.io/jetstack/cert-manager-controller:v1.13.0@${DIGEST}`],
    [`busybox@${DIGEST}`, `docker.io/library/busybox@${DIGEST}`],
  ];
  for (const [input, normalised] of cases) {
    const parsed = parseImage(input);
    assert.ok(parsed.ok, `${input} should parse`);
    assert.equal(formatImageReference(parsed.reference), normalised, input);
  }
});

test('invalid references are rejected with the reason distribution/reference gives (reference.go Parse, go-digest Validate)', () => {
  const cases: [string, RegExp][] = [
    ['', /at least one component|invalid reference/],
    ['Busybox', /lowercase/],
    ['example.com/Org/img', /lowercase/],
    ['a'.repeat(64), /64-byte hexadecimal/],
    ['foo::bar', /invalid reference format/],
    ['foo bar', /invalid reference format/],
    ['registry.k8s.io/img@sha256:abcd', /invalid reference format/],
    [`registry.k8s.io/img@sha256:${'a'.repeat(31)}`, /invalid reference format/],
    [`registry.k8s.io/img@sha256:${'a'.repeat(63)}`, /length/],
    [`registry.k8s.io/img@sha256:${'a'.repeat(65)}`, /length/],
    [`registry.k8s.io/img@sha256:${'A'.repeat(64)}`, /digest format/],
    [`registry.k8s.io/img@md5:${'a'.repeat(32)}`, /unsupported digest algorithm/],
    [`registry.k8s.io/${'a'.repeat(256)}`, /not be more than 255/],
    [`registry.k8s.io/img:${'t'.repeat(129)}`, /invalid reference format/],
  ];
  for (const [input, reason] of cases) {
    const parsed = parseImage(input);
    assert.equal(parsed.ok, false, `${JSON.stringify(input)} should not parse`);
    if (!parsed.ok) assert.match(parsed.message, reason, input);
  }
  assert.ok(parseImage(`registry.k8s.io/img@sha512:${'0'.repeat(128)}`).ok);
  assert.ok(parseImage(`registry.k8s.io/img:${'t'.repeat(128)}`).ok);
});

// ---- clusterctl ImageMeta ----------------------------------------------------------------

test('overrides merge field by field: all < component < component/image (clusterctl imagemeta_client.go getImageMeta, Union)', () => {
  const overrides = {
    all: { repository: 'mirror.example.com/all', tag: 'all-tag' },
    'bootstrap-kubeadm': { repository: 'mirror.example.com/kubeadm' },
    'bootstrap-kubeadm/kubeadm-bootstrap-controller': { tag: 'v9.9.9' },
    'bootstrap-kubeadm/other-image': { repository: 'elsewhere.example.com' },
    'cluster-api': { tag: 'never' },
  };
  assert.deepEqual(imageMetaFor(overrides, 'bootstrap-kubeadm', 'kubeadm-bootstrap-controller'), {
    repository: 'mirror.example.com/kubeadm',
    tag: 'v9.9.9',
  });
  assert.deepEqual(imageMetaFor(overrides, 'bootstrap-kubeadm', 'unrelated'), { repository: 'mirror.example.com/kubeadm', tag: 'all-tag' });
  assert.deepEqual(imageMetaFor(overrides, 'infrastructure-aws', 'x'), { repository: 'mirror.example.com/all', tag: 'all-tag' });
  // an empty field does not unset what a broader key set
  assert.deepEqual(imageMetaFor({ all: { tag: 'a' }, c: { tag: '' } }, 'c', 'x'), { tag: 'a' });
});

test('repository, name and tag are applied to the parsed image (clusterctl imagemeta_client.go ApplyToImage, name since v1.13 commit 9656037)', () => {
  const image = 'registry.k8s.io/cluster-api/kubeadm-bootstrap-controller:v1.12.0';
  const apply = (o: Record<string, { repository?: string; name?: string; tag?: string }>) => alterImage(image, 'bootstrap-kubeadm', o);
  assert.deepEqual(apply({ all: { repository: 'mirror.example.com/capi' } }), {
    image: 'mirror.example.com/capi/kubeadm-bootstrap-controller:v1.12.0',
  });
  // strings.TrimSuffix drops exactly one trailing slash
  assert.deepEqual(apply({ all: { repository: 'mirror.example.com/capi/' } }), {
    image: 'mirror.example.com/capi/kubeadm-bootstrap-controller:v1.12.0',
  });
  assert.deepEqual(apply({ all: { repository: 'mirror.example.com/capi//' } }), {
    image: 'mirror.example.com/capi//kubeadm-bootstrap-controller:v1.12.0',
  });
  assert.deepEqual(apply({ 'bootstrap-kubeadm': { tag: 'v1.12.1' } }), {
    image: 'registry.k8s.io/cluster-api/kubeadm-bootstrap-controller:v1.12.1',
  });
  // the <component>/<image> key matches the image's original name, then name renames it
  assert.deepEqual(apply({ 'bootstrap-kubeadm/kubeadm-bootstrap-controller': { name: 'mirrored-kubeadm' } }), {
    image: 'registry.k8s.io/cluster-api/mirrored-kubeadm:v1.12.0',
  });
  // no override for this component: the string is returned as it was
  assert.deepEqual(apply({ 'cluster-api': { tag: 'x' } }), { image });
  assert.deepEqual(alterImage('registry.k8s.io/pause', 'c', { all: { tag: '3.9' } }), { image: 'registry.k8s.io/pause:3.9' });
});

test('a tag override keeps the digest: repo/name:tag@digest (clusterctl util/container image.go Image.String)', () => {
  const image = `quay.io/jetstack/cert-manager-controller@${DIGEST}`;
  assert.deepEqual(alterImage(image, 'cert-manager', { 'cert-manager': { tag: 'v1.14.0' } }), {
    image: `quay.io/jetstack/cert-manager-controller:v1.14.0@${DIGEST}`,
  });
  assert.deepEqual(alterImage(`quay.io/jetstack/cainjector:v1.13.0@${DIGEST}`, 'cert-manager', { all: { repository: 'm.example.com' } }), {
    image: `m.example.com/cainjector:v1.13.0@${DIGEST}`,
  });
});

test('names without a registry host are normalised as Docker does when an override applies, and kept as written otherwise (distribution/reference normalize.go)', () => {
  for (const image of ['busybox', 'busybox:1.36', 'org/img:tag', 'docker.io/busybox:1', 'index.docker.io/library/busybox:1']) {
    assert.deepEqual(alterImage(image, 'c', {}), { image }, `${image} without overrides`);
  }
  const mirror = { all: { repository: 'mirror.example.com' } };
  assert.deepEqual(alterImage('busybox', 'c', mirror), { image: 'mirror.example.com/busybox' });
  assert.deepEqual(alterImage('busybox:1.36', 'c', mirror), { image: 'mirror.example.com/busybox:1.36' });
  assert.deepEqual(alterImage('org/img:tag', 'c', mirror), { image: 'mirror.example.com/img:tag' });
  assert.deepEqual(alterImage('org/img:tag', 'c', { 'c/img': { tag: 'v2' } }), { image: 'docker.io/org/img:v2' });
  assert.deepEqual(alterImage('docker.io/library/busybox:1.36', 'c', mirror), { image: 'mirror.example.com/busybox:1.36' });
  assert.ok('error' in alterImage('Busybox', 'c', {}), 'an unparseable image is an error');
});

// ---- FixImages over objects ----------------------------------------------------------------

test('core v1.12.0: `all` repository rewrites the manager image and nothing else; input untouched (clusterctl internal/util/objs.go FixImages)', () => {
  const objs = corpusObjects('cluster-api', 'v1.12.0', 'core-components.yaml');
  const before = JSON.stringify(objs);
  const out = applyImageOverrides(objs, 'cluster-api', { all: { repository: 'mirror.example.com/capi' } });
  assert.equal(JSON.stringify(objs), before, 'input objects must not be mutated');
  assert.equal(out.length, objs.length);
  const changed = out.filter((o, i) => o !== objs[i]);
  assert.deepEqual(
    changed.map((o) => `${o.kind}/${o.metadata.name}`),
    ['Deployment/capi-controller-manager'],
  );
  assert.deepEqual(imagesOf(changed[0]), ['mirror.example.com/capi/cluster-api-controller:v1.12.0']);
  // everything else in the Deployment is as it was
  const original = objs.find((o) => o.kind === 'Deployment')!;
  const stripped = (o: KObject) => JSON.stringify(o).replace(/"image":"[^"]*"/g, '');
  assert.equal(stripped(changed[0]), stripped(original));
});

test('containers and initContainers of Deployments and DaemonSets are rewritten, other workloads are not (clusterctl objs.go fixPodSpecImages)', () => {
  const overrides = { c: { tag: 'v2' } };
  const objs = [
    deployment(
      'd',
      [
        { name: 'a', image: 'registry.k8s.io/a:v1' },
        { name: 'b', image: 'registry.k8s.io/b:v1' },
      ],
      [{ name: 'i', image: 'registry.k8s.io/i:v1' }],
    ),
    deployment('ds', [{ name: 'a', image: 'registry.k8s.io/a:v1' }], undefined, 'DaemonSet'),
    deployment('sts', [{ name: 'a', image: 'registry.k8s.io/a:v1' }], undefined, 'StatefulSet'),
    deployment('job', [{ name: 'a', image: 'registry.k8s.io/a:v1' }], undefined, 'Job'),
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { image: 'registry.k8s.io/a:v1' } },
  ];
  const out = applyImageOverrides(objs, 'c', overrides);
  assert.deepEqual(imagesOf(out[0]), ['registry.k8s.io/a:v2', 'registry.k8s.io/b:v2']);
  assert.deepEqual(imagesOf(out[0], 'initContainers'), ['registry.k8s.io/i:v2']);
  assert.deepEqual(imagesOf(out[1]), ['registry.k8s.io/a:v2']);
  assert.equal(out[2], objs[2]);
  assert.equal(out[3], objs[3]);
  assert.equal(out[4], objs[4]);
  assert.equal((out[0].spec as any).template.spec.containers[0].name, 'a');
});

test('RKE2 fork images without a registry host are kept without overrides and rewritten with them, not refused', () => {
  const objs = [
    ...corpusObjects('bootstrap-rke2', 'v0.11.0', 'bootstrap-components.yaml'),
    ...corpusObjects('control-plane-rke2', 'v0.11.0', 'control-plane-components.yaml'),
  ];
  const untouched = applyImageOverrides(objs, 'bootstrap-rke2', {});
  assert.deepEqual(inspectImages(untouched), [
    'thehejik/cluster-api-provider-rke2-bootstrap:v0.11.0',
    'thehejik/cluster-api-provider-rke2-controlplane:dev',
  ]);
  assert.ok(untouched.every((o, i) => o === objs[i]));
  const mirrored = applyImageOverrides(objs, 'bootstrap-rke2', { all: { repository: 'mirror.example.com/rke2' } });
  assert.deepEqual(inspectImages(mirrored), [
    'mirror.example.com/rke2/cluster-api-provider-rke2-bootstrap:v0.11.0',
    'mirror.example.com/rke2/cluster-api-provider-rke2-controlplane:dev',
  ]);
  // per-image keys match on the normalised name
  const perImage = applyImageOverrides(objs, 'bootstrap-rke2', {
    'bootstrap-rke2/cluster-api-provider-rke2-bootstrap': { tag: 'v0.12.0' },
  });
  assert.deepEqual(inspectImages(perImage), [
    'docker.io/thehejik/cluster-api-provider-rke2-bootstrap:v0.12.0',
    'thehejik/cluster-api-provider-rke2-controlplane:dev',
  ]);
});

test('unparseable and missing images fail with every problem named at once (clusterctl objs.go fixContainersImage)', () => {
  const objs = [
    deployment('one', [{ name: 'manager', image: 'Registry.k8s.io/UPPER:v1' }]),
    deployment('two', [{ name: 'noimage' }], [{ name: 'init', image: 'bad image' }], 'DaemonSet'),
  ];
  assert.throws(
    () => applyImageOverrides(objs, 'c', {}),
    (err: unknown) => {
      assert.ok(err instanceof CapiGitopsError);
      assert.deepEqual(err.diagnostics.map((d) => [d.object, d.path]).sort(), [
        ['DaemonSet/ns/two', 'spec.template.spec.containers[0].image'],
        ['DaemonSet/ns/two', 'spec.template.spec.initContainers[0].image'],
        ['Deployment/ns/one', 'spec.template.spec.containers[0].image'],
      ]);
      assert.match(err.message, /container "manager": cannot parse image .*lowercase/);
      assert.match(err.message, /container "noimage" has no image/);
      return true;
    },
  );
});

test('inspectImages lists cert-manager v1.13.0 images sorted and unique (clusterctl objs.go InspectImages)', () => {
  const objs = corpusObjects('cert-manager', 'v1.13.0', 'cert-manager.yaml');
  assert.deepEqual(inspectImages([...objs, ...objs]), [
    'quay.io/jetstack/cert-manager-cainjector:v1.13.0',
    'quay.io/jetstack/cert-manager-controller:v1.13.0',
    'quay.io/jetstack/cert-manager-webhook:v1.13.0',
  ]);
  assert.deepEqual(inspectImages([deployment('d', [{ name: 'b', image: 'z.io/b:1' }], [{ name: 'a', image: 'a.io/a:1' }])]), [
    'a.io/a:1',
    'z.io/b:1',
  ]);
});

// ---- override sources ----------------------------------------------------------------------

test("a configSecret's images apply first and Config.images over every image after them, as the operator's two passes: Config's repository wins over the Secret's component key, the Secret's tag stays (cluster-api-operator internal/controller/phase_fetch.go: NewComponents with the configSecret, then imageOverrides with the mounted clusterctl.yaml)", async () => {
  const url = localCoreRelease(CORE_MANAGER_DEPLOYMENT);
  const dir = writeTempManifest({
    'providers.yaml':
      coreManifest(url, 'images:\n  all: {repository: mirror.example/capi}\n').replace(
        '  version: v0.1.0\n',
        '  version: v0.1.0\n  configSecret: {name: capi-vars}\n',
      ) +
      '---\napiVersion: v1\nkind: Secret\nmetadata: {name: capi-vars, namespace: capi-system}\nstringData:\n  images: |\n    cluster-api:\n      repository: private.example/team-capi\n      tag: v0.3.0\n',
  });
  const result = await renderManagementCluster({ manifestPaths: [dir], secretsStrategy: 'inline', allowSecretValues: true });
  const manager = [...result.files.values()].find((t) => t.includes('kind: Deployment'))!;
  assert.match(manager, /image: mirror\.example\/capi\/capi:v0\.3\.0\n/);

  // a key the Secret's value gives twice: the last, as the operator reads it, told once at the Secret
  writeFileSync(
    path.join(dir, 'providers.yaml'),
    readFileSync(path.join(dir, 'providers.yaml'), 'utf8').replace(
      '      tag: v0.3.0\n',
      '      tag: v0.3.0\n    cluster-api:\n      tag: v0.4.0\n',
    ),
  );
  const warnings: Diagnostic[] = [];
  const again = await renderManagementCluster({
    manifestPaths: [dir],
    secretsStrategy: 'inline',
    allowSecretValues: true,
    onWarning: (w) => warnings.push(w),
  });
  assert.match(
    [...again.files.values()].find((t) => t.includes('kind: Deployment'))!,
    /image: mirror\.example\/capi\/capi:v0\.4\.0\n/,
  );
  assert.deepEqual(
    warnings.filter((w) => w.path === 'images').map((w) => w.message),
    [
      "line 4 of the value gives a key of line 1 again: the operator reads the last one (clusterctl's MemoryReader, go-yaml v2), and so does capi-gitops",
    ],
  );
});

test('parseImagesValue reads the clusterctl images map from a Secret key', () => {
  const text =
    'all:\n  repository: mirror.example.com/capi\ncluster-api:\n  tag: v1.12.1\ncluster-api/cluster-api-controller:\n  name: mirrored\n';
  assert.deepEqual(parseImagesValue(text, 'Secret capi-system/variables'), {
    all: { repository: 'mirror.example.com/capi' },
    'cluster-api': { tag: 'v1.12.1' },
    'cluster-api/cluster-api-controller': { name: 'mirrored' },
  });
  assert.deepEqual(parseImagesValue('', 'Secret s/s'), {});
  assert.deepEqual(parseImagesValue('all:\n', 'Secret s/s'), { all: {} });
});

test("a configSecret's images value that gives a key twice is read as the operator reads it, the last one, with a warning naming the lines of the value and not its text (cluster-api cmd/clusterctl/client/config/reader_memory.go UnmarshalKey → sigs.k8s.io/yaml → go-yaml v2 decode.go setMapIndex, not strict)", () => {
  const secretish = 'mirror.sup3r-s3cret.example';
  const warnings: Diagnostic[] = [];
  const read = parseImagesValue(
    `all:\n  repository: ${secretish}/old\ncluster-api:\n  tag: v1.12.1\nall:\n  repository: ${secretish}/new\n`,
    'Secret capi-system/variables key "images"',
    { file: 'm.yaml', line: 4, column: 3 },
    (w) => warnings.push(w),
  );
  assert.deepEqual(read, { all: { repository: `${secretish}/new` }, 'cluster-api': { tag: 'v1.12.1' } });
  assert.deepEqual(
    warnings.map((w) => [w.file, w.line, w.column, w.path, w.message, w.hint]),
    [
      [
        'm.yaml',
        4,
        3,
        'images',
        "line 5 of the value gives a key of line 1 again: the operator reads the last one (clusterctl's MemoryReader, go-yaml v2), and so does capi-gitops",
        'keep the value you mean: delete line 1 or line 5 of the value (with the lines below it that belong to it)',
      ],
    ],
  );
  assert.ok(!JSON.stringify(warnings).includes(secretish));
});

test('parseImagesValue reports every problem, by key and field, without echoing Secret values', () => {
  const secretish = 'sup3r-s3cret-value';
  const text = `all: ${secretish}\ncluster-api:\n  tag: 1.10\n  repo: ${secretish}\nbootstrap-kubeadm:\n  - ${secretish}\n`;
  assert.throws(
    () => parseImagesValue(text, 'Secret capi-system/variables', { file: 'm.yaml', line: 4, column: 3 }),
    (err: unknown) => {
      assert.ok(err instanceof CapiGitopsError);
      assert.deepEqual(err.diagnostics.map((d) => d.path).sort(), [
        'images.all',
        'images.bootstrap-kubeadm',
        'images.cluster-api.repo',
        'images.cluster-api.tag',
      ]);
      assert.ok(err.diagnostics.every((d) => d.object === 'Secret capi-system/variables' && d.file === 'm.yaml' && d.line === 4));
      assert.match(err.message, /unknown field "repo"/);
      assert.match(err.message, /number, not a string/);
      assert.ok(!err.message.includes(secretish), 'a Secret value leaked into the error');
      return true;
    },
  );
  assert.throws(
    () => parseImagesValue(`images:\n  all:\n    repository: ${secretish}\n`, 'Secret s/s'),
    (err: unknown) => err instanceof CapiGitopsError && /remove the outer `images:`/.test(err.message) && !err.message.includes(secretish),
  );
  for (const bad of [`- ${secretish}`, `all: [${secretish}`, `a: &x {tag: ${secretish}}\nb: *x`]) {
    assert.throws(
      () => parseImagesValue(bad, 'Secret s/s'),
      (err: unknown) => err instanceof CapiGitopsError && !err.message.includes(secretish),
      bad,
    );
  }
});

test('an images key naming no component (a provider name where clusterctl reads its label) is a warning at that key', async () => {
  assert.deepEqual(unreadImageKeys(['all', 'cert-manager/cert-manager-controller', 'docker', 'kubeadm', 'clustr-api/x', 'zzz'], LABELS), [
    { key: 'clustr-api/x', meant: ['cluster-api/x'] },
    { key: 'docker', meant: ['infrastructure-docker'] },
    { key: 'kubeadm', meant: ['bootstrap-kubeadm', 'control-plane-kubeadm'] },
    { key: 'zzz', meant: [] },
  ]);
  const config = `images:
  all:
    tag: v9.9.9
  kubeadm:
    repository: mirror.example.com/kubeadm
`;
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest() + config });
  const result = await runCli(['render', '-f', dir, '-o', path.join(dir, 'out')]);
  assert.equal(result.code, 0, result.stderr);
  const at = corpusManifest().split('\n').length + 3;
  assert.match(
    result.stderr,
    new RegExp(
      `providers\\.yaml:${at}:3: warning: Config: images\\.kubeadm: "kubeadm" names no component of this render, so this override`,
    ),
  );
  assert.match(
    result.stderr,
    /hint: clusterctl keys image overrides by the provider's manifest label: rename it to bootstrap-kubeadm or control-plane-kubeadm/,
  );
  assert.doesNotMatch(result.stderr, /images\.all/);
});

test('images keys match whatever their case, as clusterctl reads clusterctl.yaml through viper, which lowercases keys (cluster-api cmd/clusterctl/client/config/reader_viper.go UnmarshalKey, imagemeta_client.go getImageMeta; spf13/viper util.go insensitiviseMap); two keys alike but for case, which viper keeps at random, are an error at the later one', async () => {
  const config = `images:
  ALL:
    tag: v9.9.9
  Cluster-API:
    repository: mirror.example.com/capi
`;
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest() + config });
  const out = path.join(dir, 'out');
  const result = await runCli(['render', '-f', dir, '-o', out]);
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stderr, /names no component/);
  const images = readdirSync(out, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.yaml'))
    .flatMap((file) => [...readFileSync(path.join(out, file), 'utf8').matchAll(/ image: (\S+)/g)].map((m) => m[1]!));
  assert.ok(images.includes('mirror.example.com/capi/cluster-api-controller:v9.9.9'), images.join('\n'));
  assert.ok(images.length > 1 && images.every((image) => image.endsWith(':v9.9.9')), images.join('\n'));

  const twice = writeTempManifest({ 'providers.yaml': `${corpusManifest()}images:\n  all:\n    tag: v1.0.0\n  ALL:\n    tag: v2.0.0\n` });
  const refused = await runCli(['render', '-f', twice, '-o', path.join(twice, 'out')]);
  assert.equal(refused.code, 1, refused.stderr);
  const at = corpusManifest().split('\n').length + 3;
  assert.match(
    refused.stderr,
    new RegExp(
      `providers\\.yaml:${at}:3: error: .*ALL and all are one images key to clusterctl, which reads clusterctl\\.yaml's keys lowercased \\(viper\\): which of the two it applies is left to chance`,
    ),
  );
  assert.match(refused.stderr, /hint: keep one of them: delete ALL or all, or merge their fields into one/);
});

const LABELS = ['bootstrap-kubeadm', 'cluster-api', 'control-plane-kubeadm', 'infrastructure-docker'];

test('a tag override on an image the components pin by digest is a warning at the key that set the tag; a repository override alone is not (clusterctl imagemeta_client.go keeps the digest)', async () => {
  const digest = `sha256:${'a'.repeat(64)}`;
  const url = localCoreRelease(CORE_MANAGER_DEPLOYMENT.replace('registry.example/capi:v0.1.0', `registry.example/capi:v0.1.0@${digest}`));
  const manifest = (images: string) =>
    coreManifest(
      url,
      `images:
${images}`,
    );
  const renderWarnings = async (images: string) => {
    const dir = writeTempManifest({ 'providers.yaml': manifest(images) });
    const warnings: Diagnostic[] = [];
    const result = await renderManagementCluster({ manifestPaths: [dir], onWarning: (w) => warnings.push(w) });
    return {
      warnings,
      file: path.join(dir, 'providers.yaml'),
      manager: [...result.files.values()].find((t) => t.includes('kind: Deployment'))!,
    };
  };
  const tagged = await renderWarnings('  all: {repository: mirror.example/capi}\n  cluster-api:\n    tag: v0.2.0\n');
  assert.match(tagged.manager, new RegExp(`image: mirror\\.example/capi/capi:v0\\.2\\.0@${digest}`));
  const told = tagged.warnings.filter((w) => w.path === 'images.cluster-api.tag');
  assert.equal(told.length, 1, tagged.warnings.map((w) => w.message).join('\n'));
  assert.match(
    told[0]!.message,
    /the tag override changes nothing for Deployment\/capi-system\/capi-controller-manager: its image .* is pinned by digest/,
  );
  const tagLine =
    manifest('  all: {repository: mirror.example/capi}\n  cluster-api:\n    tag: v0.2.0\n').split('\n').indexOf('    tag: v0.2.0') + 1;
  assert.deepEqual([told[0]!.file, told[0]!.line], [tagged.file, tagLine]);
  // set by a configSecret's images override: told at the Secret, and the image (which holds its values) is not quoted
  const secretDir = writeTempManifest({
    'providers.yaml':
      manifest('  all: {repository: mirror.example/capi}\n').replace(
        '  version: v0.1.0\n',
        '  version: v0.1.0\n  configSecret: {name: capi-vars}\n',
      ) +
      '---\napiVersion: v1\nkind: Secret\nmetadata: {name: capi-vars, namespace: capi-system}\nstringData:\n  images: |\n    cluster-api:\n      repository: private.example/team-capi\n      tag: v0.3.0\n',
  });
  const secretWarnings: Diagnostic[] = [];
  await renderManagementCluster({
    manifestPaths: [secretDir],
    secretsStrategy: 'inline',
    allowSecretValues: true,
    onWarning: (w) => secretWarnings.push(w),
  });
  const fromSecret = secretWarnings.filter((w) => w.path === 'images.cluster-api.tag');
  assert.equal(fromSecret.length, 1, secretWarnings.map((w) => w.message).join('\n'));
  assert.equal(fromSecret[0]!.object, 'Secret/capi-system/capi-vars');
  assert.doesNotMatch(fromSecret[0]!.message, /private\.example|team-capi/);
  const mirrored = await renderWarnings('  all: {repository: mirror.example/capi}\n');
  assert.deepEqual(
    mirrored.warnings.filter((w) => w.path?.startsWith('images.')),
    [],
  );
});

test("a tag override on a digest that both Config.images and a configSecret set is told at the Config, whose tag the operator's second pass writes (phase_fetch.go imageOverrides)", async () => {
  const digest = `sha256:${'a'.repeat(64)}`;
  const url = localCoreRelease(CORE_MANAGER_DEPLOYMENT.replace('registry.example/capi:v0.1.0', `registry.example/capi:v0.1.0@${digest}`));
  const dir = writeTempManifest({
    'providers.yaml':
      coreManifest(url, 'images:\n  cluster-api:\n    tag: v0.2.0\n').replace(
        '  version: v0.1.0\n',
        '  version: v0.1.0\n  configSecret: {name: capi-vars}\n',
      ) +
      '---\napiVersion: v1\nkind: Secret\nmetadata: {name: capi-vars, namespace: capi-system}\nstringData:\n  images: |\n    cluster-api:\n      tag: v0.3.0\n',
  });
  const warnings: Diagnostic[] = [];
  const result = await renderManagementCluster({
    manifestPaths: [dir],
    secretsStrategy: 'inline',
    allowSecretValues: true,
    onWarning: (w) => warnings.push(w),
  });
  const manager = [...result.files.values()].find((t) => t.includes('kind: Deployment'))!;
  assert.match(manager, new RegExp(`image: registry\\.example/capi:v0\\.2\\.0@${digest}`));
  const told = warnings.filter((w) => w.path === 'images.cluster-api.tag');
  assert.equal(told.length, 1, warnings.map((w) => w.message).join('\n'));
  assert.equal(told[0]!.object, 'Config');
  assert.equal(told[0]!.file, path.join(dir, 'providers.yaml'));
});
