/**
 * The lockfile read and written with the `yaml` library: `parseLockfile` reports every problem
 * at its line and column; `serializeLockfile` writes what text.ts cannot be sure of. The render
 * path reads and writes through store.ts, which loads this module only when it must.
 */
import YAML, { LineCounter, isMap, isScalar, isSeq, type Node as YamlNode, type YAMLMap, type YAMLSeq } from 'yaml';
import { CapiGitopsError } from '../model/diagnostics.js';
import { LOCK_API_VERSION, LOCK_KIND, type Lockfile } from './types.js';
import { LockReader, REGENERATE_HINT, type LockNodes } from './reader.js';
import { HEADER, fastLockfileText, lockfileData } from './text.js';

/** The lock's file text: the same content always gives the same bytes. */
export function serializeLockfile(lock: Pick<Lockfile, 'entries'>): string {
  return fastLockfileText(lock) ?? libraryLockfileText(lock);
}

/** The lock's text as the library writes it (what text.ts reproduces where it can). */
export function libraryLockfileText(lock: Pick<Lockfile, 'entries'>): string {
  return HEADER + YAML.stringify(lockfileData(lock), { version: '1.2', lineWidth: 0, indentSeq: true });
}

// ---- reading --------------------------------------------------------------------------------

/** The library's nodes as the reader sees them; problems at the node's line and column. */
function libraryNodes(lineCounter: LineCounter): LockNodes<YamlNode> {
  return {
    isMap: (node) => isMap(node),
    pairs: (node) => (node as YAMLMap<YamlNode, YamlNode | null>).items.map((pair) => ({ key: pair.key, value: pair.value })),
    isSeq: (node) => isSeq(node),
    items: (node) => (node as YAMLSeq<YamlNode>).items,
    isScalar: (node) => isScalar(node),
    scalar: (node) => (isScalar(node) ? node.value : undefined),
    position: (node) => {
      const { line, col } = lineCounter.linePos(node?.range?.[0] ?? 0);
      return { line, column: col };
    },
  };
}

/** Parses lockfile text; a malformed lock is a CapiGitopsError listing every problem with its line and column. */
export function parseLockfile(text: string, file: string): Lockfile {
  const lineCounter = new LineCounter();
  const doc = YAML.parseDocument(text, { version: '1.2', lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new CapiGitopsError(
      doc.errors.map((error) => {
        const { line, col } = lineCounter.linePos(error.pos[0]);
        return {
          file,
          line,
          column: col,
          message: `invalid YAML: ${error.message}`,
          expected: 'a capi-gitops lockfile',
          hint: REGENERATE_HINT,
        };
      }),
    );
  }
  const reader = new LockReader(file, libraryNodes(lineCounter));
  const root = doc.contents as YamlNode | null;
  const lock =
    root === null
      ? reader.problem(null, '', 'the lockfile is empty', `apiVersion: ${LOCK_API_VERSION}, kind: ${LOCK_KIND}, entries: […]`)
      : reader.lock(root);
  if (lock === undefined) throw new CapiGitopsError(reader.problems);
  return lock;
}
