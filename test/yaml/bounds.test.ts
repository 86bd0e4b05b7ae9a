import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { YamlBudget } from '../../src/yaml/bounds.js';
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
