import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import dns from 'node:dns';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import type { ProviderKind } from '../../src/core/provider.js';
import { ArtifactCache } from '../../src/sources/cache.js';
import { sha256Hex } from '../../src/core/digest.js';
import type { SourceProgressEvent } from '../../src/sources/base/http.js';
import { ociCredentials, parseChallenge, realmAcceptable } from '../../src/sources/oci/auth.js';
import { parseOciReference } from '../../src/sources/oci/reference.js';
import { ociFileNames, openOciRepository, type OciOptions } from '../../src/sources/oci/repository.js';
import { ArtifactNotFoundError, type ProviderRepository } from '../../src/sources/source.js';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';
import { rejection } from '../helpers/assertions.js';
import {
  AuthProxy,
  basicAuthorization,
  htpasswdSkipReason,
  OCI_EMPTY_CONFIG,
  OCI_INDEX,
  OCI_MANIFEST,
  pushArtifact,
  pushBlob,
  pushManifest,
  Registry,
  registrySkipReason,
  type PushFile,
} from '../helpers/registry.js';

type Hooks = { after: (fn: () => Promise<void> | void) => void };

const CORE_METADATA = readFileSync(path.join(CORPUS_REPOSITORY, 'cluster-api', 'v1.12.0', 'metadata.yaml'));
const CORE_COMPONENTS = readFileSync(path.join(CORPUS_REPOSITORY, 'cluster-api', 'v1.12.0', 'core-components.yaml'));
const USER = { username: 'capi-puller', password: 'Pa55-w0rd-never-printed' };
const ACCESS_TOKEN = 'oci-access-token-never-printed';
const NO_ENV: Record<string, string | undefined> = {};
const ORIGIN = { file: 'providers.yaml', line: 7, column: 1, object: 'CoreProvider/capi-system/cluster-api' };

async function tempCache(t: Hooks): Promise<ArtifactCache> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'capi-gitops-oci-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return new ArtifactCache(dir);
}

// ---- reference, names, credentials, challenges (no registry) ---------------------------------

test('references split as the operator splits them, with and without http:// (cluster-api-operator oci_source_parse_test.go Test_parseOCISource)', () => {
  const cases: [string, { registry: string; repository: string; tag?: string }][] = [
    ['registry.example/image:v1.1.0', { registry: 'registry.example', repository: 'image', tag: 'v1.1.0' }],
    ['registry.example/image', { registry: 'registry.example', repository: 'image', tag: undefined }],
    ['registry:5050/image', { registry: 'registry:5050', repository: 'image', tag: undefined }],
    ['registry:5050/image:v1.1.0', { registry: 'registry:5050', repository: 'image', tag: 'v1.1.0' }],
    ['ghcr.io/org/sub/cluster-api:v1.12.0', { registry: 'ghcr.io', repository: 'org/sub/cluster-api', tag: 'v1.12.0' }],
  ];
  for (const [reference, expected] of cases) {
    assert.deepEqual(parseOciReference(reference), { ...expected, digest: undefined, plainHttp: false }, reference);
    assert.deepEqual(parseOciReference(`http://${reference}`), { ...expected, digest: undefined, plainHttp: true }, `http://${reference}`);
  }
});

test('a sha256 digest pins the manifest (an extension: the operator cannot parse one)', () => {
  const digest = `sha256:${'a'.repeat(64)}`;
  assert.deepEqual(parseOciReference(`localhost:5000/capi/core@${digest}`), {
    registry: 'localhost:5000',
    repository: 'capi/core',
    tag: undefined,
    digest,
    plainHttp: false,
  });
});

test('userinfo in a reference is refused as credentials, never quoted, with where credentials go (not as a bad digest)', () => {
  assert.throws(
    () => parseOciReference('ciuser:hunter2-in-a-reference@127.0.0.1:5000/capi/cluster-api'),
    (error: unknown) => {
      assert.ok(error instanceof CapiGitopsError);
      assert.ok(!JSON.stringify(error.diagnostics).includes('hunter2'), error.message);
      assert.match(error.message, /credentials \(user:password@\) are not part of an OCI reference/);
      assert.match(error.diagnostics[0]!.hint ?? '', /OCI_USERNAME and OCI_PASSWORD in the provider's configSecret/);
      return true;
    },
  );
});

test('malformed references are refused with the expected form', () => {
  const problems: [string, RegExp][] = [
    ['image', /no registry host/],
    ['https://ghcr.io/org/image', /"https:\/\/" prefix/],
    ['oci://ghcr.io/org/image:v1', /"oci:\/\/" prefix/],
    ['ghcr.io/Org/Image', /not a repository name/],
    ['ghcr.io/org/image:bad+tag', /not a valid tag/],
    ['ghcr.io/org/image@sha256:1234', /not a sha256 digest/],
  ];
  for (const [reference, message] of problems) {
    assert.throws(
      () => parseOciReference(reference),
      (error: unknown) => {
        assert.ok(error instanceof CapiGitopsError);
        assert.match(error.message, message, reference);
        assert.match(error.diagnostics[0].expected ?? '', /\[http:\/\/\]<registry>/);
        return true;
      },
    );
  }
});

test('file names use the operator type names and the provider version (oci_source.go NewMapStore; api/v1alpha2 *_wrapper.go GetType)', () => {
  assert.deepEqual(ociFileNames('ControlPlaneProvider', 'kubeadm', 'v1.12.0'), {
    metadata: ['control-plane-kubeadm-v1.12.0-metadata.yaml', 'metadata.yaml'],
    components: ['control-plane-kubeadm-v1.12.0-components.yaml', 'control-plane-components.yaml', 'components.yaml'],
  });
  const types: Record<ProviderKind, string> = {
    CoreProvider: 'core',
    BootstrapProvider: 'bootstrap',
    ControlPlaneProvider: 'control-plane',
    InfrastructureProvider: 'infrastructure',
    IPAMProvider: 'ipam',
    RuntimeExtensionProvider: 'runtimeextension',
    AddonProvider: 'addon',
  };
  for (const [kind, type] of Object.entries(types) as [ProviderKind, string][]) {
    assert.equal(ociFileNames(kind, 'x', 'v1.0.0').components[1], `${type}-components.yaml`, kind);
  }
});

test('credentials come from the configSecret when it has any OCI_* key, else from the environment for a registry the runner lists, never mixed (oci_source.go OCIAuthentication)', () => {
  const registry = new URL('https://registry.example.com');
  const env = {
    OCI_USERNAME: 'env-user',
    OCI_PASSWORD: 'env-pass',
    OCI_ACCESS_TOKEN: 'env-token',
    HOME: '/root',
    CAPI_GITOPS_OCI_REGISTRIES: 'registry.example.com',
  };
  assert.deepEqual(ociCredentials({ OCI_ACCESS_TOKEN: 'secret-token', other: 'x' }, env, registry), {
    credentials: { accessToken: 'secret-token' },
  });
  assert.deepEqual(ociCredentials({ unrelated: 'x' }, env, registry), {
    credentials: { username: 'env-user', password: 'env-pass', accessToken: 'env-token' },
  });
  assert.deepEqual(ociCredentials(undefined, { OCI_REFRESH_TOKEN: 'r', CAPI_GITOPS_OCI_REGISTRIES: 'registry.example.com' }, registry), {
    credentials: { refreshToken: 'r' },
  });
  assert.deepEqual(ociCredentials({}, {}, registry), {});
  assert.deepEqual(ociCredentials({ OCI_USERNAME: '' }, {}, registry), {});
});

test('WWW-Authenticate challenges are read with quoted commas and escapes', () => {
  assert.deepEqual(
    parseChallenge('Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull,push"'),
    {
      scheme: 'bearer',
      params: { realm: 'https://auth.example/token', service: 'registry.example', scope: 'repository:a/b:pull,push' },
    },
  );
  assert.deepEqual(parseChallenge('Basic realm="say \\"hi\\""'), { scheme: 'basic', params: { realm: 'say "hi"' } });
  assert.deepEqual(parseChallenge('Bearer realm=https://auth.example/token, service=reg'), {
    scheme: 'bearer',
    params: { realm: 'https://auth.example/token', service: 'reg' },
  });
  assert.equal(parseChallenge(''), undefined);
  assert.equal(parseChallenge(null), undefined);
});

test('credentials go to a token realm only over https, to loopback, or when the registry itself is plain HTTP', () => {
  assert.equal(realmAcceptable(new URL('https://auth.example/token'), false), true);
  assert.equal(realmAcceptable(new URL('http://auth.example/token'), false), false);
  assert.equal(realmAcceptable(new URL('http://auth.example/token'), true), true);
  assert.equal(realmAcceptable(new URL('http://127.0.0.1:9/token'), false), true);
  assert.equal(realmAcceptable(new URL('ftp://auth.example/token'), true), false);
});

test('opening makes no request; the default version is the reference tag, else latest; a pinned tag is the only version', async () => {
  const base: OciOptions = { providerType: 'BootstrapProvider', providerName: 'kubeadm', env: NO_ENV };
  const floating = openOciRepository('registry.invalid/capi/kubeadm', base);
  assert.equal(floating.sourceType, 'oci');
  assert.equal(floating.defaultVersion, 'latest');
  assert.equal(floating.componentsFile, 'bootstrap-components.yaml');
  const pinned = openOciRepository('registry.invalid/capi/kubeadm:v1.12.0', base);
  assert.equal(pinned.defaultVersion, 'v1.12.0');
  assert.deepEqual(await pinned.listVersions(), ['v1.12.0']);
  const error = await rejection(floating.getFile('latest', 'metadata.yaml'));
  assert.match(error.message, /"latest" has not been resolved/);
  const byDigest = openOciRepository(`registry.invalid/capi/kubeadm@sha256:${'b'.repeat(64)}`, base);
  assert.match((await rejection(byDigest.listVersions())).message, /pins one artifact by digest/);
});

// ---- against a real registry -------------------------------------------------------------------

const skip = registrySkipReason();
const skipBasic = htpasswdSkipReason();
let registry: Registry;

before(async () => {
  if (!skip) registry = await Registry.start();
});
after(async () => {
  await registry?.stop();
});

let repositoryCounter = 0;
/** A fresh repository name per test, so tests sharing the registry never see each other's tags. */
function freshRepository(prefix: string): string {
  repositoryCounter += 1;
  return `capi/${prefix}-${repositoryCounter}`;
}

interface Opened {
  repository: ProviderRepository;
  logs: string[];
  events: SourceProgressEvent[];
}

function open(reference: string, options: Partial<OciOptions> = {}): Opened {
  const logs: string[] = [];
  const events: SourceProgressEvent[] = [];
  const repository = openOciRepository(reference, {
    providerType: 'CoreProvider',
    providerName: 'cluster-api',
    env: NO_ENV,
    origin: ORIGIN,
    log: (line) => logs.push(line),
    onProgress: (event) => events.push(event),
    ...options,
    http: { retries: 0, timeoutMs: 10_000, sleep: async () => undefined, ...options.http },
  });
  return { repository, logs, events };
}

function coreFiles(): PushFile[] {
  return [
    { title: 'metadata.yaml', content: CORE_METADATA },
    { title: 'core-components.yaml', content: CORE_COMPONENTS },
  ];
}

test(
  'the tag defaults to the provider version; real v1.12.0 artifacts pull byte for byte (oci_source.go parseOCISource, CopyOCIStore)',
  { skip },
  async () => {
    const name = freshRepository('core');
    const pushed = await pushArtifact(registry.url, name, 'v1.12.0', coreFiles());
    const { repository, events } = open(`http://${registry.host}/${name}`);

    const metadata = await repository.getFile('v1.12.0', 'metadata.yaml');
    const components = await repository.getFile('v1.12.0', repository.componentsFile);
    assert.equal(metadata.text, CORE_METADATA.toString('utf8'));
    assert.equal(components.text, CORE_COMPONENTS.toString('utf8'));
    assert.equal(components.sha256, sha256Hex(CORE_COMPONENTS));
    assert.equal(components.name, 'core-components.yaml');
    assert.equal(components.url, `oci://${registry.host}/${name}@${pushed.manifest.digest}#core-components.yaml`);
    assert.ok(
      events.some(
        (event) =>
          event.type === 'done' && event.file === 'core-components.yaml' && event.bytes === CORE_COMPONENTS.length && !event.cached,
      ),
    );
  },
);

test(
  'an explicit tag is pulled whatever the version, and the version still names the files (oci_source.go parseOCISource, GetComponents)',
  { skip },
  async () => {
    const name = freshRepository('explicit');
    await pushArtifact(registry.url, name, 'stable', [
      { title: 'core-cluster-api-v1.12.0-metadata.yaml', content: 'full-name metadata' },
      { title: 'metadata.yaml', content: 'plain metadata' },
      { title: 'core-cluster-api-v1.12.0-components.yaml', content: 'full-name components' },
      { title: 'core-components.yaml', content: 'typed components' },
      { title: 'components.yaml', content: 'plain components' },
    ]);
    const { repository } = open(`http://${registry.host}/${name}:stable`);
    assert.equal(repository.defaultVersion, 'stable');
    assert.deepEqual(await repository.listVersions(), ['stable']);
    assert.equal((await repository.getFile('v1.12.0', 'metadata.yaml')).text, 'full-name metadata');
    assert.equal((await repository.getFile('v1.12.0', 'core-components.yaml')).text, 'full-name components');
    // Another version names other files: the full names no longer match.
    assert.equal((await repository.getFile('v1.11.0', 'metadata.yaml')).text, 'plain metadata');
    assert.equal((await repository.getFile('v1.11.0', 'core-components.yaml')).text, 'typed components');
  },
);

test(
  'file names fall back full → typed → components.yaml; an empty layer counts as missing; clusterctl spellings are not operator names (oci_source.go GetMetadata, GetComponents)',
  { skip },
  async () => {
    const name = freshRepository('fallback');
    await pushArtifact(registry.url, name, 'v1.12.0', [
      { title: 'metadata.yaml', content: 'metadata' },
      { title: 'control-plane-kubeadm-v1.12.0-components.yaml', content: '' },
      { title: 'control-plane-components.yaml', content: 'typed' },
      { title: 'components.yaml', content: 'plain' },
    ]);
    const reference = `http://${registry.host}/${name}`;
    const controlPlane = open(reference, { providerType: 'ControlPlaneProvider', providerName: 'kubeadm' }).repository;
    assert.equal(controlPlane.componentsFile, 'control-plane-components.yaml');
    assert.equal((await controlPlane.getFile('v1.12.0', controlPlane.componentsFile)).text, 'typed');
    assert.equal((await controlPlane.getFile('v1.12.0', 'components.yaml')).text, 'typed');

    const plainName = freshRepository('plain');
    await pushArtifact(registry.url, plainName, 'v0.3.0', [
      { title: 'metadata.yaml', content: 'metadata' },
      { title: 'runtime-extension-components.yaml', content: 'clusterctl spelling' },
      { title: 'components.yaml', content: 'plain' },
    ]);
    const runtime = open(`http://${registry.host}/${plainName}`, {
      providerType: 'RuntimeExtensionProvider',
      providerName: 'test',
    }).repository;
    assert.equal(runtime.componentsFile, 'runtime-extension-components.yaml');
    assert.equal((await runtime.getFile('v0.3.0', runtime.componentsFile)).text, 'plain');
  },
);

test(
  'a missing file is ArtifactNotFoundError naming the provider, version, reference, names tried and layers present',
  { skip },
  async () => {
    const name = freshRepository('nocomponents');
    await pushArtifact(registry.url, name, 'v1.12.0', [
      { title: 'metadata.yaml', content: 'metadata' },
      { title: 'README.md', content: 'hello' },
    ]);
    const { repository } = open(`http://${registry.host}/${name}`);
    const error = await rejection(repository.getFile('v1.12.0', 'core-components.yaml'));
    assert.ok(error instanceof ArtifactNotFoundError);
    assert.match(
      error.message,
      new RegExp(`OCI artifact ${registry.host}/${name}:v1.12.0 has no components for CoreProvider cluster-api version v1.12.0`),
    );
    assert.equal(
      error.diagnostics[0].expected,
      'a non-empty layer titled (org.opencontainers.image.title) core-cluster-api-v1.12.0-components.yaml or core-components.yaml or components.yaml',
    );
    assert.match(error.diagnostics[0].hint ?? '', /README\.md, metadata\.yaml/);
    assert.equal(error.diagnostics[0].file, 'providers.yaml');
  },
);

test('a missing tag is ArtifactNotFoundError naming the provider, version and reference', { skip }, async () => {
  const name = freshRepository('missing');
  await pushArtifact(registry.url, name, 'v1.12.0', coreFiles());
  const { repository } = open(`http://${registry.host}/${name}`);
  const error = await rejection(repository.getFile('v9.9.9', 'metadata.yaml'));
  assert.ok(error instanceof ArtifactNotFoundError);
  assert.match(
    error.message,
    new RegExp(`OCI artifact ${registry.host}/${name}:v9\\.9\\.9 not found for CoreProvider cluster-api version v9\\.9\\.9`),
  );
  assert.match(error.message, /answered 404 MANIFEST_UNKNOWN/);
  assert.match(error.diagnostics[0].expected ?? '', /tag v9\.9\.9 \(the tag defaults to the provider version\)/);
});

const TAGS = ['v1.10.4', 'v1.11.0', 'v1.12.0', 'v1.12.1-rc.0', 'latest'];

test('versions are the repository tags (distribution GET /v2/<name>/tags/list)', { skip }, async () => {
  const name = freshRepository('tags');
  for (const tag of TAGS) await pushArtifact(registry.url, name, tag, [{ title: 'metadata.yaml', content: tag }]);
  const { repository, events } = open(`http://${registry.host}/${name}`);
  assert.deepEqual([...(await repository.listVersions())].sort(), [...TAGS].sort());
  assert.ok(events.some((event) => event.type === 'resolve'));
  const missing = await rejection(open(`http://${registry.host}/${freshRepository('absent')}`).repository.listVersions());
  assert.match(missing.message, /repository capi\/absent-\d+ not found on/);
});

test('tag lists paginated with Link headers are followed to the end, and cached for offline use', { skip }, async (t) => {
  const name = freshRepository('paged');
  for (const tag of TAGS) await pushArtifact(registry.url, name, tag, [{ title: 'metadata.yaml', content: tag }]);
  const proxy = await AuthProxy.start(registry, { scheme: 'none', tagsPageSize: 2 });
  t.after(() => proxy.close());
  const cache = await tempCache(t);
  const reference = `http://${proxy.host}/${name}`;
  assert.deepEqual(await open(reference, { cache }).repository.listVersions(), [...TAGS].sort());
  assert.deepEqual(
    proxy.requests.map((request) => request.url),
    [`/v2/${name}/tags/list`, `/v2/${name}/tags/list?n=2&last=v1.10.4`, `/v2/${name}/tags/list?n=2&last=v1.12.0`],
  );
  assert.deepEqual(await open(reference, { cache, offline: true }).repository.listVersions(), [...TAGS].sort());
  assert.equal(proxy.requests.length, 3);
  const empty = await tempCache(t);
  const miss = await rejection(open(reference, { cache: empty, offline: true }).repository.listVersions());
  assert.match(miss.message, new RegExp(`offline: the tag list of ${proxy.host}/${name} is not in the cache`));
});

test(
  'without the http:// prefix the registry is spoken to over TLS, and a plain-HTTP registry gets the hint (oci_source.go parseOCISource plainHTTP)',
  { skip },
  async () => {
    const name = freshRepository('tls');
    await pushArtifact(registry.url, name, 'v1.12.0', coreFiles());
    const opened = open(`${registry.host}/${name}`, { http: { retries: 3 } });
    const error = await rejection(opened.repository.getFile('v1.12.0', 'metadata.yaml'));
    assert.match(
      error.message,
      new RegExp(`cannot reach registry ${registry.host}: GET https://${registry.host}/v2/${name}/manifests/v1.12.0`),
    );
    assert.match(error.diagnostics[0].hint ?? '', new RegExp(`write the reference as http://${registry.host}/${name}`));
    // the hint comes at once: a server that does not speak TLS is not asked again
    assert.deepEqual(
      opened.events.filter((event) => event.type === 'retry'),
      [],
    );
  },
);

test('the http:// hint keeps the tag written in the reference, so followed literally it fetches the same artifact', { skip }, async () => {
  const name = freshRepository('tls-tag');
  await pushArtifact(registry.url, name, 'v1.10.4', coreFiles());
  const error = await rejection(open(`${registry.host}/${name}:v1.10.4`).repository.getFile('v1.12.0', 'metadata.yaml'));
  const hint = error.diagnostics[0].hint ?? '';
  const written = new RegExp(`write the reference as (http://${registry.host}/${name}:v1\\.10\\.4)$`).exec(hint);
  assert.ok(written, hint);
  assert.deepEqual(parseOciReference(written[1]!), { ...parseOciReference(`${registry.host}/${name}:v1.10.4`), plainHttp: true });
});

test('a blob whose bytes do not match its descriptor digest is refused and not cached', { skip }, async (t) => {
  const name = freshRepository('tampered');
  await pushArtifact(registry.url, name, 'v1.12.0', coreFiles());
  const proxy = await AuthProxy.start(registry, { scheme: 'none', tamper: 'blobs' });
  t.after(() => proxy.close());
  const cache = await tempCache(t);
  const error = await rejection(open(`http://${proxy.host}/${name}`, { cache }).repository.getFile('v1.12.0', 'metadata.yaml'));
  assert.ok(!(error instanceof ArtifactNotFoundError));
  assert.match(error.message, new RegExp(`metadata\\.yaml of ${proxy.host}/${name}:v1\\.12\\.0 does not match its digest`));
  assert.match(error.diagnostics[0].expected ?? '', new RegExp(`sha256:${sha256Hex(CORE_METADATA)}, ${CORE_METADATA.length} bytes`));
  assert.equal(await cache.getBlob(sha256Hex(CORE_METADATA)), undefined);
});

test('a manifest whose bytes do not match its Docker-Content-Digest is refused', { skip }, async (t) => {
  const name = freshRepository('tampered-manifest');
  const pushed = await pushArtifact(registry.url, name, 'v1.12.0', coreFiles());
  const proxy = await AuthProxy.start(registry, { scheme: 'none', tamper: 'manifests' });
  t.after(() => proxy.close());
  const error = await rejection(open(`http://${proxy.host}/${name}`).repository.getFile('v1.12.0', 'metadata.yaml'));
  assert.match(error.message, /the manifest of .* does not match its digest/);
  assert.equal(error.diagnostics[0].expected, `${pushed.manifest.digest} (Docker-Content-Digest)`);
});

test('a digest reference pulls that manifest and checks it', { skip }, async () => {
  const name = freshRepository('digest');
  const pushed = await pushArtifact(registry.url, name, 'v1.12.0', coreFiles());
  const { repository } = open(`http://${registry.host}/${name}@${pushed.manifest.digest}`);
  assert.equal((await repository.getFile('v1.12.0', 'metadata.yaml')).text, CORE_METADATA.toString('utf8'));
});

test('layers are found through an image index too (oras.Copy copies the whole graph)', { skip }, async () => {
  const name = freshRepository('index');
  const pushed = await pushArtifact(registry.url, name, 'inner', coreFiles());
  await pushManifest(registry.url, name, 'v1.12.0', { schemaVersion: 2, mediaType: OCI_INDEX, manifests: [pushed.manifest] }, OCI_INDEX);
  const { repository } = open(`http://${registry.host}/${name}`);
  assert.equal((await repository.getFile('v1.12.0', 'core-components.yaml')).sha256, sha256Hex(CORE_COMPONENTS));
});

test(
  'two layers with one title and different content are an error, since which one the operator keeps is not deterministic',
  { skip },
  async () => {
    const name = freshRepository('duplicate');
    const config = await pushBlob(registry.url, name, '{}', OCI_EMPTY_CONFIG);
    const layers = [];
    for (const content of ['one', 'two']) {
      const layer = await pushBlob(registry.url, name, content, 'application/vnd.oci.image.layer.v1.tar');
      layers.push({ ...layer, annotations: { 'org.opencontainers.image.title': 'metadata.yaml' } });
    }
    await pushManifest(registry.url, name, 'v1.12.0', { schemaVersion: 2, mediaType: OCI_MANIFEST, config, layers }, OCI_MANIFEST);
    const error = await rejection(open(`http://${registry.host}/${name}`).repository.getFile('v1.12.0', 'metadata.yaml'));
    assert.match(error.message, /two layers are titled metadata\.yaml with different content/);
  },
);

test('a cache makes repeated runs revalidate manifests (304) and skip blobs, and offline runs make no request', { skip }, async (t) => {
  const name = freshRepository('cached');
  await pushArtifact(registry.url, name, 'v1.12.0', coreFiles());
  const proxy = await AuthProxy.start(registry, { scheme: 'none' });
  t.after(() => proxy.close());
  const cache = await tempCache(t);
  const reference = `http://${proxy.host}/${name}`;

  const first = await open(reference, { cache }).repository.getFile('v1.12.0', 'core-components.yaml');
  const firstCount = proxy.requests.length;
  assert.ok(proxy.requests.some((request) => request.url.includes('/blobs/')));

  const { repository: again, events } = open(reference, { cache });
  assert.equal((await again.getFile('v1.12.0', 'core-components.yaml')).sha256, first.sha256);
  const second = proxy.requests.slice(firstCount);
  assert.deepEqual(
    second.map((request) => [request.url.includes('/manifests/'), request.status]),
    [[true, 304]],
  );
  assert.ok(events.some((event) => event.type === 'done' && event.cached));

  const count = proxy.requests.length;
  const offline = open(reference, { cache, offline: true }).repository;
  assert.equal((await offline.getFile('v1.12.0', 'core-components.yaml')).text, CORE_COMPONENTS.toString('utf8'));
  assert.equal(proxy.requests.length, count);
  const miss = await rejection(offline.getFile('v1.11.0', 'metadata.yaml'));
  assert.match(
    miss.message,
    new RegExp(
      `offline: the manifest of ${proxy.host}/${name}:v1\\.11\\.0 \\(CoreProvider cluster-api version v1\\.11\\.0\\) is not in the cache`,
    ),
  );
  assert.equal(proxy.requests.length, count);
});

test(
  'basic auth against a real htpasswd registry: OCI_USERNAME/OCI_PASSWORD from the configSecret (oci_source.go OCIAuthentication; oras auth client Basic)',
  { skip: skipBasic },
  async (t) => {
    const secured = await Registry.start({ user: USER });
    t.after(() => secured.stop());
    const name = freshRepository('basic');
    await pushArtifact(secured.url, name, 'v1.12.0', coreFiles(), { authorization: secured.authorization });
    const reference = `http://${secured.host}/${name}`;

    const { repository, logs } = open(reference, { credentials: { OCI_USERNAME: USER.username, OCI_PASSWORD: USER.password } });
    assert.equal((await repository.getFile('v1.12.0', 'metadata.yaml')).text, CORE_METADATA.toString('utf8'));
    assert.ok(logs.some((line) => /asks for Basic authentication/.test(line)));

    const anonymous = await rejection(open(reference).repository.getFile('v1.12.0', 'metadata.yaml'));
    assert.match(anonymous.message, /requires a username and password \(Basic authentication\)/);
    assert.match(anonymous.diagnostics[0].hint ?? '', /OCI_USERNAME and OCI_PASSWORD/);

    const wrong = open(reference, {
      env: { OCI_USERNAME: USER.username, OCI_PASSWORD: 'wrong-password-never-printed', CAPI_GITOPS_OCI_REGISTRIES: secured.host },
    });
    const rejected = await rejection(wrong.repository.getFile('v1.12.0', 'metadata.yaml'));
    assert.match(rejected.message, new RegExp(`registry ${secured.host} rejected the credentials`));
    for (const text of [rejected.message, anonymous.message, ...logs, ...wrong.logs]) {
      assert.ok(!text.includes(USER.password) && !text.includes('wrong-password-never-printed'), text);
      assert.ok(!text.includes(basicAuthorization(USER).slice(6)), text);
    }
  },
);

test(
  'the missing-credentials hint works when followed literally through the environment: it names CAPI_GITOPS_OCI_REGISTRIES=<host:port> (docs/security.md, Credentials and hosts)',
  { skip: skipBasic },
  async (t) => {
    const secured = await Registry.start({ user: USER });
    t.after(() => secured.stop());
    const name = freshRepository('basic-hint');
    await pushArtifact(secured.url, name, 'v1.12.0', coreFiles(), { authorization: secured.authorization });
    const reference = `http://${secured.host}/${name}`;

    const anonymous = await rejection(open(reference).repository.getFile('v1.12.0', 'metadata.yaml'));
    const hint = anonymous.diagnostics[0].hint ?? '';
    assert.equal(
      hint,
      `set OCI_USERNAME and OCI_PASSWORD in the provider's configSecret, or set OCI_USERNAME and OCI_PASSWORD and CAPI_GITOPS_OCI_REGISTRIES=${secured.host} in the environment`,
    );
    // followed literally: the variables the hint names, in the environment
    const env = { OCI_USERNAME: USER.username, OCI_PASSWORD: USER.password, CAPI_GITOPS_OCI_REGISTRIES: secured.host };
    assert.equal((await open(reference, { env }).repository.getFile('v1.12.0', 'metadata.yaml')).text, CORE_METADATA.toString('utf8'));
  },
);

test(
  'a plain-http registry elsewhere: the hint for withheld OCI_* variables names what works (the configSecret, https, a loopback mirror), not CAPI_GITOPS_OCI_REGISTRIES, which sends nothing over plain http (docs/security.md)',
  { skip: skipBasic },
  async (t) => {
    const secured = await Registry.start({ user: USER });
    t.after(() => secured.stop());
    const name = freshRepository('plain-http-elsewhere');
    await pushArtifact(secured.url, name, 'v1.12.0', coreFiles(), { authorization: secured.authorization });
    // registry.test resolves to this registry, as a registry on the LAN would
    const lookup = dns.lookup;
    (dns as { lookup: unknown }).lookup = (hostname: string, ...rest: unknown[]) =>
      (lookup as (...args: unknown[]) => void).call(dns, hostname === 'registry.test' ? '127.0.0.1' : hostname, ...rest);
    // the suite's loopback guard goes by name; this name leads to 127.0.0.1 only
    const guard = process.env.CAPI_GITOPS_NETWORK;
    delete process.env.CAPI_GITOPS_NETWORK;
    t.after(() => {
      (dns as { lookup: unknown }).lookup = lookup;
      if (guard !== undefined) process.env.CAPI_GITOPS_NETWORK = guard;
    });
    const host = `registry.test:${new URL(secured.url).port}`;
    const reference = `http://${host}/${name}`;
    const credentials = { OCI_USERNAME: USER.username, OCI_PASSWORD: USER.password };

    const withheld = await rejection(open(reference, { env: credentials }).repository.getFile('v1.12.0', 'metadata.yaml'));
    const hint = withheld.diagnostics[0].hint ?? '';
    assert.match(hint, /is not sent to registry\.test:\d+ over plain http/);
    assert.doesNotMatch(hint, /add it to CAPI_GITOPS_OCI_REGISTRIES/);
    assert.ok(hint.includes("give the credentials in the provider's configSecret"), hint);
    assert.ok(hint.includes(`over https (the reference without http://: ${host}/${name})`), hint);
    assert.match(hint, /or through a mirror on a loopback address, and list that host in CAPI_GITOPS_OCI_REGISTRIES/);
    assert.ok(hint.includes(`CAPI_GITOPS_OCI_REGISTRIES=${host} for https`), hint);
    // what the old hint said, followed literally, sends nothing
    const listed = { ...credentials, CAPI_GITOPS_OCI_REGISTRIES: host };
    const still = await rejection(open(reference, { env: listed }).repository.getFile('v1.12.0', 'metadata.yaml'));
    assert.match(still.message, /requires a username and password/);
    // the configSecret, which the hint names first, works
    const fromSecret = open(reference, { credentials }).repository;
    assert.equal((await fromSecret.getFile('v1.12.0', 'metadata.yaml')).text, CORE_METADATA.toString('utf8'));
  },
);

test(
  'a token service refusing an anonymous token is hinted with the configSecret or the environment and CAPI_GITOPS_OCI_REGISTRIES',
  { skip },
  async (t) => {
    const name = freshRepository('bearer-hint');
    await pushArtifact(registry.url, name, 'v1.12.0', coreFiles());
    const proxy = await AuthProxy.start(registry, { scheme: 'bearer', user: USER, token: 'issued-token-never-printed' });
    t.after(() => proxy.close());
    const anonymous = await rejection(open(`http://${proxy.host}/${name}`).repository.getFile('v1.12.0', 'metadata.yaml'));
    assert.match(anonymous.message, /refused an anonymous token/);
    assert.match(
      anonymous.diagnostics[0].hint ?? '',
      new RegExp(
        `or set OCI_USERNAME and OCI_PASSWORD \\(or OCI_ACCESS_TOKEN\\) and CAPI_GITOPS_OCI_REGISTRIES=${proxy.host} in the environment$`,
      ),
    );
  },
);

test(
  'bearer token flow: 401 challenge → token from the realm with Basic credentials → Bearer requests, one token for all (distribution token spec; oras auth client)',
  { skip },
  async (t) => {
    const name = freshRepository('bearer');
    await pushArtifact(registry.url, name, 'v1.12.0', coreFiles());
    const proxy = await AuthProxy.start(registry, { scheme: 'bearer', user: USER, token: 'issued-token-never-printed' });
    t.after(() => proxy.close());

    const { repository, logs } = open(`http://${proxy.host}/${name}`, {
      env: { OCI_USERNAME: USER.username, OCI_PASSWORD: USER.password, CAPI_GITOPS_OCI_REGISTRIES: proxy.host },
    });
    await Promise.all([repository.getFile('v1.12.0', 'metadata.yaml'), repository.getFile('v1.12.0', 'core-components.yaml')]);
    await repository.getFile('v1.12.0', 'core-components.yaml');

    assert.equal(proxy.tokenRequests.length, 1);
    const tokenRequest = new URL(proxy.tokenRequests[0].url, proxy.tokenUrl);
    assert.equal(tokenRequest.pathname, '/token');
    assert.equal(tokenRequest.searchParams.get('service'), 'capi-gitops-test');
    assert.deepEqual(tokenRequest.searchParams.getAll('scope'), [`repository:${name}:pull`]);
    assert.equal(proxy.tokenRequests[0].authorization, basicAuthorization(USER));
    const authorized = proxy.requests.filter((request) => request.status !== 401);
    assert.ok(authorized.length >= 3);
    assert.ok(authorized.every((request) => request.authorization === 'Bearer issued-token-never-printed'));
    assert.ok(logs.some((line) => line.includes(`requesting one from ${proxy.tokenUrl}/token with the configured credentials`)));
    for (const line of logs) assert.ok(!line.includes(USER.password) && !line.includes('issued-token-never-printed'), line);
  },
);

test('bearer: an OCI_ACCESS_TOKEN is sent as it is, with no token request (oras fetchBearerToken)', { skip }, async (t) => {
  const name = freshRepository('access-token');
  await pushArtifact(registry.url, name, 'v1.12.0', coreFiles());
  const proxy = await AuthProxy.start(registry, { scheme: 'bearer', user: USER, token: ACCESS_TOKEN });
  t.after(() => proxy.close());
  const { repository } = open(`http://${proxy.host}/${name}`, { credentials: { OCI_ACCESS_TOKEN: ACCESS_TOKEN } });
  assert.equal((await repository.getFile('v1.12.0', 'metadata.yaml')).text, CORE_METADATA.toString('utf8'));
  assert.equal(proxy.tokenRequests.length, 0);
});

test(
  'bearer: OCI_REFRESH_TOKEN gets a token by the OAuth2 POST, as oras-go fetchOAuth2Token does; the refresh token never appears in logs',
  { skip },
  async (t) => {
    const name = freshRepository('bearer-refresh');
    await pushArtifact(registry.url, name, 'v1.12.0', coreFiles());
    const proxy = await AuthProxy.start(registry, { scheme: 'bearer', refreshToken: 'refresh-secret-never-printed' });
    t.after(() => proxy.close());
    const opened = open(`http://${proxy.host}/${name}`, {
      credentials: { OCI_REFRESH_TOKEN: 'refresh-secret-never-printed', OCI_USERNAME: 'ignored', OCI_PASSWORD: 'ignored-too' },
    });
    assert.equal((await opened.repository.getFile('v1.12.0', 'metadata.yaml')).text, CORE_METADATA.toString('utf8'));
    const post = proxy.tokenRequests.find((r) => r.method === 'POST')!;
    assert.deepEqual(post.form, {
      grant_type: 'refresh_token',
      refresh_token: 'refresh-secret-never-printed',
      client_id: 'capi-gitops',
      service: 'capi-gitops-test',
      scope: `repository:${name}:pull`,
    });
    assert.equal(post.authorization, undefined, 'the refresh token replaces Basic credentials');
    assert.equal(proxy.tokenRequests.filter((r) => r.method === 'GET').length, 0);
    assert.ok(
      opened.logs.some((line) => /OCI_REFRESH_TOKEN \(OAuth2\)/.test(line)),
      opened.logs.join('\n'),
    );
    for (const line of opened.logs)
      assert.ok(!line.includes('refresh-secret-never-printed') && !line.includes('issued-bearer-token'), line);
  },
);

test(
  'bearer: a token server answering access_token works; wrong credentials and missing ones are named without the secrets',
  { skip },
  async (t) => {
    const name = freshRepository('bearer-errors');
    await pushArtifact(registry.url, name, 'v1.12.0', coreFiles());
    const proxy = await AuthProxy.start(registry, { scheme: 'bearer', user: USER, tokenField: 'access_token' });
    t.after(() => proxy.close());
    const reference = `http://${proxy.host}/${name}`;

    const ok = open(reference, { credentials: { OCI_USERNAME: USER.username, OCI_PASSWORD: USER.password } }).repository;
    assert.equal((await ok.getFile('v1.12.0', 'metadata.yaml')).text, CORE_METADATA.toString('utf8'));

    const wrong = open(reference, { credentials: { OCI_USERNAME: USER.username, OCI_PASSWORD: 'bad-secret-never-printed' } });
    const refused = await rejection(wrong.repository.getFile('v1.12.0', 'metadata.yaml'));
    assert.match(refused.message, /token service of .* refused the credentials \(HTTP 401\)/);
    assert.match(refused.diagnostics[0].hint ?? '', /check OCI_USERNAME and OCI_PASSWORD/);

    const anonymous = await rejection(open(reference).repository.getFile('v1.12.0', 'metadata.yaml'));
    assert.match(anonymous.message, /refused an anonymous token/);
    assert.equal(proxy.tokenRequests.at(-1)!.authorization, undefined);

    const refresh = await rejection(
      open(reference, { credentials: { OCI_REFRESH_TOKEN: 'refresh-never-printed' } }).repository.getFile('v1.12.0', 'metadata.yaml'),
    );
    assert.match(refresh.message, /token service of .* refused OCI_REFRESH_TOKEN \(HTTP 400\)/);
    assert.match(refresh.diagnostics[0].hint ?? '', /check OCI_REFRESH_TOKEN/);

    for (const text of [refused.message, anonymous.message, refresh.message, ...wrong.logs]) {
      for (const secret of [USER.password, 'bad-secret-never-printed', 'refresh-never-printed', 'issued-bearer-token'])
        assert.ok(!text.includes(secret), text);
    }
  },
);
