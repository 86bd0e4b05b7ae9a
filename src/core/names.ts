/**
 * Kubernetes name rules (k8s.io/apimachinery pkg/util/validation): one definition each, used by
 * the registry, label selectors and anything else that checks a name.
 */

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** validation.IsDNS1123Label: at most 63 lower-case alphanumerics and `-`, alphanumeric at both ends. */
export function isDns1123Label(name: string): boolean {
  return name.length <= 63 && DNS1123_LABEL.test(name);
}

/** validation.IsDNS1123Subdomain: at most 253 characters, dot-separated DNS-1123 labels. */
export function isDns1123Subdomain(name: string): boolean {
  return name.length <= 253 && DNS1123_SUBDOMAIN.test(name);
}

/** validation.IsQualifiedName (label and annotation keys): `[prefix/]name`; the problem, or undefined. */
export function qualifiedNameProblem(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) return 'a qualified name has at most one "/"';
  const [prefix, name] = parts.length === 2 ? parts : [undefined, parts[0]!];
  if (prefix !== undefined && (prefix === '' || !isDns1123Subdomain(prefix))) {
    return 'the prefix must be a lowercase DNS subdomain (e.g. example.com)';
  }
  if (name === '' || name!.length > 63 || !QUALIFIED_NAME_PART.test(name!)) {
    return "the name part must be 1-63 alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric";
  }
  return undefined;
}

/** validation.IsValidLabelValue: the problem, or undefined. */
export function labelValueProblem(value: string): string | undefined {
  if (value.length > 63 || !LABEL_VALUE.test(value)) {
    return "a label value is at most 63 alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric";
  }
  return undefined;
}

export function isValidLabelKey(key: string): boolean {
  return qualifiedNameProblem(key) === undefined;
}

export function isValidLabelValue(value: string): boolean {
  return labelValueProblem(value) === undefined;
}

/**
 * A kind or name as it is written in an output file's name (layout/names.ts states the rule):
 * lower case, every character outside `[a-z0-9.-]` a `-`, runs of `-` one, no `-` or `.` at either
 * end. May return '' (the caller decides whether that is an error).
 */
export function sanitizeFileNamePart(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9.-]/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
}

/** A file name's stem (`<kind>-<name>`) over this many characters is cut (layout/names.ts boundStem). */
export const MAX_FILE_NAME_STEM = 200;
/** A cut stem ends in `-` and this many hex digits of a hash of the object's identity. */
export const CUT_STEM_HASH_DIGITS = 8;

/**
 * Where each cut file name in `text` ends what it kept (the index of the `-` and hash a cut adds):
 * a name over the limit keeps only the start of what was cut, so that start ends just before.
 */
export function fileNameCuts(text: string): number[] {
  return [...text.matchAll(CUT_STEM_END)].map((m) => m.index);
}

// matchAll copies it, so one global expression serves every call
const CUT_STEM_END = new RegExp(`-[0-9a-f]{${CUT_STEM_HASH_DIGITS}}\\.yaml(?![a-z0-9.-])`, 'g');
