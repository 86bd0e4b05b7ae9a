/**
 * The operator's two patch mechanisms (internal/controller/component_patches.go applyPatches):
 * - `spec.manifestPatches`: YAML merge patches matched by their own kind/apiVersion/name
 *   (internal/patch/patch.go ApplyPatches, resource.go matches, mergepatch.go);
 * - `spec.patches`: a patch body with a target selector, RFC 6902 when the body is a list, else a
 *   merge patch (patch.go ApplyGenericPatches/inferAndApplyPatchType, matchinfo.go matchSelector,
 *   rfc6902.go).
 * Upstream applies both with evanphx/json-patch v5; where it differs from the RFCs (nulls pruned
 * inside arrays, negative array indices, `test` of a missing key against null) we do as it does.
 */
import jsonPatch, { type Operation as JsonPatchOperation } from 'fast-json-patch';
import { CapiGitopsError, compareStrings, DiagnosticBag, type Diagnostic } from '../core/diagnostics.js';
import { clone, describeObject, isPlainObject, secretDataValues, type KObject } from '../core/kobject.js';
import type { Patch, PatchTarget, ProviderSpec } from '../manifest/types.js';
import type { ProviderOrigin } from './deployment.js';
import { imageFields } from './images.js';
import { libraryParseDocument } from '../yaml/library-parse.js';
import { lineColumnAt } from '../yaml/split.js';
import { matchesLabelSelector, parseLabelSelector, type LabelRequirement } from '../core/label-selector.js';
import { ownValue, setOwnValue } from '../core/own-keys.js';

type Json = Record<string, unknown>;

/**
 * `spec.patches` or `spec.manifestPatches`, never both (upstream applyPatches and the CRD's CEL rule),
 * over every object but the Namespace.
 */
export function applyProviderPatches(objs: readonly KObject[], spec: ProviderSpec, origin: ProviderOrigin = {}): KObject[] {
  const patches = spec.patches ?? [];
  const manifestPatches = spec.manifestPatches ?? [];
  if (patches.length > 0 && manifestPatches.length > 0) {
    throw new CapiGitopsError({
      ...origin,
      path: 'spec.patches',
      message: "cannot use both 'patches' and 'manifestPatches'",
      expected: 'at most one of spec.patches and spec.manifestPatches',
      hint: 'move the manifestPatches into spec.patches (a merge patch body with a target selector)',
    });
  }
  if (patches.length === 0 && manifestPatches.length === 0) return [...objs];
  // The operator drops Namespace objects before patching (component_customizer.go
  // customizeObjectsFn): no patch reaches the one kept here, nor fails on it.
  const patchable = objs.filter((o) => o.kind !== NAMESPACE_KIND);
  const patched = patches.length > 0 ? applyPatches(patchable, patches, origin) : applyManifestPatches(patchable, manifestPatches, origin);
  let next = 0;
  return objs.map((o) => (o.kind === NAMESPACE_KIND ? o : patched[next++]!));
}

const NAMESPACE_KIND = 'Namespace';

/**
 * The fields of the patches aimed at the Namespace (a target of kind Namespace, a manifest patch
 * of that kind), which reach no object: the operator drops the Namespace before patching.
 */
export function namespacePatchFields(spec: ProviderSpec): (string | number)[][] {
  const targeted = (spec.patches ?? []).flatMap((p, i) =>
    p?.target?.kind === NAMESPACE_KIND ? [['spec', 'patches', i, 'target', 'kind']] : [],
  );
  const manifest = (spec.manifestPatches ?? []).flatMap((text, i) => {
    let body: unknown;
    try {
      body = parseGoYaml(text);
    } catch {
      return []; // told by the render
    }
    return isPlainObject(body) && goField(body, 'kind') === NAMESPACE_KIND ? [['spec', 'manifestPatches', i]] : [];
  });
  return [...targeted, ...manifest];
}

/** The v1 Secrets a patch wrote values into, as they are in the provider's spec, and their keys. */
export interface PatchedSecret {
  object: string;
  keys: string[];
}

/**
 * The values of v1 Secrets' data and stringData that are not the artifact's: a patch wrote them,
 * as they are (patches are applied after substitution), and a value in a Secret's data is secret
 * wherever it is given. No other filter touches a Secret's data, so comparing the parsed objects
 * with the rendered ones finds them; a key's value is the artifact's when a parsed Secret of the
 * same name (any, if the patch renamed it) holds it in the same section, under any key: an RFC 6902
 * move or copy that renames a key writes no value, and its taint moves with it (the marked render
 * applies the same patch), so the strategy places it as any other.
 */
export function patchedSecretValues(parsed: readonly KObject[], rendered: readonly KObject[]): PatchedSecret[] {
  const isSecret = (o: KObject) => o.apiVersion === 'v1' && o.kind === 'Secret';
  const artifactSecrets = parsed.filter(isSecret);
  const found: PatchedSecret[] = [];
  for (const secret of rendered.filter(isSecret)) {
    const named = artifactSecrets.filter((o) => o.metadata?.name === secret.metadata?.name);
    const origins = (named.length > 0 ? named : artifactSecrets).map(
      (o) => new Set(secretDataValues(o).map((v) => `${sectionOf(v.field)}\0${v.value}`)),
    );
    const keys = secretDataValues(secret)
      .filter(({ field, value }) => !origins.some((values) => values.has(`${sectionOf(field)}\0${value}`)))
      .map(({ field }) => field);
    if (keys.length > 0) found.push({ object: describeObject(secret), keys: keys.sort(compareStrings) });
  }
  return found;
}

/** `data` or `stringData`, of a field `secretDataValues` names. */
const sectionOf = (field: string) => field.slice(0, field.indexOf('.'));

// ---- spec.manifestPatches -------------------------------------------------------------------

/** What a manifest patch and an object are matched on (upstream matchInfo). */
interface MatchInfo {
  kind: string;
  apiVersion: string;
  name: string;
  namespace: string;
}

/**
 * Applies each YAML merge patch to the objects it matches, patches in order. Matching is on the
 * object as it was before any patch, exactly as upstream's `resource.matches`:
 * - `kind` must be equal;
 * - a patch WITHOUT `apiVersion` matches nothing, and the value of a patch's `apiVersion` is not
 *   compared (the merge then writes it onto the object);
 * - `metadata.name`, when given, must be equal; `metadata.namespace` never excludes an object.
 */
export function applyManifestPatches(objs: readonly KObject[], patches: readonly string[], origin: ProviderOrigin = {}): KObject[] {
  const bag = new DiagnosticBag();
  const parsed = patches.map((text, i) => parseManifestPatch(text, i, bag, origin));
  bag.throwIfAny();
  const patched = objs.map((obj) => {
    const info = objectMatchInfo(obj);
    let result: Json | undefined;
    for (const [index, patch] of parsed.entries()) {
      if (patch === undefined || !manifestPatchMatches(info, patch.info)) continue;
      const before = (result ?? obj) as KObject;
      result = mergePatchLikeGo(before, patch.body);
      reportLostImages(before, result as KObject, { ...origin, path: `spec.manifestPatches[${index}]` }, patch.body, bag);
      reportRewrittenApiVersion(before, result as KObject, { ...origin, path: `spec.manifestPatches[${index}]` }, bag);
    }
    return result === undefined ? obj : (result as KObject);
  });
  bag.throwIfAny();
  return patched;
}

/**
 * A container the patch left without an image: the API server refuses the workload, so the sync
 * would fail (the operator's apply too). Most often a merge patch's `containers` list, which
 * RFC 7386 puts in place of the whole list where kubectl's strategic merge matches by name.
 */
function reportLostImages(before: KObject, after: KObject, where: Omit<Diagnostic, 'message'>, body: unknown, bag: DiagnosticBag): void {
  const missing = (obj: KObject) =>
    imageFields([obj]).flatMap((f) => (typeof f.image === 'string' ? [] : [f.path.replace(/\.image$/, '')]));
  const already = new Set(missing(before));
  const lost = missing(after).filter((path) => !already.has(path));
  if (lost.length === 0) return;
  const merge = isPlainObject(body);
  bag.add({
    ...where,
    message:
      `leaves the container at ${lost.join(', ')} of ${describeObject(after)} without an image, which the API server refuses` +
      (merge
        ? ": a merge patch (RFC 7386) replaces a list whole, it does not merge containers by name as kubectl's strategic merge does"
        : ''),
    expected: 'every container of the patched workload with its image',
    hint:
      'set container fields through spec.deployment.containers[] (matched by name: args, env, resources, imageUrl, command), ' +
      'or write the whole container in the patch, its image included',
  });
}

/**
 * A manifest patch whose apiVersion differs from the object's still matches it (upstream compares
 * kind and name only), and the merge writes the patch's apiVersion onto the object: a Deployment
 * patched with `apiVersion: extensions/v1beta1` is applied as that API, which the API server no
 * longer serves, so the sync (and the operator's apply) would fail.
 */
function reportRewrittenApiVersion(before: KObject, after: KObject, where: Omit<Diagnostic, 'message'>, bag: DiagnosticBag): void {
  if (after.apiVersion === before.apiVersion) return;
  bag.add({
    ...where,
    message:
      `sets apiVersion ${String(after.apiVersion)} on ${describeObject(before)}, which is ${before.apiVersion}: the operator matches a manifest patch ` +
      "by kind and name, not apiVersion (internal/patch/resource.go), and the merge writes the patch's apiVersion onto the object",
    expected: `apiVersion: ${before.apiVersion}, the object's own`,
    hint: `write apiVersion: ${before.apiVersion} in the patch`,
  });
}

interface ManifestPatch {
  body: Json;
  info: MatchInfo;
}

function parseManifestPatch(text: string, index: number, bag: DiagnosticBag, origin: ProviderOrigin): ManifestPatch | undefined {
  const path = `spec.manifestPatches[${index}]`;
  let body: unknown;
  try {
    body = parseGoYaml(text);
  } catch (err) {
    bag.add({
      ...origin,
      path,
      message: `manifestPatches[${index}] is not valid YAML: ${(err as Error).message}`,
      hint: 'each entry is one YAML document: a partial object with apiVersion, kind and the fields to merge',
    });
    return undefined;
  }
  // An empty patch parses (to null) upstream and simply matches nothing.
  if (body === null) return undefined;
  const info = isPlainObject(body) ? patchMatchInfo(body) : 'the patch is not a YAML mapping';
  if (typeof info === 'string') {
    bag.add({
      ...origin,
      path,
      message: `manifestPatches[${index}]: ${info}`,
      expected: 'a YAML mapping with string apiVersion, kind and optional metadata.name',
      hint: 'a manifest patch is an RFC 7386 merge patch, e.g. "apiVersion: v1\\nkind: Service\\nmetadata:\\n  name: x\\nspec: …"',
    });
    return undefined;
  }
  return { body: body as Json, info };
}

/** Upstream reads these with encoding/json: key case does not matter; a non-string is an error. */
function patchMatchInfo(body: Json): MatchInfo | string {
  const kind = goStringField(body, 'kind');
  const apiVersion = goStringField(body, 'apiVersion');
  const metadata = goField(body, 'metadata');
  if (metadata !== undefined && metadata !== null && !isPlainObject(metadata)) return '`metadata` is not a mapping';
  const name = isPlainObject(metadata) ? goStringField(metadata, 'name') : '';
  const namespace = isPlainObject(metadata) ? goStringField(metadata, 'namespace') : '';
  for (const [field, value] of [
    ['kind', kind],
    ['apiVersion', apiVersion],
    ['metadata.name', name],
    ['metadata.namespace', namespace],
  ] as const) {
    if (value === undefined) return `\`${field}\` is not a string`;
  }
  return { kind: kind!, apiVersion: apiVersion!, name: name!, namespace: namespace! };
}

function objectMatchInfo(obj: KObject): MatchInfo {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    kind: text(obj.kind),
    apiVersion: text(obj.apiVersion),
    name: text(obj.metadata?.name),
    namespace: text(obj.metadata?.namespace),
  };
}

/** Upstream resource.matches, quirks included (see applyManifestPatches). */
function manifestPatchMatches(object: MatchInfo, patch: MatchInfo): boolean {
  if (object.kind !== patch.kind) return false;
  if (patch.apiVersion === '' && object.apiVersion !== patch.apiVersion) return false;
  if (patch.namespace !== '' && patch.name !== '' && object.namespace !== patch.namespace && object.name !== patch.name) return false;
  if (patch.name !== '' && object.name !== patch.name) return false;
  return true;
}

// ---- spec.patches ---------------------------------------------------------------------------

interface TargetedPatch {
  index: number;
  body: unknown;
  target?: PatchTarget;
  selector?: LabelRequirement[];
}

/**
 * Applies each patch to every object its target selects (no target: every object), patches in
 * order, each seeing the previous one's result. Selector fields are exact, case-sensitive
 * strings (not regular expressions as in kustomize); `labelSelector` is Kubernetes selector
 * syntax. A patch that selects nothing does nothing, as upstream.
 */
export function applyPatches(objs: readonly KObject[], patches: readonly Patch[], origin: ProviderOrigin = {}): KObject[] {
  const bag = new DiagnosticBag();
  const parsed = patches.map((p, i) => parseTargetedPatch(p, i, bag, origin));
  bag.throwIfAny();
  let current = [...objs];
  for (const patch of parsed) {
    if (patch === undefined) continue;
    current = current.map((obj) => {
      if (!targetMatches(obj, patch.target, patch.selector)) return obj;
      const outcome = applyPatchBody(obj, patch.body);
      if (typeof outcome !== 'string') {
        reportLostImages(obj, outcome, { ...origin, path: `spec.patches[${patch.index}].patch` }, patch.body, bag);
        return outcome;
      }
      bag.add({
        ...origin,
        path: `spec.patches[${patch.index}].patch`,
        message: `patches[${patch.index}] (target ${describeTarget(patch.target)}) failed on ${describeObject(obj)}: ${outcome}`,
        hint: 'a list body is an RFC 6902 JSON patch (op/path/value); a mapping body is an RFC 7386 merge patch',
      });
      return obj;
    });
  }
  bag.throwIfAny();
  return current;
}

function parseTargetedPatch(p: Patch, index: number, bag: DiagnosticBag, origin: ProviderOrigin): TargetedPatch | undefined {
  const where = { ...origin, path: `spec.patches[${index}]` };
  let body: unknown;
  try {
    body = parseGoYaml(p.patch ?? '');
  } catch (err) {
    bag.add({
      ...where,
      path: `${where.path}.patch`,
      message: `patches[${index}] (target ${describeTarget(p.target)}) is not valid YAML: ${(err as Error).message}`,
    });
    return undefined;
  }
  let selector: LabelRequirement[] | undefined;
  const selectorText = p.target?.labelSelector ?? '';
  if (selectorText !== '') {
    try {
      selector = parseLabelSelector(selectorText);
    } catch (err) {
      bag.add({
        ...where,
        path: `${where.path}.target.labelSelector`,
        message: `patches[${index}]: cannot parse label selector ${JSON.stringify(selectorText)}: ${(err as Error).message}`,
        expected: 'Kubernetes label selector syntax, e.g. "app=x,tier in (a,b),!legacy"',
      });
      return undefined;
    }
  }
  return { index, body, target: p.target, selector };
}

/** Upstream matchSelector: every field given must be equal. */
function targetMatches(obj: KObject, target: PatchTarget | undefined, selector: LabelRequirement[] | undefined): boolean {
  if (target === undefined || target === null) return true;
  const gvk = groupVersionKind(obj);
  if (target.group && target.group !== gvk.group) return false;
  if (target.version && target.version !== gvk.version) return false;
  if (target.kind && target.kind !== gvk.kind) return false;
  if (target.name && target.name !== (obj.metadata?.name ?? '')) return false;
  if (target.namespace && target.namespace !== (obj.metadata?.namespace ?? '')) return false;
  if (selector !== undefined && !matchesLabelSelector(selector, obj.metadata?.labels ?? {})) return false;
  return true;
}

/** Unstructured.GroupVersionKind: an apiVersion with more than one `/` gives an empty GVK. */
function groupVersionKind(obj: KObject): { group: string; version: string; kind: string } {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const parts = apiVersion === '' ? [] : apiVersion.split('/');
  if (parts.length > 2) return { group: '', version: '', kind: '' };
  const [group, version] = parts.length === 2 ? parts : ['', parts[0] ?? ''];
  return { group: group!, version: version!, kind: typeof obj.kind === 'string' ? obj.kind : '' };
}

function describeTarget(target: PatchTarget | undefined): string {
  if (!target) return '(all objects)';
  const fields = (['group', 'version', 'kind', 'name', 'namespace', 'labelSelector'] as const)
    .filter((f) => target[f])
    .map((f) => `${f}=${target[f]}`);
  return fields.length > 0 ? fields.join(' ') : '(all objects)';
}

/**
 * upstream inferAndApplyPatchType: a list decodes as RFC 6902 operations, a mapping is a merge
 * patch; anything else (and an empty body, which decodes as an empty operation list) fails.
 * The result must still be an object with a kind. Returns the patched copy or an error text.
 */
function applyPatchBody(obj: KObject, body: unknown): KObject | string {
  let result: unknown;
  if (body === null || Array.isArray(body)) {
    const ops = body === null ? [] : body.map(goOperation);
    const bad = ops.findIndex((op) => typeof op === 'string');
    if (bad >= 0) return `operation ${bad}: ${ops[bad] as string}`;
    if (ops.length === 0) return 'the RFC 6902 patch has no operations';
    try {
      result = applyOperationsLikeGo(clone(obj), ops as Operation[]);
    } catch (err) {
      return (err as Error).message;
    }
  } else if (isPlainObject(body)) {
    result = mergePatchLikeGo(obj, body);
  } else {
    return 'the patch is neither a list of RFC 6902 operations nor a mapping (merge patch)';
  }
  if (!isPlainObject(result) || typeof result.kind !== 'string' || result.kind === '') {
    return 'the patched object has no kind';
  }
  return result as KObject;
}

// ---- RFC 6902 as evanphx/json-patch v5 applies it -------------------------------------------

interface Operation {
  op: string;
  path: string;
  value: unknown;
  from?: string;
}

const OPERATIONS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/** Upstream decodes each item into its RFC6902 struct (case-insensitive keys) and re-encodes it. */
function goOperation(raw: unknown): Operation | string {
  if (!isPlainObject(raw)) return 'not a mapping with op and path';
  const op = goStringField(raw, 'op');
  const path = goStringField(raw, 'path');
  const from = goStringField(raw, 'from');
  if (op === undefined || path === undefined || from === undefined) return '`op`, `path` and `from` must be strings';
  if (!OPERATIONS.has(op)) return `unsupported operation ${JSON.stringify(op)}`;
  if ((op === 'move' || op === 'copy') && from === '') return `"${op}" needs a \`from\` path`;
  // evanphx would read a path without the leading "/" from its second segment; refuse it instead.
  for (const pointer of [path, from]) {
    if (pointer !== '' && !pointer.startsWith('/')) return `path ${JSON.stringify(pointer)} must start with "/"`;
  }
  const value = goField(raw, 'value');
  return { op, path, value: value === undefined ? null : value, ...(from !== '' ? { from } : {}) };
}

function applyOperationsLikeGo(doc: unknown, ops: readonly Operation[]): unknown {
  let current = doc;
  clone(ops).forEach((op, i) => {
    try {
      current = applyOperationLikeGo(current, op);
    } catch (err) {
      // fast-json-patch puts the whole document in its message; objects may hold secret values,
      // so neither that message nor the error (as a cause) goes on.
      const message = String((err as Error).message ?? err);
      // fast-json-patch refuses these keys outright (it could only write them into a prototype).
      const reason = message.includes('banned for security reasons')
        ? 'a path through a key named __proto__, constructor or prototype cannot be patched by an RFC 6902 operation; a merge patch (a mapping) can set such a key'
        : message.split('\n')[0];
      throw new Error(`operation ${i} (${op.op} ${JSON.stringify(op.path)}): ${reason}`);
    }
  });
  return current;
}

function applyOperationLikeGo(doc: unknown, op: Operation): unknown {
  if (op.op === 'move') {
    // Go removes first, then resolves the destination in the document without the value.
    const from = pointerLikeGo(doc, op.from!, false).pointer;
    const removed = jsonPatch.applyOperation(doc, { op: 'remove', path: from }, true, true);
    return applyOperationLikeGo(removed.newDocument, { op: 'add', path: op.path, value: removed.removed });
  }
  const target = pointerLikeGo(doc, op.path, op.op === 'add' || op.op === 'copy');
  if (op.op === 'test' && op.value === null && target.missingObjectKey) return doc;
  const canonical = { ...op, path: target.pointer } as JsonPatchOperation;
  if (op.from !== undefined) (canonical as { from?: string }).from = pointerLikeGo(doc, op.from, false).pointer;
  return jsonPatch.applyOperation(doc, canonical, true, true).newDocument;
}

/**
 * Rewrites array indices the way Go's strconv.Atoi and evanphx read them (`-1` is the last
 * element, for add one past it; `+1` and `01` are 1), so fast-json-patch sees canonical ones.
 * Also tells whether the last token names a key missing from an object.
 */
function pointerLikeGo(doc: unknown, pointer: string, forAdd: boolean): { pointer: string; missingObjectKey: boolean } {
  if (pointer === '') return { pointer, missingObjectKey: false };
  const tokens = pointer.split('/').slice(1);
  let node: unknown = doc;
  let missingObjectKey = false;
  for (let i = 0; i < tokens.length; i++) {
    const last = i === tokens.length - 1;
    const key = tokens[i]!.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node)) {
      const index = goArrayIndex(key, node.length + (last && forAdd ? 1 : 0));
      if (index === undefined) break;
      tokens[i] = String(index);
      node = node[index];
    } else if (isPlainObject(node)) {
      missingObjectKey = last && !Object.hasOwn(node, key);
      node = ownValue(node, key);
    } else {
      break;
    }
  }
  return { pointer: '/' + tokens.join('/'), missingObjectKey };
}

function goArrayIndex(token: string, size: number): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(token)) return undefined;
  const n = Number(token);
  if (n < 0) return n >= -size ? n + size : undefined;
  return n;
}

// ---- RFC 7386 as evanphx/json-patch v5 MergePatch applies it --------------------------------

/**
 * RFC 7386; evanphx also drops nulls inside objects nested in arrays wherever the value is new
 * or replaces a non-object. Pruning those first makes the two agree.
 */
export function mergePatchLikeGo(target: Json, patch: Json): Json {
  return mergePatch(clone(target), withGoNullPruning(target, clone(patch))) as Json;
}

/**
 * RFC 7386 section 2 over own keys. Hand-written: json-merge-patch stops at a key named
 * `__proto__`, `constructor` or `prototype` and drops the rest of the patch, where evanphx (Go
 * maps) sets it like any key; keys are data here too (core/own-keys.ts).
 */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const out: Json = isPlainObject(target) ? target : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else setOwnValue(out, key, mergePatch(ownValue(out, key), value));
  }
  return out;
}

function withGoNullPruning(target: unknown, patch: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(patch)) {
    const current = isPlainObject(target) ? ownValue(target, key) : undefined;
    if (value === null) setOwnValue(out, key, null);
    else if (isPlainObject(current) && isPlainObject(value)) setOwnValue(out, key, withGoNullPruning(current, value));
    else if (isPlainObject(current)) setOwnValue(out, key, value);
    else setOwnValue(out, key, pruneNulls(value));
  }
  return out;
}

function pruneNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === null ? v : pruneNulls(v)));
  if (!isPlainObject(value)) return value;
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) if (v !== null) setOwnValue(out, key, pruneNulls(v));
  return out;
}

// ---- YAML and JSON the way upstream's Go libraries read them --------------------------------

/**
 * A patch string read as upstream's sigs.k8s.io/yaml (go-yaml v2) reads it, through the project's
 * Go-compatible parser: YAML 1.1 scalars, timestamps kept as strings, only the first document,
 * a repeated key takes its last value. Anchors and aliases are refused, as everywhere here.
 */
export function parseGoYaml(text: string): unknown {
  const result = libraryParseDocument(text);
  if (result.ok) return result.value;
  const problem = result.problems[0]!;
  const { line, column } = lineColumnAt(text, problem.offset);
  throw new Error(
    `line ${line}, column ${column}: ${problem.message.split('\n')[0]!.replace(/:$/, '')}${problem.hint ? ` (${problem.hint})` : ''}`,
  );
}

/**
 * encoding/json's field lookup: keys match case-insensitively. Upstream's YAML→JSON step sorts
 * keys, so of several spellings the last in byte order is the one that sticks.
 */
function goField(obj: Json, name: string): unknown {
  const lower = name.toLowerCase();
  const keys = Object.keys(obj)
    .filter((k) => k.toLowerCase() === lower)
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return keys.length === 0 ? undefined : obj[keys[keys.length - 1]!];
}

/** A string field as Go decodes it: missing or null is "", a non-string is undefined (an error). */
function goStringField(obj: Json, name: string): string | undefined {
  const value = goField(obj, name);
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : undefined;
}
