/**
 * The sweep after the suite (scripts/run-tests.mjs) must find a secret wherever it lands: its
 * one-pass search answers as one `includes` per needle would, at every offset and length.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { NeedleSearch, SUITE_SECRETS, sweepSuiteForSecrets } from '../helpers/secret-scan.js';
import { prng } from '../helpers/generated-yaml.js';
import { tempDir } from '../helpers/corpus-manifest.js';

test('the one-pass search agrees with includes for needles at every offset, at the ends, across lengths and with characters past U+00FF', () => {
  const rnd = prng(7);
  const needles = ['ghp_abcdefgh', 'Qz\'9"k\\Lm: 7Wp', 'sk-live-4f9Qa7Zt2Lp8Wx3Ne6Rb1Yc5', 'zzzzzzzzzzzzzzzzzzzz', 'ééé-ünï-ß8'];
  const search = new NeedleSearch(needles);
  const alphabet = 'abcdefghz-_:\n "é';
  for (let round = 0; round < 2000; round++) {
    const filler = (n: number) => Array.from({ length: n }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
    const needle = needles[round % needles.length]!;
    // a needle, a part of one, or none, anywhere in texts from shorter than a needle to a few hundred characters
    const planted = [needle, needle.slice(1), needle.slice(0, -1), ''][round % 4]!;
    const text = filler(Math.floor(rnd() * 40)) + planted + filler(Math.floor(rnd() * 40));
    assert.equal(
      search.foundIn(text),
      needles.some((n) => text.includes(n)),
      JSON.stringify(text),
    );
  }
  assert.equal(search.foundIn(needles[0]!), true);
  assert.equal(search.foundIn(''), false);
  // a needle shorter than the four characters read at once is still searched
  assert.equal(new NeedleSearch(['abc']).foundIn('xxabcxx'), true);
});

test('the sweep names a lockfile and an output file that hold a suite secret in any of its forms, and leaves clean ones alone', () => {
  const root = tempDir();
  const output = path.join(root, 'out');
  mkdirSync(path.join(output, '01-core'), { recursive: true });
  writeFileSync(path.join(output, '.capi-gitops-index'), '');
  writeFileSync(
    path.join(output, '01-core', 'secret.yaml'),
    `data:\n  token: ${Buffer.from(SUITE_SECRETS.splitToken).toString('base64')}\n`,
  );
  writeFileSync(path.join(output, '01-core', 'clean.yaml'), 'kind: ConfigMap\n'.repeat(1000));
  writeFileSync(path.join(root, 'capi-gitops.lock.yaml'), `url: https://x.example/?t=${SUITE_SECRETS.fleetNewToken}\n`);
  try {
    assert.deepEqual(sweepSuiteForSecrets({ tmpRoot: root }).sort(), [
      path.join(root, 'capi-gitops.lock.yaml'),
      path.join(output, '01-core', 'secret.yaml'),
    ]);
  } finally {
    // the suite's own sweep reads this directory too
    rmSync(root, { recursive: true, force: true });
  }
});
