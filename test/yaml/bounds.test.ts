import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { YamlBudget } from '../../src/yaml/bounds.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';

/** `k0:\n k1:\n  k2: …`: one level deeper per line, by indentation alone. */
function indentedLevels(levels: number, lineBreak = '\n'): string {
  return Array.from({ length: levels }, (_, i) => `${' '.repeat(i)}k${i}:`).join(lineBreak) + ' leaf\n';
}

test('nesting by indentation past the depth bound is refused, after any line terminator', () => {
  for (const lineBreak of ['\n', '\r\n']) {
    assert.throws(() => new YamlBudget().check(indentedLevels(600, lineBreak), 'deep.yaml'), /deeper than 512 levels/);
  }
  assert.doesNotThrow(() => new YamlBudget().check(indentedLevels(400), 'shallow.yaml'));
});

test('compact sequence entries past the depth bound (`- - - …`) are refused, whatever spaces or tabs separate them', () => {
  for (const separator of [' ', '  ', '\t', ' \t', '   ']) {
    assert.throws(
      () => new YamlBudget().check(`${`-${separator}`.repeat(600)}x\n`, 'dashes.yaml'),
      /deeper than 512 levels/,
      JSON.stringify(separator),
    );
  }
  assert.doesNotThrow(() => new YamlBudget().check(`${'-\t'.repeat(400)}x\n`, 'shallow.yaml'));
  // a dash that starts a plain scalar (`-x`, `-1`) opens no sequence
  assert.doesNotThrow(() => new YamlBudget().check(`${'- '.repeat(400)}${'-x'.repeat(300)}\n`, 'scalar.yaml'));
});

test('the real artifacts pass the bounds', () => {
  const budget = new YamlBudget();
  for (const file of ['cluster-api/v1.12.0/core-components.yaml', 'cert-manager/v1.13.0/cert-manager.yaml']) {
    assert.doesNotThrow(() => budget.check(readFileSync(path.join(CORPUS_REPOSITORY, file), 'utf8'), file));
  }
});

test('flow nesting is bounded together with indentation, and a closer a quote or comment could hide closes nothing', () => {
  // 100 levels of indentation, then 450 openers: each bound alone is under 512, together not
  const indented = indentedLevels(100).replace(/ leaf\n$/, ` ${'['.repeat(450)}\n`);
  assert.throws(() => new YamlBudget().check(indented, 'sum.yaml'), /deeper than 512 levels/);
  for (const hidden of ['"]"', "']'", '# ]']) {
    const text = Array.from({ length: 600 }, (_, i) => `${i === 0 ? 'x: ' : ''}[ ${hidden}`).join('\n') + '\n';
    assert.throws(() => new YamlBudget().check(text, 'hidden.yaml'), /deeper than 512 levels/, hidden);
  }
  // brackets closed on their own line, as in descriptions (`containers[2]`, `{name}`), nest nothing
  const described = Array.from({ length: 2000 }, (_, i) => `d${i}: see containers[2] or "spec.containers{name}" [a [b] c]`).join('\n');
  assert.doesNotThrow(() => new YamlBudget().check(`${described}\n`, 'described.yaml'));
});

test('explicit keys nest like compact sequence entries (`? - ? - …`) and are refused past the depth bound', () => {
  for (const entries of ['? - ', '- ? ', '? ? ']) {
    assert.throws(() => new YamlBudget().check(`${entries.repeat(400)}x\n`, 'keys.yaml'), /deeper than 512 levels/, entries);
  }
});

test('the node bound counts compact entries and flow pairs: a document of them past the bound is refused', () => {
  const limits = { maxNodesPerDocument: 1000, maxDepth: 512, maxNodesPerRun: 8_000_000 };
  // 100 lines of `- - - - - x` hold 1,000 sequences and 500 scalars
  assert.throws(() => new YamlBudget(limits).check(`${'- - - - - x\n'.repeat(100)}`, 'compact.yaml'), /more than 1000 nodes/);
  // `{a: b, c: d, …}`: two scalars per separator
  const pairs = Array.from({ length: 600 }, (_, i) => `k${i}: v`).join(', ');
  assert.throws(() => new YamlBudget(limits).check(`{${pairs}}\n`, 'pairs.yaml'), /more than 1000 nodes/);
});

test("the run's node bound is reached by the nodes the scan counts, not by the quick bound's over-estimate", () => {
  const text = readFileSync(path.join(CORPUS_REPOSITORY, 'cluster-api/v1.12.0/core-components.yaml'), 'utf8');
  // the quick bound counts about 90,000 nodes here, the scan about 37,000
  const budget = new YamlBudget({ maxNodesPerDocument: 1_000_000, maxDepth: 512, maxNodesPerRun: 80_000 });
  assert.doesNotThrow(() => budget.check(text, 'core-components.yaml'));
  assert.doesNotThrow(() => budget.check(text, 'core-components.yaml'));
  assert.throws(() => budget.check(text, 'core-components.yaml'), /more than 80000 YAML nodes/);
});

test('a double-quoted scalar over 8 MiB is refused at its line and column (the parser builds it a character at a time: 36 bytes each, 63 MiB of it crashed a 2 GB heap); single-quoted, block and plain ones of that size, and a stray quote in a plain scalar, are not', () => {
  const big = 'a'.repeat(9 * 1024 * 1024);
  const head = 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n';
  assert.throws(
    () => new YamlBudget().check(`${head}  ok: "short"\n  key: "${big}"\n`, 'big.yaml'),
    (error: unknown) =>
      error instanceof CapiGitopsError &&
      /^big\.yaml:7:8: error: a double-quoted scalar here is longer than 8 MiB\n/.test(error.message) &&
      /hint: write it as a block scalar \(key: \|\) or single-quoted/.test(error.message),
  );
  // escaped quotes inside do not end it
  assert.throws(() => new YamlBudget().check(`${head}  key: "x\\"${big}"\n`, 'big.yaml'), /longer than 8 MiB/);
  for (const fine of [
    `${head}  key: '${big}'\n`,
    `${head}  key: |\n    ${big}\n`,
    `${head}  key: ${big}\n`,
    `${head}  note: a 5" screen\n  key: |\n    ${big}\n  end: "x"\n`,
  ])
    assert.doesNotThrow(() => new YamlBudget().check(fine, 'fine.yaml'));
});

test("each document counts toward the run's node bound: a million empty documents (4 MB of `---` lines, 60 s and 1.7 GB to parse) are refused before the parser runs; the corpus' artifacts are far below", () => {
  assert.throws(
    () => new YamlBudget().check('---\n'.repeat(1_000_000), 'empty.yaml'),
    /more than 8000000 YAML nodes.*each document counts as 64/,
  );
  assert.throws(() => new YamlBudget().check('x\n...\n'.repeat(1_000_000), 'ended.yaml'), /more than 8000000 YAML nodes/);
  const budget = new YamlBudget();
  for (const file of ['cluster-api/v1.12.0/core-components.yaml', 'cert-manager/v1.13.0/cert-manager.yaml'])
    assert.doesNotThrow(() => budget.check(readFileSync(path.join(CORPUS_REPOSITORY, file), 'utf8'), file));
});
