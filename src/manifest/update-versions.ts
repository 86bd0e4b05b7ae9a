/**
 * `capi-gitops update`: writes new versions into the manifest where it pins an exact
 * spec.version, changing nothing else. The files are edited through the `yaml` package's CST:
 * every token is written back as it was read except the version scalars, which keep their
 * quoting style (plain, 'single', "double") and tags. Comments, blank lines, key order, line
 * endings and unchanged documents stay byte-identical.
 *
 * A provider without spec.version, or with a range, is not edited: the lock carries its new
 * version, and the change list says so.
 */
import { readFile } from 'node:fs/promises';
import {
  CST,
  Composer,
  LineCounter,
  Parser,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  type Document,
  type Node as YamlNode,
  type Scalar,
  type YAMLMap,
} from 'yaml';
import { CapiGitopsError, withArticle, type Diagnostic } from '../core/diagnostics.js';
import { isProviderKind, type ProviderKind } from '../core/provider.js';
import { parseVersionRequest, satisfiesRange } from '../core/versions.js';
import { safeYamlMessage } from './yaml-source.js';
import { reportDuplicateKeys } from '../yaml/unique-keys.js';
import { CAPI_PROVIDER_KIND } from './documents.js';
import { turtlesProviderKind } from './turtles.js';

/** One provider's new version. */
export interface VersionBump {
  kind: ProviderKind;
  name: string;
  namespace: string;
  newVersion: string;
}

export interface ManifestText {
  path: string;
  text: string;
}

/**
 * - `updated`: the pinned version was replaced;
 * - `unchanged`: it already pins the new version;
 * - `not-pinned`: no spec.version, or a range: not edited, the lock carries the new version;
 * - `skipped`: not edited, and the lockfile cannot carry the new version either: an alias, not a
 *   version at all, or a range the new version is outside of. `reason` says what to do.
 */
type VersionEditStatus = 'updated' | 'unchanged' | 'not-pinned' | 'skipped';

export interface VersionEdit extends VersionBump {
  file: string;
  /** Where the version (or, without one, the object) is; 1-based. */
  line: number;
  column: number;
  /** spec.version as written; "" when absent. */
  oldVersion: string;
  status: VersionEditStatus;
  /** Why a `skipped` version was not edited. */
  reason?: string;
  /** One line to print: `file:line: CoreProvider capi-system/cluster-api v1.10.4 → v1.12.0`. */
  message: string;
}

interface UpdatedFile extends ManifestText {
  changed: boolean;
}

export interface VersionUpdateResult {
  /** Every input file, in input order, with its new text. */
  files: UpdatedFile[];
  /** One edit per provider object a bump applies to, in input file order, then source order. */
  edits: VersionEdit[];
}

// repeated keys are found by reportDuplicateKeys: the library's own check is quadratic
const YAML_OPTIONS = { version: '1.1' as const, keepSourceTokens: true, uniqueKeys: false, prettyErrors: false };

/** A provider object found in a document (top level, or an item of a List). */
interface FoundProvider extends Omit<VersionBump, 'newVersion'> {
  object: YAMLMap;
}

function stringAt(map: YAMLMap, path: readonly string[]): string | undefined {
  const node = map.getIn(path, true);
  return isScalar(node) && typeof node.value === 'string' ? node.value : undefined;
}

function providerIn(node: unknown, defaultKind?: string, defaultNamespace?: string): FoundProvider | undefined {
  if (!isMap(node)) return undefined;
  let kind = stringAt(node, ['kind']) ?? defaultKind;
  let name = stringAt(node, ['metadata', 'name']);
  // an object without a namespace is in the run's default one (-n/--namespace, Config namespace)
  const namespace = stringAt(node, ['metadata', 'namespace']) || defaultNamespace;
  // A Turtles CAPIProvider is the operator object its type and name make (turtles.ts); its spec.version is the same field.
  if (kind === CAPI_PROVIDER_KIND) {
    kind = turtlesProviderKind(stringAt(node, ['spec', 'type']));
    name = stringAt(node, ['spec', 'name']) || name;
  }
  if (!isProviderKind(kind) || name === undefined || namespace === undefined) return undefined;
  return { kind, name, namespace, object: node };
}

/** Provider objects of a document: itself, or the items of a `List` / `<Kind>List`. */
function providersIn(doc: Document.Parsed, defaultNamespace?: string): FoundProvider[] {
  const root = doc.contents;
  if (!isMap(root)) return [];
  const kind = stringAt(root, ['kind']);
  if (kind === 'List' || (kind?.endsWith('List') && isProviderKind(kind.slice(0, -4)))) {
    const items = root.get('items', true);
    if (!isSeq(items)) return [];
    const itemKind = kind === 'List' ? undefined : kind.slice(0, -4);
    return items.items.map((item) => providerIn(item, itemKind, defaultNamespace)).filter((p): p is FoundProvider => p !== undefined);
  }
  const found = providerIn(root, undefined, defaultNamespace);
  return found ? [found] : [];
}

/**
 * The spec.version scalar, or why it cannot be edited; `at` is the node that best shows where
 * the version is or would go (the scalar, the alias, spec).
 */
function versionNode(object: YAMLMap): { node?: Scalar; at: YamlNode; problem?: string } {
  const spec = object.get('spec', true) as YamlNode | undefined | null;
  if (spec === undefined || spec === null) return { at: object };
  if (isAlias(spec)) return { at: spec, problem: 'spec is an alias' };
  if (!isMap(spec)) return { at: spec };
  // YAML 1.1 merge keys read as a symbol; a literal "<<" key is refused too, to be safe.
  if (spec.items.some((pair) => isScalar(pair.key) && (typeof pair.key.value === 'symbol' || pair.key.value === '<<')))
    return { at: spec, problem: 'spec has a merge key' };
  const node = spec.get('version', true) as YamlNode | undefined | null;
  if (node === undefined || node === null) return { at: spec };
  if (isAlias(node)) return { at: node, problem: 'spec.version is an alias' };
  if (!isScalar(node)) return { at: node, problem: 'spec.version is not a scalar' };
  return { node, at: node };
}

function bumpKey(p: Pick<VersionBump, 'kind' | 'name' | 'namespace'>): string {
  return `${p.kind}/${p.namespace}/${p.name}`;
}

function editMessage(edit: Omit<VersionEdit, 'message'>): string {
  const where = `${edit.file}:${edit.line}: ${edit.kind} ${edit.namespace}/${edit.name}`;
  switch (edit.status) {
    case 'updated':
      return `${where} ${edit.oldVersion} → ${edit.newVersion}`;
    case 'unchanged':
      return `${where} already pins ${edit.newVersion}`;
    case 'not-pinned':
      return edit.oldVersion === ''
        ? `${where} has no spec.version: not edited, the lockfile carries ${edit.newVersion}`
        : `${where} asks for range ${JSON.stringify(edit.oldVersion)}: not edited, the lockfile carries ${edit.newVersion}`;
    case 'skipped':
      return `${where} not edited: ${edit.reason}`;
  }
}

/** What to do with a provider's spec.version. */
function classify(
  node: Scalar | undefined,
  problem: string | undefined,
  newVersion: string,
): { status: VersionEditStatus; reason?: string } {
  if (problem) return { status: 'skipped', reason: `${problem}; write ${newVersion} by hand` };
  if (node !== undefined && node.value !== null && typeof node.value !== 'string')
    return { status: 'skipped', reason: `spec.version is not a string; write "${newVersion}" by hand` };
  const written = node ? String(node.value ?? '') : '';
  if (written.trim() !== written)
    return { status: 'skipped', reason: `spec.version has surrounding white space; write ${newVersion} by hand` };
  const request = parseVersionRequest(written);
  if (request === null) return { status: 'skipped', reason: `spec.version is neither a version nor a range; write ${newVersion} by hand` };
  if (request.form === 'range' && !satisfiesRange(newVersion, request.range)) {
    return {
      status: 'skipped',
      reason: `${newVersion} is outside the range ${JSON.stringify(request.range)}, so the lockfile cannot carry it; widen the range or pin the version`,
    };
  }
  if (request.form !== 'exact') return { status: 'not-pinned' };
  return { status: written === newVersion ? 'unchanged' : 'updated' };
}

interface FileEdit {
  text: string;
  changed: boolean;
  edits: VersionEdit[];
}

function parseFailure(file: string, lineCounter: LineCounter, docs: Document.Parsed[]): CapiGitopsError | undefined {
  const problems: Diagnostic[] = [];
  for (const doc of docs) {
    for (const error of doc.errors) {
      const { line, col } = lineCounter.linePos(error.pos[0]);
      problems.push({
        file,
        line,
        column: col,
        message: `invalid YAML: ${safeYamlMessage(error)}`,
        hint: 'fix the manifest before updating versions',
      });
    }
  }
  return problems.length > 0 ? new CapiGitopsError(problems) : undefined;
}

function editFile(file: ManifestText, bumps: ReadonlyMap<string, VersionBump>, defaultNamespace?: string): FileEdit {
  const lineCounter = new LineCounter();
  const tokens = Array.from(new Parser(lineCounter.addNewLine).parse(file.text));
  const docs = Array.from(new Composer(YAML_OPTIONS).compose(tokens));
  for (const doc of docs) reportDuplicateKeys(doc, lineCounter);
  const failure = parseFailure(file.path, lineCounter, docs);
  if (failure) throw failure;

  const edits: VersionEdit[] = [];
  let changed = false;
  for (const doc of docs) {
    for (const provider of providersIn(doc, defaultNamespace)) {
      const bump = bumps.get(bumpKey(provider));
      if (bump === undefined) continue;
      const { node, at: where, problem } = versionNode(provider.object);
      const oldVersion = node ? String(node.value ?? '') : '';
      const at = lineCounter.linePos(where.range?.[0] ?? 0);
      const { status, reason } = classify(node, problem, bump.newVersion);
      if (status === 'updated') {
        // afterKey: a block scalar's content is indented one level below its key.
        CST.setScalarValue(node!.srcToken as CST.Token, bump.newVersion, { afterKey: true });
        changed = true;
      }
      const edit = {
        file: file.path,
        line: at.line,
        column: at.col,
        kind: provider.kind,
        name: provider.name,
        namespace: provider.namespace,
        oldVersion,
        newVersion: bump.newVersion,
        status,
        ...(reason ? { reason } : {}),
      };
      edits.push({ ...edit, message: editMessage(edit) });
    }
  }
  const text = changed ? tokens.map((token) => CST.stringify(token)).join('') : file.text;
  if (changed) assertVersionsWritten(file.path, text, edits, defaultNamespace);
  return { text, changed, edits };
}

/** Reads the edited text back: every updated provider must now pin its new version. */
function assertVersionsWritten(file: string, text: string, edits: readonly VersionEdit[], defaultNamespace?: string): void {
  const docs = Array.from(new Composer(YAML_OPTIONS).compose(new Parser().parse(text)));
  const written = new Map<string, string>();
  for (const doc of docs) {
    if (doc.errors.length > 0)
      throw new CapiGitopsError({
        file,
        message: 'internal error: the edited manifest no longer parses',
        hint: 'please report this; the file was not written',
      });
    for (const provider of providersIn(doc, defaultNamespace)) {
      const { node } = versionNode(provider.object);
      written.set(bumpKey(provider), node ? String(node.value) : '');
    }
  }
  for (const edit of edits) {
    if (edit.status === 'updated' && written.get(bumpKey(edit)) !== edit.newVersion) {
      throw new CapiGitopsError({
        file,
        line: edit.line,
        message: `internal error: ${bumpKey(edit)} reads "${written.get(bumpKey(edit))}" after the edit, not ${edit.newVersion}`,
        hint: 'please report this; the file was not written',
      });
    }
  }
}

/**
 * New texts of the manifest files with each bump applied to every object it names. A bump
 * that names no provider object in the files is an error (nothing is edited then).
 */
export function updateManifestVersions(
  files: readonly ManifestText[],
  bumps: readonly VersionBump[],
  defaultNamespace?: string,
): VersionUpdateResult {
  const byKey = new Map(bumps.map((bump) => [bumpKey(bump), bump]));
  const results = files.map((file) => editFile(file, byKey, defaultNamespace));
  const matched = new Set(results.flatMap((result) => result.edits.map(bumpKey)));
  const unknown = bumps.filter((bump) => !matched.has(bumpKey(bump)));
  if (unknown.length > 0) {
    throw new CapiGitopsError(
      unknown.map((bump) => ({
        message: `no ${bump.kind} ${bump.namespace}/${bump.name} in the manifest files`,
        expected: `${withArticle(bump.kind)} document named ${bump.name} in namespace ${bump.namespace}`,
        hint: 'update the providers the manifest declares',
      })),
    );
  }
  const edits = results.flatMap((result) => result.edits);
  return { files: files.map((file, i) => ({ path: file.path, text: results[i].text, changed: results[i].changed })), edits };
}

/** updateManifestVersions over files read from disk (the caller writes the changed ones). */
export async function updateVersionsInFiles(
  paths: readonly string[],
  bumps: readonly VersionBump[],
  defaultNamespace?: string,
): Promise<VersionUpdateResult> {
  const files = await Promise.all(
    paths.map(async (path) => {
      try {
        return { path, text: await readFile(path, 'utf8') };
      } catch (error) {
        throw new CapiGitopsError({ file: path, message: `cannot read the manifest file: ${(error as Error).message}` });
      }
    }),
  );
  return updateManifestVersions(files, bumps, defaultNamespace);
}
