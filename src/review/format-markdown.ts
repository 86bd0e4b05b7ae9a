/**
 * The pull-request form of a review: a summary table and the call-outs first, then one
 * `<details>` section per component, grouped by kind. CRD schema changes appear only as the
 * per-version summary of the call-outs. The whole text stays under GitHub's comment limit
 * (65,536 characters): what does not fit is cut, with a note saying how to see the rest.
 */
import { clusterRanges } from '../core/cluster-ranges.js';
import {
  componentKey,
  componentWithoutCluster,
  findingsByComponent,
  groupByCluster,
  groupFindings,
  groupMessage,
  type ClusterGroup,
} from './fleet-groups.js';
import { clusterOf } from './objects.js';
import { sortKinds } from './review.js';
import type { ComponentDiff, Finding, ObjectChange, ReviewReport } from './types.js';

export const GITHUB_COMMENT_LIMIT = 65_536;
/** The bound in UTF-16 code units (≥ characters), with room for a marker or heading a caller adds (the Action adds a marker line). */
const LIMIT = GITHUB_COMMENT_LIMIT - 512;
/** Field paths listed per changed object before "… and N more". */
const PATHS_PER_OBJECT = 8;
/** The heading and the summary table's rows stay within half the bound, the call-outs and details having the rest. */
const TABLE_BUDGET = LIMIT / 2;

interface MarkdownOptions {
  /** The command that prints everything, for the note when details are cut. */
  fullCommand?: string;
}

/** Inline code that survives any content: no backticks inside, no line breaks. */
function code(text: string): string {
  return '`' + text.replace(/[`\r\n]/g, ' ') + '`';
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/[\r\n]/g, ' ');
}

/**
 * Text from input as markdown text: no markup, no line break, and no `@mention` or `#123`
 * reference, which GitHub links in a comment's text (decoding entities first) and not with a
 * zero-width space after the `@` or `#`, as Renovate writes them (`@&#8203;`).
 */
function plain(text: string): string {
  return text
    .replace(/[<>&`|*_[\]\r\n]/g, (c) => (c === '\r' || c === '\n' ? ' ' : `&#${c.charCodeAt(0)};`))
    .replace(/(?<!&)[@#]/g, '$&&#8203;');
}

/**
 * The fleet clusters a component directory's changes reach: `cluster eu-1` under
 * `clusters/eu-1/`, the clusters of a shared base's objects; empty for one cluster's output.
 * The component name alone cannot tell two clusters' rows or call-outs apart.
 */
function clustersOf(report: ReviewReport, directory: string): string {
  const own = /^clusters\/([^/]+)\//.exec(directory);
  if (own) return `cluster ${own[1]}`;
  const c = report.components.find((x) => x.directory === directory);
  const names = [...new Set(c?.kinds.flatMap((k) => k.objects.flatMap((o) => o.clusters ?? [])) ?? [])];
  return names.length === 0 ? '' : `${names.length === 1 ? 'cluster' : 'clusters'} ${clusterRanges(names)}`;
}

/** ` (cluster eu-1)`, or nothing outside a fleet. */
function where(report: ReviewReport, directory: string): string {
  const text = clustersOf(report, directory);
  return text ? ` (${text})` : '';
}

/**
 * A call-out's clusters (`clusters eu-1, us-1`, empty outside a fleet): a base's finding names the
 * clusters of its object change, not every cluster the base's changes reach (a cluster added on a
 * base gets its CRDs added, the others an upgrade).
 */
export function findingClusters(report: ReviewReport, f: Finding): string {
  if (!f.clusters) return clustersOf(report, f.component);
  return `${f.clusters.length === 1 ? 'cluster' : 'clusters'} ${clusterRanges(f.clusters)}`;
}

/** ` (clusters eu-1, us-1)` after a call-out's type, or nothing outside a fleet. */
function findingWhere(report: ReviewReport, f: Finding): string {
  const text = findingClusters(report, f);
  return text ? ` (${text})` : '';
}

/** A call-out told once for the clusters that have it alike: its clusters after the type, and its message. */
export function groupedFinding(report: ReviewReport, group: ClusterGroup<Finding>): { where: string; message: string } {
  const where = group.clusters.length > 1 ? ` (clusters ${clusterRanges(group.clusters)})` : findingWhere(report, group.first);
  return { where, message: groupMessage(group) };
}

export function versionText(c: Pick<ComponentDiff, 'oldVersion' | 'newVersion'>): string {
  if (c.oldVersion === c.newVersion) return c.newVersion ?? '';
  return `${c.oldVersion ?? '(none)'} → ${c.newVersion ?? '(removed)'}`;
}

/** The files render keeps (check: extra, remove by hand), named so that no one reads their objects as kept by this change. */
export function leftInPlaceLine(report: ReviewReport, name: (path: string) => string = (p) => p): string | undefined {
  const kept = report.leftInPlace ?? [];
  if (kept.length === 0) return undefined;
  const shown = kept.slice(0, 10).map(name).join(', ') + (kept.length > 10 ? `, … (${kept.length} files)` : '');
  const [it, its] = kept.length === 1 ? ['it', 'its'] : ['them', 'their'];
  return (
    `left in place: ${shown}: not capi-gitops' (or changed since it wrote ${it}), render leaves ${it}, ` +
    `so ${its} objects are not in this diff; \`capi-gitops check\` names ${it} extra, to remove by hand`
  );
}

export function riskLine(report: ReviewReport): string {
  // counted as the call-outs are told: what clusters have alike, once
  const told = groupFindings(report.findings).map((g) => g.first);
  const warnings = told.filter((f) => f.risk === 'warning');
  if (warnings.length === 0) return `no risky changes found (${told.length} call-out${told.length === 1 ? '' : 's'})`;
  const byType = new Map<string, number>();
  for (const f of warnings) byType.set(riskName(f), (byType.get(riskName(f)) ?? 0) + 1);
  return `${warnings.length} risky change${warnings.length === 1 ? '' : 's'}: ${[...byType].map(([name, n]) => `${n} ${name}`).join(', ')}`;
}

function riskName(f: Finding): string {
  if (f.type === 'rbac') return 'RBAC widened';
  if (f.type === 'version')
    return f.direction === 'downgrade'
      ? 'downgrade'
      : f.direction === 'removed'
        ? 'removed, stays installed'
        : 'upgrade skipping minor versions';
  if (f.type === 'image-content') return 'same tag, new content';
  if (f.type === 'destination') return 'destination changed';
  if (f.type === 'deletion') return 'deletion guard gone';
  if (f.type === 'namespace-move')
    return f.object?.startsWith('Deployment/') ? 'manager moved to another namespace' : 'workload moved to another namespace';
  if (f.type === 'secret-replaced') return 'Secret replaced by ExternalSecret';
  if (f.type === 'crd') {
    // its versions are all gone with it: one risk, not also "version removed"
    if (f.removed) return 'CRD removed (never pruned)';
    const kinds = [
      f.versionsRemoved.length && 'CRD version removed',
      f.served.some((v) => v.from && !v.to) && 'CRD version no longer served',
      f.storage.length && 'storage version flipped',
      f.schema.some((s) => s.propertiesRemoved.length) && 'CRD schema properties removed',
      f.conversion?.to === 'Webhook' && (f.conversion.from === 'Webhook' ? 'conversion webhook moved' : 'conversion webhook needed'),
    ].filter(Boolean);
    return kinds.join(' / ') || 'CRD change';
  }
  return f.type;
}

function objectLine(o: ObjectChange): string {
  const name = `${o.namespace ? o.namespace + '/' : ''}${o.name}${o.clusters ? ` (clusters ${clusterRanges(o.clusters)})` : ''}`;
  if (o.change !== 'changed') return `- ${o.change === 'added' ? '➕ added' : '➖ removed'} ${code(name)}`;
  // a wiring field's old and new value (ObjectChange.values), after its path
  const values = new Map(o.values?.map((v) => [v.path, v]));
  const path = (p: string) => {
    const v = values.get(p);
    return v ? `${code(p)} ${code(v.from || '""')} → ${code(v.to || '""')}` : code(p);
  };
  const listed = o.paths.slice(0, PATHS_PER_OBJECT).map(path);
  if (o.paths.length > PATHS_PER_OBJECT) listed.push(`… and ${o.paths.length - PATHS_PER_OBJECT} more`);
  if (o.schemaPathsFolded)
    listed.push(`schema: ${o.schemaPathsFolded} path${o.schemaPathsFolded === 1 ? '' : 's'} folded (summary in the call-outs)`);
  return `- ✏️ ${code(name)}: ${listed.join(', ')}`;
}

/** A row of the table and its section: one component, or several that read the same. */
interface Shown {
  c: ComponentDiff;
  /** The clusters it reaches, as `where` writes them. */
  where: string;
  /** Clusters whose own directories changed alike, `c` being each one's change (its counts are each's). */
  each?: number;
}

/**
 * The components as the table and the details show them. In a fleet one cluster's changes to a
 * component can sit in several directories (its own and a base, or two bases it moved between),
 * which read alike (name, clusters, version): those are one row, their counts summed and their
 * objects one section, not identical rows a reader cannot tell apart.
 */
function shownComponents(report: ReviewReport): Shown[] {
  const shown = new Map<string, Shown>();
  for (const c of report.components) {
    const at = where(report, c.directory);
    // a cluster new to the fleet: its version appears in its own directory, its objects in a base it shares, unchanged there
    const key = [c.name, at, c.newVersion ?? versionText(c)].join('\0');
    const earlier = shown.get(key);
    if (!earlier) {
      shown.set(key, { c, where: at });
      continue;
    }
    const moved = earlier.c.oldVersion === earlier.c.newVersion ? c : earlier.c;
    const merged: ComponentDiff = {
      ...earlier.c,
      oldVersion: moved.oldVersion,
      kinds: earlier.c.kinds.map((k) => ({ ...k, objects: [...k.objects] })),
    };
    for (const field of ['added', 'removed', 'changed'] as const) merged[field] += c[field];
    for (const k of c.kinds) {
      const same = merged.kinds.find((m) => m.group === k.group && m.kind === k.kind);
      if (same) same.objects.push(...k.objects);
      else merged.kinds.push({ ...k, objects: [...k.objects] });
    }
    sortKinds(merged.kinds);
    shown.set(key, { c: merged, where: at });
  }
  // the same change in many clusters' own directories (a fleet-wide version bump, the wiring) is one row
  const findingsOf = findingsByComponent(report.findings);
  const groups = groupByCluster(
    [...shown.values()],
    ({ c, where }) => (where === ` (cluster ${clusterOf(`${c.directory}/`)})` ? clusterOf(`${c.directory}/`) : ''),
    ({ c }, cluster) => componentKey(c, cluster, findingsOf),
  );
  return groups.map(({ first, clusters }) =>
    clusters.length > 1
      ? { c: componentWithoutCluster(first.c, clusters[0]!), where: ` (clusters ${clusterRanges(clusters)})`, each: clusters.length }
      : first,
  );
}

/** A component's `<details>` section; its body in chunks, a kind's heading with its first object, so a cut never leaves a heading alone. */
function componentSection({ c, where, each }: Shown): { open: string[]; body: string[][]; close: string[] } {
  // a wiring component has no version: no space before the colon then
  const version = versionText(c);
  const summary = `<code>${plain(c.name)}</code>${plain(where)}${version ? ` ${plain(version)}` : ''}: ${c.added} added, ${c.removed} removed, ${c.changed} changed${each ? ' in each' : ''}`;
  const body: string[][] = [];
  for (const k of c.kinds) {
    const heading = ['', `**${plain(k.kind)}**${k.group ? ` (${plain(k.group)})` : ''}`, ''];
    k.objects.forEach((o, i) => body.push(i === 0 ? [...heading, objectLine(o)] : [objectLine(o)]));
  }
  return { open: [`<details><summary>${summary}</summary>`, ''], body, close: ['', '</details>', ''] };
}

/**
 * The summary table's component rows, while they fit in `budget` characters: a fleet's
 * thousands of rows alone would pass the comment limit, leaving no room for the call-outs. The
 * rows cut are one `… N more components` row (the total row stays).
 */
function tableRows(components: Shown[], budget: number): { rows: string[]; cut: number } {
  const rows: string[] = [];
  const more = (n: number) => `| … ${n} more component${n === 1 ? '' : 's'} | | | | |`;
  let length = more(components.length).length + 1;
  for (const [i, { c, where, each = 1 }] of components.entries()) {
    const row = `| ${cell(code(c.name)) + plain(where)} | ${plain(versionText(c))} | ${c.added * each} | ${c.removed * each} | ${c.changed * each} |`;
    if (length + row.length + 1 > budget) return { rows: [...rows, more(components.length - i)], cut: components.length - i };
    rows.push(row);
    length += row.length + 1;
  }
  return { rows, cut: 0 };
}

/** A call-out's message, in characters before escaping: a flag's value can be any length. */
const CALLOUT_CHARACTERS = 2_000;

/** A call-out as one list item; a message longer than CALLOUT_CHARACTERS is shortened before it is escaped, so no entity is cut. */
function findingLine(report: ReviewReport, group: ClusterGroup<Finding>): string {
  const f = group.first;
  const { where, message } = groupedFinding(report, group);
  const chars = [...message];
  const text =
    chars.length > CALLOUT_CHARACTERS
      ? `${plain(chars.slice(0, CALLOUT_CHARACTERS).join(''))} … (${chars.length - CALLOUT_CHARACTERS} more characters; the full command prints them)`
      : plain(message);
  return `- ${f.risk === 'warning' ? '⚠️ ' : ''}**${f.type}**${plain(where)} ${text}`;
}

export function formatMarkdown(report: ReviewReport, options: MarkdownOptions = {}): string {
  const full = options.fullCommand ?? 'capi-gitops diff --format text';
  const s = report.summary;
  const head: string[] = [
    '## capi-gitops diff',
    '',
    `${plain(report.old.label)} → ${plain(report.new.label)}`,
    '',
    `**Risk:** ${s.warnings > 0 ? '⚠️ ' : ''}${plain(riskLine(report))}`,
    '',
  ];
  const kept = leftInPlaceLine(report, code);
  if (kept) head.push(`> ${kept.replace(/^left/, 'Left')}`, '');
  if (report.components.length === 0) {
    head.push('No object changed.', '');
    return head.join('\n');
  }
  const components = shownComponents(report);
  const table = tableRows(components, TABLE_BUDGET - head.join('\n').length);
  head.push('| Component | Version | Added | Removed | Changed |', '|---|---|--:|--:|--:|', ...table.rows);
  head.push(`| **total** | | ${s.added} | ${s.removed} | ${s.changed} |`, '');

  // Everything after the table is optional: added while it fits, leaving room for the note.
  const note = (what: string) =>
    `> **Cut to stay under GitHub's 65,536-character limit:** ${what} not shown. Run ${code(full)} to see everything.\n`;
  const reserve = note("999999 components' rows, 999999 call-outs and 999999 objects in 999999 components").length + 1;
  const out: string[] = [...head];
  let length = out.join('\n').length + 1;
  const fits = (lines: string[]) => length + lines.join('\n').length + 1 + reserve <= LIMIT;
  const push = (lines: string[]) => {
    out.push(...lines);
    length += lines.join('\n').length + 1;
  };

  let cutFindings = 0;
  if (report.findings.length > 0) {
    push(['### Call-outs', '']);
    for (const group of groupFindings(report.findings)) {
      const line = findingLine(report, group);
      if (cutFindings === 0 && fits([line])) push([line]);
      else cutFindings++;
    }
    push(['']);
  }
  let cutObjects = 0;
  let cutComponents = 0;
  push(['### Details', '']);
  // a version-only change has nothing to open: its row says it all
  for (const component of components.filter(({ c }) => c.kinds.length > 0)) {
    const section = componentSection(component);
    const objects = component.c.added + component.c.removed + component.c.changed;
    // a section whose first object does not fit is cut whole, not shown empty
    if (cutObjects > 0 || !fits([...section.open, ...(section.body[0] ?? []), ...section.close])) {
      cutObjects += objects;
      cutComponents++;
      continue;
    }
    push(section.open);
    let shown = 0;
    for (const chunk of section.body) {
      if (!fits([...chunk, ...section.close])) break;
      push(chunk);
      shown++;
    }
    if (shown < objects) {
      cutObjects += objects - shown;
      cutComponents++;
    }
    push(section.close);
  }
  const cut = [
    table.cut && `${table.cut} component${table.cut === 1 ? "'s row" : "s' rows"}`,
    cutFindings && `${cutFindings} call-out${cutFindings === 1 ? '' : 's'}`,
    cutObjects && `${cutObjects} object${cutObjects === 1 ? '' : 's'} in ${cutComponents} component${cutComponents === 1 ? '' : 's'}`,
  ].filter(Boolean);
  if (cut.length > 0) out.push(note(cut.join(', ').replace(/, ([^,]*)$/, ' and $1')));
  return out.join('\n');
}
