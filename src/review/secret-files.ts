/**
 * Files that hold secret values (the inline strategy, declared in the output README of either
 * tree): a review names what changed in them and hides every value, as kubectl diff masks a
 * Secret's data (kubectl pkg/cmd/diff/diff.go Masker) — a rotated credential shows as changed,
 * neither the old value nor the new one is printed. In their field paths a key or list item name
 * that only one side has (a rotated secret used as a key) is `(hidden)` (review.ts, field-paths.ts).
 * And SOPS-encrypted files, whose metadata every encryption rewrites.
 */
import { secretFilesListed } from '../layout/secret-files-section.js';
import { isPlainObject, type KObject } from '../core/kobject.js';
import type { Finding } from './types.js';

/** Every file a tree's READMEs declare as holding secret values, as paths in the tree (a fleet's README lists every cluster's). */
export function declaredSecretFiles(files: ReadonlyMap<string, string>): Set<string> {
  const out = new Set<string>();
  for (const [file, text] of files) {
    if (file !== 'README.md' && !file.endsWith('/README.md')) continue;
    const dir = file.slice(0, -'README.md'.length);
    for (const listed of secretFilesListed(text)) out.add(dir + listed);
  }
  return out;
}

const HIDDEN = '(hidden)';

/** The finding about a declared file with its values hidden. */
export function withValuesHidden(f: Finding, file: string): Finding {
  const why = `values hidden: ${file} holds secret values`;
  switch (f.type) {
    case 'flags': {
      const names = [...f.added.map((n) => `+${n}`), ...f.removed.map((n) => `−${n}`), ...f.changed.map((c) => c.flag)];
      return {
        ...f,
        changed: f.changed.map((c) => ({ flag: c.flag, from: HIDDEN, to: HIDDEN })),
        message: `${f.object} container ${f.container}: flags ${names.join(', ')} changed (${why})`,
      };
    }
    case 'image':
      return {
        ...f,
        from: f.from === null ? null : HIDDEN,
        to: f.to === null ? null : HIDDEN,
        // a workload added or removed says so: `changed` would read as another image
        message:
          f.from === null || f.to === null
            ? `${f.object} container ${f.container}: image ${f.from === null ? '(none)' : HIDDEN} → ${f.to === null ? '(none)' : HIDDEN} (${why})`
            : `${f.object} container ${f.container}: image changed (${why})`,
      };
    case 'image-content':
      return {
        ...f,
        image: HIDDEN,
        ...(f.toImage === undefined ? {} : { toImage: HIDDEN }),
        from: HIDDEN,
        to: HIDDEN,
        message: `${f.object} container ${f.container}: same tag, new content (${why})`,
      };
    case 'resources':
      return {
        ...f,
        changes: f.changes.map((c) => ({ path: c.path, from: c.from === null ? null : HIDDEN, to: c.to === null ? null : HIDDEN })),
        message: `${f.object} container ${f.container}: resources ${f.changes.map((c) => c.path).join(', ')} changed (${why})`,
      };
    default:
      return f;
  }
}

/**
 * The paths of a SOPS-encrypted object (a `sops` map on both sides) without `sops.mac` and
 * `sops.lastmodified`: every encryption writes them anew (the MAC is encrypted with a new IV,
 * the time is the render's), so they say nothing a changed value does not say itself.
 */
export function withoutSopsChurn(before: KObject, after: KObject, paths: string[]): string[] {
  if (!isPlainObject(before.sops) || !isPlainObject(after.sops)) return paths;
  return paths.filter((p) => p !== 'sops.mac' && p !== 'sops.lastmodified');
}
