// The build id: sha256 over every built module of dist/src (and package.json), written to
// dist/src/build-id.txt. The output cache (src/cli/output-cache.ts) keys on it, so no entry of
// one build serves another. Run by scripts/build-bundle.mjs, the last step of every build.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';

export function writeBuildId() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const hash = createHash('sha256');
  for (const file of [...fg.sync(['dist/src/**/*.{js,cjs,mjs,json}'], { cwd: root }).sort(), 'package.json']) {
    const bytes = readFileSync(new URL(`../${file}`, import.meta.url));
    hash.update(`${file}\0${bytes.length}\0`).update(bytes);
  }
  const id = hash.digest('hex');
  writeFileSync(new URL('../dist/src/build-id.txt', import.meta.url), `${id}\n`);
  return id;
}
