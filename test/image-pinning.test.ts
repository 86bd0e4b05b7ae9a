/**
 * Images pinned by digest and locked (issue 28), end to end against the real docker-registry on
 * loopback: images pushed by the distribution API (OCI index and manifests, Docker manifest
 * lists), rendered through a mirror (`images.all.repository`), locked, re-pushed, planned,
 * updated, diffed; auth by the token flow and by a Docker config file; the corpus pinned.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import YAML from 'yaml';
import { render } from '../src/app/render.js';
import { check } from '../src/app/check.js';
import { plan } from '../src/app/plan.js';
import { update } from '../src/app/update.js';
import { diff } from '../src/app/diff.js';
import type { RenderOptions } from '../src/app/run.js';
import { readLockfile } from '../src/resolve/lock/lockfile.js';
import { forgetUnreachableHosts } from '../src/sources/base/unreachable.js';
import { CapiGitopsError, type Diagnostic } from '../src/core/diagnostics.js';
import { corpusManifest, tempDir, writeTempManifest } from './helpers/corpus-manifest.js';
import { kubectlAvailable, kubectlKustomize, readTree } from './helpers/tree.js';
import { rejection } from './helpers/assertions.js';
import { runCli, runCliAsync } from './helpers/cli.js';
import { FIXTURES } from './helpers/paths.js';
import { renderManagementCluster } from '../src/app/cluster.js';
import { AuthProxy, basicAuthorization, OCI_MANIFEST, pushImage, Registry, registrySkipReason } from './helpers/registry.js';

const skip = registrySkipReason();
let registry: Registry;
/** A recording front (no auth) for the registry: every request the renders make is in `front.requests`. */
let front: AuthProxy;

before(async () => {
  if (skip) return;
  registry = await Registry.start();
  front = await AuthProxy.start(registry, { scheme: 'none' });
});
after(async () => {
  await front?.close();
  await registry?.stop();
});

/** No OCI_* variables and an empty Docker config directory: only what a test gives is used. */
function isolatedEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  const dockerConfig = tempDir('capi-gitops-docker-config-');
  return { DOCKER_CONFIG: dockerConfig, HOME: dockerConfig, ...extra };
}

/** The CLI's environment: this process's, isolated from Docker credentials and any OCI_* of the machine. */
function isolatedCliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...isolatedEnv(), ...extra } as NodeJS.ProcessEnv;
  for (const name of ['OCI_USERNAME', 'OCI_PASSWORD', 'OCI_ACCESS_TOKEN', 'OCI_REFRESH_TOKEN']) delete env[name];
  return env;
}

const METADATA = `apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
kind: Metadata
releaseSeries:
- major: 1
  minor: 0
  contract: v1beta1
`;

/** A core provider's components as a team's release would ship them: a controller with an init container. */
function components(images: { init: string; manager: string }): string {
  return `apiVersion: v1
kind: Namespace
metadata:
  name: capi-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: capi-controller-manager
  namespace: capi-system
spec:
  replicas: 1
  selector:
    matchLabels:
      cluster.x-k8s.io/provider: cluster-api
  template:
    metadata:
      labels:
        cluster.x-k8s.io/provider: cluster-api
    spec:
      initContainers:
      - name: wait-for-apiserver
        image: ${images.init}
        command: [/bin/wait-for-apiserver]
      containers:
      - name: manager
        image: ${images.manager}
        args: [--leader-elect, --diagnostics-address=:8443]
`;
}

/** A manifest directory: the provider in a clusterctl local repository, and the Config. */
function manifestDir(
  config: string,
  images = { init: 'registry.k8s.io/cluster-api/capi-init:v1.0.0', manager: 'registry.k8s.io/cluster-api/cluster-api-controller:v1.0.0' },
  extra: { components?: string; spec?: string } = {},
): string {
  const repository = tempDir('capi-gitops-pin-repository-');
  const release = path.join(repository, 'cluster-api', 'v1.0.0');
  mkdirSync(release, { recursive: true });
  writeFileSync(path.join(release, 'core-components.yaml'), components(images) + (extra.components ?? ''));
  writeFileSync(path.join(release, 'metadata.yaml'), METADATA);
  const url = pathToFileURL(path.join(repository, 'cluster-api', 'latest', 'core-components.yaml')).href;
  return writeTempManifest({
    'providers.yaml': `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
  namespace: capi-system
spec:
  version: v1.0.0
  fetchConfig:
    url: ${url}
${extra.spec ?? ''}---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager:
  enabled: false
${config}`,
  });
}

function options(
  dir: string,
  extra: Partial<RenderOptions> & { env?: Record<string, string | undefined>; offline?: boolean } = {},
): RenderOptions {
  const { env, offline, ...rest } = extra;
  forgetUnreachableHosts();
  return { manifestPaths: [dir], sources: { env: env ?? isolatedEnv(), offline, http: { retries: 0 } }, ...rest };
}

/** The image of each container of the Deployment in a written output. */
function deploymentImages(out: string): Record<string, string> {
  const file = [...readTree(out).entries()].find(([name, text]) => name.endsWith('.yaml') && /^kind: Deployment$/m.test(text));
  assert.ok(file, 'the output has a Deployment');
  const spec = (YAML.parse(file[1]) as { spec: { template: { spec: Record<string, { name: string; image: string }[]> } } }).spec.template
    .spec;
  return Object.fromEntries([...(spec.initContainers ?? []), ...spec.containers].map((c) => [c.name, c.image]));
}

function messages(error: unknown): string {
  assert.ok(error instanceof CapiGitopsError, `expected a CapiGitopsError, got ${String(error)}`);
  return error.diagnostics.map((d: Diagnostic) => `${d.object ?? ''} ${d.path ?? ''} ${d.message} ${d.hint ?? ''}`).join('\n');
}

const MIRROR = (host: string) => `images:\n  all:\n    repository: ${host}/mirror\n`;

test(
  'a pinned render: every image, init containers too, is repository:tag@<digest> at its mirror location; a multi-architecture image is pinned to its index; the lock records each',
  { skip },
  async () => {
    const manager = await pushImage(registry.url, 'mirror/cluster-api-controller', 'v1.0.0', { architectures: ['amd64', 'arm64'] });
    const init = await pushImage(registry.url, 'mirror/capi-init', 'v1.0.0', { docker: true });
    const dir = manifestDir(`pinImages: true\n${MIRROR(front.host)}`);
    const out = path.join(tempDir(), 'out');
    await render(options(dir), out);

    const images = deploymentImages(out);
    assert.equal(images.manager, `${front.host}/mirror/cluster-api-controller:v1.0.0@${manager.digest}`);
    assert.equal(images['wait-for-apiserver'], `${front.host}/mirror/capi-init:v1.0.0@${init.digest}`);
    assert.ok(!Object.values(manager.platforms).includes(images.manager!.split('@')[1]!), 'the index, not one architecture');
    const lock = await readLockfile(path.join(dir, 'capi-gitops.lock.yaml'));
    assert.deepEqual(lock?.entries[0]?.images, [
      { image: `${front.host}/mirror/capi-init:v1.0.0`, digest: init.digest },
      { image: `${front.host}/mirror/cluster-api-controller:v1.0.0`, digest: manager.digest },
    ]);
    // the written lock is the one the library would write too (lock/text.ts declines nothing here)
    const text = readFileSync(path.join(dir, 'capi-gitops.lock.yaml'), 'utf8');
    assert.match(text, /^    images:\n      - image: 127\.0\.0\.1:\d+\/mirror\/capi-init:v1\.0\.0\n        digest: sha256:[0-9a-f]{64}$/m);
  },
);

test(
  'additionalDeployments: a Deployment the operator customises takes its imageUrl, and that final image is pinned (cluster-api-operator component_customizer.go)',
  { skip },
  async () => {
    await pushImage(registry.url, 'extra/cluster-api-controller', 'v1.0.0');
    await pushImage(registry.url, 'extra/capi-init', 'v1.0.0');
    const helper = await pushImage(registry.url, 'extra/helper', 'v2.1.0', { architectures: ['amd64', 'arm64'] });
    const second = `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: capi-diagnostics
  namespace: capi-system
spec:
  selector:
    matchLabels: {app: capi-diagnostics}
  template:
    metadata:
      labels: {app: capi-diagnostics}
    spec:
      containers:
      - name: helper
        image: registry.k8s.io/cluster-api/helper:v1.0.0
`;
    const spec = `  additionalDeployments:
    capi-diagnostics:
      deployment:
        containers:
        - name: helper
          imageUrl: ${front.host}/extra/helper:v2.1.0
`;
    const dir = manifestDir(`pinImages: true\n${MIRROR(front.host).replace('/mirror', '/extra')}`, undefined, { components: second, spec });
    const out = path.join(tempDir(), 'out');
    await render(options(dir), out);
    const text = [...readTree(out)].find(([f]) => f.includes('capi-diagnostics'))![1];
    assert.ok(text.includes(`image: ${front.host}/extra/helper:v2.1.0@${helper.digest}\n`), text);
  },
);

test(
  'a re-pushed tag: a locked render asks no registry and keeps the lock; --frozen and check fail naming the image, --offline passes from the lock; plan names the image; update --images takes the new digest; diff calls it out as same tag, new content',
  { skip },
  async () => {
    const first = await pushImage(registry.url, 'moving/controller', 'v1.0.0', { architectures: ['amd64', 'arm64'] });
    await pushImage(registry.url, 'moving/capi-init', 'v1.0.0');
    const dir = manifestDir(
      `pinImages: true\nimages:\n  all:\n    repository: ${front.host}/moving\n  cluster-api/cluster-api-controller:\n    name: controller\n`,
    );
    const before = path.join(tempDir(), 'before');
    await render(options(dir), before);
    assert.equal(deploymentImages(before).manager, `${front.host}/moving/controller:v1.0.0@${first.digest}`);

    const second = await pushImage(registry.url, 'moving/controller', 'v1.0.0', {
      architectures: ['amd64', 'arm64'],
      content: 'v1-rebuilt',
    });
    assert.notEqual(second.digest, first.digest);
    const asked = front.requests.length;
    const again = path.join(tempDir(), 'again');
    await render(options(dir), again);
    assert.equal(front.requests.length, asked, 'a locked render makes no registry request');
    assert.equal(deploymentImages(again).manager, `${front.host}/moving/controller:v1.0.0@${first.digest}`);
    await render(options(dir, { offline: true, frozen: true }), again);
    assert.deepEqual(
      (await check(options(dir, { offline: true }), before)).report.problems,
      [],
      'check --offline agrees from the lock, asking no registry',
    );
    assert.equal(front.requests.length, asked);

    // --frozen, and check (which implies it), ask again and fail on the moved tag, writing nothing
    const frozenOut = path.join(tempDir(), 'frozen');
    const movedMessage = new RegExp(
      `--frozen \\(or check, which implies it\\): the tag of image 127\\.0\\.0\\.1:\\d+/moving/controller:v1\\.0\\.0 now serves ${second.digest}; ` +
        `the lockfile pins ${first.digest} \\(container manager of Deployment/capi-system/capi-controller-manager in core-components\\.yaml of cluster-api v1\\.0\\.0\\) ` +
        'run `capi-gitops update --images cluster-api`',
    );
    const frozenText = messages(await rejection(render(options(dir, { frozen: true }), frozenOut)));
    assert.match(frozenText, movedMessage);
    assert.doesNotMatch(frozenText, /capi-init/, 'the tag that did not move is not named');
    assert.equal(existsSync(frozenOut), false);
    assert.ok(front.requests.length > asked, '--frozen asked the registry');
    assert.match(messages(await rejection(check(options(dir), before))), movedMessage);

    // plan --offline asks no registry: it plans the providers and says the images were not asked
    const offlineWarnings: Diagnostic[] = [];
    const offlineAsked = front.requests.length;
    const offlinePlan = await plan(options(dir, { offline: true, onWarning: (w) => offlineWarnings.push(w) }));
    assert.ok(offlinePlan.release === undefined);
    assert.equal(offlinePlan.plan.images, undefined);
    assert.ok(offlinePlan.plan.providers.length > 0);
    assert.match(offlineWarnings.map((w) => w.message).join('\n'), /--offline: the locked images were not asked of their registries/);
    assert.equal(front.requests.length, offlineAsked);

    const planned = await plan(options(dir));
    assert.ok(planned.release === undefined);
    assert.deepEqual(planned.plan.images, [
      { component: 'cluster-api', image: `${front.host}/moving/controller:v1.0.0`, locked: first.digest, current: second.digest },
    ]);

    // update --images --offline cannot work: it says so, instead of asking to record what is recorded
    const offlineUpdate = await rejection(update(options(dir, { offline: true }), { images: true }));
    assert.equal(offlineUpdate.diagnostics[0]!.hint, 'run update --images without --offline');

    const updated = await update(options(dir), { images: true, providers: ['cluster-api'] });
    assert.equal(updated.lockWritten, true);
    assert.match(
      updated.resolution.lock.changes[0]!.line,
      /image 127\.0\.0\.1:\d+\/moving\/controller:v1\.0\.0: same tag, new content sha256:/,
    );
    const after = path.join(tempDir(), 'after');
    await render(options(dir, { frozen: true }), after);
    assert.equal(deploymentImages(after).manager, `${front.host}/moving/controller:v1.0.0@${second.digest}`);
    assert.equal(
      deploymentImages(after)['wait-for-apiserver'],
      deploymentImages(before)['wait-for-apiserver'],
      'the tag that did not move keeps its digest',
    );

    const { report } = await diff({ from: before, to: after });
    const moved = report.findings.filter((f) => f.type === 'image-content');
    assert.equal(moved.length, 1);
    assert.deepEqual(
      {
        risk: moved[0]!.risk,
        image: (moved[0] as { image: string }).image,
        from: (moved[0] as { from: string }).from,
        to: (moved[0] as { to: string }).to,
      },
      { risk: 'warning', image: `${front.host}/moving/controller:v1.0.0`, from: first.digest, to: second.digest },
    );
    assert.match(moved[0]!.message, /container manager: image .*: same tag, new content/);
  },
);

test(
  '--frozen fails naming the image and where it came from when the lock has no digest for it, asks no registry and writes nothing',
  { skip },
  async () => {
    await pushImage(registry.url, 'frozen/cluster-api-controller', 'v1.0.0');
    await pushImage(registry.url, 'frozen/capi-init', 'v1.0.0');
    const dir = manifestDir(`pinImages: true\n${MIRROR(`${front.host}`).replace('/mirror', '/frozen')}`);
    await render(options(dir, { pinImages: false }), path.join(tempDir(), 'unpinned'));
    const asked = front.requests.length;
    const out = path.join(tempDir(), 'out');
    const text = messages(await rejection(render(options(dir, { frozen: true }), out)));
    assert.match(
      text,
      /--frozen \(or check, which implies it\): the lockfile has no digest for image 127\.0\.0\.1:\d+\/frozen\/cluster-api-controller:v1\.0\.0 \(container manager of Deployment\/capi-system\/capi-controller-manager in core-components\.yaml of cluster-api v1\.0\.0\)/,
    );
    assert.match(text, /spec\.template\.spec\.containers\[0\]\.image/);
    assert.equal(front.requests.length, asked);
    assert.equal(existsSync(out), false);
  },
);

test(
  '--frozen with an image the lock lacks and a locked tag that moved: both are told in one run, and the image the lock lacks is still not asked',
  { skip },
  async () => {
    await pushImage(registry.url, 'both/cluster-api-controller', 'v1.0.0');
    await pushImage(registry.url, 'both/capi-init', 'v1.0.0');
    const dir = manifestDir(`pinImages: true\n${MIRROR(front.host).replace('/mirror', '/both')}`);
    const out = path.join(tempDir(), 'out');
    await render(options(dir), out);
    const moved = await pushImage(registry.url, 'both/cluster-api-controller', 'v1.0.0', { content: 'rebuilt' });
    const lockFile = path.join(dir, 'capi-gitops.lock.yaml');
    const init = `${front.host}/both/capi-init:v1.0.0`;
    const lines = new RegExp(`^ *- image: ${init.replace(/[.]/g, '\\.')}\\n *digest: sha256:[0-9a-f]{64}\\n`, 'm');
    writeFileSync(lockFile, readFileSync(lockFile, 'utf8').replace(lines, ''));
    const asked = front.requests.length;
    const text = messages(await rejection(render(options(dir, { frozen: true }), out)));
    assert.match(text, new RegExp(`the lockfile has no digest for image ${init.replace(/[.]/g, '\\.')}`));
    assert.match(text, new RegExp(`the tag of image .*both/cluster-api-controller:v1\\.0\\.0 now serves ${moved.digest}`));
    assert.ok(!front.requests.slice(asked).some((r) => r.url.includes('/capi-init/')), 'the image the lock lacks is not asked');
  },
);

test(
  'a moved tag under --frozen and check is told at the line and column of that image in the lockfile entry, where its digest is pinned',
  { skip },
  async () => {
    await pushImage(registry.url, 'located/controller', 'v1.0.0');
    await pushImage(registry.url, 'located/capi-init', 'v1.0.0');
    const dir = manifestDir(
      `pinImages: true\nimages:\n  all:\n    repository: ${front.host}/located\n  cluster-api/cluster-api-controller:\n    name: controller\n`,
    );
    const out = path.join(tempDir(), 'out');
    await render(options(dir), out);
    await pushImage(registry.url, 'located/controller', 'v1.0.0', { content: 'rebuilt' });

    const lockFile = path.join(dir, 'capi-gitops.lock.yaml');
    const lines = readFileSync(lockFile, 'utf8').split('\n');
    const line = lines.findIndex((l) => l.endsWith(`- image: ${front.host}/located/controller:v1.0.0`)) + 1;
    assert.ok(line > 0, lines.join('\n'));
    const at = { file: lockFile, line, column: lines[line - 1]!.indexOf('image:') + 1 };
    const where = (error: unknown) => {
      assert.ok(error instanceof CapiGitopsError, String(error));
      return error.diagnostics.map(({ file, line, column }) => ({ file, line, column }));
    };
    assert.deepEqual(where(await rejection(render(options(dir, { frozen: true }), path.join(tempDir(), 'frozen')))), [at]);
    assert.deepEqual(where(await rejection(check(options(dir), out))), [at]);
  },
);

test('--offline renders from the lock with the registry gone; without a locked digest it fails naming the image', { skip }, async () => {
  const own = await Registry.start();
  try {
    const pushed = await pushImage(own.url, 'air/cluster-api-controller', 'v1.0.0');
    await pushImage(own.url, 'air/capi-init', 'v1.0.0');
    const dir = manifestDir(`pinImages: true\nimages:\n  all:\n    repository: ${own.host}/air\n`);
    await render(options(dir), path.join(tempDir(), 'online'));
    await own.stop();
    const out = path.join(tempDir(), 'offline');
    await render(options(dir, { offline: true }), out);
    assert.equal(deploymentImages(out).manager, `${own.host}/air/cluster-api-controller:v1.0.0@${pushed.digest}`);

    const unlocked = manifestDir(`pinImages: true\nimages:\n  all:\n    repository: ${own.host}/air\n`);
    const text = messages(await rejection(render(options(unlocked, { offline: true }), path.join(tempDir(), 'never'))));
    assert.match(text, /--offline: the lockfile has no digest for image 127\.0\.0\.1:\d+\/air\/capi-init:v1\.0\.0/);
    // check --offline (check implies --frozen): it is --offline that asks no registry, and the hint drops both
    const providers = path.join(dir, 'providers.yaml');
    writeFileSync(
      providers,
      readFileSync(providers, 'utf8').replace(`repository: ${own.host}/air`, `repository: ${own.host}/air\n    tag: v1.0.1`),
    );
    const checked = await rejection(check(options(dir, { offline: true }), out));
    assert.match(messages(checked), /: the lockfile has no digest for image .*, and --offline asks no registry for it/);
    assert.ok(checked instanceof CapiGitopsError);
    assert.match(checked.diagnostics[0]!.hint ?? '', /without --frozen and --offline to pin it/);
  } finally {
    await own.stop();
  }
});

test(
  'an unreachable registry is named with its images; a missing tag names the artifact and the container; nothing is written',
  { skip },
  async () => {
    const closed = await Registry.start();
    const host = closed.host;
    await closed.stop();
    const unreachable = manifestDir(`pinImages: true\nimages:\n  all:\n    repository: ${host}/gone\n`);
    const out = path.join(tempDir(), 'out');
    const goneError = await rejection(render(options(unreachable), out));
    const gone = messages(goneError);
    // told where the manifest chose the registry: the Config images key of the mirror, at its line and column
    const config = readFileSync(path.join(unreachable, 'providers.yaml'), 'utf8').split('\n');
    const [at] = goneError.diagnostics;
    assert.deepEqual(
      [at?.file, at?.line, at?.column],
      [path.join(unreachable, 'providers.yaml'), config.findIndex((l) => l.startsWith('  all:')) + 1, 3],
    );
    assert.match(
      gone,
      new RegExp(
        `cannot reach registry ${host.replace(/\./g, '\\.')} to pin 2 images ${host.replace(/\./g, '\\.')}/gone/capi-init:v1\\.0\\.0, ${host.replace(/\./g, '\\.')}/gone/cluster-api-controller:v1\\.0\\.0`,
      ),
    );
    // the registry's own hint: no "local copy" to point at, and what --offline does for images
    assert.match(gone, /; check the image overrides \(Config images\); --offline renders from the lockfile once it pins every image/);
    assert.doesNotMatch(gone, /point the source at a local copy/);
    assert.equal(existsSync(out), false);
    assert.equal(existsSync(path.join(unreachable, 'capi-gitops.lock.yaml')), false);

    await pushImage(registry.url, 'partial/capi-init', 'v1.0.0');
    const missing = manifestDir(`pinImages: true\nimages:\n  all:\n    repository: ${front.host}/partial\n`);
    const text = messages(await rejection(render(options(missing), out)));
    assert.match(
      text,
      /Deployment\/capi-system\/capi-controller-manager spec\.template\.spec\.containers\[0\]\.image image 127\.0\.0\.1:\d+\/partial\/cluster-api-controller:v1\.0\.0 \(container manager of Deployment\/capi-system\/capi-controller-manager in core-components\.yaml of cluster-api v1\.0\.0\): tag v1\.0\.0 not found/,
    );
    assert.doesNotMatch(text, /capi-init/, 'the image the mirror holds is no problem');
    assert.equal(existsSync(out), false);
    assert.equal(existsSync(path.join(missing, 'capi-gitops.lock.yaml')), false);
  },
);

test(
  'plan with a registry down: the providers are planned, the moved tag of the registry that answered is listed, the images of the one that did not are imagesUnchecked with a warning saying so, not an empty list; exit 0, check still fails',
  { skip },
  async () => {
    const down = await Registry.start();
    try {
      const first = await pushImage(registry.url, 'half/controller', 'v1.0.0');
      await pushImage(down.url, 'half/capi-init', 'v1.0.0');
      const dir = manifestDir(
        `pinImages: true\nimages:\n  cluster-api/cluster-api-controller:\n    repository: ${registry.host}/half\n    name: controller\n` +
          `  cluster-api/capi-init:\n    repository: ${down.host}/half\n`,
      );
      const out = path.join(tempDir(), 'out');
      await render(options(dir), out);
      const second = await pushImage(registry.url, 'half/controller', 'v1.0.0', { content: 'rebuilt' });
      await down.stop();
      const init = `${down.host}/half/capi-init:v1.0.0`;

      const warnings: Diagnostic[] = [];
      const planned = await plan(options(dir, { onWarning: (w) => warnings.push(w) }));
      assert.ok(planned.release === undefined);
      assert.deepEqual(
        planned.plan.providers.map((p) => [p.label, p.installed]),
        [['cluster-api', 'v1.0.0']],
      );
      assert.deepEqual(planned.plan.images, [
        { component: 'cluster-api', image: `${registry.host}/half/controller:v1.0.0`, locked: first.digest, current: second.digest },
      ]);
      assert.deepEqual(
        planned.plan.imagesUnchecked?.map((i) => [i.component, i.image]),
        [['cluster-api', init]],
      );
      assert.match(
        planned.plan.imagesUnchecked![0]!.problem,
        new RegExp(`cannot reach registry ${down.host.replace(/\./g, '\\.')} to check`),
      );
      // the warning is at the image's line in the lockfile
      const lockLines = readFileSync(path.join(dir, 'capi-gitops.lock.yaml'), 'utf8').split('\n');
      assert.deepEqual(
        warnings.filter((w) => w.message.includes('cannot reach')).map((w) => [w.file, w.line]),
        [[path.join(dir, 'capi-gitops.lock.yaml'), lockLines.findIndex((l) => l.endsWith(`- image: ${init}`)) + 1]],
      );
      const warned = warnings.map((w) => `${w.message} ${w.hint ?? ''}`).join('\n');
      assert.match(warned, /to check the locked image .*capi-init:v1\.0\.0: .* whether its tag moved is not known until it answers/);
      assert.doesNotMatch(warned, /to pin/);

      const env = { ...process.env, ...isolatedEnv() } as NodeJS.ProcessEnv;
      const text = await runCli(['plan', '-f', dir], { env });
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /The versions are up to date\.\n/);
      assert.doesNotMatch(text.stdout, /You are already up to date/);
      assert.match(text.stdout, /Images whose tag moved \(same tag, new content\):\n/);
      assert.ok(
        text.stdout.includes(
          `Images not checked (no digest from their registry, each warning says why; whether their tags moved is not known):\n`,
        ),
      );
      assert.ok(text.stdout.includes(`cluster-api   ${init}\n`), text.stdout);
      assert.match(text.stderr, /warning: .*cannot reach registry/);
      const json = await runCli(['plan', '-f', dir, '--json'], { env });
      assert.equal(json.code, 0, json.stderr);
      const document = JSON.parse(json.stdout) as {
        ok: boolean;
        images: unknown[];
        imagesUnchecked: { component: string; image: string }[];
      };
      assert.equal(document.ok, true);
      assert.equal(document.images.length, 1);
      assert.deepEqual(
        document.imagesUnchecked.map((i) => [i.component, i.image]),
        [['cluster-api', init]],
      );
      // the gate still fails while the registry cannot be asked
      assert.match(messages(await rejection(check(options(dir), out))), /cannot reach registry/);
    } finally {
      await down.stop();
    }
  },
);

test(
  'plan when a locked tag was deleted from a registry that answers: the image is unchecked, and the text neither says the registry did not answer nor to wait for it',
  { skip },
  async () => {
    await pushImage(registry.url, 'deleted/cluster-api-controller', 'v1.0.0');
    await pushImage(registry.url, 'deleted/capi-init', 'v1.0.0');
    const dir = manifestDir(`pinImages: true\n${MIRROR(registry.host).replace('/mirror', '/deleted')}`);
    await render(options(dir), path.join(tempDir(), 'out'));
    const head = await fetch(`${registry.url}/v2/deleted/capi-init/manifests/v1.0.0`, {
      method: 'HEAD',
      headers: { accept: OCI_MANIFEST },
    });
    const removed = await fetch(`${registry.url}/v2/deleted/capi-init/manifests/${head.headers.get('docker-content-digest')}`, {
      method: 'DELETE',
    });
    assert.equal(removed.status, 202);
    const env = { ...process.env, ...isolatedEnv() } as NodeJS.ProcessEnv;
    const text = await runCli(['plan', '-f', dir], { env });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stderr, /warning: image .*deleted\/capi-init:v1\.0\.0 .*tag v1\.0\.0 not found/);
    assert.match(text.stdout, /Images not checked \(no digest from their registry, each warning says why;/);
    assert.doesNotMatch(text.stdout, /did not answer|once the registry answers/);
  },
);

test(
  'update --images with a registry down fails naming the registry and its image, as a render does, and leaves the lockfile as it was',
  { skip },
  async () => {
    const down = await Registry.start();
    try {
      await pushImage(down.url, 'gone/cluster-api-controller', 'v1.0.0');
      await pushImage(down.url, 'gone/capi-init', 'v1.0.0');
      const dir = manifestDir(`pinImages: true\n${MIRROR(down.host).replace('/mirror', '/gone')}`);
      await render(options(dir), path.join(tempDir(), 'out'));
      const lockFile = path.join(dir, 'capi-gitops.lock.yaml');
      const locked = readFileSync(lockFile, 'utf8');
      await down.stop();
      const refused = await rejection(update(options(dir), { images: true }));
      const text = messages(refused);
      const host = down.host.replace(/\./g, '\\.');
      assert.match(text, new RegExp(`cannot reach registry ${host} .*${host}/gone/capi-init:v1\\.0\\.0`));
      // told at the first of its images in the lockfile, where update --images would write the new digest
      const firstImage = locked.split('\n').findIndex((l) => l.includes(`- image: ${down.host}/gone/capi-init:v1.0.0`)) + 1;
      assert.deepEqual(
        refused.diagnostics.map((d) => [d.file, d.line, d.column]),
        [[lockFile, firstImage, 9]],
      );
      assert.equal(readFileSync(lockFile, 'utf8'), locked);
    } finally {
      await down.stop();
    }
  },
);

test(
  'images the artifact already pins by digest are kept as written, and checked against the registry when first locked and under --frozen',
  { skip },
  async () => {
    const pinned = await pushImage(registry.url, 'shipped/cluster-api-controller', 'v1.0.0');
    await pushImage(registry.url, 'shipped/capi-init', 'v1.0.0');
    const manager = `${front.host}/shipped/cluster-api-controller:v1.0.0@${pinned.digest}`;
    const dir = manifestDir('pinImages: true\n', { init: `${front.host}/shipped/capi-init:v1.0.0`, manager });
    const out = path.join(tempDir(), 'out');
    await render(options(dir), out);
    assert.equal(deploymentImages(out).manager, manager);
    assert.deepEqual((await readLockfile(path.join(dir, 'capi-gitops.lock.yaml')))?.entries[0]?.images?.[1], {
      image: manager,
      digest: pinned.digest,
    });

    // --frozen asks the registry for the artifact's own digest too, and fails once it is gone
    const asked = front.requests.length;
    await render(options(dir, { frozen: true }), out);
    const byDigest = `/v2/shipped/cluster-api-controller/manifests/${pinned.digest}`;
    assert.ok(front.requests.slice(asked).some((r) => r.method === 'HEAD' && r.url.endsWith(byDigest)));
    assert.equal((await fetch(`${registry.url}${byDigest}`, { method: 'DELETE' })).status, 202);
    const gone = path.join(tempDir(), 'gone');
    const text = messages(await rejection(render(options(dir, { frozen: true }), gone)));
    assert.match(text, new RegExp(`digest ${pinned.digest} not found in 127\\.0\\.0\\.1:\\d+/shipped/cluster-api-controller`));
    assert.equal(existsSync(gone), false);

    const absent = `${front.host}/shipped/cluster-api-controller:v1.0.0@sha256:${'0'.repeat(64)}`;
    const wrong = manifestDir('pinImages: true\n', { init: `${front.host}/shipped/capi-init:v1.0.0`, manager: absent });
    assert.match(
      messages(await rejection(render(options(wrong), path.join(tempDir(), 'x')))),
      /digest sha256:0{64} not found in 127\.0\.0\.1:\d+\/shipped\/cluster-api-controller/,
    );
  },
);

test(
  'a registry that answers HEAD without Docker-Content-Digest is asked with GET: the digest is the sha256 of the body, checked against the GET header',
  { skip },
  async () => {
    const pushed = await pushImage(registry.url, 'nohead/cluster-api-controller', 'v1.0.0', { architectures: ['amd64', 'arm64'] });
    await pushImage(registry.url, 'nohead/capi-init', 'v1.0.0');
    const plain = await AuthProxy.start(registry, { scheme: 'none', omitDigestOnHead: true });
    const tampering = await AuthProxy.start(registry, { scheme: 'none', omitDigestOnHead: true, tamper: 'manifests' });
    try {
      const dir = manifestDir(`pinImages: true\nimages:\n  all:\n    repository: ${plain.host}/nohead\n`);
      const out = path.join(tempDir(), 'out');
      await render(options(dir), out);
      assert.equal(deploymentImages(out).manager, `${plain.host}/nohead/cluster-api-controller:v1.0.0@${pushed.digest}`);
      assert.ok(plain.requests.some((r) => r.method === 'GET' && r.url.endsWith('/manifests/v1.0.0')));

      const altered = manifestDir(`pinImages: true\nimages:\n  all:\n    repository: ${tampering.host}/nohead\n`);
      const text = messages(await rejection(render(options(altered), path.join(tempDir(), 'x'))));
      assert.match(text, /the manifest 127\.0\.0\.1:\d+\/nohead\/cluster-api-controller serves for v1\.0\.0 does not match its digest/);
    } finally {
      await plain.close();
      await tampering.close();
    }
  },
);

const USER = { username: 'image-puller', password: 'pull-Pa55word-not-in-output' };

test(
  'a registry behind the token flow: OCI_USERNAME/OCI_PASSWORD from the environment (to a registry named in CAPI_GITOPS_OCI_REGISTRIES), or a Docker config file auths entry (base64 auth); a named credential helper is warned about',
  { skip },
  async () => {
    const auth = await AuthProxy.start(registry, { scheme: 'bearer', user: USER, token: 'issued-image-token' });
    try {
      const pushed = await pushImage(registry.url, 'private/cluster-api-controller', 'v1.0.0', { architectures: ['amd64', 'arm64'] });
      await pushImage(registry.url, 'private/capi-init', 'v1.0.0');
      const config = `pinImages: true\nimages:\n  all:\n    repository: ${auth.host}/private\n`;

      const withEnv = manifestDir(config);
      const out = path.join(tempDir(), 'env');
      await render(
        options(withEnv, {
          env: isolatedEnv({ OCI_USERNAME: USER.username, OCI_PASSWORD: USER.password, CAPI_GITOPS_OCI_REGISTRIES: auth.host }),
        }),
        out,
      );
      assert.equal(deploymentImages(out).manager, `${auth.host}/private/cluster-api-controller:v1.0.0@${pushed.digest}`);
      assert.ok(
        auth.tokenRequests.some((r) => r.authorization === basicAuthorization(USER) && r.status === 200),
        'a token was issued for the credentials',
      );

      const env = isolatedEnv();
      const dockerAuth = Buffer.from(`${USER.username}:${USER.password}`).toString('base64');
      writeFileSync(
        path.join(env.DOCKER_CONFIG!, 'config.json'),
        JSON.stringify({ auths: { [`https://${auth.host}`]: { auth: dockerAuth } } }),
      );
      const withDockerConfig = manifestDir(config);
      const viaDocker = path.join(tempDir(), 'docker');
      const tokens = auth.tokenRequests.length;
      await render(options(withDockerConfig, { env }), viaDocker);
      assert.equal(deploymentImages(viaDocker).manager, `${auth.host}/private/cluster-api-controller:v1.0.0@${pushed.digest}`);
      assert.ok(auth.tokenRequests.length > tokens);
      for (const file of [...readTree(viaDocker).values(), readFileSync(path.join(withDockerConfig, 'capi-gitops.lock.yaml'), 'utf8')])
        assert.ok(!file.includes(USER.password) && !file.includes(dockerAuth), 'no credential in the output or the lock');

      // credsStore: not run; warned, and the anonymous token is refused with a hint that names the Docker config
      const helperEnv = isolatedEnv();
      writeFileSync(
        path.join(helperEnv.DOCKER_CONFIG!, 'config.json'),
        JSON.stringify({ auths: { [auth.host]: {} }, credsStore: 'desktop' }),
      );
      const warnings: Diagnostic[] = [];
      const failure = messages(
        await rejection(
          render({ ...options(manifestDir(config), { env: helperEnv }), onWarning: (w) => warnings.push(w) }, path.join(tempDir(), 'h')),
        ),
      );
      assert.match(
        warnings.map((w) => w.message).join('\n'),
        /names the credential helper docker-credential-desktop for 127\.0\.0\.1:\d+; capi-gitops does not run credential helpers/,
      );
      assert.match(failure, /token service .* refused/);
      assert.ok(!failure.includes(USER.password));
      // its hint, followed literally (the environment's OCI_* go only to the registries the runner names), pins
      const [helperWarning] = warnings.filter((w) => w.message.includes('credential helper'));
      const named = `set OCI_USERNAME and OCI_PASSWORD and CAPI_GITOPS_OCI_REGISTRIES=${auth.host}`;
      assert.ok(helperWarning?.hint?.endsWith(named), helperWarning?.hint);
      const followed = path.join(tempDir(), 'followed');
      const oci = { OCI_USERNAME: USER.username, OCI_PASSWORD: USER.password, CAPI_GITOPS_OCI_REGISTRIES: auth.host };
      await render(options(manifestDir(config), { env: { ...helperEnv, ...oci } }), followed);
      assert.equal(deploymentImages(followed).manager, `${auth.host}/private/cluster-api-controller:v1.0.0@${pushed.digest}`);
    } finally {
      await auth.close();
    }
  },
);

test(
  'a registry asking for Basic credentials: each hint, followed literally, pins — `docker login <host>` writes the auths entry read (docker/cli cli/config/credentials/file_store.go), or OCI_* with CAPI_GITOPS_OCI_REGISTRIES; never the provider configSecret, which image pulls do not read',
  { skip },
  async () => {
    const basic = await AuthProxy.start(registry, { scheme: 'basic', user: USER });
    try {
      await pushImage(registry.url, 'basic/cluster-api-controller', 'v1.0.0');
      await pushImage(registry.url, 'basic/capi-init', 'v1.0.0');
      const config = `pinImages: true\nimages:\n  all:\n    repository: ${basic.host}/basic\n`;
      const hints = (error: unknown) => (error as CapiGitopsError).diagnostics.map((d) => d.hint ?? '');

      // no credentials: one hint per image, saying what docker login writes, and what the OCI_* need
      const none = hints(await rejection(render(options(manifestDir(config)), path.join(tempDir(), 'none'))));
      assert.equal(none.length, 2);
      for (const hint of none) {
        assert.match(hint, new RegExp(`^run \`docker login ${basic.host}\` \\(with no credsStore it writes an auths entry to `));
        assert.ok(hint.endsWith(`set OCI_USERNAME and OCI_PASSWORD and CAPI_GITOPS_OCI_REGISTRIES=${basic.host}`), hint);
        assert.doesNotMatch(hint, /configSecret|OCI_USERNAME and OCI_PASSWORD in an auths entry/);
      }
      // the auths entry docker login writes pins
      const env = isolatedEnv();
      const dockerAuth = Buffer.from(`${USER.username}:${USER.password}`).toString('base64');
      writeFileSync(path.join(env.DOCKER_CONFIG!, 'config.json'), JSON.stringify({ auths: { [basic.host]: { auth: dockerAuth } } }));
      await render(options(manifestDir(config), { env }), path.join(tempDir(), 'docker'));
      // the CLI tells the registry's challenge once, not once for each repository that meets it
      const cliEnv = { ...process.env, ...env } as NodeJS.ProcessEnv;
      for (const name of ['OCI_USERNAME', 'OCI_PASSWORD', 'OCI_ACCESS_TOKEN', 'OCI_REFRESH_TOKEN']) delete cliEnv[name];
      const cli = await runCliAsync(['render', '-f', manifestDir(config), '-o', path.join(tempDir(), 'cli')], cliEnv);
      assert.equal(cli.code, 0, cli.stderr);
      assert.equal(cli.stderr.match(/asks for Basic authentication/g)?.length, 1, cli.stderr);

      // OCI_* set but the registry not listed: withheld, and the other way named is the Docker config, not a configSecret
      const oci = { OCI_USERNAME: USER.username, OCI_PASSWORD: USER.password };
      const withheld = hints(await rejection(render(options(manifestDir(config), { env: isolatedEnv(oci) }), path.join(tempDir(), 'w'))));
      for (const hint of withheld) {
        assert.match(
          hint,
          new RegExp(
            `add it to CAPI_GITOPS_OCI_REGISTRIES \\(e\\.g\\. CAPI_GITOPS_OCI_REGISTRIES=${basic.host}\\), or run \`docker login ${basic.host}\``,
          ),
        );
        assert.doesNotMatch(hint, /configSecret/);
        assert.ok(!hint.includes(USER.password));
      }
      await render(
        options(manifestDir(config), { env: isolatedEnv({ ...oci, CAPI_GITOPS_OCI_REGISTRIES: basic.host }) }),
        path.join(tempDir(), 'e'),
      );

      // wrong credentials: the hint names the auths entry, not OCI_* "in an auths entry"
      const wrong = isolatedEnv();
      writeFileSync(
        path.join(wrong.DOCKER_CONFIG!, 'config.json'),
        JSON.stringify({ auths: { [basic.host]: { username: USER.username, password: 'not-it' } } }),
      );
      for (const hint of hints(await rejection(render(options(manifestDir(config), { env: wrong }), path.join(tempDir(), 'x')))))
        assert.match(
          hint,
          new RegExp(`^check the auths entry for ${basic.host} in the Docker config file .*and its pull access to basic/`),
        );
    } finally {
      await basic.close();
    }
  },
);

test(
  'a registry behind the token flow refusing what the Docker config file gives: the hint names its auths entry (or docker login), never OCI_* alone or a configSecret (distribution token spec; docker/cli file_store.go)',
  { skip },
  async () => {
    const bearer = await AuthProxy.start(registry, { scheme: 'bearer', user: USER, token: 'refused-flow-token' });
    try {
      await pushImage(registry.url, 'refused/cluster-api-controller', 'v1.0.0');
      await pushImage(registry.url, 'refused/capi-init', 'v1.0.0');
      const config = `pinImages: true\nimages:\n  all:\n    repository: ${bearer.host}/refused\n`;
      const hints = async (entry?: Record<string, string>) => {
        const env = isolatedEnv();
        if (entry) writeFileSync(path.join(env.DOCKER_CONFIG!, 'config.json'), JSON.stringify({ auths: { [bearer.host]: entry } }));
        const error = await rejection(render(options(manifestDir(config), { env }), path.join(tempDir(), 'out')));
        return error.diagnostics.map((d) => d.hint ?? '');
      };
      const wrong = await hints({ auth: Buffer.from(`${USER.username}:not-it`).toString('base64') });
      assert.equal(wrong.length, 2);
      for (const hint of wrong)
        assert.match(
          hint,
          new RegExp(`^check the auths entry for ${bearer.host} in the Docker config file .*and its pull access to refused/`),
        );
      for (const hint of await hints())
        assert.match(hint, new RegExp(`^run \`docker login ${bearer.host}\` .*CAPI_GITOPS_OCI_REGISTRIES=${bearer.host}$`));
      for (const hint of [...wrong, ...(await hints())]) assert.doesNotMatch(hint, /configSecret/);
    } finally {
      await bearer.close();
    }
  },
);

test(
  'a fleet pins per cluster: the overlay turns pinImages on for one cluster, whose lock entry alone records images',
  { skip },
  async () => {
    await pushImage(registry.url, 'fleet/cluster-api-controller', 'v1.0.0');
    await pushImage(registry.url, 'fleet/capi-init', 'v1.0.0');
    const dir = manifestDir(`${MIRROR(front.host).replace('/mirror', '/fleet')}clusters:\n- name: eu-1\n  pinImages: true\n- name: us-1\n`);
    const out = path.join(tempDir(), 'out');
    await render(options(dir), out);
    const lock = await readLockfile(path.join(dir, 'capi-gitops.lock.yaml'));
    const byCluster = new Map(lock!.entries.map((e) => [e.clusters!.join(','), e]));
    assert.equal(byCluster.get('eu-1')?.images?.length, 2);
    assert.equal(byCluster.get('us-1')?.images, undefined);
    const tree = readTree(out);
    const deployment = (cluster: string) =>
      [...tree].find(([f, t]) => f.startsWith(`clusters/${cluster}/`) && /^kind: Deployment$/m.test(t))![1];
    assert.match(deployment('eu-1'), /image: 127\.0\.0\.1:\d+\/fleet\/cluster-api-controller:v1\.0\.0@sha256:/);
    assert.doesNotMatch(deployment('us-1'), /@sha256:/);
    await render(options(dir, { frozen: true }), out);
  },
);

test(
  'a re-pushed tag in a fleet whose clusters override images: --frozen names the cluster, and its hint (update refuses a fleet) followed literally pins the new digest for that cluster alone',
  { skip },
  async () => {
    for (const mirror of ['fleet-a', 'fleet-b']) {
      await pushImage(registry.url, `${mirror}/cluster-api-controller`, 'v1.0.0', { content: mirror });
      await pushImage(registry.url, `${mirror}/capi-init`, 'v1.0.0', { content: mirror });
    }
    const overlay = (name: string, mirror: string) => `- name: ${name}\n  images:\n    all:\n      repository: ${front.host}/${mirror}\n`;
    const dir = manifestDir(`pinImages: true\nclusters:\n${overlay('eu-1', 'fleet-a')}${overlay('us-1', 'fleet-b')}`);
    const out = path.join(tempDir(), 'out');
    await render(options(dir), out);
    const moved = `${front.host}/fleet-b/cluster-api-controller:v1.0.0`;
    const second = await pushImage(registry.url, 'fleet-b/cluster-api-controller', 'v1.0.0', { content: 'rebuilt' });

    const error = await rejection(render(options(dir, { frozen: true }), out));
    const diagnostic = error.diagnostics.find((d) => d.message.includes(`the tag of image ${moved} now serves ${second.digest}`));
    assert.ok(diagnostic, messages(error));
    assert.doesNotMatch(diagnostic.hint ?? '', /update --images/);
    assert.match(error.message, /cluster us-1/);
    // at the image's line in the us-1 entry, as a single cluster's lock tells it, not at the lockfile alone
    const lockLines = readFileSync(path.join(dir, 'capi-gitops.lock.yaml'), 'utf8').split('\n');
    const imageLine = lockLines.findIndex((l) => l.endsWith(`- image: ${moved}`)) + 1;
    assert.ok(imageLine > 0);
    assert.deepEqual([diagnostic.file, diagnostic.line, diagnostic.column], [path.join(dir, 'capi-gitops.lock.yaml'), imageLine, 9]);
    const refused = await rejection(update(options(dir), { images: true, providers: ['cluster-api'] }));
    assert.match(refused.message, /update works on a single cluster/);

    // the hint, literally: delete the image's two lines from every entry that lists it (the us-1 entry), then render
    const lockPath = path.join(dir, 'capi-gitops.lock.yaml');
    const text = readFileSync(lockPath, 'utf8');
    const lines = new RegExp(`^ *- image: ${moved.replace(/[.]/g, '\\.')}\\n *digest: sha256:[0-9a-f]{64}\\n`, 'm');
    assert.match(text, lines);
    writeFileSync(lockPath, text.replace(lines, ''));
    await render(options(dir), out);
    const tree = readTree(out);
    const deployment = (cluster: string) =>
      [...tree].find(([f, t]) => f.startsWith(`clusters/${cluster}/`) && /^kind: Deployment$/m.test(t))![1];
    assert.ok(deployment('us-1').includes(`${moved}@${second.digest}`));
    assert.match(deployment('eu-1'), /fleet-a\/cluster-api-controller:v1\.0\.0@sha256:/);
    await render(options(dir, { frozen: true }), out);
  },
);

test(
  "the fleet's moved-tag hint followed literally where the entry locks that image alone: the `images:` left empty reads as none, and the render pins the new digest",
  { skip },
  async () => {
    const one = 'registry.k8s.io/cluster-api/cluster-api-controller:v1.0.0';
    for (const mirror of ['alone-a', 'alone-b'])
      await pushImage(registry.url, `${mirror}/cluster-api-controller`, 'v1.0.0', { content: mirror });
    const overlay = (name: string, mirror: string) => `- name: ${name}\n  images:\n    all:\n      repository: ${front.host}/${mirror}\n`;
    const dir = manifestDir(`pinImages: true\nclusters:\n${overlay('eu-1', 'alone-a')}${overlay('us-1', 'alone-b')}`, {
      init: one,
      manager: one,
    });
    const out = path.join(tempDir(), 'out');
    await render(options(dir), out);
    const moved = `${front.host}/alone-b/cluster-api-controller:v1.0.0`;
    const second = await pushImage(registry.url, 'alone-b/cluster-api-controller', 'v1.0.0', { content: 'rebuilt' });
    const hint = (await rejection(render(options(dir, { frozen: true }), out))).diagnostics[0]?.hint ?? '';
    assert.match(hint, /delete the two lines of .* \(its `- image:` and `digest:`\) from every lockfile entry that lists it/);

    const lockPath = path.join(dir, 'capi-gitops.lock.yaml');
    const text = readFileSync(lockPath, 'utf8');
    const lines = new RegExp(`^ *- image: ${moved.replace(/[.]/g, '\\.')}\\n *digest: sha256:[0-9a-f]{64}\\n`, 'm');
    assert.match(text, lines);
    writeFileSync(lockPath, text.replace(lines, ''));
    await render(options(dir), out);
    assert.ok(readFileSync(lockPath, 'utf8').includes(`- image: ${moved}\n        digest: ${second.digest}`));
    await render(options(dir, { frozen: true }), out);
  },
);

test(
  'a registry warning in a fleet is told once, naming every cluster that asked that registry, not the first alone',
  { skip },
  async () => {
    await pushImage(registry.url, 'told/cluster-api-controller', 'v1.0.0');
    await pushImage(registry.url, 'told/capi-init', 'v1.0.0');
    const env = isolatedEnv();
    writeFileSync(path.join(env.DOCKER_CONFIG!, 'config.json'), JSON.stringify({ credsStore: 'desktop' }));
    const clusters = ['eu-1', 'eu-2', 'us-1'].map((name) => `- name: ${name}\n`).join('');
    const dir = manifestDir(`pinImages: true\n${MIRROR(front.host).replace('/mirror', '/told')}clusters:\n${clusters}`);
    const warnings: Diagnostic[] = [];
    await render({ ...options(dir, { env }), onWarning: (w) => warnings.push(w) }, path.join(tempDir(), 'out'));
    const helper = warnings.filter((w) => w.message.includes('docker-credential-desktop'));
    assert.deepEqual(
      helper.map((w) => w.object),
      ['clusters eu-1, eu-2, us-1'],
    );
  },
);

test('a fleet asks each registry once per image, however many clusters run it, and again once under --frozen', { skip }, async () => {
  await pushImage(registry.url, 'many/cluster-api-controller', 'v1.0.0');
  await pushImage(registry.url, 'many/capi-init', 'v1.0.0');
  const clusters = ['a', 'b', 'c', 'd'].map((name) => `- name: ${name}\n  variables:\n    ZONE: ${name}\n`).join('');
  const dir = manifestDir(`pinImages: true\n${MIRROR(front.host).replace('/mirror', '/many')}clusters:\n${clusters}`);
  const heads = () => front.requests.filter((r) => r.method === 'HEAD' && r.url.includes('/v2/many/')).length;
  const out = path.join(tempDir(), 'out');
  await render(options(dir), out);
  assert.equal(heads(), 2);
  await render(options(dir, { frozen: true }), out);
  assert.equal(heads(), 4);
});

test(
  'the corpus pinned against a registry holding its images (mirror override): every rendered image carries @sha256:, and kubectl kustomize builds the output',
  { skip: skip ?? (!kubectlAvailable() && 'kubectl not installed') },
  async () => {
    const names: [string, string][] = [
      ['cluster-api-controller', 'v1.12.0'],
      ['kubeadm-bootstrap-controller', 'v1.12.0'],
      ['kubeadm-control-plane-controller', 'v1.12.0'],
      ['cert-manager-cainjector', 'v1.13.0'],
      ['cert-manager-controller', 'v1.13.0'],
      ['cert-manager-webhook', 'v1.13.0'],
    ];
    for (const [name, tag] of names) await pushImage(registry.url, `corpus/${name}`, tag, { architectures: ['amd64', 'arm64'] });
    const dir = writeTempManifest({
      'providers.yaml': `${corpusManifest('v1.12.0', 'repository')}pinImages: true\nimages:\n  all:\n    repository: ${front.host}/corpus\n`,
    });
    const out = path.join(tempDir(), 'out');
    await render(options(dir), out);
    const images = [...readTree(out).values()].flatMap((text) =>
      [...text.matchAll(/^\s*(?:- )?image: "?([^"\s]+)"?$/gm)].map((m) => m[1]!),
    );
    assert.equal(new Set(images).size, names.length, `every corpus image: ${[...new Set(images)].join(', ')}`);
    for (const image of images) assert.match(image, new RegExp(`^127\\.0\\.0\\.1:\\d+/corpus/[a-z-]+:v1\\.1[23]\\.0@sha256:[0-9a-f]{64}$`));
    const built = kubectlKustomize(out);
    assert.equal(
      [...built.matchAll(/^\s*(?:- )?image: \S+@sha256:[0-9a-f]{64}$/gm)].length,
      images.length,
      'kustomize keeps every pinned image',
    );
  },
);

test(
  'the operator layout pins the operator and cert-manager; the providers, which the operator renders in the cluster, lock no images',
  { skip },
  async () => {
    const operator = await pushImage(registry.url, 'op/cluster-api-operator', 'v0.28.0', { architectures: ['amd64', 'arm64'] });
    for (const name of ['cert-manager-cainjector', 'cert-manager-controller', 'cert-manager-webhook'])
      await pushImage(registry.url, `op/${name}`, 'v1.13.0');
    const release = path.join(FIXTURES, 'operator-release', 'v0.28.0', 'operator-components.yaml');
    const dir = writeTempManifest({
      'm.yaml': `${corpusManifest('v1.12.0').replace('certManager:', `operator:\n  url: ${release}\ncertManager:`)}${MIRROR(front.host).replace('/mirror', '/op')}`,
    });
    const result = await renderManagementCluster({ ...options(dir), layout: 'operator', pinImages: true });
    const text = [...result.files.values()].join('\n');
    assert.ok(text.includes(`image: ${front.host}/op/cluster-api-operator:v0.28.0@${operator.digest}`));
    assert.equal([...text.matchAll(/image: "?127\.0\.0\.1:\d+\/op\/cert-manager-[a-z]+:v1\.13\.0@sha256:[0-9a-f]{64}"?$/gm)].length, 3);
    const entries = new Map(result.lock.lock.entries.map((e) => [e.kind, e]));
    assert.deepEqual(entries.get('Operator')?.images, [
      { image: `${front.host}/op/cluster-api-operator:v0.28.0`, digest: operator.digest },
    ]);
    assert.equal(entries.get('CertManager')?.images?.length, 3);
    assert.equal(entries.get('CoreProvider')?.images, undefined);
  },
);

test(
  'the CLI: render --pin-images writes the pinned images and their lock; plan prints the moved tag and the command that takes it',
  { skip },
  async () => {
    const first = await pushImage(registry.url, 'cli/cluster-api-controller', 'v1.0.0');
    await pushImage(registry.url, 'cli/capi-init', 'v1.0.0');
    // the registry itself: spawnSync blocks this process, where the recording front runs
    const dir = manifestDir(MIRROR(registry.host).replace('/mirror', '/cli'));
    const out = path.join(tempDir(), 'out');
    const env = isolatedCliEnv();
    const rendered = await runCli(['render', '-f', dir, '-o', out, '--pin-images'], { env });
    assert.equal(rendered.code, 0, rendered.stderr);
    assert.equal(deploymentImages(out).manager, `${registry.host}/cli/cluster-api-controller:v1.0.0@${first.digest}`);
    assert.match(readFileSync(path.join(out, 'README.md'), 'utf8'), /--pin-images/, 'the regenerate command keeps the flag');
    const second = await pushImage(registry.url, 'cli/cluster-api-controller', 'v1.0.0', { content: 'rebuilt' });
    const planned = await runCli(['plan', '-f', dir], { env });
    assert.equal(planned.code, 0, planned.stderr);
    assert.match(planned.stdout, /Images whose tag moved \(same tag, new content\):\n/);
    assert.ok(
      planned.stdout.includes(
        `cluster-api   ${registry.host}/cli/cluster-api-controller:v1.0.0   ${first.digest.slice(0, 19)}…   ${second.digest.slice(0, 19)}…`,
      ),
    );
    assert.match(planned.stdout, /The versions are up to date\.\n\nImages whose tag moved/);
    assert.match(planned.stdout, /To take the new digests: capi-gitops update -f \S+ --images\n$/);
  },
);

test(
  'check --pin-images without Config pinImages: the hint to render without --frozen keeps --pin-images, so followed literally it pins and check then passes',
  { skip },
  async () => {
    await pushImage(registry.url, 'hinted/cluster-api-controller', 'v1.0.0');
    await pushImage(registry.url, 'hinted/capi-init', 'v1.0.0');
    const dir = manifestDir(MIRROR(registry.host).replace('/mirror', '/hinted'));
    const out = path.join(tempDir(), 'out');
    const env = isolatedCliEnv();
    assert.equal((await runCli(['render', '-f', dir, '-o', out], { env })).code, 0);
    const checked = await runCli(['check', '-f', dir, '-o', out, '--pin-images'], { env });
    assert.equal(checked.code, 1, checked.stderr);
    const suggested = /hint: run `capi-gitops (render [^`]*)` without --frozen/.exec(checked.stderr)?.[1];
    assert.ok(suggested, checked.stderr);
    const followed = await runCli(suggested.split(' '), { env });
    assert.equal(followed.code, 0, followed.stderr);
    const again = await runCli(['check', '-f', dir, '-o', out, '--pin-images'], { env });
    assert.equal(again.code, 0, again.stderr);
  },
);

test(
  "check without --pin-images on a lock that --pin-images wrote: told at each entry's images in the lockfile, and the hint keeps the pins (--pin-images or Config pinImages), not a render that drops them",
  { skip },
  async () => {
    await pushImage(registry.url, 'unflagged/cluster-api-controller', 'v1.0.0');
    await pushImage(registry.url, 'unflagged/capi-init', 'v1.0.0');
    const dir = manifestDir(MIRROR(registry.host).replace('/mirror', '/unflagged'));
    const out = path.join(tempDir(), 'out');
    const env = isolatedCliEnv();
    assert.equal((await runCli(['render', '-f', dir, '-o', out, '--pin-images'], { env })).code, 0);
    const lockFile = path.join(dir, 'capi-gitops.lock.yaml');
    const imagesLine =
      readFileSync(lockFile, 'utf8')
        .split('\n')
        .findIndex((l) => l === '    images:') + 1;
    const checked = await runCli(['check', '-f', dir, '-o', out], { env });
    assert.equal(checked.code, 1, checked.stderr);
    // at the entry's first pinned image, under its images:
    assert.ok(checked.stderr.startsWith(`${lockFile}:${imagesLine + 1}:7: error: `), checked.stderr);
    assert.match(checked.stderr, /hint: run it again with --pin-images \(or set pinImages: true in the Config\)/);
    assert.doesNotMatch(checked.stderr, /hint: run `capi-gitops render -f \S+ -o \S+`, which updates the lockfile/);
    // followed literally: check again with --pin-images passes, the pins kept
    const followed = await runCli(['check', '-f', dir, '-o', out, '--pin-images'], { env });
    assert.equal(followed.code, 0, followed.stderr);
    assert.match(readFileSync(lockFile, 'utf8'), /digest: sha256:/);

    // pinImages: false says pinning is off on purpose: the way on drops the pins, and --pin-images is not offered
    const providers = path.join(dir, 'providers.yaml');
    writeFileSync(providers, readFileSync(providers, 'utf8').replace('kind: Config\n', 'kind: Config\npinImages: false\n'));
    const off = await runCli(['check', '-f', dir, '-o', out], { env });
    assert.equal(off.code, 1, off.stderr);
    assert.match(off.stderr, /this run pins none \(pinImages: false\)/);
    assert.doesNotMatch(off.stderr, /--pin-images/);
    const suggested = /to stop pinning them, run `capi-gitops (render [^`]*)` without --frozen/.exec(off.stderr)?.[1];
    assert.ok(suggested, off.stderr);
    assert.equal((await runCli(suggested.split(' '), { env })).code, 0);
    assert.equal((await runCli(['check', '-f', dir, '-o', out], { env })).code, 0);
    assert.doesNotMatch(readFileSync(lockFile, 'utf8'), /images:/);
  },
);

test(
  'a pinned image the render no longer runs (a container gone): --frozen tells the lock change at that image in the lockfile',
  { skip },
  async () => {
    await pushImage(registry.url, 'gone-sidecar/cluster-api-controller', 'v1.0.0');
    await pushImage(registry.url, 'gone-sidecar/capi-init', 'v1.0.0');
    const dir = manifestDir(`pinImages: true\n${MIRROR(registry.host).replace('/mirror', '/gone-sidecar')}`);
    const out = path.join(tempDir(), 'out');
    await render(options(dir), out);
    // as the lock was when the Deployment still ran a sidecar
    const lockFile = path.join(dir, 'capi-gitops.lock.yaml');
    const sidecar = `${registry.host}/gone-sidecar/aaa-sidecar:v1.0.0`;
    const text = readFileSync(lockFile, 'utf8').replace(
      /^( +)- image: /m,
      (_m, indent: string) => `${indent}- image: ${sidecar}\n${indent}  digest: sha256:${'1'.repeat(64)}\n${indent}- image: `,
    );
    writeFileSync(lockFile, text);
    const error = await rejection(render(options(dir, { frozen: true }), out));
    const line = text.split('\n').findIndex((l) => l.endsWith(`- image: ${sidecar}`)) + 1;
    assert.match(error.diagnostics[0]!.message, new RegExp(`image ${sidecar.replace(/[.]/g, '\\.')} removed`));
    assert.deepEqual([error.diagnostics[0]!.file, error.diagnostics[0]!.line, error.diagnostics[0]!.column], [lockFile, line, 9]);
  },
);

test(
  'check in GitHub Actions: the ::error annotation on a moved tag gives the update --images command as the text does, with -f, so followed literally it runs and check then passes',
  { skip },
  async () => {
    await pushImage(registry.url, 'annotated/cluster-api-controller', 'v1.0.0');
    await pushImage(registry.url, 'annotated/capi-init', 'v1.0.0');
    const dir = manifestDir(`pinImages: true\n${MIRROR(registry.host).replace('/mirror', '/annotated')}`);
    const out = path.join(tempDir(), 'out');
    const env = isolatedCliEnv({ GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: '' });
    assert.equal((await runCli(['render', '-f', dir, '-o', out], { env })).code, 0);
    await pushImage(registry.url, 'annotated/cluster-api-controller', 'v1.0.0', { content: 'rebuilt' });
    const checked = await runCli(['check', '-f', dir, '-o', out], { env });
    assert.equal(checked.code, 1, checked.stderr);
    const annotation = checked.stderr.split('\n').find((line) => line.startsWith('::error file='));
    assert.ok(annotation, checked.stderr);
    const annotated = /\(hint: run `capi-gitops ([^`]*)`/.exec(annotation)?.[1];
    const printed = /hint: run `capi-gitops ([^`]*)`/.exec(
      checked.stderr.slice(checked.stderr.indexOf(annotation) + annotation.length),
    )?.[1];
    assert.equal(annotated, printed, 'the annotation and the message give one command');
    const followed = await runCli(annotated!.split(' '), { env });
    assert.equal(followed.code, 0, followed.stderr);
    assert.equal((await runCli(['render', '-f', dir, '-o', out], { env })).code, 0);
    const again = await runCli(['check', '-f', dir, '-o', out], { env });
    assert.equal(again.code, 0, again.stderr);
  },
);

test(
  'a cluster added to a fleet pins the digests the fleet already locked for the same images, even after the tag moved: one tag, one content across the fleet',
  { skip },
  async () => {
    const first = await pushImage(registry.url, 'grow/cluster-api-controller', 'v1.0.0');
    await pushImage(registry.url, 'grow/capi-init', 'v1.0.0');
    const config = (names: string[]) =>
      `pinImages: true\n${MIRROR(front.host).replace('/mirror', '/grow')}clusters:\n${names.map((n) => `- name: ${n}\n  variables:\n    ZONE: ${n}\n`).join('')}`;
    const dir = manifestDir(config(['a', 'b']));
    const out = path.join(tempDir(), 'out');
    await render(options(dir), out);
    await pushImage(registry.url, 'grow/cluster-api-controller', 'v1.0.0', { content: 'rebuilt' });
    writeFileSync(
      path.join(dir, 'providers.yaml'),
      readFileSync(path.join(dir, 'providers.yaml'), 'utf8').replace(config(['a', 'b']), config(['a', 'b', 'c'])),
    );
    await render(options(dir), out);
    const lock = await readLockfile(path.join(dir, 'capi-gitops.lock.yaml'));
    const digests = new Set(
      lock!.entries.flatMap((e) => (e.images ?? []).filter((i) => i.image.includes('controller')).map((i) => i.digest)),
    );
    assert.deepEqual([...digests], [first.digest]);
    const written = [...readTree(out).values()].join('\n');
    const pinned = new Set([...written.matchAll(/grow\/cluster-api-controller:v1\.0\.0@(sha256:[0-9a-f]{64})/g)].map((m) => m[1]));
    assert.deepEqual([...pinned], [first.digest]);
    assert.ok(
      [...readTree(out).keys()].some((file) => file.startsWith('clusters/c/')),
      'cluster c is rendered',
    );
  },
);

test(
  'an image the mirror lacks is told with the copy that fills it, literally: the image the components wrote as the source and the mirror reference as the destination (skopeo told the plain-HTTP mirror)',
  { skip },
  async () => {
    await pushImage(registry.url, 'half/capi-init', 'v1.0.0');
    const dir = manifestDir(`pinImages: true\nimages:\n  all:\n    repository: ${front.host}/half\n`);
    const error = await rejection(render(options(dir), path.join(tempDir(), 'out')));
    assert.ok(error instanceof CapiGitopsError);
    assert.equal(error.diagnostics.length, 1, messages(error));
    const [problem] = error.diagnostics;
    const source = 'registry.k8s.io/cluster-api/cluster-api-controller:v1.0.0';
    const mirror = `${front.host}/half/cluster-api-controller:v1.0.0`;
    assert.match(problem!.message, /tag v1\.0\.0 not found in 127\.0\.0\.1:\d+\/half\/cluster-api-controller/);
    assert.equal(
      problem!.hint,
      `copy ${source} into the mirror, all architectures: \`skopeo copy --all --dest-tls-verify=false docker://${source} docker://${mirror}\` ` +
        `or \`crane copy ${source} ${mirror}\`; else check the tag and the image overrides (Config images)`,
    );
  },
);

test(
  'images moved to another mirror that serves other content for the same name and tag are warned as a moved tag is, with both digests and the copy that restores what was pinned; a mirror serving the same digest is not (docs/images.md)',
  { skip },
  async () => {
    for (const repository of ['old-mirror', 'new-mirror'])
      for (const name of ['capi-init', 'cluster-api-controller']) await pushImage(registry.url, `${repository}/${name}`, 'v1.0.0');
    const mirror = (host: string, repository: string) => `pinImages: true\nimages:\n  all:\n    repository: ${host}/${repository}\n`;
    const dir = manifestDir(mirror(front.host, 'old-mirror'));
    const out = path.join(tempDir(), 'out');
    await render(options(dir), out);
    const file = path.join(dir, 'providers.yaml');
    const locked = (await readLockfile(path.join(dir, 'capi-gitops.lock.yaml')))!.entries[0]!.images!;
    const pinned = (name: string) => locked.find((i) => i.image.endsWith(`/${name}:v1.0.0`))!.digest;

    // the same repository through another registry host: the same content, no warning
    writeFileSync(file, readFileSync(file, 'utf8').replace(mirror(front.host, 'old-mirror'), mirror(registry.host, 'old-mirror')));
    const same: Diagnostic[] = [];
    await render({ ...options(dir), onWarning: (w) => same.push(w) }, out);
    assert.deepEqual(
      same.map((w) => w.message),
      [],
    );

    writeFileSync(file, readFileSync(file, 'utf8').replace(mirror(registry.host, 'old-mirror'), mirror(registry.host, 'new-mirror')));
    const warnings: Diagnostic[] = [];
    await render({ ...options(dir), onWarning: (w) => warnings.push(w) }, out);
    const moved = warnings.filter((w) => /with other content/.test(w.message));
    assert.equal(moved.length, 2, warnings.map((w) => w.message).join('\n'));
    const manager = moved.find((w) => w.message.includes('cluster-api-controller'))!;
    const now = (await readLockfile(path.join(dir, 'capi-gitops.lock.yaml')))!.entries[0]!.images!.find((i) =>
      i.image.endsWith('/cluster-api-controller:v1.0.0'),
    )!.digest;
    assert.match(
      manager.message,
      new RegExp(
        `^image ${registry.host}/new-mirror/cluster-api-controller:v1\\.0\\.0 \\(container manager of .*\\) is pinned to ${now}, ` +
          `where the lockfile pinned ${registry.host}/old-mirror/cluster-api-controller:v1\\.0\\.0 at ${pinned('cluster-api-controller')}`,
      ),
    );
    assert.match(
      manager.hint!,
      new RegExp(
        `\`crane copy ${registry.host}/old-mirror/cluster-api-controller@${pinned('cluster-api-controller')} ${registry.host}/new-mirror/cluster-api-controller:v1\\.0\\.0\``,
      ),
    );
    assert.match(manager.hint!, /then run `capi-gitops update --images cluster-api`/);
    assert.equal(path.basename(manager.file ?? ''), 'providers.yaml');
  },
);

test(
  'a tag the registry lacks is told at the Config images key that chose the image, else at the provider object (file:line:column)',
  { skip },
  async () => {
    await pushImage(registry.url, 'located/capi-init', 'v1.0.0');
    await pushImage(registry.url, 'located/cluster-api-controller', 'v1.0.0');
    const config = `pinImages: true\nimages:\n  all:\n    repository: ${front.host}/located\n  cluster-api/cluster-api-controller:\n    tag: v9.9.9\n`;
    const dir = manifestDir(config);
    const file = path.join(dir, 'providers.yaml');
    const keyLine = readFileSync(file, 'utf8').split('\n').indexOf('  cluster-api/cluster-api-controller:') + 1;
    const overridden = await rejection(render(options(dir), path.join(tempDir(), 'out')));
    assert.ok(overridden instanceof CapiGitopsError);
    const [problem] = overridden.diagnostics;
    assert.match(problem!.message, /tag v9\.9\.9 not found in 127\.0\.0\.1:\d+\/located\/cluster-api-controller/);
    assert.deepEqual([path.basename(problem!.file ?? ''), problem!.line, problem!.column], ['providers.yaml', keyLine, 3]);

    const plain = manifestDir('pinImages: true\n', {
      init: `${front.host}/located/capi-init:v1.0.0`,
      manager: `${front.host}/located/cluster-api-controller:v9.9.9`,
    });
    const unlocated = await rejection(render(options(plain), path.join(tempDir(), 'out')));
    assert.ok(unlocated instanceof CapiGitopsError);
    const [missing] = unlocated.diagnostics;
    assert.match(missing!.message, /tag v9\.9\.9 not found/);
    assert.deepEqual([path.basename(missing!.file ?? ''), missing!.line], ['providers.yaml', 1]);
  },
);

test(
  "cert-manager's image a registry lacks, with no images override, is told at the Config's certManager key, not with no file",
  { skip },
  async () => {
    const releases = tempDir('capi-gitops-pin-cert-manager-');
    mkdirSync(path.join(releases, 'v1.0.0'), { recursive: true });
    const deployment = components({ init: `${front.host}/nocm/wait:v1.0.0`, manager: `${front.host}/nocm/cert-manager-controller:v1.0.0` })
      .replaceAll('capi-system', 'cert-manager')
      .replaceAll('capi-controller-manager', 'cert-manager');
    writeFileSync(path.join(releases, 'v1.0.0', 'cert-manager.yaml'), deployment);
    const url = pathToFileURL(path.join(releases, 'latest', 'cert-manager.yaml')).href;
    const dir = manifestDir('pinImages: true\n');
    const file = path.join(dir, 'providers.yaml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('certManager:\n  enabled: false\n', `certManager:\n  version: v1.0.0\n  url: ${url}\n`),
    );
    const error = await rejection(render(options(dir), path.join(tempDir(), 'out')));
    const problem = error.diagnostics.find((d) => d.message.includes('nocm/cert-manager-controller'));
    assert.ok(problem, messages(error));
    const keyLine = readFileSync(file, 'utf8').split('\n').indexOf('certManager:') + 1;
    assert.deepEqual([problem.file, problem.line, problem.column], [file, keyLine, 1]);
  },
);

test(
  "a tag the registry lacks, chosen by a configSecret images override, is told at the Secret's images key (operator: the configSecret overrides Config images)",
  { skip },
  async () => {
    await pushImage(registry.url, 'secret-located/capi-init', 'v1.0.0');
    await pushImage(registry.url, 'secret-located/cluster-api-controller', 'v1.0.0');
    const secret = `  configSecret: {name: capi-variables}
---
apiVersion: v1
kind: Secret
metadata: {name: capi-variables, namespace: capi-system}
stringData:
  images: |
    cluster-api/cluster-api-controller:
      tag: v9.9.9
`;
    const config = `pinImages: true\nsecrets: {public: [images]}\nimages:\n  all:\n    repository: ${front.host}/secret-located\n`;
    const dir = manifestDir(config, undefined, { spec: secret });
    const keyLine = readFileSync(path.join(dir, 'providers.yaml'), 'utf8').split('\n').indexOf('  images: |') + 1;
    const error = await rejection(render(options(dir), path.join(tempDir(), 'out')));
    assert.ok(error instanceof CapiGitopsError);
    const [problem] = error.diagnostics;
    assert.match(problem!.message, /tag v9\.9\.9 not found in 127\.0\.0\.1:\d+\/secret-located\/cluster-api-controller/);
    assert.deepEqual([path.basename(problem!.file ?? ''), problem!.line, problem!.column], ['providers.yaml', keyLine, 3]);
  },
);

test('--frozen after an images override changed: the image the lockfile lacks is told at the Config images key', { skip }, async () => {
  for (const mirror of ['first-mirror', 'moved-mirror'])
    for (const image of ['capi-init', 'cluster-api-controller']) await pushImage(registry.url, `${mirror}/${image}`, 'v1.0.0');
  const dir = manifestDir(`pinImages: true\n${MIRROR(front.host).replace('/mirror', '/first-mirror')}`);
  await render(options(dir), path.join(tempDir(), 'out'));
  const file = path.join(dir, 'providers.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace(`${front.host}/first-mirror`, `${front.host}/moved-mirror`));
  const keyLine = readFileSync(file, 'utf8').split('\n').indexOf('  all:') + 1;
  const error = await rejection(render(options(dir, { frozen: true }), path.join(tempDir(), 'out')));
  assert.ok(error instanceof CapiGitopsError);
  const [problem] = error.diagnostics;
  assert.match(problem!.message, /the lockfile has no digest for image 127\.0\.0\.1:\d+\/moved-mirror\//);
  assert.deepEqual([path.basename(problem!.file ?? ''), problem!.line, problem!.column], ['providers.yaml', keyLine, 3]);
});

test(
  "the CLI: a fleet's moved-tag hint names the render to run with the run's -f and -o, as typed, and no --frozen",
  { skip },
  async () => {
    for (const mirror of ['cli-a', 'cli-b']) {
      await pushImage(registry.url, `${mirror}/cluster-api-controller`, 'v1.0.0', { content: mirror });
      await pushImage(registry.url, `${mirror}/capi-init`, 'v1.0.0', { content: mirror });
    }
    const overlay = (name: string, mirror: string) => `- name: ${name}\n  images:\n    all:\n      repository: ${front.host}/${mirror}\n`;
    const dir = manifestDir(`pinImages: true\nclusters:\n${overlay('eu-1', 'cli-a')}${overlay('us-1', 'cli-b')}`);
    const out = path.join(tempDir(), 'out');
    const env = isolatedCliEnv();
    const first = await runCliAsync(['render', '-f', dir, '-o', out], env);
    assert.equal(first.code, 0, first.stderr);
    await pushImage(registry.url, 'cli-b/cluster-api-controller', 'v1.0.0', { content: 'rebuilt' });
    const frozen = await runCliAsync(['render', '-f', dir, '-o', out, '--frozen'], env);
    assert.equal(frozen.code, 1, frozen.stderr);
    const hint = frozen.stderr.split('\n').find((line) => line.includes('update refuses a fleet'));
    assert.ok(hint, frozen.stderr);
    assert.ok(hint.includes(`run \`capi-gitops render -f ${dir} -o ${out}\` to pin the digest`), hint);
    // check implies --frozen, and its hint names the render too (no --cluster: the fleet's lock is one file)
    const checked = await runCliAsync(['check', '-f', dir, '-o', out, '--cluster', 'us-1'], env);
    assert.equal(checked.code, 1, checked.stderr);
    assert.ok(checked.stderr.includes(`run \`capi-gitops render -f ${dir} -o ${out}\` to pin the digest`), checked.stderr);
  },
);
