/**
 * The object each object file of this process's layouts was emitted from, by the file's text.
 *
 * Summarising a written file's objects (object-changes.ts: the render's report and the output
 * cache) parsed the whole output again, the largest single step after parsing the artifacts in a
 * cold render of the corpus. A file emitted here is `GENERATED_COMMENT + emitYamlDocument(object)`,
 * which reads back as exactly `object` (the emitter's contract, tested in test/yaml/emit.test.ts
 * and, for this use, on the corpus in every layout in test/emit/object-changes.test.ts), so its
 * object is taken from here instead. A text changed after layout (sops encryption) is simply not
 * found and is parsed.
 */
import type { KObject } from '../core/kobject.js';

const objectByText = new Map<string, KObject>();
/** A long-lived process (a test run, a fleet) does not keep every text it ever emitted. */
const LIMIT = 16384;

/** Records that `text` is one object file holding `object`, written by the default emitter. */
export function rememberEmitted(text: string, object: KObject): void {
  if (objectByText.size >= LIMIT) objectByText.clear();
  objectByText.set(text, object);
}

/** The object `text` was emitted from, when this process emitted it. */
export function emittedObject(text: string): KObject | undefined {
  return objectByText.get(text);
}
