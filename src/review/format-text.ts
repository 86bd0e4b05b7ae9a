/**
 * The terminal form of a review: everything, uncut. Colour only when asked (the CLI asks when
 * stdout is a TTY and NO_COLOR is unset), so pipes and CI logs get plain text. Every piece from
 * input (names, paths, values, labels) is one line, its controls escaped, before any colour: a
 * name holding a line break would start a GitHub Actions workflow command in a CI log.
 */
import { groupedFinding, leftInPlaceLine, riskLine, versionText } from './format-markdown.js';
import { clusterRanges } from '../core/cluster-ranges.js';
import { componentKey, componentWithoutCluster, findingsByComponent, groupByCluster, groupFindings } from './fleet-groups.js';
import { clusterOf } from './objects.js';
import type { ReviewReport } from './types.js';
import { safeText } from '../core/redact.js';

const COLOURS = { red: 31, green: 32, yellow: 33, bold: 1, dim: 2 } as const;

export function formatText(report: ReviewReport, options: { colour?: boolean } = {}): string {
  const one = (text: string) => safeText(text, { keepNewlines: false });
  const paint = (colour: keyof typeof COLOURS, text: string) =>
    options.colour ? `\x1b[${COLOURS[colour]}m${one(text)}\x1b[0m` : one(text);
  const s = report.summary;
  const lines: string[] = [one(`${report.old.label} → ${report.new.label}`)];
  const kept = leftInPlaceLine(report);
  if (kept) lines.push(one(kept));
  if (report.components.length === 0) return lines.concat('no object changed', '').join('\n');
  lines.push(
    `${s.added} added, ${s.removed} removed, ${s.changed} changed; risk: ${s.warnings > 0 ? paint('yellow', riskLine(report)) : one(riskLine(report))}`,
    '',
  );
  if (report.findings.length > 0) {
    lines.push(paint('bold', 'call-outs:'));
    for (const group of groupFindings(report.findings)) {
      const f = group.first;
      const { where, message } = groupedFinding(report, group);
      lines.push(`  ${f.risk === 'warning' ? paint('yellow', 'warning') : 'info   '} ${one(`${f.type.padEnd(14)}${where} ${message}`)}`);
    }
    lines.push('');
  }
  // the same change in many clusters' own directories is told once, for each of them
  const findingsOf = findingsByComponent(report.findings);
  const groups = groupByCluster(
    report.components,
    (c) => clusterOf(`${c.directory}/`),
    (c, cluster) => componentKey(c, cluster, findingsOf),
  );
  for (const { first, clusters } of groups) {
    const c = clusters.length > 1 ? componentWithoutCluster(first, clusters[0]!) : first;
    const each = clusters.length > 1 ? ` in each of clusters ${clusterRanges(clusters)}` : '';
    lines.push(
      paint('bold', `${c.name} ${versionText(c)}`) +
        one(`  (${c.directory || 'top level'}: ${c.added} added, ${c.removed} removed, ${c.changed} changed${each})`),
    );
    for (const k of c.kinds) {
      lines.push(one(`  ${k.kind}${k.group ? ` (${k.group})` : ''}`));
      for (const o of k.objects) {
        const name = `${o.namespace ? o.namespace + '/' : ''}${o.name}${o.clusters ? ` (clusters ${clusterRanges(o.clusters)})` : ''}`;
        if (o.change === 'added') lines.push(paint('green', `    + ${name}`));
        else if (o.change === 'removed') lines.push(paint('red', `    - ${name}`));
        else {
          lines.push(paint('yellow', `    ~ ${name}`));
          const values = new Map(o.values?.map((v) => [v.path, v]));
          for (const p of o.paths) {
            const v = values.get(p);
            lines.push(paint('dim', `        ${p}${v ? `: ${v.from || '""'} → ${v.to || '""'}` : ''}`));
          }
          if (o.schemaPathsFolded) lines.push(paint('dim', `        (schema: ${o.schemaPathsFolded} paths, summarised in the call-outs)`));
        }
      }
    }
    lines.push('');
  }
  return lines.join('\n');
}
