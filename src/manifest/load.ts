import path from 'node:path';
import { YamlBudget } from '../yaml/bounds.js';
import type { Node as YamlNode } from 'yaml';
import { DiagnosticBag, type Diagnostic } from '../core/diagnostics.js';
import { describeObject, isPlainObject } from '../core/kobject.js';
import { OPERATOR_API_VERSION, TOOL_API_VERSION } from '../core/provider.js';
import { isDns1123Label } from '../core/names.js';
import { toToolConfig, writtenImagePath } from './config.js';
import { toConfigMapObject, toNamespaceObject, toSecretObject } from './core-objects.js';
import {
  classifyDocument,
  CAPI_PROVIDER_KIND,
  classifyListItem,
  normalizeObject,
  stripServerFields,
  gitOpsOwnerWarning,
  type GitOpsOwner,
  V1ALPHA1_API_VERSION,
  type Category,
  type Classification,
  type Finding,
} from './documents.js';
import { formatFieldPath, formatPosition } from './fields.js';
import { findConfigSecret } from './references.js';
import { listManifestFiles, readManifestFiles } from './files.js';
import { checkProviderSpecRules, toProviderObject } from './providers.js';
import { locateMergedField, mergeConfigDocuments, type ConfigDocument } from './config-merge.js';
import { checkProviderDurations, providerSchemaHint, providerWarnings } from './provider-values.js';
import { loadDocumentValidator, validateDocument, type SchemaProblem, type SourceAccess } from './schema.js';
import { applyEditsToValue, planV1alpha1Conversion, sourcePathOf, type ConversionEdit } from './v1alpha1.js';
import type {
  ConfigMapObject,
  Manifest,
  NamespaceObject,
  ProviderObject,
  ReleaseObject,
  SecretObject,
  SourcePosition,
  ToolConfig,
} from './types.js';
import { planTurtlesConversion, type TurtlesSecret } from './turtles.js';
import {
  documentPosition,
  documentValue,
  fieldPosition,
  locate,
  nodePosition,
  parseManifestFile,
  positionAt,
  sourceText,
  YamlValueError,
  type FieldPath,
  type SourceDocument,
} from './yaml-source.js';

/**
 * Loads the user's manifest: `-f` values (files, or directories of `*.yaml`/`*.yml` files read in
 * code-unit order), every document validated against schema/capi-gitops.schema.json and the
 * upstream CEL rules, defaulted as the API server and the operator's webhook would. All problems
 * in all files are reported together in one CapiGitopsError (or, with `collectAll`, returned).
 */
export async function loadManifest(paths: string[], options: LoadOptions = {}): Promise<Manifest> {
  await loadDocumentValidator();
  const bag = new DiagnosticBag();
  const problems: Diagnostic[] = [];
  const files = await listManifestFiles(paths, problems);
  const contents = await readManifestFiles(files, problems, options.texts);
  problems.forEach((problem) => bag.add(problem));
  const budget = new YamlBudget();
  const documents: { source: SourceDocument; read: DocumentRead }[] = [];
  for (const { file, text } of contents) {
    try {
      budget.check(text, file);
    } catch (error) {
      bag.addError(error);
      continue;
    }
    const parsed = parseManifestFile(file, text);
    parsed.syntaxErrors.forEach((problem) => bag.add(problem));
    for (const source of parsed.documents) documents.push({ source, read: readDocument(source) });
  }
  // --namespace wins over the Config document's namespace, as flags win over Config elsewhere
  const collector = new ManifestCollector(bag, options.namespace ?? configNamespace(documents.map((d) => d.read)));
  for (const { source, read } of documents) collector.addDocument(source, read);
  collector.addTurtlesSecrets();
  collector.mergeConfigs();
  const baseDir = files.length > 0 ? path.dirname(path.resolve(files[0])) : process.cwd();
  if (!options.collectAll || collector.hasRunProblems(bag.items)) bag.throwIfAny();
  const manifest = collector.manifest(baseDir, bag.items);
  if (options.namespace !== undefined && !collector.namespaceTaken)
    manifest.warnings = [...(manifest.warnings ?? []), unusedNamespaceFlag(options.namespace)];
  return manifest;
}

export interface LoadOptions {
  /** Texts to read instead of the files' (absolute path → text): `update` resolves its edits before writing them. */
  texts?: ReadonlyMap<string, string>;
  /**
   * A Secret, ConfigMap or provider object with problems is left out (providers stay for the
   * checks that count them) and its problems come back in `Manifest.problems`, so the run reports
   * them with what it finds later (every problem in one run). So do the problems of a fleet
   * cluster's entry in Config.clusters (`Manifest.clusterProblems`: that cluster is left out);
   * other problems of the Config, a Release or the files still throw.
   */
  collectAll?: boolean;
  /**
   * `-n, --namespace`: the namespace of providers, Secrets and ConfigMaps that name none (as
   * `helm template` prints charts that rely on the release namespace), as kubectl defaults it.
   * Without it, Config `namespace`; without both, such objects are refused as before.
   */
  namespace?: string;
}

/** A document's value, or why it could not be read. */
type DocumentRead = { value: unknown } | { error: unknown };

function readDocument(source: SourceDocument): DocumentRead {
  try {
    return { value: documentValue(source) };
  } catch (error) {
    return { error };
  }
}

/** The Config documents' `namespace`, when one names a valid one (the schema reports an invalid one). */
function configNamespace(reads: readonly DocumentRead[]): string | undefined {
  for (const read of reads) {
    if (!('value' in read) || !isPlainObject(read.value)) continue;
    const { apiVersion, kind, namespace } = read.value;
    if (apiVersion === TOOL_API_VERSION && kind === 'Config' && typeof namespace === 'string' && isDns1123Label(namespace))
      return namespace;
  }
  return undefined;
}

/** Sets the default namespace on a namespaced object that names none, as kubectl does; true when it did. */
function defaultNamespace(value: unknown, category: Category, namespace: string | undefined): boolean {
  if (namespace === undefined || (category !== 'provider' && category !== 'secret' && category !== 'configmap')) return false;
  if (!isPlainObject(value) || !isPlainObject(value.metadata)) return false;
  if (value.metadata.namespace !== undefined && value.metadata.namespace !== '') return false;
  value.metadata.namespace = namespace;
  return true;
}

/**
 * `-n` that no object took: every one names its own namespace. clusterctl's `init --target-namespace`
 * moves every provider; `-n` does not, and kubectl would refuse objects of another namespace.
 */
function unusedNamespaceFlag(namespace: string): Diagnostic {
  return {
    message: `-n/--namespace ${namespace} changed nothing: every provider, Secret and ConfigMap names its own namespace`,
    hint:
      "a provider's components are installed into the provider object's metadata.namespace (clusterctl's --target-namespace): " +
      'set it there; -n names the namespace only of objects written without one',
  };
}

/** One object being read: a document, or an item of a List document. */
interface ObjectUnit {
  source: SourceDocument;
  node: YamlNode | null;
  /** `CoreProvider/capi-system/cluster-api`, for messages. */
  label?: string;
  category?: Category;
  /** A v1alpha1 object's conversion: problems in the converted object are shown at their source. */
  conversion?: readonly ConversionEdit[];
  /** The whole document, not an item of a List. */
  isDocument?: boolean;
  /** A Rancher Turtles CAPIProvider, converted to its operator object. */
  turtles?: boolean;
  /** The document's value: a Config problem under `clusters[N]` names that cluster. */
  value?: unknown;
}

/** The fleet cluster whose entry a Config problem is in (`clusters[0]…`): the path alone says `clusters[0]`. */
function clusterOf(unit: ObjectUnit, path: FieldPath): string | undefined {
  if (unit.label !== 'Config' || path[0] !== 'clusters' || typeof path[1] !== 'number' || !isPlainObject(unit.value)) return undefined;
  const clusters = unit.value.clusters;
  const entry = Array.isArray(clusters) ? (clusters[path[1]] as unknown) : undefined;
  return isPlainObject(entry) && typeof entry.name === 'string' && entry.name !== '' ? entry.name : undefined;
}

function objectLabel(value: unknown): string | undefined {
  if (!isPlainObject(value) || typeof value.kind !== 'string') return undefined;
  if (value.kind === 'Config' || value.kind.endsWith('List')) return value.kind;
  const metadata = isPlainObject(value.metadata) ? value.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : undefined;
  const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : undefined;
  return describeObject({ kind: value.kind, metadata: { name, namespace } });
}

/** Hints for the required fields people most often leave out. */
function requiredFieldHint(category: Category | undefined, parent: FieldPath, field: string): string | undefined {
  const where = [...parent, field].join('.');
  if (category === 'provider') {
    if (where === 'metadata.namespace' || where === 'metadata') {
      return "set metadata.namespace: it is the namespace the provider's components are installed into (clusterctl's target namespace), e.g. capi-system; or name one for every object without it with -n/--namespace or namespace: in the Config document";
    }
    if (where === 'metadata.name') return 'set metadata.name to the provider name, e.g. kubeadm or aws; the core provider is cluster-api';
  }
  if ((category === 'secret' || category === 'configmap') && (where === 'metadata.namespace' || where === 'metadata')) {
    return "set metadata.namespace (a provider's configSecret refers to its own namespace by default), or name one for every object without it with -n/--namespace or namespace: in the Config document";
  }
  return undefined;
}

class ManifestCollector {
  private readonly providers: ProviderObject[] = [];
  private readonly secrets: SecretObject[] = [];
  private readonly configMaps: ConfigMapObject[] = [];
  private readonly namespaces: NamespaceObject[] = [];
  private readonly releases: ReleaseObject[] = [];
  private config: ToolConfig = {};
  private readonly configs: ConfigDocument[] = [];
  private readonly warnings: Diagnostic[] = [];
  /** Each GitOps tool that applied exported objects: its warning (told once) and how many objects. */
  private readonly owners = new Map<string, { at: Omit<Diagnostic, 'message'>; owner: GitOpsOwner; objects: number }>();
  /** Whether some object took the default namespace. */
  namespaceTaken = false;
  private readonly firstSeen = new Map<string, SourcePosition>();
  /** Units (documents, List items) with a problem of their own, and the objects made from them. */
  private readonly faultyUnits = new Set<ObjectUnit>();
  private readonly faultyObjects = new Set<unknown>();
  private readonly objectProblems = new Set<Diagnostic>();
  /** Problems confined to one fleet cluster's entry in Config.clusters, by its name: that cluster is left out. */
  private readonly clusterProblems = new Map<string, Diagnostic[]>();
  /** The config Secrets Turtles would write for the CAPIProviders read. */
  private readonly turtlesSecrets: (TurtlesSecret & {
    position: SourcePosition;
    keyPosition: (key: string) => SourcePosition;
    field: NonNullable<SecretObject['turtlesField']>;
    /** The CAPIProvider, as messages name it. */
    provider: string;
  })[] = [];

  constructor(
    private readonly bag: DiagnosticBag,
    /** The namespace of namespaced objects that name none (LoadOptions.namespace). */
    private readonly namespace?: string,
  ) {}

  /**
   * Each CAPIProvider's variables as its config Secret: written into a Secret of that name in the
   * input (Turtles updates it, keeping its other keys), else a Secret of their own. They were
   * plain text in the CAPIProvider, so they are not secret.
   */
  addTurtlesSecrets(): void {
    for (const made of this.turtlesSecrets) {
      if (!made.namespace || !made.name) continue; // the provider is reported as incomplete
      const existing = this.secrets.find((secret) => secret.name === made.name && secret.namespace === made.namespace);
      const union = (a: readonly string[] | undefined, b: readonly string[]) => [...new Set([...(a ?? []), ...b])].sort();
      // a key the CAPIProvider's spec.variables gave is told at that key (an unused variable, say)
      const ownKeyPosition = existing?.keyPosition;
      const keyPosition = (key: string) => (Object.hasOwn(made.data, key) || !ownKeyPosition ? made.keyPosition(key) : ownKeyPosition(key));
      if (!existing) this.warnSecretElsewhere(made);
      let secret = existing;
      if (secret) {
        Object.assign(secret.data, made.data);
        secret.publicKeys = union(secret.publicKeys, Object.keys(made.data));
        secret.implicitKeys = union(secret.implicitKeys, made.implicitKeys);
      } else {
        secret = {
          name: made.name,
          namespace: made.namespace,
          data: { ...made.data },
          position: made.position,
          publicKeys: Object.keys(made.data).sort(),
          implicitKeys: made.implicitKeys,
        };
        this.secrets.push(secret);
      }
      Object.defineProperty(secret, 'keyPosition', { value: keyPosition, enumerable: false, configurable: true });
      // several CAPIProviders may write one Secret: the last one's value is what the Secret holds
      const before = secret.turtlesField;
      const field = (key: string) => made.field(key) ?? before?.(key);
      Object.defineProperty(secret, 'turtlesField', { value: field, enumerable: false, configurable: true });
    }
  }

  /**
   * A Secret of the config Secret's name in another namespace, which no provider reads: Turtles
   * writes the config Secret in the CAPIProvider's namespace and the operator reads that one, so
   * its keys (images, say) would be left out without a word.
   */
  private warnSecretElsewhere(made: { name: string; namespace: string; provider: string }): void {
    const read = (secret: SecretObject) => this.providers.some((p) => findConfigSecret(p, [secret]) !== undefined);
    for (const secret of this.secrets) {
      if (secret.name !== made.name || secret.namespace === made.namespace || read(secret)) continue;
      this.warnings.push({
        ...secret.position,
        object: `Secret/${secret.namespace}/${secret.name}`,
        message: `not read: ${made.provider}'s config Secret is ${made.namespace}/${made.name}, in the CAPIProvider's namespace, where Turtles writes it and the operator reads it`,
        hint: `set its metadata.namespace: ${made.namespace} (Turtles writes its variables over the Secret and keeps its other keys)`,
      });
    }
  }

  /** A CAPIProvider as the operator object Turtles reconciles; its problems and warnings reported. */
  private convertTurtles(unit: ObjectUnit, object: Record<string, unknown>): Record<string, unknown> | undefined {
    const plan = planTurtlesConversion(object);
    plan.findings.forEach((finding) => this.report(unit, finding));
    plan.warnings.forEach((finding) => this.report(unit, finding, this.warnings));
    if (!plan.kind) return undefined;
    unit.conversion = plan.edits;
    unit.turtles = true;
    if (plan.secret) {
      const spec = isPlainObject(object.spec) ? object.spec : {};
      const field = 'variables' in spec ? 'variables' : 'features' in spec ? 'features' : 'type';
      const position = fieldPosition(unit.source, unit.node, ['spec', field], 'key');
      const variables = isPlainObject(spec.variables) ? spec.variables : {};
      const keyPosition = (key: string) =>
        Object.hasOwn(variables, key) ? fieldPosition(unit.source, unit.node, ['spec', 'variables', key], 'key') : position;
      const fields = plan.secret.fields;
      const setBy = (key: string) => {
        // Turtles' own for the provider's name: spec.name decides it, no field changes its value
        if (plan.secret!.byName.includes(key))
          return {
            object: unit.label ?? '',
            path: 'spec.name',
            position: fieldPosition(unit.source, unit.node, ['spec', 'name'], 'key'),
            byName: String(spec.name),
          };
        if (!Object.hasOwn(fields, key)) return undefined;
        const path = fields[key]!;
        // the key's own line when written, else its parent's (spec.variables or spec.features), else the spec's first field
        const written = path.length === 3 ? path : [...path, key];
        const at = [written, path].find((p) => locate(unit.source, unit.node, p).complete) ?? ['spec', field];
        return { object: unit.label ?? '', path: formatFieldPath(path), position: fieldPosition(unit.source, unit.node, at, 'key') };
      };
      this.turtlesSecrets.push({ ...plan.secret, position, keyPosition, field: setBy, provider: unit.label ?? 'the CAPIProvider' });
    }
    return applyEditsToValue(object, plan.edits);
  }

  /** Several Config documents are merged in file order; conflicting scalars are problems. */
  mergeConfigs(): void {
    const { config, problems } = mergeConfigDocuments(this.configs);
    problems.forEach((problem) => this.bag.add(problem));
    // Fleet errors point into the Config document that wrote the field.
    const documents = this.configs;
    if (documents.length > 0) {
      const locate = (p: FieldPath, at?: 'key' | 'value') => locateMergedField(documents, p, at);
      Object.defineProperty(config, 'locate', { value: locate, enumerable: false });
    }
    this.config = config;
  }

  /**
   * The manifest; with `problems`, the Secrets and ConfigMaps that had them are left out. Providers
   * stay, for the checks that count them: the problems name them, and resolution leaves them out.
   */
  manifest(baseDir: string, all: readonly Diagnostic[] = []): Manifest {
    const owned = [...this.owners.values()].map(({ at, owner, objects }) => ({ ...at, ...gitOpsOwnerWarning(owner, objects) }));
    const valid = <T>(objects: T[]) => objects.filter((o) => !this.faultyObjects.has(o));
    const confined = new Set([...this.clusterProblems.values()].flat());
    const problems = all.filter((d) => !confined.has(d));
    const manifest: Manifest = {
      providers: this.providers,
      secrets: valid(this.secrets),
      configMaps: valid(this.configMaps),
      config: this.config,
      baseDir,
      warnings: [...this.warnings, ...owned],
    };
    const leftOutConfigMaps = this.configMaps.filter((o) => this.faultyObjects.has(o));
    if (leftOutConfigMaps.length > 0) manifest.leftOutConfigMaps = leftOutConfigMaps;
    if (this.releases.length > 0) manifest.releases = this.releases;
    if (this.namespaces.length > 0) manifest.namespaces = this.namespaces;
    if (problems.length > 0) manifest.problems = problems;
    if (this.clusterProblems.size > 0) manifest.clusterProblems = this.clusterProblems;
    return manifest;
  }

  /** Whether some problem is neither an object's own nor a fleet cluster's (the Config's, a Release's, a file's): the run cannot go on. */
  hasRunProblems(problems: readonly Diagnostic[]): boolean {
    const confined = new Set([...this.clusterProblems.values()].flat());
    return problems.some((d) => !this.objectProblems.has(d) && !confined.has(d));
  }

  /**
   * An export from a cluster a GitOps tool applied it to: that tool applies it again after the
   * move, re-creating the provider objects the migration deletes (and Flux's helm-controller
   * re-installs an operator removed with helm uninstall). Told once per tool, at its first object.
   */
  private noteOwner(unit: ObjectUnit, owner: GitOpsOwner): void {
    const key = `${owner.kind}/${owner.namespace ?? ''}/${owner.name}`;
    const known = this.owners.get(key);
    if (known) return void known.objects++;
    const at = fieldPosition(unit.source, unit.node, ['metadata', ...owner.field], 'key');
    this.owners.set(key, { at: { ...at, object: unit.label }, owner, objects: 1 });
  }

  /** A v1alpha1 provider object in its v1alpha2 form; its problems are reported, one warning per object. */
  private convertV1alpha1(unit: ObjectUnit, object: Record<string, unknown>): Record<string, unknown> {
    const plan = planV1alpha1Conversion(object);
    plan.findings.forEach((finding) => this.report(unit, finding));
    unit.conversion = plan.edits;
    const position = nodePosition(unit.source, unit.node);
    this.warnings.push({
      ...position,
      object: unit.label,
      message: `${V1ALPHA1_API_VERSION} object, converted to v1alpha2 as the operator's conversion webhook did`,
      hint: `rewrite it with: capi-gitops convert -f ${position.file} --in-place`,
    });
    return applyEditsToValue(object, plan.edits);
  }

  addDocument(source: SourceDocument, read: DocumentRead = readDocument(source)): void {
    // The node only when a position inside the document is asked for (a problem, a warning):
    // a document the fast parser read is then read by the library too.
    const document: ObjectUnit = {
      source,
      get node() {
        return source.doc.contents as YamlNode | null;
      },
      isDocument: true,
    };
    if ('error' in read) {
      this.reportUnreadable(source, read.error);
      return;
    }
    const value = read.value;
    if (value === null || value === undefined) return; // an empty document, as kubectl skips it
    document.label = objectLabel(value);
    document.value = value;
    const classified = classifyDocument(value);
    if (Array.isArray(classified)) {
      classified.forEach((finding) => this.report(document, finding));
      return;
    }
    document.category = classified.category;
    const object = this.asServed(document, value as Record<string, unknown>, classified);
    if (!object) return;
    // A v1alpha1 typed list: its items are converted one by one, the list is served as v1alpha2.
    if (classified.category === 'list' && classified.apiVersion === V1ALPHA1_API_VERSION) object.apiVersion = OPERATOR_API_VERSION;
    if (classified.category === 'list') this.addList(document, object, classified);
    else {
      const problems = validateDocument(
        object,
        this.sourceAccess(document, () => classified.category === 'secret'),
      );
      problems.forEach((problem) => this.reportSchemaProblem(document, problem));
      this.addObject(document, object);
    }
  }

  /**
   * An object as the operator reads it: normalized and defaulted, a v1alpha1 provider or a
   * Turtles CAPIProvider converted; undefined when a CAPIProvider cannot be.
   */
  private asServed(unit: ObjectUnit, object: Record<string, unknown>, classified: Classification): Record<string, unknown> | undefined {
    normalizeObject(object, classified.category);
    if (defaultNamespace(object, classified.category, this.namespace)) this.namespaceTaken = true;
    if (classified.category !== 'provider') return object;
    if (classified.apiVersion === V1ALPHA1_API_VERSION) return this.convertV1alpha1(unit, object);
    return classified.kind === CAPI_PROVIDER_KIND ? this.convertTurtles(unit, object) : object;
  }

  private reportUnreadable(source: SourceDocument, error: unknown): void {
    if (error instanceof YamlValueError) {
      this.bag.add({
        ...positionAt(source, error.offset),
        message: `invalid YAML: ${error.message}`,
        expected: 'YAML that converts to JSON',
        hint: error.hint,
      });
    } else if (error instanceof RangeError) {
      this.bag.add({
        ...nodePosition(source, null),
        message: 'invalid YAML: the document is nested too deeply',
        expected: 'YAML that converts to JSON',
        hint: 'flatten the document',
      });
    } else {
      throw error;
    }
  }

  /** A List's items are objects of their own; schema problems are reported against the item they are in. */
  private addList(list: ObjectUnit, value: Record<string, unknown>, classified: Classification): void {
    const items = Array.isArray(value.items) ? (value.items as unknown[]) : [];
    const units = new Map<number, ObjectUnit>();
    items.forEach((item, index) => {
      const unit: ObjectUnit = { source: list.source, node: locate(list.source, list.node, ['items', index]).node };
      const itemClass = classifyListItem(item, classified);
      unit.label = objectLabel(item);
      if (Array.isArray(itemClass)) {
        itemClass.forEach((finding) => this.report(unit, finding));
        return;
      }
      unit.category = itemClass.category;
      const object = this.asServed(unit, item as Record<string, unknown>, itemClass);
      if (!object) return;
      items[index] = object;
      units.set(index, unit);
    });
    const isSecretPath = (p: FieldPath) => p[0] === 'items' && units.get(p[1] as number)?.category === 'secret';
    for (const problem of validateDocument(value, this.sourceAccess(list, isSecretPath))) {
      const inItem = problem.path[0] === 'items' && typeof problem.path[1] === 'number';
      if (!inItem) {
        this.reportSchemaProblem(list, problem);
        continue;
      }
      const unit = units.get(problem.path[1] as number);
      // Items that could not be classified are already reported.
      if (unit) this.reportSchemaProblem(unit, { ...problem, path: problem.path.slice(2), displayPath: problem.displayPath?.slice(2) });
    }
    for (const [index, unit] of units) this.addObject(unit, items[index] as Record<string, unknown>);
  }

  private sourceAccess(unit: ObjectUnit, isSecret: (path: FieldPath) => boolean): SourceAccess {
    return {
      sourceText: (p) => (isSecret(p) ? undefined : sourceText(unit.source, unit.node, p)),
      mayQuoteKeys: (p) => !isSecret(p),
    };
  }

  private addObject(unit: ObjectUnit, value: Record<string, unknown>): void {
    const position = unit.isDocument ? documentPosition(unit.source) : nodePosition(unit.source, unit.node);
    // an export's status says what the operator installed: kept for its downgrade check, the rest goes
    const installed = isPlainObject(value.status) ? value.status.installedVersion : undefined;
    if (unit.category !== 'config') for (const owner of stripServerFields(value)) this.noteOwner(unit, owner);
    switch (unit.category) {
      case 'provider': {
        if (isPlainObject(value.spec)) {
          for (const finding of [...checkProviderSpecRules(value.spec), ...checkProviderDurations(value.spec)])
            this.report(unit, this.atSource(unit, { ...finding, path: ['spec', ...finding.path] }));
          for (const finding of providerWarnings(value.spec))
            this.report(unit, this.atSource(unit, { ...finding, path: ['spec', ...finding.path] }), this.warnings);
        }
        const provider = toProviderObject(value, position);
        // Not enumerable: a provider stays plain data for comparisons and serialisation.
        // A converted v1alpha1 object's field is where it came from (secretName, the conversion-data annotation).
        const conversion = unit.conversion;
        Object.defineProperty(provider, 'fieldPosition', {
          value: (path: FieldPath) => fieldPosition(unit.source, unit.node, conversion ? sourcePathOf(conversion, path) : path, 'value'),
          enumerable: false,
        });
        if (typeof installed === 'string' && installed !== '')
          Object.defineProperty(provider, 'installedVersion', { value: installed, enumerable: false });
        if (unit.turtles) Object.defineProperty(provider, 'turtles', { value: unit.label ?? CAPI_PROVIDER_KIND, enumerable: false });
        this.providers.push(provider);
        break;
      }
      case 'secret': {
        const { secret, findings } = toSecretObject(value, position);
        findings.forEach((finding) => this.report(unit, finding));
        const section = (key: string) => (isPlainObject(value.stringData) && Object.hasOwn(value.stringData, key) ? 'stringData' : 'data');
        // Not enumerable, as a provider's fieldPosition: the Secret stays plain data.
        Object.defineProperty(secret, 'keyPosition', {
          value: (key: string) => fieldPosition(unit.source, unit.node, [section(key), key], 'key'),
          enumerable: false,
          configurable: true, // a CAPIProvider's variables written into it bring their own positions
        });
        this.checkUnique(unit, 'Secret', secret.namespace, secret.name, position);
        this.secrets.push(secret);
        if (this.faultyUnits.has(unit)) this.faultyObjects.add(secret);
        break;
      }
      case 'configmap': {
        const { configMap, findings } = toConfigMapObject(value, position);
        findings.forEach((finding) => this.report(unit, finding));
        // Not enumerable, as a provider's fieldPosition: a problem in data.manifests is told at its line.
        Object.defineProperty(configMap, 'fieldPosition', {
          value: (path: FieldPath) => fieldPosition(unit.source, unit.node, path, 'value'),
          enumerable: false,
        });
        this.checkUnique(unit, 'ConfigMap', configMap.namespace, configMap.name, position);
        this.configMaps.push(configMap);
        if (this.faultyUnits.has(unit)) this.faultyObjects.add(configMap);
        break;
      }
      case 'namespace': {
        const namespace = toNamespaceObject(value, position);
        // Not enumerable, as a provider's fieldPosition: a label the render refuses is told at its line.
        Object.defineProperty(namespace, 'fieldPosition', {
          value: (path: FieldPath) => fieldPosition(unit.source, unit.node, path, 'key'),
          enumerable: false,
        });
        this.checkUnique(unit, 'Namespace', '', namespace.name, position);
        this.namespaces.push(namespace);
        break;
      }
      case 'config': {
        const { config, findings, imageKeys } = toToolConfig(value, position);
        findings.forEach((finding) => this.report(unit, finding));
        // an images key is read lowercased (viper), and located as written
        const written = (path: FieldPath) => writtenImagePath(path, ['images'], imageKeys);
        this.configs.push({ config, fieldPosition: (path, at = 'value') => fieldPosition(unit.source, unit.node, written(path), at) });
        break;
      }
      case 'release': {
        const metadata = isPlainObject(value.metadata) ? value.metadata : {};
        const name = typeof metadata.name === 'string' ? metadata.name : '';
        this.checkUnique(unit, 'Release', '', name, position);
        const locateIn = (p: FieldPath) => fieldPosition(unit.source, unit.node, p, 'value');
        this.releases.push({
          name,
          deprecated: value.deprecated === true,
          providers: isPlainObject(value.providers) ? (value.providers as Record<string, string>) : {},
          ...(isPlainObject(value.certManager) ? { certManager: value.certManager as { version?: string } } : {}),
          position,
          locate: locateIn,
        });
        break;
      }
    }
  }

  /** Secrets and ConfigMaps are unique by namespace and name; Namespaces and Releases by name. */
  private checkUnique(unit: ObjectUnit, kind: string, namespace: string, name: string, position: SourcePosition): void {
    const clusterScoped = kind === 'Release' || kind === 'Namespace';
    if ((!clusterScoped && !namespace) || !name) return; // already reported as missing
    const id = `${kind}/${namespace}/${name}`;
    const first = this.firstSeen.get(id);
    if (!first) {
      this.firstSeen.set(id, position);
      return;
    }
    const what = clusterScoped ? `duplicate ${kind} ${name}` : `duplicate ${kind} ${namespace}/${name}`;
    this.bag.add({
      ...position,
      object: unit.label,
      message: `${what}; the first is at ${formatPosition(first)}`,
      expected: kind === 'Namespace' ? 'each Namespace once' : `each ${kind} once per namespace and name`,
      hint: 'remove one of them, or merge them into one',
    });
  }

  private reportSchemaProblem(unit: ObjectUnit, problem: SchemaProblem): void {
    const known = unit.category === 'provider' ? providerSchemaHint(problem.path) : undefined;
    const hint =
      known?.hint ??
      (problem.missingField ? (requiredFieldHint(unit.category, problem.path, problem.missingField) ?? problem.hint) : problem.hint);
    this.report(unit, this.atSource(unit, { ...problem, hint, example: known?.example }));
  }

  /** A problem in a converted v1alpha1 object, located at the v1alpha1 field it came from. */
  private atSource<T extends Finding>(unit: ObjectUnit, finding: T): T {
    if (!unit.conversion) return finding;
    const path = sourcePathOf(unit.conversion, finding.path);
    return path === finding.path ? finding : { ...finding, path, displayPath: finding.displayPath ?? finding.path };
  }

  private report(unit: ObjectUnit, finding: Finding, into: { add(d: Diagnostic): void } | Diagnostic[] = this.bag): void {
    const position = fieldPosition(unit.source, unit.node, finding.path, finding.at);
    let message = finding.message;
    if (finding.related) message += `; the first is at ${formatPosition(fieldPosition(unit.source, unit.node, finding.related, 'value'))}`;
    const shownPath = formatFieldPath(finding.displayPath ?? finding.path);
    const cluster = clusterOf(unit, finding.path);
    const diagnostic: Diagnostic = {
      ...position,
      path: shownPath || undefined,
      object: cluster !== undefined ? `cluster ${cluster}, Config` : unit.label,
      message,
      expected: finding.expected,
      hint: finding.hint,
      ...(finding.example !== undefined && { example: finding.example }),
    };
    if (Array.isArray(into)) into.push(diagnostic);
    else into.add(diagnostic);
    if (into !== this.bag) return;
    if (unit.category === 'provider' || unit.category === 'secret' || unit.category === 'configmap') {
      this.faultyUnits.add(unit);
      this.objectProblems.add(diagnostic);
    }
    // a cluster's entry leaves that cluster out; its name is the fleet's own (a duplicate, the output directory)
    if (cluster !== undefined && finding.path[2] !== 'name')
      this.clusterProblems.set(cluster, [...(this.clusterProblems.get(cluster) ?? []), diagnostic]);
  }
}
