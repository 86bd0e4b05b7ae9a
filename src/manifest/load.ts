import path from 'node:path';
import { YamlBudget } from '../yaml/bounds.js';
import type { Node as YamlNode } from 'yaml';
import { CapiGitopsError, DiagnosticBag, type Diagnostic } from '../model/diagnostics.js';
import { describeObject, isPlainObject } from '../model/kobject.js';
import { OPERATOR_API_VERSION } from '../model/provider.js';
import { toToolConfig } from './config.js';
import { toConfigMapObject, toSecretObject } from './core-objects.js';
import {
  classifyDocument,
  classifyListItem,
  normalizeObject,
  stripServerFields,
  type Category,
  type Classification,
  type Finding,
} from './documents.js';
import { formatFieldPath } from './fields.js';
import { listManifestFiles, readManifestFiles } from './files.js';
import { checkProviderSpecRules, toProviderObject } from './providers.js';
import { mergeConfigDocuments, type ConfigDocument } from './config-merge.js';
import { checkProviderDurations, providerSchemaHint, providerWarnings } from './provider-values.js';
import { loadDocumentValidator, validateDocument, type SchemaProblem, type SourceAccess } from './schema.js';
import { applyEditsToValue, planV1alpha1Conversion, sourcePathOf, V1ALPHA1_API_VERSION, type ConversionEdit } from './v1alpha1.js';
import type { ConfigMapObject, Manifest, ProviderObject, ReleaseObject, SecretObject, SourcePosition, ToolConfig } from './types.js';
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
 * in all files are reported together in one CapiGitopsError.
 */
export async function loadManifest(paths: string[], texts?: ReadonlyMap<string, string>): Promise<Manifest> {
  await loadDocumentValidator();
  const bag = new DiagnosticBag();
  const problems: Diagnostic[] = [];
  const files = await listManifestFiles(paths, problems);
  const contents = await readManifestFiles(files, problems, texts);
  problems.forEach((problem) => bag.add(problem));
  const collector = new ManifestCollector(bag);
  const budget = new YamlBudget();
  for (const { file, text } of contents) {
    try {
      budget.check(text, file);
    } catch (error) {
      if (!(error instanceof CapiGitopsError)) throw error;
      error.diagnostics.forEach((problem) => bag.add(problem));
      continue;
    }
    const parsed = parseManifestFile(file, text);
    parsed.syntaxErrors.forEach((problem) => bag.add(problem));
    for (const source of parsed.documents) collector.addDocument(source);
  }
  collector.mergeConfigs();
  bag.throwIfAny();
  return collector.manifest(files.length > 0 ? path.dirname(path.resolve(files[0])) : process.cwd());
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
}

function objectLabel(value: unknown): string | undefined {
  if (!isPlainObject(value) || typeof value.kind !== 'string') return undefined;
  if (value.kind === 'Config' || value.kind.endsWith('List')) return value.kind;
  const metadata = isPlainObject(value.metadata) ? value.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : undefined;
  const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : undefined;
  return describeObject({ kind: value.kind, metadata: { name, namespace } });
}

function formatPosition(position: SourcePosition): string {
  return `${position.file}:${position.line}:${position.column}`;
}

/** Hints for the required fields people most often leave out. */
function requiredFieldHint(category: Category | undefined, parent: FieldPath, field: string): string | undefined {
  const where = [...parent, field].join('.');
  if (category === 'provider') {
    if (where === 'metadata.namespace' || where === 'metadata') {
      return "set metadata.namespace: it is the namespace the provider's components are installed into (clusterctl's target namespace), e.g. capi-system";
    }
    if (where === 'metadata.name') return 'set metadata.name to the provider name, e.g. kubeadm or aws; the core provider is cluster-api';
  }
  if ((category === 'secret' || category === 'configmap') && (where === 'metadata.namespace' || where === 'metadata')) {
    return "set metadata.namespace: capi-gitops has no current namespace to fall back on (a provider's configSecret refers to its own namespace by default)";
  }
  return undefined;
}

/** Whether `value` has a value at `path`. */
function hasFieldPath(value: unknown, path: FieldPath): boolean {
  let node = value;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return false;
    node = (node as Record<string | number, unknown>)[key];
  }
  return true;
}

class ManifestCollector {
  private readonly providers: ProviderObject[] = [];
  private readonly secrets: SecretObject[] = [];
  private readonly configMaps: ConfigMapObject[] = [];
  private readonly releases: ReleaseObject[] = [];
  private config: ToolConfig = {};
  private readonly configs: ConfigDocument[] = [];
  private readonly warnings: Diagnostic[] = [];
  private readonly firstSeen = new Map<string, SourcePosition>();

  constructor(private readonly bag: DiagnosticBag) {}

  /** Several Config documents are merged in file order; conflicting scalars are problems. */
  mergeConfigs(): void {
    const { config, problems } = mergeConfigDocuments(this.configs);
    problems.forEach((problem) => this.bag.add(problem));
    // Fleet errors point into the Config document that wrote the field.
    const documents = this.configs;
    if (documents.length > 0) {
      const locate = (p: FieldPath) => (documents.find((d) => hasFieldPath(d.config, p)) ?? documents[0]!).fieldPosition(p);
      Object.defineProperty(config, 'locate', { value: locate, enumerable: false });
    }
    this.config = config;
  }

  manifest(baseDir: string): Manifest {
    const manifest: Manifest = {
      providers: this.providers,
      secrets: this.secrets,
      configMaps: this.configMaps,
      config: this.config,
      baseDir,
      warnings: this.warnings,
    };
    if (this.releases.length > 0) manifest.releases = this.releases;
    return manifest;
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

  addDocument(source: SourceDocument): void {
    // The node only when a position inside the document is asked for (a problem, a warning):
    // a document the fast parser read is then read by the library too.
    const document: ObjectUnit = {
      source,
      get node() {
        return source.doc.contents as YamlNode | null;
      },
      isDocument: true,
    };
    let value: unknown;
    try {
      value = documentValue(source);
    } catch (error) {
      this.reportUnreadable(source, error);
      return;
    }
    if (value === null || value === undefined) return; // an empty document, as kubectl skips it
    document.label = objectLabel(value);
    const classified = classifyDocument(value);
    if (Array.isArray(classified)) {
      classified.forEach((finding) => this.report(document, finding));
      return;
    }
    document.category = classified.category;
    let object = value as Record<string, unknown>;
    normalizeObject(object, classified.category);
    if (classified.category === 'provider' && classified.apiVersion === V1ALPHA1_API_VERSION)
      object = this.convertV1alpha1(document, object);
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
      normalizeObject(item as Record<string, unknown>, itemClass.category);
      if (itemClass.category === 'provider' && itemClass.apiVersion === V1ALPHA1_API_VERSION)
        items[index] = this.convertV1alpha1(unit, item as Record<string, unknown>);
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
    if (unit.category !== 'config') stripServerFields(value);
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
        Object.defineProperty(provider, 'fieldPosition', {
          value: (path: FieldPath) => fieldPosition(unit.source, unit.node, path, 'value'),
          enumerable: false,
        });
        this.providers.push(provider);
        break;
      }
      case 'secret': {
        const { secret, findings } = toSecretObject(value, position);
        findings.forEach((finding) => this.report(unit, finding));
        this.checkUnique(unit, 'Secret', secret.namespace, secret.name, position);
        this.secrets.push(secret);
        break;
      }
      case 'configmap': {
        const { configMap, findings } = toConfigMapObject(value, position);
        findings.forEach((finding) => this.report(unit, finding));
        this.checkUnique(unit, 'ConfigMap', configMap.namespace, configMap.name, position);
        this.configMaps.push(configMap);
        break;
      }
      case 'config': {
        const { config, findings } = toToolConfig(value, position);
        findings.forEach((finding) => this.report(unit, finding));
        this.configs.push({ config, fieldPosition: (path) => fieldPosition(unit.source, unit.node, path, 'value') });
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

  /** Secrets and ConfigMaps are unique by namespace and name. */
  private checkUnique(unit: ObjectUnit, kind: string, namespace: string, name: string, position: SourcePosition): void {
    if (kind !== 'Config' && ((kind !== 'Release' && !namespace) || !name)) return; // already reported as missing
    const id = `${kind}/${namespace}/${name}`;
    const first = this.firstSeen.get(id);
    if (!first) {
      this.firstSeen.set(id, position);
      return;
    }
    const what =
      kind === 'Config'
        ? 'more than one Config document'
        : kind === 'Release'
          ? `duplicate Release ${name}`
          : `duplicate ${kind} ${namespace}/${name}`;
    this.bag.add({
      ...position,
      object: unit.label,
      message: `${what}; the first is at ${formatPosition(first)}`,
      expected: `each ${kind} once per namespace and name`,
      hint: 'remove one of them, or merge them into one',
    });
  }

  private reportSchemaProblem(unit: ObjectUnit, problem: SchemaProblem): void {
    const known = unit.category === 'provider' ? providerSchemaHint(problem.path) : undefined;
    const hint =
      known ??
      (problem.missingField ? (requiredFieldHint(unit.category, problem.path, problem.missingField) ?? problem.hint) : problem.hint);
    this.report(unit, this.atSource(unit, { ...problem, hint }));
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
    const diagnostic: Diagnostic = {
      ...position,
      path: shownPath || undefined,
      object: unit.label,
      message,
      expected: finding.expected,
      hint: finding.hint,
    };
    if (Array.isArray(into)) into.push(diagnostic);
    else into.add(diagnostic);
  }
}
