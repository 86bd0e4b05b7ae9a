/**
 * Git's conflict markers left in a file a merge or rebase could not combine. A YAML parser reads
 * them as a dozen syntax errors about indentation and keys; the one thing to say is which lines
 * still hold an unresolved conflict.
 */

/** One conflict: the 1-based lines of its `<<<<<<<` and `>>>>>>>` markers. */
export interface MergeConflict {
  start: number;
  end: number;
}

const START = /^<{7}(?: |$)/;
const SEPARATOR = /^={7}\r?$/;
const END = /^>{7}(?: |$)/;

/** Each conflict in `text`: a `<<<<<<<` line, later a `=======` line, then a `>>>>>>>` line, as Git writes them. */
export function mergeConflicts(text: string): MergeConflict[] {
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
