/**
 * `lock` renders nothing, so with pinImages it asks no registry for an image it has not seen (a
 * new image override): it must not say the lockfile is up to date as if it held every digest,
 * as `render --frozen` then fails for that image (docs/images.md, "In the lockfile").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exampleCopy, runCli } from '../../helpers/cli.js';

test('lock with pinImages says the images are pinned by render, which it does not run, not that the lockfile is up to date', async () => {
  const manifest = path.join(exampleCopy(), 'management-cluster');
  const plain = await runCli(['lock', '-f', manifest, '--offline']);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /^the lockfile is up to date$/m);

  const config = path.join(manifest, 'config.yaml');
  writeFileSync(config, `${readFileSync(config, 'utf8')}pinImages: true\n`);
  const pinned = await runCli(['lock', '-f', manifest, '--offline']);
  assert.equal(pinned.code, 0, pinned.stderr);
  assert.match(
    pinned.stdout,
    /^the lockfile is up to date for versions and artifacts; image digests are asked for by `capi-gitops render` \(pinImages\), which lock does not run$/m,
  );
});
