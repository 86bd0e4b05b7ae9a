import { CapiGitopsError } from '../core/diagnostics.js';
import { apiGroup, describeObject, type KObject } from '../core/kobject.js';
import { sha256Hex } from '../core/digest.js';
import { CUT_STEM_HASH_DIGITS, MAX_FILE_NAME_STEM, sanitizeFileNamePart } from '../core/names.js';

/**
 * File names in the output. The rule, applied to kind and name separately:
 *   1. lower-case (String#toLowerCase, locale-independent);
 *   2. every character outside `[a-z0-9.-]` becomes `-`;
 *   3. runs of `-` collapse to one `-`;
 *   4. leading and trailing `-` and `.` are trimmed.
 * The file is `<kind>-<name>.yaml`. A stem over MAX_STEM characters is cut and suffixed with
 * `-` and 8 hex digits of the sha256 of `<kind>/<name>` as given, so every name fits the
 * 255-byte limit of common filesystems and stays unique.
 */
export const MAX_STEM = MAX_FILE_NAME_STEM;
const HASH_DIGITS = CUT_STEM_HASH_DIGITS;

const CRD_DIRECTORY = 'crds';

/** Steps 1–4 of the rule above (in core: the secret gate searches paths in this form). */
export { sanitizeFileNamePart };

/** Keeps a stem within MAX_STEM characters, adding a hash of the unshortened identity when cut. */
function boundStem(stem: string, identity: string): string {
  if (stem.length <= MAX_STEM) return stem;
  const kept = stem.slice(0, MAX_STEM - HASH_DIGITS - 1).replace(/[-.]+$/, '');
  return `${kept}-${sha256Hex(identity).slice(0, HASH_DIGITS)}`;
}

export function isCustomResourceDefinition(obj: KObject): boolean {
  return obj.kind === 'CustomResourceDefinition' && apiGroup(obj.apiVersion ?? '') === 'apiextensions.k8s.io';
}

/** `<kind>-<name>.yaml` by the rule above; throws when kind or name leaves nothing usable. */
export function objectFileName(obj: KObject): string {
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const name = typeof obj.metadata?.name === 'string' ? obj.metadata.name : '';
  const kindPart = sanitizeFileNamePart(kind);
  const namePart = sanitizeFileNamePart(name);
  if (!kindPart || !namePart) {
    throw new CapiGitopsError({
      message: 'cannot name an output file for this object',
      object: describeObject(obj),
      path: !kindPart ? 'kind' : 'metadata.name',
      expected: 'a kind and metadata.name with at least one letter or digit',
      hint: 'every rendered object needs a kind and a name; check the provider components and patches',
    });
  }
  return `${boundStem(`${kindPart}-${namePart}`, `${kind}/${name}`)}.yaml`;
}

/** Path of an object's file inside its component directory; CRDs go under `crds/`. */
export function objectFilePath(obj: KObject): string {
  const file = objectFileName(obj);
  return isCustomResourceDefinition(obj) ? `${CRD_DIRECTORY}/${file}` : file;
}
