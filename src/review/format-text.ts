/**
 * The terminal form of a review: everything, uncut. Colour only when asked (the CLI asks when
 * stdout is a TTY and NO_COLOR is unset), so pipes and CI logs get plain text.
 */
import { findingWhere, leftInPlaceLine, riskLine, versionText } from './format-markdown.js';
import { clusterRanges } from '../core/cluster-ranges.js';
import type { ReviewReport } from './types.js';

const COLOURS = { red: 31, green: 32, yellow: 33, bold: 1, dim: 2 } as const;

export function formatText(report: ReviewReport, options: { colour?: boolean } = {}): string {
  const paint = (colour: keyof typeof COLOURS, text: string) => (options.colour ? `\x1b[${COLOURS[colour]}m${text}\x1b[0m` : text);
  const s = report.summary;
  const lines: string[] = [`${report.old.label} → ${report.new.label}`];
  const kept = leftInPlaceLine(report);
  if (kept) lines.push(kept);
  if (report.components.length === 0) return lines.concat('no object changed', '').join('\n');
  lines.push(
    `${s.added} added, ${s.removed} removed, ${s.changed} changed; risk: ${s.warnings > 0 ? paint('yellow', riskLine(report)) : riskLine(report)}`,
    '',
  );
  if (report.findings.length > 0) {
    lines.push(paint('bold', 'call-outs:'));
    for (const f of report.findings)
      lines.push(
        `  ${f.risk === 'warning' ? paint('yellow', 'warning') : 'info   '} ${f.type.padEnd(14)}${findingWhere(report, f)} ${f.message}`,
      );
    lines.push('');
  }
  for (const c of report.components) {
    lines.push(
      paint('bold', `${c.name} ${versionText(c)}`) +
        `  (${c.directory || 'top level'}: ${c.added} added, ${c.removed} removed, ${c.changed} changed)`,
    );
    for (const k of c.kinds) {
      lines.push(`  ${k.kind}${k.group ? ` (${k.group})` : ''}`);
      for (const o of k.objects) {
        const name = `${o.namespace ? o.namespace + '/' : ''}${o.name}${o.clusters ? ` (clusters ${clusterRanges(o.clusters)})` : ''}`;
        if (o.change === 'added') lines.push(paint('green', `    + ${name}`));
        else if (o.change === 'removed') lines.push(paint('red', `    - ${name}`));
        else {
          lines.push(paint('yellow', `    ~ ${name}`));
          for (const p of o.paths) lines.push(paint('dim', `        ${p}`));
          if (o.schemaPathsFolded) lines.push(paint('dim', `        (schema: ${o.schemaPathsFolded} paths, summarised in the call-outs)`));
        }
      }
    }
    lines.push('');
  }
  return lines.join('\n');
}
