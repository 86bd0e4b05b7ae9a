/**
 * The fleet stage's entry: the loaded manifest in, one merged and validated manifest per
 * cluster out. Layers (lowest first): the tool's defaults, the shared manifest, the cluster's
 * release, its overlay, its unsupportedOverrides. Only the merged result is validated, with the
 * same schema and CEL rules as a single manifest; a problem names the cluster and the layer
 * its value came from.
 */
import { CapiGitopsError, compareStrings, DiagnosticBag, sortDiagnostics, type Diagnostic } from '../core/diagnostics.js';
import { DiagnosticsByCluster } from '../core/cluster-ranges.js';
import { isPlainObject } from '../core/kobject.js';
import { isProviderKind, OPERATOR_API_VERSION, TOOL_API_VERSION } from '../core/provider.js';
import { isValuesMap, type Values } from '../core/values.js';
import { compareSemantic, parseSemantic } from '../core/versions.js';
import { imageKeyRepeat, toToolConfig, viperImageKeys, writtenImagePath } from './config.js';
import { closestName, formatFieldPath, formatPosition } from './fields.js';
import { checkProviderSpecRules, toProviderObject } from './providers.js';
import { validateDocument } from './schema.js';
import type { Finding } from './documents.js';
import type { ClusterOverlay, Manifest, ProviderObject, ReleaseObject, SourcePosition, ToolConfig } from './types.js';
import { layerOf, leafPaths, mergeLayers, type FieldPath, type Layer } from './fleet-layers.js';
import { setOwnValue } from '../core/own-keys.js';

/** One cluster of the fleet, ready for the resolve stage. */
export interface FleetCluster {
  name: string;
  /** Its place in Config.clusters. */
  index: number;
  /** The release it runs, if any. */
  release?: ReleaseObject;
  /** The merged, validated manifest: what a single-cluster render of this cluster reads. */
  manifest: Manifest;
  /** Things to say on every run (unsupportedOverrides, a deprecated release), each where it was written. */
  warnings: Diagnostic[];
  /** The layer that set a provider's field (`spec.version`), and where: for problems found after this stage. */
  origin(provider: string, field: readonly string[]): { layer: string; position?: SourcePosition } | undefined;
  /** The layer that set a Config field (`variables.X`), and where. */
  configOrigin(field: readonly string[]): { layer: string; position?: SourcePosition } | undefined;
}

export interface Fleet {
  /** The clusters to run: those whose own entry in Config.clusters has no problem. */
  clusters: FleetCluster[];
  /** Every Release of the input, by name, with the shared manifest on that release (checked as a whole). */
  releases: Map<string, { release: ReleaseObject; manifest: Manifest }>;
  /** The clusters left out for a problem of their own entry (its overlay, variables, release, …), by name. */
  leftOut: string[];
  /** Their problems, each named after its clusters, to be reported with the run's own. */
  problems: Diagnostic[];
  /** A release's provider key that names no provider of the fleet (it pins nothing), at its line. */
  warnings: Diagnostic[];
}

export interface ExpandOptions {
  /** Every cluster on this release instead of its own (`plan --release`). */
  release?: string;
  /**
   * A cluster whose own entry has a problem is left out (`Fleet.leftOut`), its problems returned
   * in `Fleet.problems` for the run to report with its own (every problem in one run); without
   * it, they are thrown.
   */
  collectAll?: boolean;
  /**
   * The provider versions the lockfile pins a cluster at, keyed `<Kind>/<namespace>/<name>`: a
   * release missing from the input is not answered with a release named alike that would move
   * one of them down (a Release removed while the cluster still runs it).
   */
  lockedVersions?: (cluster: string) => ReadonlyMap<string, string> | undefined;
}

/** Config fields a cluster does not inherit: they describe the fleet. */
const FLEET_FIELDS = new Set(['clusters', 'release', 'position', 'locate']);
/** The overlay's Config fields (layer 4); unsupportedOverrides may set any Config field. */
const OVERLAY_CONFIG_FIELDS = ['variables', 'images', 'pinImages', 'certManager', 'turtles', 'secrets'] as const;

/** The tool's own defaults: the lowest layer. */
const TOOL_DEFAULTS: Values = { config: { certManager: { enabled: true } } };

/** The canonical key of a provider: `<Kind>/<namespace>/<name>`. */
function providerKey(p: Pick<ProviderObject, 'kind' | 'namespace' | 'name'>): string {
  return `${p.kind}/${p.namespace}/${p.name}`;
}

function at(position: SourcePosition | undefined): Pick<Diagnostic, 'file' | 'line' | 'column'> {
  return position ? { file: position.file, line: position.line, column: position.column } : {};
}

/**
 * A Release's or overlay's provider key (`<Kind>/<name>` or `<Kind>/<namespace>/<name>`) as a
 * canonical key, if it names one of `known`.
 */
function matchProviderKey(written: string, known: readonly string[]): { key?: string; ambiguous?: string[] } {
  const parts = written.split('/');
  if (parts.length === 3) return known.includes(written) ? { key: written } : {};
  const [kind, name] = parts;
  const matches = known.filter((k) => {
    const [kk, , kn] = k.split('/');
    return kk === kind && kn === name;
  });
  if (matches.length === 1) return { key: matches[0] };
  return matches.length > 1 ? { ambiguous: matches } : {};
}

function sharedLayer(manifest: Manifest): Layer {
  const providers: Values = {};
  const objects = new Map<string, ProviderObject>();
  for (const p of manifest.providers) {
    providers[providerKey(p)] = {
      metadata: {
        name: p.name,
        namespace: p.namespace,
        ...(p.labels ? { labels: { ...p.labels } } : {}),
        ...(p.annotations ? { annotations: { ...p.annotations } } : {}),
      },
      spec: structuredClone(p.spec) as Values,
    };
    objects.set(providerKey(p), p);
  }
  // a provider's field where its document wrote it, else the document
  const providerWhere = (key: string, field: FieldPath): SourcePosition | undefined => {
    const p = objects.get(key);
    return field.length > 0 ? (p?.fieldPosition?.(field) ?? p?.position) : p?.position;
  };
  const config: Values = {};
  for (const [field, value] of Object.entries(manifest.config))
    if (!FLEET_FIELDS.has(field)) setOwnValue(config, field, structuredClone(value));
  return {
    label: 'shared manifest',
    values: { providers, config },
    where: (path, part) =>
      path[0] === 'providers'
        ? providerWhere(String(path[1]), path.slice(2))
        : (manifest.config.locate?.(path.slice(1), part) ?? manifest.config.position),
  };
}

function releaseLayer(release: ReleaseObject, keys: readonly string[]): Layer {
  const providers: Values = {};
  const written = new Map<string, string>();
  for (const [name, version] of Object.entries(release.providers)) {
    const { key } = matchProviderKey(name, keys);
    // A release may pin providers a cluster does not run.
    if (!key) continue;
    providers[key] = { spec: { version } };
    written.set(key, name);
  }
  const config: Values = release.certManager?.version ? { certManager: { version: release.certManager.version } } : {};
  return {
    label: `release ${release.name}`,
    values: { providers, config },
    where: (path) =>
      path[0] === 'providers'
        ? release.locate(['providers', written.get(String(path[1])) ?? ''])
        : release.locate(['certManager', 'version']),
  };
}

interface OverlayRead {
  layer: Layer;
  problems: Diagnostic[];
}

/**
 * The overlay of cluster `index` (layer 4) or its unsupportedOverrides (layer 5) in canonical
 * shape. `gitops` is the cluster's chart values, `argocd.values` and `flux.values` those of one
 * layout's chart. Only layer 5 may move an existing provider
 * (metadata) or set Config fields beyond variables, images, cert-manager, secrets settings and
 * chart values.
 */
function overlayLayer(
  overlay: ClusterOverlay,
  index: number,
  unsupported: boolean,
  shared: readonly string[],
  config: ToolConfig,
): OverlayRead {
  const snippet = unsupported ? (overlay.unsupportedOverrides ?? {}) : (overlay as unknown as Record<string, unknown>);
  const base: FieldPath = unsupported ? ['clusters', index, 'unsupportedOverrides'] : ['clusters', index];
  const problems: Diagnostic[] = [];
  const locate = (path: FieldPath, part?: 'key' | 'value') => config.locate?.([...base, ...path], part) ?? config.position;
  const layerName = unsupported ? 'unsupportedOverrides' : 'overlay';
  // a problem with a key itself (a provider key naming none) is at the key, not at its value
  const problem = (path: FieldPath, d: Omit<Diagnostic, 'file' | 'line' | 'column'>, part?: 'key' | 'value') =>
    problems.push({
      ...at(locate(path, part)),
      object: `cluster ${overlay.name} (${layerName})`,
      path: formatFieldPath([...base, ...path]),
      ...d,
    });
  const providers: Values = {};
  const written = new Map<string, string>();
  const entries = isPlainObject(snippet.providers) ? Object.entries(snippet.providers) : [];
  for (const [name, value] of entries) {
    const { key, ambiguous } = matchProviderKey(name, shared);
    if (ambiguous) {
      problem(
        ['providers', name],
        {
          message: `${name} names more than one provider: ${ambiguous.join(', ')}`,
          expected: 'a key naming one provider',
          hint: `write the key as <Kind>/<namespace>/<name>, e.g. ${ambiguous[0]}`,
        },
        'key',
      );
      continue;
    }
    if (key) {
      if (isPlainObject(value) && value.metadata !== undefined && !unsupported) {
        problem(['providers', name, 'metadata'], {
          message: `an overlay cannot change the metadata of ${key}, which the shared manifest declares`,
          expected: 'spec fields only, or null to remove the provider',
          hint: 'remove the provider with null and add it under another key, or move metadata under unsupportedOverrides.providers (reported on every run)',
        });
        continue;
      }
      providers[key] = value as Values | null;
      written.set(key, name);
      continue;
    }
    // A provider only this cluster has: a whole object with its namespace.
    const [kind, ...rest] = name.split('/');
    const metadata = isPlainObject(value) && isPlainObject(value.metadata) ? value.metadata : undefined;
    const namespace = rest.length === 2 ? rest[0] : typeof metadata?.namespace === 'string' ? metadata.namespace : undefined;
    const providerName = rest[rest.length - 1] ?? '';
    if (!isProviderKind(kind) || value === null || !namespace) {
      // `<Kind>/<name>`, as overlays usually write them
      const keys = shared.map((k) => k.replace(/\/[^/]*\//, '/'));
      const guess = closestName(name, keys);
      problem(
        ['providers', name],
        {
          message:
            value === null
              ? `${name} is not a provider of the shared manifest, so there is nothing to remove`
              : `${name} is not a provider of the shared manifest, and is not a whole new provider (it has no metadata.namespace)`,
          expected: `a key of a shared provider (${keys.join(', ') || 'none'}), or a new provider with metadata.namespace`,
          hint: guess
            ? `did you mean "${guess}"?`
            : value === null
              ? // declaring a provider is no answer to removing one
                `remove the key: this cluster has no ${name} to remove`
              : 'add metadata: {namespace: <target namespace>} to declare a provider only this cluster has',
        },
        'key',
      );
      continue;
    }
    const canonical = `${kind}/${namespace}/${providerName}`;
    providers[canonical] = { ...(value as Values), metadata: { ...(metadata ?? {}), name: providerName, namespace } };
    written.set(canonical, name);
  }
  const configValues: Values = {};
  let imageKeys: ReadonlyMap<string, string> = new Map();
  for (const [field, value] of Object.entries(snippet)) {
    if (field === 'providers' || field === 'name' || field === 'release' || field === 'unsupportedOverrides') continue;
    if (field === 'gitops' || isChartLayout(field))
      configValues.gitops = { ...(configValues.gitops as Values), ...clusterGitops(field, value) };
    else if (field === 'images' && isPlainObject(value)) {
      // read lowercased, as the Config's (config.ts viperImageKeys), so that they merge over its keys
      const images = viperImageKeys(value);
      imageKeys = images.writtenAs;
      setOwnValue(configValues, field, images.images);
      for (const { key, first } of images.repeats) {
        const { path, message, expected, hint } = imageKeyRepeat(['images'], key, first);
        problem(path, { message, expected, hint }, 'key');
      }
    } else if (unsupported || (OVERLAY_CONFIG_FIELDS as readonly string[]).includes(field)) setOwnValue(configValues, field, value);
  }
  return {
    problems,
    layer: {
      label: layerName,
      values: { providers, config: configValues },
      where: (path, part) => {
        if (path[0] === 'providers') return locate(['providers', written.get(String(path[1])) ?? '', ...path.slice(2)], part);
        // Config gitops.argocd.values.x was written as the cluster's argocd.values.x, gitops.values.x as its gitops.x
        if (path[1] === 'gitops') return isChartLayout(path[2]) ? locate(path.slice(2), part) : locate(['gitops', ...path.slice(3)], part);
        return locate(writtenImagePath(path.slice(1), ['images'], imageKeys), part);
      },
    },
  };
}

/** The layouts whose built-in chart a cluster gives values of its own (its `argocd.values`, `flux.values`). */
const CHART_LAYOUTS = ['argocd', 'flux'] as const;

function isChartLayout(field: unknown): field is (typeof CHART_LAYOUTS)[number] {
  return (CHART_LAYOUTS as readonly unknown[]).includes(field);
}

/**
 * A cluster's wiring values as the Config's `gitops` holds them: its `gitops` (values of either
 * layout's chart) is `gitops.values`, its `argocd` and `flux` (`{values}`, for that layout's chart
 * only) are `gitops.argocd` and `gitops.flux`. So each overlays the Config field of the same
 * meaning, and the chart reads the merged Config as it reads any Config.
 */
function clusterGitops(field: string, value: unknown): Values {
  return field === 'gitops' ? { values: value === null ? null : value } : { [field]: value as Values | null };
}

/** The Release a cluster runs: its own, else Config.release. */
function selectRelease(
  overlay: ClusterOverlay,
  index: number,
  manifest: Manifest,
  releases: Map<string, ReleaseObject>,
  bag: DiagnosticBag,
  options: ExpandOptions,
): ReleaseObject | undefined {
  const override = options.release;
  const name = override ?? overlay.release ?? manifest.config.release;
  if (name === undefined) return undefined;
  const release = releases.get(name);
  if (release) return release;
  const known = [...releases.keys()].sort(compareStrings).join(', ');
  if (override !== undefined) {
    const guess = closestName(name, [...releases.keys()]);
    bag.add({
      message: `--release ${name}: no such release`,
      expected: `one of ${known || '(there are no kind: Release documents)'}`,
      hint: guess ? `did you mean --release ${guess}?` : 'add the Release document to one of the -f files',
    });
    return undefined;
  }
  const path: FieldPath = overlay.release !== undefined ? ['clusters', index, 'release'] : ['release'];
  bag.add({
    ...at(manifest.config.locate?.(path) ?? manifest.config.position),
    object: `cluster ${overlay.name}`,
    path: formatFieldPath(path),
    message: `release "${name}" is not in the input`,
    expected: `the metadata.name of a kind: Release document (${known || 'there are none'})`,
    hint: missingReleaseHint(name, overlay.name, releases, options.lockedVersions?.(overlay.name)),
  });
  return undefined;
}

/**
 * The hint for a cluster's release that is not in the input: the release named alike, unless it
 * would move a provider the lock pins the cluster at down (Cluster API does not support
 * downgrades): then the release was most likely removed while the cluster still runs it.
 */
function missingReleaseHint(
  name: string,
  cluster: string,
  releases: ReadonlyMap<string, ReleaseObject>,
  locked: ReadonlyMap<string, string> | undefined,
): string {
  const all = [...releases.keys()];
  const safe = all.filter((r) => releaseDowngrade(releases.get(r)!, locked) === undefined);
  const guess = closestName(name, safe);
  if (guess) return `did you mean "${guess}"?`;
  const alike = closestName(name, all);
  const down = alike === undefined ? undefined : releaseDowngrade(releases.get(alike)!, locked);
  if (!alike || !down) return 'add the Release document to one of the -f files';
  return (
    `put the kind: Release document ${name} back in one of the -f files: the lockfile pins cluster ${cluster}'s ` +
    `${down.key} at ${down.locked}, and ${alike} would downgrade it to ${down.version}, which Cluster API does not support; ` +
    `move every cluster off ${name} before removing it`
  );
}

/** The first provider a release would move below the version the lock pins it at, if any. */
function releaseDowngrade(
  release: ReleaseObject,
  locked: ReadonlyMap<string, string> | undefined,
): { key: string; locked: string; version: string } | undefined {
  if (!locked) return undefined;
  const keys = [...locked.keys()];
  for (const [written, version] of Object.entries(release.providers)) {
    const { key } = matchProviderKey(written, keys);
    const pinned = key === undefined ? undefined : locked.get(key);
    const [from, to] = [parseSemantic(pinned ?? ''), parseSemantic(version)];
    if (pinned && from && to && compareSemantic(to, from) < 0) return { key: written, locked: pinned, version };
  }
  return undefined;
}

/**
 * Validates the merged result as a single manifest would be, for a cluster or a release; problems
 * name the layer, and the clusters that met one (a shared layer's problem is told once for all).
 * `faulty`: whether it had any.
 */
function mergedManifest(
  subject: { cluster: string } | { release: string },
  merged: Values,
  layers: readonly Layer[],
  manifest: Manifest,
  problems: DiagnosticsByCluster,
): { manifest: Manifest; faulty: boolean } {
  let faulty = false;
  /** Each finding where the layer that set its value wrote it. */
  const report = (base: FieldPath, what: string, findings: readonly Finding[]) => {
    for (const { path, at: part, displayPath, message, expected, hint } of findings) {
      faulty = true;
      const layer = layerOf(layers, [...base, ...path]);
      const object = `${layer?.label ?? 'the merged configuration'}: ${what}`;
      const d = {
        // an unknown field is told at its key, as in a single manifest (load.ts)
        ...at(layer?.where([...base, ...path], part)),
        object: 'release' in subject ? `release ${subject.release}, ${object}` : object,
        path: formatFieldPath(displayPath ?? path) || undefined,
        message,
        expected,
        hint,
      };
      if ('cluster' in subject) problems.add(d, subject.cluster, ', ');
      else problems.add(d);
    }
  };
  const providers: ProviderObject[] = [];
  const shared = new Map(manifest.providers.map((p) => [providerKey(p), p]));
  const mergedProviders = isValuesMap(merged.providers) ? merged.providers : {};
  for (const key of Object.keys(mergedProviders).sort(compareStrings)) {
    const entry = mergedProviders[key] as Values;
    const kind = key.split('/')[0]!;
    const document: Record<string, unknown> = { apiVersion: OPERATOR_API_VERSION, kind, metadata: entry.metadata, spec: entry.spec ?? {} };
    const problems = validateDocument(document, { sourceText: () => undefined, mayQuoteKeys: () => true });
    const spec = isPlainObject(document.spec) ? document.spec : {};
    const rules = checkProviderSpecRules(spec).map((f) => ({ ...f, path: ['spec', ...f.path] }));
    report(['providers', key], key, [...problems, ...rules]);
    const position = shared.get(key)?.position ??
      layerOf(layers, ['providers', key])?.where(['providers', key]) ??
      manifest.config.position ?? { file: '', line: 0, column: 0 };
    const provider = toProviderObject(document, position);
    // as load.ts gives a single manifest's providers (not enumerable): a later stage's problem with a
    // field (spec.configSecret) is told where the layer that set it wrote it, not at the object's start
    Object.defineProperty(provider, 'fieldPosition', {
      value: (path: FieldPath) => layerOf(layers, ['providers', key, ...path])?.where(['providers', key, ...path]) ?? position,
      enumerable: false,
    });
    // a Turtles CAPIProvider of the shared manifest keeps Turtles' steps in every cluster
    const turtles = shared.get(key)?.turtles;
    if (turtles) Object.defineProperty(provider, 'turtles', { value: turtles, enumerable: false });
    providers.push(provider);
  }
  const configDocument: Record<string, unknown> = {
    apiVersion: TOOL_API_VERSION,
    kind: 'Config',
    ...(isValuesMap(merged.config) ? merged.config : {}),
  };
  report(['config'], 'Config', validateDocument(configDocument, { sourceText: () => undefined, mayQuoteKeys: () => true }));
  delete configDocument.apiVersion;
  delete configDocument.kind;
  const { config, findings } = toToolConfig(configDocument, manifest.config.position ?? { file: '', line: 0, column: 0 });
  report(['config'], 'Config', findings);
  // a field of the merged Config is where the layer that set it wrote it (a cluster's gitops values,
  // say); one no layer sets (a setting missing under secrets:) is at its nearest parent that is set
  const position = config.position ?? { file: '', line: 0, column: 0 };
  config.locate = (path, part) => {
    for (let n = path.length; n > 0; n--) {
      const field = ['config', ...path.slice(0, n)];
      // the key asked for where it is written; a parent found instead is where it would go
      const where = layerOf(layers, field)?.where(field, n === path.length ? part : undefined);
      if (where) return where;
    }
    return position;
  };
  return {
    manifest: {
      providers: providers.sort(compareProviders),
      secrets: manifest.secrets,
      configMaps: manifest.configMaps,
      ...(manifest.namespaces ? { namespaces: manifest.namespaces } : {}),
      config,
      baseDir: manifest.baseDir,
    },
    faulty,
  };
}

/** The shared manifest's order is kept for its providers; a cluster's own providers follow. */
function compareProviders(a: ProviderObject, b: ProviderObject): number {
  return compareStrings(providerKey(a), providerKey(b));
}

function duplicateClusters(manifest: Manifest, bag: DiagnosticBag): void {
  const first = new Map<string, number>();
  (manifest.config.clusters ?? []).forEach((c, i) => {
    const earlier = first.get(c.name);
    if (earlier === undefined) {
      first.set(c.name, i);
      return;
    }
    const where = manifest.config.locate?.(['clusters', earlier, 'name']);
    bag.add({
      ...at(manifest.config.locate?.(['clusters', i, 'name']) ?? manifest.config.position),
      path: `clusters[${i}].name`,
      message: `duplicate cluster "${c.name}"${where ? `; the first is at ${formatPosition(where)}` : ''}`,
      expected: 'each cluster name once: it names the output directory clusters/<name>/',
      hint: 'rename one of them',
    });
  });
}

function duplicateReleases(manifest: Manifest): Map<string, ReleaseObject> {
  const releases = new Map<string, ReleaseObject>();
  for (const r of manifest.releases ?? []) if (!releases.has(r.name)) releases.set(r.name, r);
  return releases;
}

/**
 * What a cluster's run says every time, each at the line that asks for it: the values its
 * unsupportedOverrides set, and a deprecated release (at the `release:` that chose it, else the
 * Release document, for --release).
 */
function clusterWarnings(
  overlay: ClusterOverlay,
  index: number,
  release: ReleaseObject | undefined,
  config: ToolConfig,
  override: string | undefined,
): Diagnostic[] {
  const locate = (path: FieldPath) => at(config.locate?.(path) ?? config.position);
  const warnings: Diagnostic[] = [];
  const escaped = leafPaths(overlay.unsupportedOverrides ?? {});
  if (escaped.length > 0)
    warnings.push({
      ...locate(['clusters', index, 'unsupportedOverrides']),
      message: `cluster ${overlay.name}: unsupportedOverrides sets ${escaped.join(', ')}; these bypass the overlay's checks and are not supported`,
    });
  warnings.push(...shadowedChartValues(overlay, index, config, locate));
  if (release?.deprecated) {
    const chosenAt =
      override !== undefined ? at(release.position) : locate(overlay.release !== undefined ? ['clusters', index, 'release'] : ['release']);
    // plan --release names a release the cluster may not run yet
    const runsIt = (overlay.release ?? config.release) === release.name;
    warnings.push({
      ...chosenAt,
      message: runsIt
        ? `cluster ${overlay.name} runs release ${release.name}, which is deprecated; move it to a current release`
        : `cluster ${overlay.name} would move to release ${release.name}, which is deprecated; plan its move to a current release instead`,
    });
  }
  return warnings;
}

/**
 * A cluster's `gitops` value (either layout's chart) that the shared Config's values for one
 * layout replace (a layout's own values win, docs/charts.md), unless the cluster's own values for
 * that layout set it: told at the cluster's line, for each layout it is lost to.
 */
function shadowedChartValues(
  overlay: ClusterOverlay,
  index: number,
  config: ToolConfig,
  locate: (path: FieldPath) => Pick<Diagnostic, 'file' | 'line' | 'column'>,
): Diagnostic[] {
  if (!isValuesMap(overlay.gitops)) return [];
  const warnings: Diagnostic[] = [];
  for (const path of leafPaths(overlay.gitops).map((p) => p.split('.'))) {
    for (const layout of CHART_LAYOUTS) {
      const own = overlay[layout];
      const by = replacedAt(config.gitops?.[layout]?.values, path);
      if (own === null || by === undefined || replacedAt(own?.values, path) !== undefined) continue;
      warnings.push({
        ...locate(['clusters', index, 'gitops', ...path]),
        message:
          `cluster ${overlay.name}: gitops.${path.join('.')} is not used by the ${layout} chart: the Config's ` +
          `gitops.${layout}.values.${by.join('.')} replaces it (a layout's own values win over values for either layout)`,
        hint: `to keep it for this cluster with --layout ${layout}, write it under clusters[${index}].${layout}.values.${path.join('.')}`,
      });
    }
  }
  return warnings;
}

/** The path in `values` that replaces the leaf at `path` when merged over it (a value at or above it), if any. */
function replacedAt(values: unknown, path: readonly string[]): string[] | undefined {
  let node = values;
  for (let i = 0; i < path.length; i++) {
    if (!isValuesMap(node) || !Object.hasOwn(node, path[i]!)) return undefined;
    node = node[path[i]!];
    if (!isValuesMap(node)) return path.slice(0, i + 1);
  }
  // a map where the cluster has a leaf (its path's end): merged over it, so it replaces it too
  return [...path];
}

/**
 * Expands `Config.clusters` into one manifest per cluster. Every problem of every cluster is
 * reported in one error; with `collectAll`, a problem of a cluster's own entry (with those found
 * at load, `Manifest.clusterProblems`) leaves that cluster out instead, for the run to report
 * with what else it finds, unless the fleet or a release has a problem too. A manifest without
 * clusters is not a fleet: callers render it as one cluster at the output's root.
 */
export function expandFleet(manifest: Manifest, options: ExpandOptions = {}): Fleet {
  const bag = new DiagnosticBag();
  // the clusters' merged manifests' problems: one a shared layer gives every cluster is told once, naming them
  const merging = new DiagnosticsByCluster();
  const releaseMerging = new DiagnosticsByCluster();
  const own = new DiagnosticBag();
  const leftOut = new Set(manifest.clusterProblems?.keys());
  const releases = duplicateReleases(manifest);
  duplicateClusters(manifest, bag);
  const shared = sharedLayer(manifest);
  const sharedKeys = manifest.providers.map(providerKey);
  const defaults: Layer = { label: 'tool defaults', values: TOOL_DEFAULTS, where: () => undefined };
  const clusters: FleetCluster[] = [];
  // every provider some cluster runs: a release key naming none of them pins nothing
  const fleetKeys = new Set(sharedKeys);
  (manifest.config.clusters ?? []).forEach((overlay, index) => {
    // its entry did not load: merging it would tell its problems again
    if (leftOut.has(overlay.name)) return;
    const entry = new DiagnosticBag();
    // a release the cluster's own entry names is its problem; the Config's or --release's, the fleet's
    const releaseBag = overlay.release !== undefined && options.release === undefined ? entry : bag;
    const release = selectRelease(overlay, index, manifest, releases, releaseBag, options);
    const ownLayer = overlayLayer(overlay, index, false, sharedKeys, manifest.config);
    const escape = overlayLayer(overlay, index, true, sharedKeys, manifest.config);
    [...ownLayer.problems, ...escape.problems].forEach((d) => entry.add(d));
    // the providers this cluster ends up with: a release pins those, and only those
    const overlays = [ownLayer.layer.values.providers as Values, escape.layer.values.providers as Values];
    const keys = new Set(sharedKeys);
    for (const providers of overlays) {
      for (const [key, value] of Object.entries(providers)) {
        if (value === null) keys.delete(key);
        else keys.add(key);
      }
    }
    const known = [...keys];
    known.forEach((k) => fleetKeys.add(k));
    const layers = [defaults, shared, ...(release ? [releaseLayer(release, known)] : []), ownLayer.layer, escape.layer];
    const merged = mergedManifest({ cluster: overlay.name }, mergeLayers(layers), layers, manifest, merging);
    if (entry.size > 0 || merged.faulty) {
      leftOut.add(overlay.name);
      entry.items.forEach((d) => own.add(d));
      return;
    }
    const warnings = clusterWarnings(overlay, index, release, manifest.config, options.release);
    const originOf = (path: FieldPath) => {
      const layer = layerOf(layers, path);
      return layer && { layer: layer.label, position: layer.where(path) };
    };
    clusters.push({
      name: overlay.name,
      index,
      ...(release ? { release } : {}),
      manifest: merged.manifest,
      warnings,
      origin: (provider, field) => originOf(['providers', provider, ...field]),
      configOrigin: (field) => originOf(['config', ...field]),
    });
  });
  const checked = new Map<string, { release: ReleaseObject; manifest: Manifest }>();
  for (const release of releases.values()) {
    const layers = [defaults, shared, releaseLayer(release, sharedKeys)];
    checked.set(release.name, {
      release,
      manifest: mergedManifest({ release: release.name }, mergeLayers(layers), layers, manifest, releaseMerging).manifest,
    });
  }
  const problems = [...[...(manifest.clusterProblems?.values() ?? [])].flat(), ...own.items, ...merging.take()];
  if (bag.size + releaseMerging.size > 0 || (!options.collectAll && problems.length > 0))
    throw new CapiGitopsError(sortDiagnostics([...bag.items, ...releaseMerging.take(), ...problems]));
  return { clusters, releases: checked, leftOut: [...leftOut], problems, warnings: unknownReleaseKeys(releases, [...fleetKeys]) };
}

/** A warning at each release's provider key that names no provider of the fleet, with the key it may mean. */
function unknownReleaseKeys(releases: ReadonlyMap<string, ReleaseObject>, fleetKeys: readonly string[]): Diagnostic[] {
  // `<Kind>/<name>`, as releases usually write them
  const short = fleetKeys.map((k) => k.replace(/\/[^/]*\//, '/'));
  return [...releases.values()].flatMap((release) =>
    Object.keys(release.providers)
      .filter((written) => {
        const { key, ambiguous } = matchProviderKey(written, fleetKeys);
        return key === undefined && ambiguous === undefined;
      })
      .map((written) => {
        const guess = closestName(written, written.split('/').length === 3 ? fleetKeys : short);
        return {
          ...at(release.locate(['providers', written])),
          object: `release ${release.name}`,
          path: `providers.${written}`,
          message: 'names no provider of the fleet, so it pins nothing',
          expected: `a provider of the shared manifest or of a cluster's overlay (${short.join(', ') || 'none'})`,
          hint: guess ? `did you mean "${guess}"?` : 'remove the key, or add the provider to the shared manifest',
        };
      }),
  );
}

/** Whether a manifest declares a fleet (Config.clusters). */
export function isFleet(manifest: Manifest): boolean {
  return (manifest.config.clusters?.length ?? 0) > 0;
}
