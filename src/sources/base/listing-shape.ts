/**
 * Entries of a version listing (GitHub's releases, GitLab's packages) whose fields are not of the
 * type read: each is skipped, and the listing says so once, with how many and the first one's field;
 * a listing left with none usable is an error naming that field, not an empty list of versions.
 */

/** What a JSON value is, in a problem's words (never the value: it may be huge, or nested a million deep). */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * The first of `fields` (name → `string` or `boolean`; optional: may be absent or null) of listing
 * entry `index` that is not of its type, e.g. `[3].tag_name is a number`; undefined when none.
 */
export function entryShapeProblem(
  entry: unknown,
  index: number,
  fields: Readonly<Record<string, 'string' | 'boolean'>>,
  optional: Readonly<Record<string, 'string' | 'boolean'>> = {},
): string | undefined {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return `[${index}] is ${jsonType(entry)}`;
  const record = entry as Record<string, unknown>;
  for (const [field, type] of Object.entries(fields))
    if (typeof record[field] !== type) return `[${index}].${field} is ${jsonType(record[field])}`;
  for (const [field, type] of Object.entries(optional)) {
    const value = record[field];
    if (value !== undefined && value !== null && typeof value !== type) return `[${index}].${field} is ${jsonType(value)}`;
  }
  return undefined;
}

/** The entries of one listing skipped for their shape: how many, and the first one's problem. */
export class SkippedEntries {
  count = 0;
  first: string | undefined;

  skip(problem: string): void {
    this.count++;
    this.first ??= problem;
  }

  /** `listing` (e.g. `GitHub's list of releases of o/r`) said once; undefined when nothing was skipped. */
  warning(listing: string): string | undefined {
    if (this.count === 0) return undefined;
    const entries = this.count === 1 ? '1 entry' : `${this.count} entries`;
    return `${listing}: skipped ${entries} of the wrong shape (the first: ${this.first}); the other entries are used`;
  }

  /** The error's words when none of the `total` entries of `listing` was usable and some were of the wrong shape. */
  noneUsable(listing: string, total: number): string {
    const wrong =
      this.count === total ? (total === 1 ? 'its one entry is' : `all ${total} entries are`) : `${this.count} of ${total} entries are`;
    return `${listing} holds no usable entry: ${wrong} of the wrong shape (the first: ${this.first})`;
  }
}
