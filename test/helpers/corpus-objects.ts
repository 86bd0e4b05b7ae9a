import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { KObject } from '../../src/core/kobject.js';
import { CORPUS_REPOSITORY } from './paths.js';
import { runMemo, V8_VALUE } from './run-memo.js';

/**
 * The objects of a corpus artifact (path parts under the local repository) as the yaml package
 * reads them in YAML 1.1, empty documents dropped. A fresh copy on every call.
 */
export function corpusObjects(...parts: string[]): KObject[] {
  const file = path.join(CORPUS_REPOSITORY, ...parts);
  return runMemo(
    `corpus objects\0${file}`,
    () =>
      YAML.parseAllDocuments(readFileSync(file, 'utf8'), { version: '1.1' })
        .map((d) => d.toJS() as KObject | null)
        .filter((o): o is KObject => o !== null),
    V8_VALUE,
  ) as KObject[];
}
