/**
 * The contract call-out: a provider release that moves to another Cluster API contract (its
 * metadata.yaml's releaseSeries, as the lockfile records it), what clusterctl's upgrade plan is
 * organised around. On the core provider's move, the providers on another contract are named;
 * a warning only when the new core no longer accepts it (clusterctl contract.GetCompatibleVersions).
 */
import { compareStrings } from '../core/diagnostics.js';
import { manifestLabel } from '../core/provider.js';
import { parseSemantic } from '../core/versions.js';
import { compatibleContracts, parseMetadata } from '../resolve/metadata.js';
import { BASES, clusterOf, type ComponentInfo } from './objects.js';
import type { ComponentDiff, ContractFinding, ContractSeries } from './types.js';

const CORE_LABEL = manifestLabel('CoreProvider', 'cluster-api');

/** A provider's release series and their contracts, read from its metadata.yaml; none when it does not parse. */
export function contractSeries(label: string, version: string, metadata: string): ContractSeries[] {
  try {
    return parseMetadata(metadata, { label, version }).releaseSeries.map(({ major, minor, contract }) => ({
      label,
      major,
      minor,
      contract,
    }));
  } catch {
    // the review reports what it can read; a metadata.yaml render accepted does not fail here
    return [];
  }
}

/** The contract of a provider's release, by its major.minor series. */
export function contractLookup(series: readonly ContractSeries[]): (label: string, version: string) => string | undefined {
  const table = new Map<string, string>();
  for (const s of series) {
    const key = `${s.label}\0${s.major}.${s.minor}`;
    if (!table.has(key)) table.set(key, s.contract);
  }
  return (label, version) => {
    const v = parseSemantic(version);
    return v ? table.get(`${label}\0${v.major}.${v.minor}`) : undefined;
  };
}

export function contractFindings(
  components: readonly ComponentDiff[],
  now: ReadonlyMap<string, ComponentInfo>,
  contractOf: (label: string, version: string) => string | undefined,
  fileOf: (directory: string) => string | undefined,
): ContractFinding[] {
  const findings: ContractFinding[] = [];
  // each cluster's components, once: a fleet-wide core move reads its own cluster's only
  const inCluster = new Map<string, [string, ComponentInfo][]>();
  for (const entry of now) {
    if (entry[0].startsWith(BASES)) continue;
    const cluster = clusterOf(`${entry[0]}/`);
    const list = inCluster.get(cluster);
    if (list) list.push(entry);
    else inCluster.set(cluster, [entry]);
  }
  for (const c of components) {
    if (!c.oldVersion || !c.newVersion || c.directory.startsWith(BASES)) continue;
    const [from, to] = [contractOf(c.name, c.oldVersion), contractOf(c.name, c.newVersion)];
    if (!from || !to || from === to) continue;
    // on the core's move: the other providers of its cluster on another contract than its new one
    const cluster = clusterOf(`${c.directory}/`);
    const others = new Map<string, string[]>();
    if (c.name === CORE_LABEL)
      for (const [directory, other] of inCluster.get(cluster) ?? []) {
        if (directory === c.directory) continue;
        const contract = other.version === undefined ? undefined : contractOf(other.name, other.version);
        if (contract && contract !== to) others.set(contract, [...(others.get(contract) ?? []), `${other.name} ${other.version}`]);
      }
    const staying = [...others.values()].flat().sort(compareStrings);
    const refused = [...others.keys()].some((contract) => !compatibleContracts(to).includes(contract));
    const left = [...others]
      .sort(([x], [y]) => compareStrings(x, y))
      .map(([contract, names]) => {
        const accepted = compatibleContracts(to).includes(contract) ? 'still accepts' : 'no longer accepts';
        const list = names.sort(compareStrings);
        return `; ${list.join(', ')} ${list.length === 1 ? 'stays' : 'stay'} on ${contract}, which ${c.name} ${c.newVersion} ${accepted}`;
      })
      .join('');
    const file = fileOf(c.directory);
    findings.push({
      type: 'contract',
      risk: refused ? 'warning' : 'info',
      component: c.directory,
      ...(file ? { file } : {}),
      from,
      to,
      ...(staying.length > 0 ? { staying } : {}),
      message: `${c.name} ${c.oldVersion} → ${c.newVersion} moves from contract ${from} to ${to}${left}`,
    });
  }
  return findings;
}
