import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { CORPUS_CONFIGMAPS, CORPUS_REPOSITORY } from '../helpers/paths.js';
import { parseArtifactDetailed } from '../../src/yaml/parse.js';

/** Every YAML file of the corpus, plus the `components` and `metadata` keys of each artifact ConfigMap. */
function corpusTexts(): { name: string; text: string }[] {
  const texts: { name: string; text: string }[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.yaml'))
        texts.push({ name: path.relative(CORPUS_REPOSITORY, full), text: fs.readFileSync(full, 'utf8') });
    }
  };
  walk(CORPUS_REPOSITORY);
  for (const file of fs
    .readdirSync(CORPUS_CONFIGMAPS)
    .filter((f) => f.endsWith('.yaml'))
    .sort()) {
    const text = fs.readFileSync(path.join(CORPUS_CONFIGMAPS, file), 'utf8');
    texts.push({ name: `configmaps/${file}`, text });
    const configMap = YAML.parse(text) as { data: Record<string, string> };
    for (const key of ['components', 'metadata']) texts.push({ name: `configmaps/${file}#${key}`, text: configMap.data[key] });
  }
  return texts;
}

/** The yaml package's reading: YAML 1.1, timestamps kept as strings (as in JSON), empty documents dropped. */
function libraryObjects(text: string): unknown[] {
  const docs = YAML.parseAllDocuments(text, {
    version: '1.1',
    customTags: (tags) => tags.filter((t) => (t as { tag?: string }).tag !== 'tag:yaml.org,2002:timestamp'),
  });
  assert.ok(Array.isArray(docs));
  return docs
    .map((doc) => {
      assert.deepStrictEqual(doc.errors, []);
      return doc.toJS();
    })
    .filter((v) => v !== null && v !== undefined);
}

const allTexts = corpusTexts();
/** Each distinct text once, under all its names: the ConfigMaps carry the repository's files byte for byte. */
const texts = [...new Map(allTexts.map((t) => [t.text, allTexts.filter((u) => u.text === t.text).map((u) => u.name)]))].map(
  ([text, names]) => ({ name: names.join(' = '), text }),
);

test('the corpus has every provider, version and ConfigMap we expect to compare', () => {
  const names = allTexts.map((t) => t.name);
  for (const expected of [
    'cluster-api/v1.7.7/core-components.yaml',
    'cluster-api/v1.12.0/core-components.yaml',
    'bootstrap-rke2/v0.11.0/bootstrap-components.yaml',
    'cert-manager/v1.13.0/cert-manager.yaml',
    'configmaps/core-cluster-api-v1.12.0.yaml#components',
  ]) {
    assert.ok(names.includes(expected), expected);
  }
  assert.ok(allTexts.length >= 38, String(allTexts.length));
});

for (const { name, text } of texts) {
  test(`${name}: fast path and full parser both equal the yaml package's YAML 1.1 reading`, () => {
    const expected = libraryObjects(text);
    const fast = parseArtifactDetailed(text, { source: name });
    assert.equal(fast.fullParserDocuments, 0, 'every released document must take the fast path');
    assert.deepStrictEqual(fast.objects, expected);
    const full = parseArtifactDetailed(text, { source: name, fullParserOnly: true });
    assert.deepStrictEqual(full.objects, expected);
  });
}
