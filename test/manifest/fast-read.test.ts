/**
 * The manifest reader reads a file with the fast parser when it is sure of every document
 * (src/manifest/yaml-source.ts), and with the `yaml` library otherwise; the library is loaded
 * only when a position inside a document is asked for. Both readings must give the same values,
 * the same document positions and the same positions of every field, on every manifest the
 * project ships or tests with, and on edge cases written here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import {
  documentPosition,
  documentValue,
  fieldPosition,
  nodePosition,
  parseManifestFile,
  parseManifestFileByLibrary,
  type FieldPath,
  type SourceDocument,
} from '../../src/manifest/yaml-source.js';
import type { Node as YamlNode } from 'yaml';
import { PROJECT_ROOT } from '../helpers/paths.js';

/** Every field path of a value, maps and sequences alike. */
function paths(value: unknown, prefix: FieldPath = []): FieldPath[] {
  if (value === null || typeof value !== 'object') return [prefix];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return [prefix, ...entries.flatMap(([key, v]) => paths(v, [...prefix, key]))];
}

const withContent = (documents: SourceDocument[]) => documents.filter((d) => documentValue(d) !== null);

/** Compares the two readings of a text; returns whether the fast parser read it. */
function compareReadings(file: string, text: string): boolean {
  const library = parseManifestFileByLibrary(file, text);
  const parsed = parseManifestFile(file, text);
  const fast = parsed.documents.some((d) => d.fast !== undefined);
  if (!fast) return false;
  assert.deepEqual(library.syntaxErrors, [], `${file}: the fast parser read a file the library finds errors in`);
  const [ours, theirs] = [withContent(parsed.documents), withContent(library.documents)];
  assert.equal(ours.length, theirs.length, `${file}: documents`);
  ours.forEach((document, i) => {
    const other = theirs[i]!;
    const value = documentValue(document);
    assert.deepEqual(value, documentValue(other), `${file}: document ${i} value`);
    assert.deepEqual(
      documentPosition(document),
      nodePosition(other, other.doc.contents as YamlNode | null),
      `${file}: document ${i} position`,
    );
    for (const p of paths(value))
      for (const at of ['key', 'value'] as const)
        assert.deepEqual(
          fieldPosition(document, document.doc.contents as YamlNode | null, p, at),
          fieldPosition(other, other.doc.contents as YamlNode | null, p, at),
          `${file}: ${p.join('.')} (${at})`,
        );
  });
  return true;
}

test('every manifest and YAML fixture of the project reads the same by the fast parser and by the library', async () => {
  const files = (
    await fg(['examples/**/*.{yaml,yml}', 'test/fixtures/**/*.{yaml,yml}', 'schema/**/*.yaml', 'charts/**/*.yaml'], { cwd: PROJECT_ROOT })
  ).sort();
  assert.ok(files.length > 20, `${files.length} files`);
  let fast = 0;
  for (const file of files) if (compareReadings(file, readFileSync(path.join(PROJECT_ROOT, file), 'utf8'))) fast++;
  assert.ok(fast >= 10, `only ${fast} of ${files.length} files were read by the fast parser`);
  assert.ok(
    compareReadings('providers.yaml', readFileSync(path.join(PROJECT_ROOT, 'examples', 'management-cluster', 'providers.yaml'), 'utf8')),
    "the example's providers are read by the fast parser",
  );
});

test('edge cases read the same either way, or are left to the library', () => {
  const cases = [
    'a: 1\n',
    '  a: 1\n  b: 2\n',
    '# comment\n\na: 1 # trailing\n---\n# only a comment\n---\nb: [1, 2]\n',
    '---\na: 1\n---\n---\nb: 2\n...\n',
    'a: 1\na: 2\n',
    'a: {b: 1, b: 2}\n',
    'a: &x 1\nb: *x\n',
    'a: !!str 1\n',
    'a: yes\nb: 0755\nc: 1_000\nd: 0x1F\ne: ~\nf: 2001-12-14\ng: 1:30\n',
    'a: .inf\n',
    'a: 123456789012345678901\n',
    'a: |\n  text\n  more\nb: >-\n  folded\n  text\nc: |+\n  kept\n\n',
    "a: \"double \\t\\u00e9\"\nb: 'single ''quote'''\n\"quoted key\": 1\n",
    '__proto__: 1\nconstructor: 2\n',
    'list:\n- a\n-   b: 1\n    c: 2\n- - nested\n',
    'list:\n  - a\n  - b\n',
    'plain: multi\n  line\n  value\n',
    'key with spaces: value with spaces\n',
    '--- a: 1\n',
    '---x\na: 1\n',
    'a: 1\r\nb: 2\r\n',
    '\ufeffa: 1\n',
    '%YAML 1.1\n---\na: 1\n',
    'a:\n  b:\n    c: null\n  d:\n',
    '- a\n- b\n',
    'just a scalar\n',
    'a: b: c\n',
    'a:\tb\n',
    'a: [1, {b: 2}]\nc: {}\nd: []\n',
    '<<: {a: 1}\nb: 2\n',
    '? a\n: 1\n',
    'a: "unclosed\n',
  ];
  for (const text of cases) {
    try {
      compareReadings('case.yaml', text);
    } catch (error) {
      assert.fail(`${JSON.stringify(text)}: ${(error as Error).message}`);
    }
  }
});
