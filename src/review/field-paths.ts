/**
 * The field paths at which two JSON values differ, kubectl-style: `spec.replicas`,
 * `spec.template.spec.containers[name=manager].image`. Lists of objects that all carry a
 * `name` are matched by name (as strategic merge does for containers, env, ports, webhooks,
 * versions), other lists by index. A subtree only one side has is one path, not its leaves.
 */
import { isPlainObject } from '../core/kobject.js';
import { compareStrings } from '../core/diagnostics.js';
import { ownValue } from '../core/own-keys.js';

const SIMPLE_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** What a path shows for a key or item name only one side has, in a file holding secret values. */
const HIDDEN_KEY = '(hidden)';

function keyPath(base: string, key: string): string {
  if (key === HIDDEN_KEY) return base ? `${base}.${key}` : key;
  const part = SIMPLE_KEY.test(key) ? key : JSON.stringify(key);
  return base ? (SIMPLE_KEY.test(key) ? `${base}.${part}` : `${base}[${part}]`) : part;
}

function namedItems(list: unknown[]): Map<string, unknown> | undefined {
  const byName = new Map<string, unknown>();
  for (const item of list) {
    if (!isPlainObject(item) || typeof item.name !== 'string' || byName.has(item.name)) return undefined;
    byName.set(item.name, item);
  }
  return byName;
}

export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameValue(a[k], b[k]));
  }
  return false;
}

/** Digits an index is padded to when paths are sorted: more than any list holds. */
const INDEX_DIGITS = 10;

/** Paths by code unit, list indexes by number: a reviewer reads rules[2] before rules[10]. */
function comparePaths(a: string, b: string): number {
  const key = (p: string) => p.replace(/\[(\d+)\]/g, (_, index: string) => `[${index.padStart(INDEX_DIGITS, '0')}]`);
  return compareStrings(key(a), key(b)) || compareStrings(a, b);
}

/**
 * Paths (sorted by comparePaths) where `a` and `b` differ; [] when they are equal. With `hideOneSided`
 * (a file holding secret values), a key or list item name that only one side has is shown as
 * `(hidden)`: a rotated secret used as a key is such a name on both sides.
 */
export function changedPaths(a: unknown, b: unknown, hideOneSided = false): string[] {
  const out: string[] = [];
  walk(a, b, '', out, hideOneSided);
  return [...new Set(out)].sort(comparePaths);
}

function walk(a: unknown, b: unknown, at: string, out: string[], hide: boolean, leaves?: Map<string, [unknown, unknown]>): void {
  if (sameValue(a, b)) return;
  if (isPlainObject(a) && isPlainObject(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const shown = hide && !(Object.hasOwn(a, key) && Object.hasOwn(b, key)) ? HIDDEN_KEY : key;
      walk(ownValue(a, key), ownValue(b, key), keyPath(at, shown), out, hide, leaves);
    }
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const namedA = namedItems(a);
    const namedB = namedItems(b);
    if (namedA && namedB && (a.length > 0 || b.length > 0)) {
      for (const name of new Set([...namedA.keys(), ...namedB.keys()])) {
        const shown = hide && !(namedA.has(name) && namedB.has(name)) ? HIDDEN_KEY : name;
        walk(namedA.get(name), namedB.get(name), `${at}[name=${shown}]`, out, hide, leaves);
      }
      return;
    }
    if (a.every((x) => !isPlainObject(x) && !Array.isArray(x)) && b.every((x) => !isPlainObject(x) && !Array.isArray(x))) {
      out.push(at);
      return;
    }
    for (let i = 0; i < Math.max(a.length, b.length); i++) walk(a[i], b[i], `${at}[${i}]`, out, hide, leaves);
    return;
  }
  out.push(at || '.');
  leaves?.set(at || '.', [a, b]);
}

/** Longest value `changedScalars` gives: a revision, a path, a namespace, not a generator's lookup table. */
const SCALAR_SHOWN = 80;

/**
 * The wiring fields whose values are shown: where and how it syncs. Not a Helm parameter's value,
 * inline values or a postBuild substitution, which may hold what the secrets gate never saw (the
 * committed side, a value rotated since, `diff <from> <to>` of two directories).
 */
const SHOWN_FIELDS = new Set([
  'targetRevision',
  'repoURL',
  'path',
  'chart',
  'project',
  'name',
  'server',
  'namespace',
  'interval',
  'retryInterval',
  'timeout',
  'prune',
  'wait',
  'force',
  'suspend',
  'selfHeal',
  'limit',
  'duration',
  'maxDuration',
  'factor',
]);

/**
 * The changed paths of the sync fields (SHOWN_FIELDS) whose old and new values are both short
 * scalars (strings, numbers, booleans of one line), each with its values as text: what a reviewer
 * reads as `main → v2`. Never call it on values that may be secret.
 */
export function changedScalars(a: unknown, b: unknown): { path: string; from: string; to: string }[] {
  const leaves = new Map<string, [unknown, unknown]>();
  walk(a, b, '', [], false, leaves);
  const text = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);
  const shown = (s: string | undefined): s is string => s !== undefined && s.length <= SCALAR_SHOWN && !/[\r\n]/.test(s);
  const out: { path: string; from: string; to: string }[] = [];
  for (const [path, [x, y]] of [...leaves].sort(([p], [q]) => comparePaths(p, q))) {
    const [from, to] = [text(x), text(y)];
    const field = path.split('.').at(-1)!.replace(/\[.*$/, '');
    if (SHOWN_FIELDS.has(field) && shown(from) && shown(to)) out.push({ path, from, to });
  }
  return out;
}
