/** A fleet's cluster names, shortened for messages: `c000–c099, eu-1` (what two stages print). */
import { compareStrings, formatDiagnostic, type Diagnostic } from './diagnostics.js';
import { escapeRegExp } from './regexp.js';

/**
 * Cluster names, with runs of consecutive numbers under one prefix and width written as ranges:
 * `c000–c099, eu-1, us-1`.
 */
export function clusterRanges(names: readonly string[]): string {
  const parsed = [...new Set(names)].map((name) => {
    const m = /^(.*?)(\d+)$/.exec(name);
    return m ? { name, prefix: m[1]!, digits: m[2]!, n: Number(m[2]) } : { name, prefix: name, digits: '', n: NaN };
  });
  parsed.sort(
    (a, b) => compareStrings(a.prefix, b.prefix) || a.digits.length - b.digits.length || a.n - b.n || compareStrings(a.name, b.name),
  );
  const parts: string[] = [];
  for (let i = 0; i < parsed.length;) {
    let j = i;
    const first = parsed[i]!;
    while (
      j + 1 < parsed.length &&
      first.digits !== '' &&
      parsed[j + 1]!.prefix === first.prefix &&
      parsed[j + 1]!.digits.length === first.digits.length &&
      parsed[j + 1]!.n === parsed[j]!.n + 1
    )
      j++;
    if (j - i >= 2) parts.push(`${first.name}–${parsed[j]!.name}`);
    else for (let k = i; k <= j; k++) parts.push(parsed[k]!.name);
    i = j + 1;
  }
  return parts.join(', ');
}

/** A cluster's name as a word of a path (`clusters/eu-1/…-eu-1-…`), not inside another word. */
export function clusterNameIn(cluster: string): RegExp {
  return new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(cluster)}(?![A-Za-z0-9])`, 'g');
}

/**
 * A fleet's diagnostics, each told once: one that several clusters meet names them all
 * (`clusters eu-1, us-1: …`, numbered runs as ranges), one of the fleet itself is told as it is.
 * Both the fleet's expansion (manifest/) and its run (app/) collect through it.
 */
export class DiagnosticsByCluster {
  private readonly seen = new Map<string, { diagnostic: Diagnostic; rest?: string; clusters: string[]; first?: string }>();

  get size(): number {
    return this.seen.size;
  }

  /**
   * `d` as `cluster` met it, its object what it is about, written after the cluster's name and
   * `joiner`; without a cluster, the fleet's own. Equal diagnostics are one.
   */
  add(d: Diagnostic, cluster?: string, joiner = ': '): void {
    // a file of the cluster's own tree (clusters/<name>/…, named after it) is the same place in each cluster
    const key = formatDiagnostic(cluster && d.file ? { ...d, file: d.file.replace(clusterNameIn(cluster), '\0') } : d);
    const entry = this.seen.get(key) ?? { diagnostic: d, clusters: [] };
    if (cluster !== undefined) {
      // told at the first cluster's file, whichever cluster ran first (kept, not searched: a fleet adds one per cluster)
      if (entry.first === undefined || compareStrings(cluster, entry.first) < 0) {
        if (entry.first !== undefined) entry.diagnostic = d;
        entry.first = cluster;
      }
      entry.clusters.push(cluster);
      entry.rest ??= d.object ? `${joiner}${d.object}` : '';
    }
    this.seen.set(key, entry);
  }

  /** Each once, in a stable order (clusters run concurrently), and forgets them. */
  take(): Diagnostic[] {
    const all = [...this.seen]
      .sort(([a], [b]) => compareStrings(a, b))
      .map(([, { diagnostic, rest, clusters }]) =>
        rest === undefined
          ? diagnostic
          : { ...diagnostic, object: `${new Set(clusters).size > 1 ? 'clusters' : 'cluster'} ${clusterRanges(clusters)}${rest}` },
      );
    this.seen.clear();
    return all;
  }
}
