/**
 * The GitOps wiring of a layout: the facts a chart is given about the components, the chart's
 * run, and its documents as files (one object per file, with their own kustomization.yaml).
 */
import { CapiGitopsError, compareStrings, DiagnosticBag, tellOnce, type Diagnostic } from '../core/diagnostics.js';
import { apiGroup, describeObject, isPlainObject, type KObject } from '../core/kobject.js';
import type { RenderedComponent } from '../render/types.js';
import { renderChart, templateFile } from './chart/render.js';
import { unknownFields, WIRING_CRDS_OF } from './chart/wiring-fields.js';
import { closestName, formatFieldPath } from '../manifest/fields.js';
import { otherSyncingTool, type ChartComponent, type ChartContext, type ChartDocument, type LoadedChart } from './chart/types.js';
import type { Values } from '../core/values.js';
import { emitYamlDocument } from '../yaml/emit.js';
import { caBundlePaths, isCaInjected, matchesSelector, needACertServices, type ObjectSelector } from './apply-safety.js';
import { componentDirectory, KUSTOMIZATION_FILE, orderComponents } from './kustomize.js';
import { isCustomResourceDefinition, objectFileName } from './names.js';
import { isDns1123Label, isDns1123Subdomain } from '../core/names.js';
import { GENERATED_COMMENT } from './provenance.js';
import { isNamespaceObject } from './shared-namespaces.js';
import { renderKustomization } from './templates.js';

/**
 * Sync waves between components, as clusterctl installs them: cert-manager, core, bootstrap and
 * control plane together, infrastructure, IPAM, runtime extensions, add-ons.
 */
const COMPONENT_WAVE: Record<RenderedComponent['type'], number> = {
  CertManager: 0,
  CoreProvider: 1,
  BootstrapProvider: 2,
  ControlPlaneProvider: 2,
  InfrastructureProvider: 3,
  IPAMProvider: 4,
  RuntimeExtensionProvider: 5,
  AddonProvider: 6,
};

export interface WiringInput {
  chart: LoadedChart;
  values: Values;
  components: readonly RenderedComponent[];
  /** Objects the GitOps tool must stop enforcing. */
  unmanaged: readonly ObjectSelector[];
  /** Default Release.namespace when the values name none. */
  defaultNamespace: string;
  /** The wiring's directory in the output (`argocd`, `flux`). */
  directory: string;
  /** Component label → the Secret Flux substitutes from (secrets strategy flux-substitute). */
  substituteFrom?: ReadonlyMap<string, string>;
  /** Labels of the components holding a sops-encrypted Secret: their GitOps object must decrypt it. */
  decrypt?: ReadonlySet<string>;
  /** Whether a directory below the output's root is there already (an overlay of one's own that the chart may sync). */
  exists?: (directory: string) => boolean;
  /** Each component's directory and wave, where a layout places them itself (the operator layout). */
  place?: (c: RenderedComponent) => ComponentPlace;
  /** Told what is written though doubted: a field the CRDs capi-gitops knows do not declare, near no field they do. */
  onWarning?: (warning: Diagnostic) => void;
}

export interface ComponentPlace {
  directory: string;
  wave: number;
}

/** The component layouts' places: `<NN>-<label>` directories, waves by type. */
function componentPlace(c: RenderedComponent): ComponentPlace {
  return { directory: componentDirectory(c), wave: COMPONENT_WAVE[c.type] };
}

/**
 * A directory's path in the repository as the wiring writes it: relative and clean (`/a//b/`,
 * `./a` are `a/b`, `a`): Argo CD refuses an absolute source path (argo-cd util/app/path Path).
 */
function joinPath(base: string, dir: string): string {
  const root = repositoryPath(base);
  return root === '' ? dir : `${root}/${dir}`;
}

function selectorOf(obj: KObject): ObjectSelector {
  return {
    group: apiGroup(obj.apiVersion),
    kind: obj.kind,
    name: obj.metadata.name ?? '',
    ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}),
  };
}

/**
 * Each component's wave. A component whose namespace's Namespace object another component's
 * directory holds (shared-namespaces.ts) syncs in a wave after that one, even when their types
 * share a wave (bootstrap and control plane), so its namespaced objects never reach the cluster
 * before their Namespace.
 */
function syncWaves(ordered: readonly RenderedComponent[], place: (c: RenderedComponent) => ComponentPlace): Map<RenderedComponent, number> {
  const holder = new Map<string, RenderedComponent>();
  for (const c of ordered)
    for (const obj of c.objects)
      if (isNamespaceObject(obj) && obj.metadata.name && !holder.has(obj.metadata.name)) holder.set(obj.metadata.name, c);
  const waves = new Map<RenderedComponent, number>();
  for (const c of ordered) {
    const owner = holder.get(c.namespace);
    const after = owner && owner !== c ? (waves.get(owner) ?? place(owner).wave) + 1 : 0;
    waves.set(c, Math.max(place(c).wave, after));
  }
  return waves;
}

/** The objects whose CA bundles something in the cluster writes, and the fields (apply-safety caBundleWriter). */
function caInjected(objects: readonly KObject[]): ChartComponent['caInjected'] {
  const services = needACertServices(objects);
  return objects
    .filter((o) => isCaInjected(o, services) && caBundlePaths(o).length > 0)
    .map((o) => ({ ...selectorOf(o), jqPathExpressions: caBundlePaths(o) }));
}

/** The chart's facts: components in install order with their paths, waves and dependencies. */
function chartContext(input: WiringInput): ChartContext {
  const path = typeof input.values.path === 'string' ? input.values.path : '';
  const given = input.place ?? componentPlace;
  const ordered = input.place
    ? [...input.components].sort((a, b) => given(a).wave - given(b).wave || compareStrings(given(a).directory, given(b).directory))
    : orderComponents(input.components);
  const syncWave = syncWaves(ordered, given);
  const place = (c: RenderedComponent): ComponentPlace => ({ directory: given(c).directory, wave: syncWave.get(c)! });
  const waves = [...new Set(ordered.map((c) => place(c).wave))].sort((a, b) => a - b);
  const clusterResources = new Map<string, { group: string; kind: string }>();
  const namespaces = new Set<string>();
  const components: ChartComponent[] = ordered.map((c) => {
    const { wave, directory } = place(c);
    const previous = waves.filter((w) => w < wave).pop();
    for (const obj of c.objects) {
      if (obj.metadata.namespace) namespaces.add(obj.metadata.namespace);
      else clusterResources.set(`${apiGroup(obj.apiVersion)}/${obj.kind}`, { group: apiGroup(obj.apiVersion), kind: obj.kind });
      if (obj.kind === 'Namespace' && obj.apiVersion === 'v1' && obj.metadata.name) namespaces.add(obj.metadata.name);
    }
    return {
      label: c.label,
      kind: c.type,
      name: c.name,
      namespace: c.namespace,
      version: c.version,
      path: joinPath(path, directory),
      directory,
      wave,
      dependsOn: previous === undefined ? [] : ordered.filter((o) => place(o).wave === previous).map((o) => place(o).directory),
      hasCRDs: c.objects.some(isCustomResourceDefinition),
      hasWebhooks: c.objects.some((o) => o.kind === 'ValidatingWebhookConfiguration' || o.kind === 'MutatingWebhookConfiguration'),
      unmanaged: c.objects.filter((o) => input.unmanaged.some((s) => matchesSelector(o, s))).map(selectorOf),
      caInjected: caInjected(c.objects),
      ...(input.substituteFrom?.has(c.label) ? { substituteFrom: input.substituteFrom.get(c.label) } : {}),
      ...(input.decrypt?.has(c.label) ? { sopsEncrypted: true } : {}),
    };
  });
  const values = input.values;
  return {
    Values: values,
    Chart: input.chart.metadata,
    Release: {
      name: typeof values.releaseName === 'string' ? values.releaseName : 'capi-gitops',
      namespace: typeof values.namespace === 'string' ? values.namespace : input.defaultNamespace,
    },
    Components: components,
    ClusterResources: [...clusterResources.values()].sort((a, b) => compareStrings(a.group, b.group) || compareStrings(a.kind, b.kind)),
    Namespaces: [...namespaces].sort(compareStrings),
    Wiring: { directory: input.directory, path: joinPath(path, input.directory) },
    CaInjected: components.flatMap((c) => c.caInjected),
    Unmanaged: components.flatMap((c) => c.unmanaged),
  };
}

/** A path in the repository as Argo CD and Flux read it: `./a/b/`, `/a//b` and `a/b` are one directory; `.` is the root. */
export function repositoryPath(p: string): string {
  return p
    .split('/')
    .filter((s) => s !== '' && s !== '.')
    .join('/');
}

/**
 * The directories in the repository a chart's GitOps object syncs: an Argo CD Application's
 * sources, an ApplicationSet's Git directories and template source, a Flux Kustomization's
 * `spec.path`. A glob or a generator's template (`{{.path.path}}`) names no one directory.
 */
function syncedPaths(object: KObject, repoURL: unknown): { field: (string | number)[]; path: string }[] {
  const group = apiGroup(object.apiVersion);
  const spec = object.spec as Record<string, unknown> | undefined;
  const out: { field: (string | number)[]; path: string }[] = [];
  const add = (field: (string | number)[], value: unknown, repo?: unknown) => {
    // a source in another repository is not the output's (only the Argo CD chart names its repository)
    if (typeof value !== 'string' || /[*?[{]/.test(value) || (repo !== undefined && repoURL !== undefined && repo !== repoURL)) return;
    out.push({ field, path: value });
  };
  const source = (at: (string | number)[], s: unknown) => {
    if (typeof s === 'object' && s !== null)
      add([...at, 'path'], (s as Record<string, unknown>).path, (s as Record<string, unknown>).repoURL);
  };
  const sources = (at: (string | number)[], app: unknown) => {
    if (typeof app !== 'object' || app === null) return;
    const a = app as Record<string, unknown>;
    source([...at, 'source'], a.source);
    if (Array.isArray(a.sources)) a.sources.forEach((s, i) => source([...at, 'sources', i], s));
  };
  if (group === 'argoproj.io' && object.kind === 'Application') sources(['spec'], spec);
  if (group === 'argoproj.io' && object.kind === 'ApplicationSet') {
    sources(['spec', 'template', 'spec'], (spec?.template as Record<string, unknown> | undefined)?.spec);
    (Array.isArray(spec?.generators) ? spec.generators : []).forEach((g: { git?: Record<string, unknown> }, i: number) => {
      const dirs = g?.git?.directories;
      if (Array.isArray(dirs))
        dirs.forEach((d: Record<string, unknown>, j) => {
          if (d?.exclude !== true) add(['spec', 'generators', i, 'git', 'directories', j, 'path'], d?.path, g.git?.repoURL);
        });
    });
  }
  if (group === 'kustomize.toolkit.fluxcd.io' && object.kind === 'Kustomization') add(['spec', 'path'], spec?.path);
  return out;
}

/**
 * Every directory of the output a GitOps object of the chart syncs must be one the render writes
 * (a component's, the wiring's, the output's root) or one already there (an overlay of one's own):
 * an Application at `<path>/cluster-api` instead of `<path>/01-cluster-api` syncs nothing, and
 * Argo CD or Flux would only say so in the cluster.
 */
function unwrittenPaths(documents: readonly ChartDocument[], context: ChartContext, input: WiringInput): Diagnostic[] {
  const root = repositoryPath(typeof context.Values.path === 'string' ? context.Values.path : '');
  const written = new Set([input.directory, ...context.Components.map((c) => c.directory)]);
  const dirs = context.Components.map((c) => c.path);
  const problems: Diagnostic[] = [];
  for (const { template, object, locate } of documents) {
    for (const { field, path } of syncedPaths(object, context.Values.repoURL)) {
      const p = repositoryPath(path);
      const below = root === '' ? p : p.startsWith(`${root}/`) ? p.slice(root.length + 1) : p === root ? '' : undefined;
      if (below === undefined || below === '' || written.has(below) || input.exists?.(below)) continue;
      problems.push({
        ...positionOf(locate?.(field) ?? { file: templateFile(input.chart, template) }),
        object: `${describeObject(object)} (${path})`,
        path: field
          .map((f) => (typeof f === 'number' ? `[${f}]` : `.${f}`))
          .join('')
          .replace(/^\./, ''),
        message: `names a directory of the output that the render does not write`,
        expected: `a component's directory (${dirs.slice(0, 3).join(', ')}${dirs.length > 3 ? ', …' : ''}), the wiring's (${context.Wiring.path}) or the output's root`,
        hint: "write each component's path as the chart is given it: {{path}} inside {{#each Components}}",
      });
    }
  }
  return tellOnce(problems);
}

/**
 * kustomize-controller labels every object a Kustomization applies with the Kustomization's name
 * (`kustomize.toolkit.fluxcd.io/name`, fluxcd/pkg ssa SetOwnerLabels), and a label value holds at
 * most 63 characters: a longer name fails every apply, in the cluster. The built-in chart's names
 * are `<releaseName>-<component directory>`, so the hint names the releaseName that fits them all.
 */
const FLUX_NAME_MAX = 63;

function longFluxNames(documents: readonly ChartDocument[], context: ChartContext, input: WiringInput): Diagnostic[] {
  const long = documents
    .filter(({ object }) => apiGroup(object.apiVersion) === 'kustomize.toolkit.fluxcd.io' && object.kind === 'Kustomization')
    .filter(({ object }) => (object.metadata.name ?? '').length > FLUX_NAME_MAX)
    .sort((a, b) => b.object.metadata.name!.length - a.object.metadata.name!.length);
  if (long.length === 0) return [];
  const { template, object, locate } = long[0]!;
  const name = object.metadata.name!;
  const release = context.Release.name;
  const budget = release.length - (name.length - FLUX_NAME_MAX);
  const shorter = release.slice(0, Math.max(budget, 0)).replace(/-+$/, '');
  return [
    {
      ...positionOf(locate?.(['metadata', 'name']) ?? { file: templateFile(input.chart, template) }),
      object: describeObject(object),
      path: 'metadata.name',
      message:
        `the Kustomization name ${name} has ${name.length} characters${long.length > 1 ? ` (${long.length} Kustomizations' names are over ${FLUX_NAME_MAX})` : ''}: ` +
        `kustomize-controller labels every object it applies with kustomize.toolkit.fluxcd.io/name: <its name>, and a label value holds at most ${FLUX_NAME_MAX}`,
      expected: `Kustomization names of at most ${FLUX_NAME_MAX} characters`,
      hint:
        name.startsWith(release) && shorter !== ''
          ? `set a releaseName of at most ${budget} characters, which begins every name: --set releaseName=${shorter} (or releaseName in the Config's gitops.values; in a fleet, in the cluster's gitops)`
          : `shorten the names the chart writes to at most ${FLUX_NAME_MAX} characters`,
    },
  ];
}

/** The namespace `flux bootstrap` installs Flux and its GitRepository `flux-system` in. */
const FLUX_BOOTSTRAP = 'flux-system';

/**
 * Kustomizations outside flux-system that read the GitRepository flux-system with no
 * sourceRef.namespace: Flux looks for the source in the Kustomization's own namespace, and
 * `flux bootstrap` creates it in flux-system, so nothing would reconcile (source not found). A
 * warning, not an error: a GitRepository of that name may be there.
 */
function bootstrapSourceElsewhere(documents: readonly ChartDocument[], input: WiringInput): Diagnostic | undefined {
  const sources = new Set(
    documents
      .filter(({ object }) => apiGroup(object.apiVersion) === 'source.toolkit.fluxcd.io')
      .map(({ object }) => `${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`),
  );
  const lost = documents.filter(({ object }) => {
    const ref = (object.spec as { sourceRef?: { kind?: unknown; name?: unknown; namespace?: unknown } } | undefined)?.sourceRef;
    const namespace = object.metadata.namespace ?? '';
    return (
      apiGroup(object.apiVersion) === 'kustomize.toolkit.fluxcd.io' &&
      object.kind === 'Kustomization' &&
      namespace !== FLUX_BOOTSTRAP &&
      ref?.kind === 'GitRepository' &&
      ref.name === FLUX_BOOTSTRAP &&
      ref.namespace === undefined &&
      !sources.has(`GitRepository/${namespace}/${FLUX_BOOTSTRAP}`)
    );
  });
  if (lost.length === 0) return undefined;
  const { template, object, locate } = lost[0]!;
  // no object named: the warning reads the same in each cluster of a fleet, told once naming them
  return {
    ...positionOf(locate?.(['spec', 'sourceRef']) ?? { file: templateFile(input.chart, template) }),
    path: 'spec.sourceRef',
    message:
      `${lost.length === 1 ? `the Kustomization ${object.metadata.name ?? ''} reads` : `${lost.length} Kustomizations read`} the GitRepository flux-system ` +
      `in their own namespace ${object.metadata.namespace ?? ''} (the sourceRef names no namespace): flux bootstrap creates it in ${FLUX_BOOTSTRAP}, so Flux would find no source there`,
    expected: `a sourceRef with namespace: ${FLUX_BOOTSTRAP}, or a source in the Kustomizations' namespace`,
    hint: `pass --set sourceRef.namespace=${FLUX_BOOTSTRAP} (or sourceRef.namespace in the Config's gitops.flux.values), or --set gitRepository.url=<the repository> for a GitRepository of the chart's own`,
  };
}

/**
 * A chart of the other tool (gitops.chart started from `chart show argocd`, rendered with
 * `--layout flux`): its objects would sync component directories that carry the layout's tool's
 * apply rules only (Argo CD's sync waves and CRDs kept from pruning are not in a flux layout's).
 */
function otherToolProblem(documents: readonly ChartDocument[], input: WiringInput): Diagnostic | undefined {
  const tools = otherSyncingTool(input.directory, input.chart.origin);
  if (!tools) return undefined;
  const { own, other, hint } = tools;
  const foreign = documents.filter((d) => apiGroup(d.object.apiVersion) === other.group && other.kinds.includes(d.object.kind));
  if (foreign.length === 0) return undefined;
  const names = foreign.map((d) => describeObject(d.object));
  return {
    ...(input.chart.namedAt ?? { file: templateFile(input.chart, foreign[0]!.template) }),
    object: input.chart.origin,
    message:
      `the chart draws ${other.tool} objects (${names.slice(0, 2).join(', ')}${names.length > 2 ? ', …' : ''}) for the ${input.directory} layout, ` +
      `whose component directories carry ${own.tool}'s apply rules only`,
    expected: `${own.kinds.join(' or ')} objects of ${own.group}, as the built-in ${input.directory} chart draws`,
    hint,
  };
}

/** A located field's file, line and column alone, for a diagnostic. */
function positionOf(
  located: Pick<Diagnostic, 'file' | 'line' | 'column'> & { through?: string },
): Pick<Diagnostic, 'file' | 'line' | 'column'> {
  const { through: _through, ...position } = located;
  return position;
}

/**
 * A field of an Argo CD or Flux object that its CRD does not declare, at the chart line that
 * wrote it: the API server's strict field validation would refuse the object when the tool
 * applies it, or drop the field. Near a declared name (`syncPolcy`) it is a misspelling, an
 * error; near none, it may be a field of an Argo CD or Flux newer than the CRDs capi-gitops knows,
 * so it is written, with a warning (returned apart).
 */
function unknownFieldProblems(documents: readonly ChartDocument[], input: WiringInput): { errors: Diagnostic[]; doubts: Diagnostic[] } {
  const errors: Diagnostic[] = [];
  const doubts: Diagnostic[] = [];
  for (const { template, object, locate } of documents) {
    for (const { field, declared } of unknownFields(object)) {
      const close = closestName(String(field.at(-1)), declared);
      const { through, ...at } = locate?.(field) ?? { file: templateFile(input.chart, template) };
      // a field inside a value the line writes whole is corrected in the value
      const fromValue = through === undefined ? '' : ` This line writes it from the value ${through}: correct it where that value is given`;
      const problem = {
        ...at,
        object: describeObject(object),
        path: formatFieldPath(field),
        message: `not a field of ${object.apiVersion} ${object.kind}${close === undefined ? ` in the CRDs capi-gitops checks against (${WIRING_CRDS_OF})` : ''}`,
        expected: declared.length > 0 ? `a field its CRD declares here: ${declared.join(', ')}` : 'no field here',
      };
      if (close !== undefined) errors.push({ ...problem, hint: `did you mean ${close}?${fromValue}` });
      else
        doubts.push({
          ...problem,
          hint: `remove it, or write it where the ${object.kind} CRD has it; a field of a newer ${object.kind} CRD is written as it is.${fromValue}`,
        });
    }
  }
  return { errors: tellOnce(errors), doubts: tellOnce(doubts) };
}

/**
 * Objects two documents write to one file (the same kind and name): each told at the name its
 * second document wrote, naming where the first wrote its own, all in the run's one error.
 */
function duplicateObjectProblems(documents: readonly ChartDocument[], input: WiringInput): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const seen = new Map<string, ChartDocument>();
  const at = ({ template, locate }: ChartDocument) =>
    positionOf(locate?.(['metadata', 'name']) ?? { file: templateFile(input.chart, template) });
  for (const document of documents) {
    const file = objectFileName(document.object);
    const earlier = seen.get(file);
    if (earlier === undefined) {
      seen.set(file, document);
      continue;
    }
    const first = at(earlier);
    // the chart's own path, as the message names the templates
    const where = [earlier.template, first.line, first.column].filter((part) => part !== undefined).join(':');
    const who =
      earlier.template === document.template
        ? `${document.template} renders two objects`
        : `${document.template} and ${earlier.template} both render an object`;
    problems.push({
      // at the name the second document wrote, in the chart's file
      ...at(document),
      object: describeObject(document.object),
      message: `${who} for ${input.directory}/${file} (the first at ${where})`,
      expected: 'one object per kind and name in the wiring',
      hint: `give the objects different names, or remove the one you replace (or wrap it in {{#if}})`,
    });
  }
  return problems;
}

/**
 * A label or annotation that is not a string (`owner: {{Values.x}}` with x unset is null, `{{n}}`
 * a number): ObjectMeta's labels and annotations are map[string]string, and kubectl refuses the
 * object (`unknown object type "nil"`), so Argo CD or Flux would fail to apply it. Also in an
 * ApplicationSet's template, whose metadata becomes each Application's.
 */
function metadataValueProblems(documents: readonly ChartDocument[], input: WiringInput): Diagnostic[] {
  const problems: Diagnostic[] = [];
  for (const { template, object, locate } of documents) {
    const spec = isPlainObject(object.spec) ? object.spec : {};
    const nested = isPlainObject(spec.template) && isPlainObject(spec.template.metadata) ? spec.template.metadata : undefined;
    const metadata: [string[], unknown][] = [
      [['metadata'], object.metadata],
      ...(nested ? [[['spec', 'template', 'metadata'], nested] as [string[], unknown]] : []),
    ];
    for (const [base, meta] of metadata)
      for (const section of ['labels', 'annotations']) {
        const map = isPlainObject(meta) ? meta[section] : undefined;
        if (!isPlainObject(map)) continue;
        for (const [key, value] of Object.entries(map)) {
          if (typeof value === 'string') continue;
          const field = [...base, section, key];
          problems.push({
            ...positionOf(locate?.(field) ?? { file: templateFile(input.chart, template) }),
            object: describeObject(object),
            path: formatFieldPath(field),
            message: `${value === null ? 'null' : `the ${typeof value} ${JSON.stringify(value)}`}, where Kubernetes takes a string`,
            expected: `a string: ${section} of an object are strings (ObjectMeta)`,
            hint:
              value === null
                ? 'leave the key out while the value is unset ({{#if …}} around the line), or give it a default: {{quote (default "none" …)}}'
                : 'quote it: {{quote …}}',
          });
        }
      }
  }
  return tellOnce(problems);
}

/** A name as the API server would take it, for a hint: lower-cased, other characters as `-`. */
const asName = (name: string, dots: boolean) =>
  name
    .toLowerCase()
    .replace(dots ? /[^a-z0-9.-]+/g : /[^a-z0-9-]+/g, '-')
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');

/**
 * A wiring object's name that is no DNS-1123 subdomain, or a namespace that is no DNS-1123 label
 * (apimachinery validation.go IsDNS1123Subdomain, IsDNS1123Label): the API server refuses the
 * object when Argo CD or Flux applies it, after the push. Its file name, sanitised, hid it.
 */
function invalidNameProblems(documents: readonly ChartDocument[], input: WiringInput): Diagnostic[] {
  const problems: Diagnostic[] = [];
  for (const { template, object, locate } of documents) {
    const { name, namespace } = object.metadata;
    const at = (field: string) => positionOf(locate?.(['metadata', field]) ?? { file: templateFile(input.chart, template) });
    if (typeof name === 'string' && !isDns1123Subdomain(name))
      problems.push({
        ...at('name'),
        object: describeObject(object),
        path: 'metadata.name',
        message: `${JSON.stringify(name)} is no name the API server takes`,
        expected: 'a DNS-1123 subdomain: at most 253 characters',
        hint: `write lowercase letters, digits, '-' and '.', a letter or digit first and last (${asName(name, true)})`,
      });
    if (typeof namespace === 'string' && !isDns1123Label(namespace))
      problems.push({
        ...at('namespace'),
        object: describeObject(object),
        path: 'metadata.namespace',
        message: `${JSON.stringify(namespace)} is no namespace the API server takes`,
        expected: 'a DNS-1123 label',
        hint: `write lowercase letters, digits and '-', a letter or digit first and last, at most 63 (${asName(namespace, false)})`,
      });
  }
  return tellOnce(problems);
}

/** Runs the chart and lays its objects out under `dir`, one per file, with a kustomization. */
export function wiringFiles(input: WiringInput): Map<string, string> {
  const dir = input.directory;
  const context = chartContext(input);
  // a template's problem and what the documents of the others show are told in one run
  const problems = new DiagnosticBag();
  const documents = renderChart(input.chart, context, problems);
  const otherTool = otherToolProblem(documents, input);
  if (otherTool) throw new CapiGitopsError(otherTool);
  // at a line whose value a template's run left unset (told), a document's problem is that value's
  const unsure = new Set(documents.flatMap((d) => [...(d.unsure ?? [])]));
  const own = (d: Diagnostic) => !unsure.has(`${d.file}\0${d.line}`);
  const unknown = unknownFieldProblems(documents, input);
  for (const problem of [
    ...unwrittenPaths(documents, context, input),
    ...longFluxNames(documents, context, input),
    ...unknown.errors,
    ...invalidNameProblems(documents, input),
    ...metadataValueProblems(documents, input),
    ...duplicateObjectProblems(documents, input),
  ])
    if (own(problem)) problems.add(problem);
  problems.throwIfAny();
  for (const doubt of unknown.doubts) input.onWarning?.(doubt);
  const elsewhere = bootstrapSourceElsewhere(documents, input);
  if (elsewhere) input.onWarning?.(elsewhere);
  const files = new Map<string, string>();
  for (const { object } of documents) files.set(`${dir}/${objectFileName(object)}`, GENERATED_COMMENT + emitYamlDocument(object));
  const resources = [...files.keys()].map((f) => f.slice(dir.length + 1)).sort(compareStrings);
  files.set(`${dir}/${KUSTOMIZATION_FILE}`, renderKustomization({ comment: GENERATED_COMMENT, resources }));
  return files;
}
