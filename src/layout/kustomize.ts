import { CapiGitopsError, DiagnosticBag, compareStrings } from '../core/diagnostics.js';
import { apiGroup, describeObject, type KObject } from '../core/kobject.js';
import { INSTALL_ORDER } from '../core/provider.js';
import type { RenderedComponent } from '../render/types.js';
import { emitYamlDocument } from '../yaml/emit.js';
import { objectFilePath, sanitizeFileNamePart } from './names.js';
import { GENERATED_COMMENT, provenanceComment } from './provenance.js';
import { renderKustomization } from './templates.js';
import { applySafety, fluxSubstituteLabel, largeObjectSyncOption, type SafetyContext } from './apply-safety.js';
import type { EmittedObjects } from './emit-memo.js';

/**
 * The kustomize layout:
 *   kustomization.yaml                 lists the component directories in install order
 *   <NN>-<label>/kustomization.yaml    lists the component's files, sorted by code unit
 *   <NN>-<label>/<kind>-<name>.yaml    one object per file (names: see names.ts)
 *   <NN>-<label>/crds/<…>.yaml         CustomResourceDefinitions
 * NN is INSTALL_ORDER of the component's type; components of one type sort by label.
 * The component's kustomization.yaml carries its provenance (label, version, artifact digest);
 * object files carry only the constant generated-file line, so an object that does not change
 * between versions keeps its bytes.
 */
interface KustomizeLayoutOptions {
  /** Which GitOps tools' apply-safety annotations to write. Default: both, no overrides. */
  safety?: SafetyContext;
  /** Files of components already laid out with the same safety context (a fleet's clusters share components). */
  componentFiles?: WeakMap<RenderedComponent, Map<string, string>>;
  /** Texts of objects emitted before in the run, reused for an equal object (a fleet's clusters). */
  emitted?: EmittedObjects;
}

/** The kustomize layout serves whichever tool the user points at it: it carries both tools' rules. */
export const BOTH_TOOLS: SafetyContext = { argocd: true, flux: true, unmanaged: [] };

export const KUSTOMIZATION_FILE = 'kustomization.yaml';

function installOrder(c: Pick<RenderedComponent, 'type' | 'label'>): number {
  const order = (INSTALL_ORDER as Record<string, number | undefined>)[c.type];
  if (order === undefined) {
    throw new CapiGitopsError({
      message: `unknown component type ${JSON.stringify(c.type)}`,
      object: `component ${JSON.stringify(c.label)}`,
      expected: `one of ${Object.keys(INSTALL_ORDER).join(', ')}`,
      hint: 'this is a bug in the stage that built the component',
    });
  }
  return order;
}

/** `<NN>-<label>`, e.g. `02-bootstrap-kubeadm`. */
export function componentDirectory(c: Pick<RenderedComponent, 'type' | 'label'>): string {
  const label = sanitizeFileNamePart(c.label);
  if (!label) {
    throw new CapiGitopsError({
      message: 'cannot name a directory for this component',
      object: `component ${JSON.stringify(c.label)}`,
      expected: 'a label with at least one letter or digit',
    });
  }
  return `${String(installOrder(c)).padStart(2, '0')}-${label}`;
}

/** Install order first, then label by code unit; input order never matters. */
export function orderComponents(components: readonly RenderedComponent[]): RenderedComponent[] {
  return [...components].sort((a, b) => installOrder(a) - installOrder(b) || compareStrings(a.label, b.label));
}

/** Runs `fn`, adding a CapiGitopsError's diagnostics to `bag` instead of throwing them. */
function collecting<T>(bag: DiagnosticBag, fn: () => T): T | undefined {
  try {
    return fn();
  } catch (err) {
    bag.addError(err);
    return undefined;
  }
}

/** Each object's path inside its component directory; two objects on one path is a problem. */
export function objectPaths(dir: string, objects: readonly KObject[], bag: DiagnosticBag): Map<string, KObject> {
  const byPath = new Map<string, KObject>();
  for (const obj of objects) {
    const rel = collecting(bag, () => objectFilePath(obj));
    if (rel === undefined) continue;
    const earlier = byPath.get(rel);
    if (earlier) {
      bag.add({
        message: `${describeObject(earlier)} and ${describeObject(obj)} both map to the file ${dir}/${rel}`,
        object: describeObject(obj),
        expected: 'objects whose kind and name differ after lower-casing and replacing characters outside [a-z0-9.-] with "-"',
        hint: 'rename one of them (e.g. with spec.manifestPatches), or render them as separate providers',
      });
      continue;
    }
    byPath.set(rel, obj);
  }
  return byPath;
}

/**
 * Each object's file text, after the two rules that need it (apply-safety.ts): an object with a
 * literal `${` is labelled for Flux, and one too large for client-side apply is applied
 * server-side by Argo CD.
 */
export function emitObjects(paths: ReadonlyMap<string, KObject>, safety: SafetyContext, emitted?: EmittedObjects): Map<string, string> {
  const texts = new Map<string, string>();
  // a text depends on the object and the safety context alone
  const scope = JSON.stringify(safety);
  for (const [rel, given] of paths) {
    texts.set(rel, emitted ? emitted.text(given, scope, (o) => objectText(o, safety)) : objectText(given, safety));
  }
  return texts;
}

function objectText(given: KObject, safety: SafetyContext): string {
  let obj = given;
  let text = emitYamlDocument(obj);
  const guarded = fluxSubstituteLabel(obj, safety, text);
  if (guarded) text = emitYamlDocument((obj = guarded));
  const large = largeObjectSyncOption(obj, text, safety);
  if (large) text = emitYamlDocument(large);
  return GENERATED_COMMENT + text;
}

/**
 * One object in two components: `kubectl kustomize` of the output refuses the second ("already
 * registered id"), and two GitOps applications would fight over it (deleting either provider
 * deletes it). Namespaces are shared before this (shared-namespaces.ts).
 */
function sameObjectTwice(component: RenderedComponent, owners: Map<string, string>, bag: DiagnosticBag): void {
  for (const obj of component.objects) {
    const id = JSON.stringify([apiGroup(obj.apiVersion ?? ''), obj.kind, obj.metadata?.namespace ?? '', obj.metadata?.name]);
    const first = owners.get(id);
    if (first === undefined) owners.set(id, component.label);
    else if (first !== component.label)
      bag.add({
        message: `${describeObject(obj)} is in both ${first} and ${component.label}: one object can belong to one component only`,
        object: describeObject(obj),
        expected: 'each object in one component',
        hint:
          'if both providers name the same additionalManifests ConfigMap, name it from one of them only; ' +
          "if the components of both hold it (clusterctl lets the later install overwrite the earlier's), " +
          (obj.metadata?.namespace ? 'install the providers in different namespaces, or ' : '') +
          'point one of them at an artifact without it (fetchConfig.url, or a Config repositories entry)',
      });
  }
}

export function layoutKustomize(components: readonly RenderedComponent[], opts: KustomizeLayoutOptions = {}): Map<string, string> {
  const safety = opts.safety ?? BOTH_TOOLS;
  const bag = new DiagnosticBag();
  const files = new Map<string, string>();
  const dirs: string[] = [];
  const dirLabels = new Map<string, string>();

  const owners = new Map<string, string>();
  for (const component of orderComponents(components)) {
    sameObjectTwice(component, owners, bag);
    const dir = componentDirectory(component);
    const other = dirLabels.get(dir);
    if (other !== undefined) {
      bag.add({
        message: `components ${JSON.stringify(other)} and ${JSON.stringify(component.label)} both map to the directory ${dir}`,
        object: `component ${JSON.stringify(component.label)}`,
        expected: 'one component per provider type and name',
        hint: 'remove the duplicate provider from the input',
      });
      continue;
    }
    dirLabels.set(dir, component.label);
    dirs.push(dir);

    const cached = opts.componentFiles?.get(component);
    if (cached) {
      for (const [file, text] of cached) files.set(file, text);
      continue;
    }
    const own = new Map<string, string>();
    const header = collecting(bag, () => provenanceComment(component));
    const paths = objectPaths(dir, applySafety(component.objects, safety), bag);
    if (header === undefined || bag.size > 0) continue;
    for (const [rel, text] of emitObjects(paths, safety, opts.emitted)) own.set(`${dir}/${rel}`, text);
    const resources = [...paths.keys()].sort(compareStrings);
    own.set(`${dir}/${KUSTOMIZATION_FILE}`, renderKustomization({ comment: header, resources }));
    for (const [file, text] of own) files.set(file, text);
    opts.componentFiles?.set(component, own);
  }
  bag.throwIfAny();

  files.set(KUSTOMIZATION_FILE, renderKustomization({ comment: GENERATED_COMMENT, resources: dirs }));
  return new Map([...files].sort(([a], [b]) => compareStrings(a, b)));
}
