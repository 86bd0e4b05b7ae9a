/**
 * The suite's check for prototype pollution (issue 27): scripts/run-tests.mjs loads this module
 * into every Node process of the run through NODE_OPTIONS, so into each test file's process
 * (where in-process renders run) and into every CLI run a test spawns. At exit it compares
 * Object.prototype and Array.prototype with what they held when the process started, and appends
 * what input added or changed to the file CAPI_GITOPS_TEST_PROTOTYPE_LOG names; the runner fails
 * the suite when that file is not empty. A test may also call `prototypeChanges()` itself.
 */
import { appendFileSync } from 'node:fs';

const GUARDED: Record<string, object> = { 'Object.prototype': Object.prototype, 'Array.prototype': Array.prototype };

type Snapshot = Map<PropertyKey, unknown>;

function snapshot(target: object): Snapshot {
  const out: Snapshot = new Map();
  for (const key of Reflect.ownKeys(target)) {
    const d = Object.getOwnPropertyDescriptor(target, key)!;
    out.set(key, 'value' in d ? d.value : d.get);
  }
  return out;
}

const atStart = new Map(Object.entries(GUARDED).map(([name, target]) => [name, snapshot(target)]));

/** `Object.prototype.public added`, one line per property added, changed or removed since the process started. */
export function prototypeChanges(): string[] {
  const changes: string[] = [];
  for (const [name, target] of Object.entries(GUARDED)) {
    const before = atStart.get(name)!;
    const now = snapshot(target);
    for (const [key, value] of now) {
      if (!before.has(key)) changes.push(`${name}.${String(key)} added`);
      else if (before.get(key) !== value) changes.push(`${name}.${String(key)} changed`);
    }
    for (const key of before.keys()) if (!now.has(key)) changes.push(`${name}.${String(key)} removed`);
  }
  return changes;
}

export const PROTOTYPE_LOG_VARIABLE = 'CAPI_GITOPS_TEST_PROTOTYPE_LOG';

const log = process.env[PROTOTYPE_LOG_VARIABLE];
if (log) {
  process.on('exit', () => {
    const changes = prototypeChanges();
    if (changes.length > 0) appendFileSync(log, `${process.argv.slice(1).join(' ')}\n  ${changes.join('\n  ')}\n`);
  });
}
