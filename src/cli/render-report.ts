/**
 * What `render` prints once the output is written: the summary, the objects that changed, the
 * lockfile and the --json document.
 */
import { clusterRanges } from '../core/cluster-ranges.js';
import { displayPath } from '../core/diagnostics.js';
import { safeText } from '../core/redact.js';
import type { WriteSummary } from '../output/write.js';
import type { ObjectChange } from '../review/object-changes.js';
import type { Output } from './output.js';

const CHANGE_MARK: Record<ObjectChange['change'], string> = { added: '+', changed: '~', removed: '-' };

interface WrittenRender {
  /** -o as given. */
  output: string;
  /** The files written (each asked for once, by path). */
  files: Pick<ReadonlyMap<string, string | Uint8Array>, 'get'>;
  summary: WriteSummary;
  /** The --json document's fields from the render, in order: layout, then what was resolved. */
  document: Record<string, unknown>;
  /** The render's warnings (printed already), for the --json document. */
  warnings: string[];
  /** Prints the lockfile's change and returns its --json form. */
  lockReport: () => Record<string, unknown>;
  /** A fleet's clusters now: objects only clusters that left it had are told per cluster, not one by one. */
  clusters?: readonly string[];
}

/**
 * The object lines: a removed object that only clusters that left the fleet had is counted under
 * those clusters, one line a group (`diff` lists them), as diff's cluster-leaves call-out does.
 */
function objectLines(objects: readonly ObjectChange[], clusters: readonly string[] | undefined): string[] {
  const now = new Set(clusters ?? []);
  const gone = (o: ObjectChange) => clusters !== undefined && o.change === 'removed' && o.clusters?.every((c) => !now.has(c)) === true;
  const left = new Map<string, { count: number; many: boolean }>();
  const lines: string[] = [];
  for (const o of objects) {
    if (gone(o)) {
      const key = clusterRanges(o.clusters!);
      left.set(key, { count: (left.get(key)?.count ?? 0) + 1, many: o.clusters!.length > 1 });
      continue;
    }
    const where = o.clusters ? `${o.file}; clusters ${clusterRanges(o.clusters)}` : o.file;
    // one line, whatever an artifact names its object: a line break there would start a workflow command in a CI log
    const line = `  ${[CHANGE_MARK[o.change], o.kind, [o.namespace, o.name].filter(Boolean).join('/')].filter(Boolean).join(' ')} (${where})`;
    lines.push(safeText(line, { keepNewlines: false }));
  }
  for (const [names, { count, many }] of left)
    lines.push(
      `  - ${count} object${count === 1 ? '' : 's'} of ${many ? 'clusters' : 'cluster'} ${names}, which left the fleet (capi-gitops diff lists them)`,
    );
  return lines;
}

/** The objects a write changed: the files that changed compared object by object. */
async function changedObjects(summary: WriteSummary, files: WrittenRender['files'], warnings: string[]): Promise<ObjectChange[]> {
  const { objectChanges } = await import('../review/object-changes.js');
  return objectChanges(summary, files, (file, reason) =>
    warnings.push(`the objects of ${file} before this run are not listed: ${reason} (the write succeeded)`),
  );
}

export async function reportWrite(out: Output, written: WrittenRender): Promise<void> {
  const { summary, output } = written;
  const warnings = [...summary.warnings];
  const changed = summary.written.filter((file) => summary.previous.has(file));
  // The output and the lockfile are written: a problem from here on is the report's, a warning.
  // --quiet shows no list of objects: the previous files are not read back for one
  const objects = !out.showsReport
    ? []
    : await changedObjects(summary, written.files, warnings).catch((err: unknown) => {
        warnings.push(
          `the objects this run changed cannot be listed (${(err as Error).message}); the output and the lockfile were written`,
        );
        return [] as ObjectChange[];
      });
  for (const w of warnings) out.warn(w);
  out.line(`wrote ${output}: ${summary.written.length} written, ${summary.unchanged.length} unchanged, ${summary.removed.length} removed`);
  for (const file of summary.written) out.detail(`  ${summary.previous.has(file) ? 'changed' : 'created'} ${file}`);
  for (const file of summary.removed) out.detail(`  removed ${file}`);
  if (objects.length > 0) {
    const counts = (['added', 'changed', 'removed'] as const).map(
      (change) => `${objects.filter((o) => o.change === change).length} ${change}`,
    );
    out.line(`objects: ${counts.join(', ')}`);
    for (const line of objectLines(objects, written.clusters)) out.line(line);
  }
  const lockfile = written.lockReport();
  if (out.json) {
    out.document('render', {
      output: displayPath(output),
      ...written.document,
      files: { written: summary.written, changed, removed: summary.removed, unchanged: summary.unchanged.length },
      objects,
      lockfile,
      warnings: [...written.warnings, ...warnings],
    });
  }
}
