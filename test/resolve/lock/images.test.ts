/** Pinned images in the lockfile: written beside the files, read back, checked, and what a change says. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLockfile, serializeLockfile } from '../../../src/resolve/lock/lockfile.js';
import { type LockEntry } from '../../../src/resolve/lock/types.js';
import { diffLockfiles } from '../../../src/resolve/lock/diff.js';
import { recheckLockedImages } from '../../../src/app/image-pins.js';
import { CapiGitopsError } from '../../../src/core/diagnostics.js';

const SHA = 'a72e682fce88cdb016be2e90f596ac1b4b0f6c840263b35d107b9e81572ea3db';
const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;
const D3 = `sha256:${'3'.repeat(64)}`;
const CONTROLLER = 'registry.example.com/capi/cluster-api-controller:v1.12.0';
const INIT = 'registry.example.com/capi/wait-for-apiserver:v1.12.0';

function entry(images?: LockEntry['images']): LockEntry {
  return {
    kind: 'CoreProvider',
    name: 'cluster-api',
    namespace: 'capi-system',
    requestedVersion: 'v1.12.0',
    version: 'v1.12.0',
    contract: 'v1beta2',
    source: { type: 'url', url: 'https://github.com/kubernetes-sigs/cluster-api/releases/v1.12.0/core-components.yaml' },
    files: [{ name: 'core-components.yaml', url: 'https://example.com/core-components.yaml', sha256: SHA }],
    ...(images ? { images } : {}),
  };
}

test('images are written after the files, sorted by image, and read back', () => {
  const lock = {
    entries: [
      entry(
        [
          { image: CONTROLLER, digest: D1 },
          { image: INIT, digest: D2 },
        ].reverse(),
      ),
    ],
  };
  const text = serializeLockfile(lock);
  assert.match(
    text,
    /sha256: a72e.*\n    images:\n      - image: registry\.example\.com\/capi\/cluster-api-controller:v1\.12\.0\n        digest: sha256:1{64}\n      - image: registry\.example\.com\/capi\/wait-for-apiserver/,
  );
  const read = parseLockfile(text, 'capi-gitops.lock.yaml');
  assert.deepEqual(read.entries[0]!.images, [
    { image: CONTROLLER, digest: D1 },
    { image: INIT, digest: D2 },
  ]);
  assert.doesNotMatch(serializeLockfile({ entries: [entry()] }), /images/, 'an entry without pinned images has no images key');
});

test('a malformed image entry is an error at its line: a digest that is not sha256, an image listed twice', () => {
  const text = serializeLockfile({ entries: [entry([{ image: CONTROLLER, digest: D1 }])] }).replace(`digest: ${D1}`, 'digest: md5:abc');
  assert.throws(
    () => parseLockfile(text, 'capi-gitops.lock.yaml'),
    (error: unknown) =>
      error instanceof CapiGitopsError &&
      /capi-gitops\.lock\.yaml:\d+:\d+: error: entries\[0\]\.images\[0\]\.digest: not a sha256 digest/.test(error.message) &&
      // a lockfile written anew pins each image at what its tag serves today: the hint says so
      /restore it from Git, or `rm .*` and `capi-gitops lock`: that takes each file's sha256 as it is now \(and render, each pinned image's digest\)/.test(
        error.diagnostics[0]?.hint ?? '',
      ),
  );
  const twice = serializeLockfile({ entries: [entry([{ image: CONTROLLER, digest: D1 }])] }).replace(
    `        digest: ${D1}\n`,
    `        digest: ${D1}\n      - image: ${CONTROLLER}\n        digest: ${D2}\n`,
  );
  assert.throws(
    () => parseLockfile(twice, 'capi-gitops.lock.yaml'),
    /image "registry\.example\.com\/capi\/cluster-api-controller:v1\.12\.0" is listed twice/,
  );
});

test('a lock change names a newly pinned image, a removed one, and a tag that serves new content', () => {
  const before = {
    entries: [
      entry([
        { image: CONTROLLER, digest: D1 },
        { image: INIT, digest: D2 },
      ]),
    ],
  };
  const after = {
    entries: [
      entry([
        { image: CONTROLLER, digest: D3 },
        { image: `${INIT}-rc`, digest: D2 },
      ]),
    ],
  };
  assert.deepEqual(
    diffLockfiles(before, after).map((c) => c.line),
    [
      `~ cluster-api v1.12.0: image ${CONTROLLER}: same tag, new content sha256:111111111111… → sha256:333333333333…; ` +
        `image ${INIT} removed; image ${INIT}-rc pinned to sha256:222222222222…`,
    ],
  );
});

test('plan re-asks every locked image a tag names (not one the artifact pinned by digest) and returns those that moved', async () => {
  const byDigest = `registry.example.com/capi/shipped:v1@${D1}`;
  const lock = {
    apiVersion: 'capi-gitops.dev/v1alpha1' as const,
    kind: 'Lock' as const,
    entries: [
      entry([
        { image: CONTROLLER, digest: D1 },
        { image: INIT, digest: D2 },
        { image: byDigest, digest: D1 },
      ]),
    ],
  };
  const asked: string[] = [];
  const { moved, lock: next } = await recheckLockedImages(lock, async (requests) => {
    asked.push(...requests.map((r) => r.image));
    return {
      digests: new Map([
        [CONTROLLER, D3],
        [INIT, D2],
      ]),
      problems: [],
    };
  });
  assert.deepEqual(asked, [CONTROLLER, INIT]);
  assert.deepEqual(moved, [{ component: 'cluster-api', image: CONTROLLER, locked: D1, current: D3 }]);
  assert.equal(next.entries[0]!.images!.find((i) => i.image === CONTROLLER)!.digest, D3);
  await assert.rejects(
    recheckLockedImages(lock, async () => ({ digests: new Map(), problems: [] }), ['infrastructure-aws']),
    /no component "infrastructure-aws" in the lockfile/,
  );
  // update --images cluster-apii: the hint names the label it meant
  await assert.rejects(
    recheckLockedImages(lock, async () => ({ digests: new Map(), problems: [] }), ['cluster-apii']),
    (error: CapiGitopsError) => {
      assert.equal(error.diagnostics[0]!.hint, 'did you mean "cluster-api"?');
      return true;
    },
  );
});
