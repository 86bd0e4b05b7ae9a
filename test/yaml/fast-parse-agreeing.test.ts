/**
 * fastParseAgreeing (src/yaml/fast-parse.ts) against what it stands in for, the `yaml`
 * library's `parseDocument(text, { uniqueKeys: true })` and `toJS()`: on every corpus
 * metadata.yaml and on texts where YAML 1.1 and 1.2 differ, it gives the library's value or none.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { fastParseAgreeing } from '../../src/yaml/fast-parse.js';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';

function libraryValue(text: string): unknown {
  const doc = YAML.parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  return doc.errors.length > 0 ? new Error(doc.errors[0].message) : doc.toJS({ maxAliasCount: 100 });
}

test('every corpus metadata.yaml reads as the library reads it, without the library', () => {
  let files = 0;
  for (const label of readdirSync(CORPUS_REPOSITORY)) {
    for (const version of readdirSync(path.join(CORPUS_REPOSITORY, label))) {
      const file = path.join(CORPUS_REPOSITORY, label, version, 'metadata.yaml');
      if (!existsSync(file)) continue;
      const text = readFileSync(file, 'utf8');
      const fast = fastParseAgreeing(text);
      assert.notEqual(fast, undefined, file);
      assert.deepEqual(fast, libraryValue(text), file);
      files++;
    }
  }
  assert.ok(files > 10, `${files} metadata files`);
});

test('where YAML 1.1 and 1.2 or the two parsers differ, the fast reading gives up (the library decides)', () => {
  const declined = [
    'a: yes\n',
    'a: on\n',
    'a: 0755\n',
    'a: 1_000\n',
    'a: 1e3\n',
    'a: .5\n',
    'a: 0x1F\n',
    'a: ~\n',
    'a: True\n',
    'yes: 1\n',
    '1: a\n',
    'a: 1\na: 2\n',
    'a: 1\n"a": 2\n',
    'a: {b: 1, b: 2}\n',
    'a: |\n  text',
    'a: "esc\\tape"\n',
    'a: 1\r\n',
    '\ufeffa: 1\n',
    'a: &x 1\nb: *x\n',
    '--- \na: 1\n',
    'a: 1\n---\nb: 2\n',
    'a: 12345678901234567\n',
    '- a\n',
    'a: 1.0\n',
    'a: +1\n',
    'a: 0o17\n',
    'a: .inf\n',
  ];
  for (const text of declined) assert.equal(fastParseAgreeing(text), undefined, JSON.stringify(text));
  const agreed = [
    'a: 1\nb: true\nc: false\nd: null\ne:\nf: name\ng: "quoted"\nh: \'single\'\n',
    '# comment\napiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n  - major: 1\n    minor: 12\n    contract: v1beta2\n',
    'list: [a, 1, name]\nmap: {k: v}\nblock: |\n  line\n  two\nfolded: >\n  a\n  b\n',
    'multi: word\n  continued\n',
    'word: offset\nkey with spaces: x\n',
    // a digest, a sexagesimal-looking time and a version: strings for go-yaml and for YAML 1.2's core schema
    'sha256: 2cbf40a3e4e5ee3e488154088ad25d0c64d0848ae95c4f2af32d65c2c4660fc8\nat: 1:30\nv: 1.2.3\nd: 2026-11-25x\n',
  ];
  for (const text of agreed) {
    const fast = fastParseAgreeing(text);
    assert.notEqual(fast, undefined, JSON.stringify(text));
    assert.deepEqual(fast, libraryValue(text), JSON.stringify(text));
  }
});
