/**
 * The sources' shape (Renovate's lib/modules/datasource): one folder per source, each an
 * `index.ts` SourceModule registered in `src/sources/index.ts`; no source imports another, and
 * the network sources reach the network only through the shared client in `base/`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { SOURCE_MODULES } from '../../src/sources/index.js';

const SOURCES = path.join(PROJECT_ROOT, 'src', 'sources');
const FOLDERS = ['configmap', 'github', 'gitlab', 'https', 'local', 'oci'];
const NETWORK = ['github', 'gitlab', 'https', 'oci'];

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from\s+|import\()\s*'([^']+)'/g)].map((match) => match[1]);
}

function filesOf(folder: string): string[] {
  const dir = path.join(SOURCES, folder);
  return readdirSync(dir)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => path.join(dir, name));
}

test('every source is a folder with an index.ts, registered once, in the order they are asked', () => {
  const folders = readdirSync(SOURCES)
    .filter((name) => statSync(path.join(SOURCES, name)).isDirectory() && name !== 'base')
    .sort();
  assert.deepEqual(folders, FOLDERS);
  for (const folder of folders)
    assert.ok(
      filesOf(folder).some((file) => path.basename(file) === 'index.ts'),
      `${folder}/index.ts`,
    );
  assert.deepEqual(
    SOURCE_MODULES.map((module) => module.id),
    ['configmap', 'local', 'github', 'gitlab', 'oci', 'https'],
  );
});

test('no source imports a sibling source, and base/ imports no source', () => {
  const problems: string[] = [];
  for (const folder of [...FOLDERS, 'base']) {
    for (const file of filesOf(folder)) {
      for (const target of importsOf(file)) {
        if (!target.startsWith('.')) continue;
        const resolved = path.relative(SOURCES, path.resolve(path.dirname(file), target));
        const into = resolved.split(path.sep)[0];
        if (FOLDERS.includes(into) && into !== folder) problems.push(`${path.relative(SOURCES, file)} imports ${target}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test('network sources send requests only through the shared client: no fetch, http(s) module or httpFetch of their own', () => {
  const problems: string[] = [];
  for (const folder of NETWORK) {
    for (const file of filesOf(folder)) {
      const text = readFileSync(file, 'utf8');
      const imports = importsOf(file);
      if (/\bfetch\s*\(/.test(text.replace(/\.fetch\b|fetchAdapter|fetchToken|Fetch\w*/g, '')))
        problems.push(`${folder}/${path.basename(file)} calls fetch`);
      if (imports.some((target) => /^(node:)?https?$|undici/.test(target)))
        problems.push(`${folder}/${path.basename(file)} imports an HTTP module`);
      if (/\bhttpFetch(Once)?\b/.test(text)) problems.push(`${folder}/${path.basename(file)} calls the transport directly`);
    }
  }
  assert.deepEqual(problems, []);
});
