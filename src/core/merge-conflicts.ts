/**
 * Git's conflict markers left in a file a merge or rebase could not combine. A YAML parser reads
 * them as a dozen syntax errors about indentation and keys; the one thing to say is which lines
 * still hold an unresolved conflict.
 */
import type { Diagnostic } from './diagnostics.js';

/** One conflict: the 1-based lines of its `<<<<<<<` and `>>>>>>>` markers. */
interface MergeConflict {
  start: number;
  end: number;
}

const START = /^<{7}(?: |$)/;
const SEPARATOR = /^={7}\r?$/;
const END = /^>{7}(?: |$)/;

/** Each conflict in `text`: a `<<<<<<<` line, later a `=======` line, then a `>>>>>>>` line, as Git writes them. */
function mergeConflicts(text: string): MergeConflict[] {
  const conflicts: MergeConflict[] = [];
  const lines = text.split('\n');
  let start: number | undefined;
  let separated = false;
  lines.forEach((line, index) => {
    if (START.test(line)) [start, separated] = [index + 1, false];
    else if (start !== undefined && SEPARATOR.test(line)) separated = true;
    else if (start !== undefined && separated && END.test(line)) {
      conflicts.push({ start, end: index + 1 });
      start = undefined;
    }
  });
  return conflicts;
}

/**
 * One problem at each conflict in `text`: what `file` should be, and the way out for its kind of
 * file (an output file is rendered again, a lockfile keeps one side, a manifest is the user's).
 */
export function mergeConflictProblems(text: string, file: string, expected: string, hint: string): Diagnostic[] {
  return mergeConflicts(text).map(({ start, end }) => ({
    file,
    line: start,
    column: 1,
    message: `unresolved Git merge conflict (lines ${start}-${end})`,
    expected,
    hint,
  }));
}
