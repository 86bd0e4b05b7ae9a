import type { Diagnostic } from '../../core/diagnostics.js';
import type { KObject } from '../../core/kobject.js';
import type { Values } from '../../core/values.js';
import type { ChartCompilers } from './compilers.js';

/** The built-in charts' names. */
export const BUILT_IN_CHARTS = ['argocd', 'flux'] as const;

/** The GitOps objects that sync component directories, by the built-in chart (layout) that draws them. */
const SYNCING_TOOLS: Readonly<Record<string, { tool: string; group: string; kinds: readonly string[] }>> = {
  argocd: { tool: 'Argo CD', group: 'argoproj.io', kinds: ['Application', 'ApplicationSet'] },
  flux: { tool: 'Flux', group: 'kustomize.toolkit.fluxcd.io', kinds: ['Kustomization'] },
};

/**
 * For a chart of one's own rendered for `layout`: the layout's tool, the other one (whose objects
 * the chart may draw by mistake), and the way out; undefined for a layout of no tool.
 */
export function otherSyncingTool(layout: string, chartOrigin: string) {
  const own = SYNCING_TOOLS[layout];
  const [otherLayout, other] = Object.entries(SYNCING_TOOLS).find(([name]) => name !== layout) ?? [];
  if (!own || !other) return undefined;
  const hint =
    `render with --layout ${otherLayout}, which this chart draws; for ${own.tool}, start a chart of its own ` +
    `(capi-gitops chart show ${layout} --output-dir ${chartOrigin}-${layout}) and name it in gitops.chart`;
  return { own, other, hint };
}

/**
 * Handlebars options, for the build step that precompiles built-in charts and for the engine.
 * `noEscape`: the output is YAML, not HTML. `strict`: a missing value fails loudly.
 */
export const COMPILE_OPTIONS = { noEscape: true, strict: true, trackIds: true } as const;

/**
 * ajv options for values.schema.json, built in (precompiled) or a user's; `verbose` gives each
 * error its parent schema, so a message can list the declared values.
 */
export const CHART_AJV_OPTIONS = { allErrors: true, strict: false, verbose: true } as const;

/** Chart.yaml (Helm chart apiVersion v2): the fields capi-gitops reads. */
export interface ChartMetadata {
  apiVersion: 'v2';
  name: string;
  version: string;
  description?: string;
}

/** A chart read from disk: built-in (`charts/<name>`) or the user's. */
export interface LoadedChart {
  metadata: ChartMetadata;
  /** Where it came from, for messages: `built-in chart argocd` or a path. */
  origin: string;
  /** Where the Config names a chart of one's own (gitops.chart). */
  namedAt?: Pick<Diagnostic, 'file' | 'line' | 'column'>;
  /** values.yaml */
  defaults: Values;
  /** What reading Chart.yaml and values.yaml found and Helm reads anyway: a key given twice in a map (the last is taken). */
  warnings?: Diagnostic[];
  /** Where values.yaml sets a value path (a chart read from a directory), for a problem the schema finds in a default. */
  locateDefaults?: (path: readonly (string | number)[]) => Pick<Diagnostic, 'file' | 'line' | 'column'>;
  /** values.schema.json, if any */
  schema?: Record<string, unknown>;
  /** The schema precompiled at build time (built-in charts). */
  validateValues?: ValuesValidator;
  /** templates/*.yaml, sorted by name: each renders to zero or more documents. */
  templates: ChartFile[];
  /** templates/_*.hbs, by name without `_` and `.hbs`: partials for `include` and `{{> name}}`. */
  partials: ChartFile[];
  /** Handlebars' and ajv's compilers, for a chart read from a directory (built-in charts are precompiled). */
  compilers?: ChartCompilers;
}

export interface ChartFile {
  /** Path inside the chart, e.g. `templates/application.yaml`. */
  path: string;
  /** The template text (user charts); built-in charts carry `spec` instead. */
  source?: string;
  /** A Handlebars template spec precompiled at build time (built-in charts). */
  spec?: unknown;
}

/** An ajv validate function (its `errors` after a failed call). */
export interface ValuesValidator {
  (values: unknown): boolean;
  errors?: unknown[] | null;
}

/** One layer of values and where it came from (for messages). */
export interface ValuesLayer {
  source: string;
  values: Values;
  /** Where a value path of this layer was written, when a file holds it (the Config's gitops values). */
  locate?: (path: readonly (string | number)[]) => Pick<Diagnostic, 'file' | 'line' | 'column'>;
  /** The text a scalar value was written as in its file (`yes` for true), for a hint that quotes it. */
  written?: (path: readonly (string | number)[]) => string | undefined;
  /** What reading the file found and Helm reads anyway: a key given twice in a map (the last is taken). */
  warnings?: Diagnostic[];
  /**
   * A fleet cluster's gitops values (its entry's over the Config's): where its own entry
   * (`clusters[0]`, `clusters[0].unsupportedOverrides`), not the shared Config, set the value at a path of them.
   */
  ofFleetCluster?: (segments: readonly string[]) => string | undefined;
  /** Values of this layout's chart only (`gitops.flux.values`), not of either layout's. */
  layout?: string;
}

/** What the chart is told about one component of the output: data, never code. */
export interface ChartComponent {
  label: string;
  /** Provider kind, or `CertManager`. */
  kind: string;
  name: string;
  namespace: string;
  version: string;
  /** The component directory's path from the Git repository root. */
  path: string;
  /** The directory's name in the output (`01-cluster-api`). */
  directory: string;
  /** Sync wave (Argo CD) and dependency rank (Flux): install order, 0 first. */
  wave: number;
  /** Labels of the components this one waits for (the previous wave). */
  dependsOn: string[];
  hasCRDs: boolean;
  hasWebhooks: boolean;
  /** Objects the GitOps tool must stop enforcing (Config.overrides). */
  unmanaged: { group: string; kind: string; name: string; namespace?: string }[];
  /** Objects whose webhook CA bundle cert-manager's cainjector or Rancher's need-a-cert controller writes: what to ignore in diffs. */
  caInjected: { group: string; kind: string; name: string; jqPathExpressions: string[] }[];
  /** The in-cluster Secret whose keys Flux substitutes into this component (secrets flux-substitute). */
  substituteFrom?: string;
  /** It holds a Secret the sops strategy encrypted (secrets sops): Flux must decrypt it. */
  sopsEncrypted?: boolean;
}

/** The chart's context: Helm's `.Values`, `.Chart`, `.Release`, plus the render's facts. */
export interface ChartContext {
  Values: Values;
  Chart: ChartMetadata;
  Release: { name: string; namespace: string };
  Components: ChartComponent[];
  /** Cluster-scoped kinds the components contain, `{group, kind}`, sorted. */
  ClusterResources: { group: string; kind: string }[];
  /** Namespaces the components install into, sorted. */
  Namespaces: string[];
  /** The wiring's own directory: its name in the output and its path from the repository root. */
  Wiring: { directory: string; path: string };
  /** Every component's `caInjected` and `unmanaged` together, for one ApplicationSet template. */
  CaInjected: ChartComponent['caInjected'];
  Unmanaged: ChartComponent['unmanaged'];
}

/** One rendered document, with the template that produced it. */
export interface ChartDocument {
  template: string;
  object: KObject;
  /**
   * The chart line that wrote the value at a field path of the object, when one line can have (see
   * render.ts writingLine); `through`: the value (`a.b[0].c`) the field came from, when that line
   * wrote it whole (`toYaml Values.a.b`).
   */
  locate?: (path: readonly (string | number)[]) => (Pick<Diagnostic, 'file' | 'line' | 'column'> & { through?: string }) | undefined;
  /**
   * Of a template whose run left values unset (each told): the chart lines (`file\0line`) that
   * read them, where what the document shows is those values' doing, not a problem of its own.
   */
  unsure?: ReadonlySet<string>;
}
