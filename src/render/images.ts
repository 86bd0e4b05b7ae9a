/**
 * Image overrides, as clusterctl's ImageMetaClient (client/config/imagemeta_client.go) applies them
 * through FixImages (internal/util/objs.go). Unlike clusterctl, names without a registry host are
 * accepted: they are Docker-normalised for matching and rewriting, and kept as written otherwise.
 *
 * Image references are parsed with the rules of github.com/distribution/reference v0.6.0
 * (src/core/image-reference.ts), which is what clusterctl uses.
 */
import YAML from 'yaml';
import { reportDuplicateKeys } from '../yaml/unique-keys.js';
import { CapiGitopsError, DiagnosticBag, compareStrings, type Diagnostic } from '../core/diagnostics.js';
import { describeObject, isPlainObject, type KObject } from '../core/kobject.js';
import { setOwnValue } from '../core/own-keys.js';
import type { ImageMeta, SourcePosition } from '../manifest/types.js';
import { IMAGE_REFERENCE_GRAMMAR, imageFieldProblem, parseImage, type ImageField, type ImageReference } from '../core/image-reference.js';
import { closestName } from '../manifest/fields.js';
import type { MarkedRender } from './types.js';

// ---- clusterctl ImageMeta --------------------------------------------------------------

/** `all` applies to every component (clusterctl imagemeta_client.go allImageConfig). */
const ALL_IMAGES_KEY = 'all';
const IMAGE_META_FIELDS = ['repository', 'name', 'tag'] as const;

/** imageMeta.Union: fields of `over` that are set replace those of `base`. */
function unionImageMeta(base: ImageMeta, over: ImageMeta | undefined): ImageMeta {
  const result: ImageMeta = { ...base };
  if (!over) return result;
  for (const field of IMAGE_META_FIELDS) {
    const value = over[field];
    if (value) result[field] = value;
  }
  return result;
}

/** The override for one image: `all`, then `<component>`, then `<component>/<image-name>`. */
export function imageMetaFor(overrides: Record<string, ImageMeta>, component: string, imageName: string): ImageMeta {
  let meta = unionImageMeta({}, own(overrides, ALL_IMAGES_KEY));
  meta = unionImageMeta(meta, own(overrides, component));
  return unionImageMeta(meta, own(overrides, `${component}/${imageName}`));
}

/**
 * The most specific key whose override applies to `image` of `component`, in imageMetaFor's order
 * (`<component>/<image-name>`, `<component>`, `all`): where the manifest chose the image.
 */
export function overrideKeyFor(overrides: Record<string, ImageMeta>, component: string, image: string): string | undefined {
  const parsed = parseImage(image);
  const byName = parsed.ok ? [`${component}/${imageName(parsed.reference)}`] : [];
  return [...byName, component, ALL_IMAGES_KEY].find((key) => {
    const meta = own(overrides, key);
    return meta !== undefined && !isEmptyMeta(meta);
  });
}

/**
 * Tag overrides that change nothing: an image the components pin by digest keeps the digest under a
 * tag override (`repo/name:tag@sha256:…`, as clusterctl writes it), and a container runtime pulls
 * the digest. Each such image (after overrides), with the most specific key that set its tag.
 */
export function tagOverridesOnDigests(
  objs: readonly KObject[],
  component: string,
  overrides: Record<string, ImageMeta>,
): { object: string; image: string; key: string }[] {
  return objs.flatMap((obj) =>
    containerImages(obj).flatMap(({ image }) => {
      const parsed = typeof image === 'string' ? parseImage(image) : undefined;
      if (!parsed?.ok || !parsed.reference.digest) return [];
      const keys = [`${component}/${imageName(parsed.reference)}`, component, ALL_IMAGES_KEY];
      const key = keys.find((k) => own(overrides, k)?.tag);
      return key === undefined ? [] : [{ object: describeObject(obj), image: image as string, key }];
    }),
  );
}

/** Whether any override key could apply to an image of `component`, whatever its name. */
function overrideMayApply(overrides: Record<string, ImageMeta>, component: string): boolean {
  return Object.keys(overrides).some(
    (key) => (key === ALL_IMAGES_KEY || key === component || key.startsWith(`${component}/`)) && !isEmptyMeta(overrides[key]!),
  );
}

function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}

function isEmptyMeta(meta: ImageMeta): boolean {
  return !meta.repository && !meta.name && !meta.tag;
}

/** The image's last path element, the `<image-name>` of `<component>/<image-name>` keys. */
function imageName(ref: ImageReference): string {
  return ref.path.slice(ref.path.lastIndexOf('/') + 1);
}

/**
 * container.Image.String() after imageMeta.ApplyToImage: `repository/name[:tag][@digest]`.
 * A tag override keeps the digest, so the result is `repo/name:tag@sha256:…` as clusterctl writes it.
 */
function applyImageMeta(ref: ImageReference, meta: ImageMeta): string {
  const name = imageName(ref);
  const fullName = `${ref.domain}/${ref.path}`;
  let repository = fullName.slice(0, fullName.length - name.length - 1);
  // strings.TrimSuffix removes one trailing slash, not all of them.
  if (meta.repository) repository = meta.repository.endsWith('/') ? meta.repository.slice(0, -1) : meta.repository;
  let text = `${repository}/${meta.name || name}`;
  const tag = meta.tag || ref.tag;
  if (tag) text += `:${tag}`;
  if (ref.digest) text += `@${ref.digest}`;
  return text;
}

/**
 * One image after overrides: the merged override applied to its reference, canonical or not. A
 * name without a registry host (`busybox`, `thehejik/img:dev`), which clusterctl refuses, is
 * rewritten in its Docker-normalised form when an override applies, and kept as written when
 * none does (docs/parity.md). A reference that does not parse at all is an error (string returned).
 */
export function alterImage(image: string, component: string, overrides: Record<string, ImageMeta>): { image: string } | { error: string } {
  const parsed = parseImage(image);
  if (!parsed.ok) return { error: parsed.message };
  // Names without a registry host (`busybox`, `org/img:tag`) are matched and rewritten in their
  // Docker-normalised form when an override applies (clusterctl would refuse them outright);
  // with no override they are left exactly as written.
  const meta = imageMetaFor(overrides, component, imageName(parsed.reference));
  return { image: isEmptyMeta(meta) ? image : applyImageMeta(parsed.reference, meta) };
}

// ---- walking Deployment and DaemonSet pod specs (FixImages / InspectImages) ---------------

/** FixImages and InspectImages look at exactly these kinds (and convert them to their Go types). */
export const FIX_IMAGES_KINDS: ReadonlySet<string> = new Set(['Deployment', 'DaemonSet']);
const CONTAINER_LISTS = ['containers', 'initContainers'] as const;

function podSpecOf(obj: KObject): Record<string, unknown> | undefined {
  const spec = obj.spec;
  if (!isPlainObject(spec) || !isPlainObject(spec.template) || !isPlainObject(spec.template.spec)) return undefined;
  return spec.template.spec;
}

interface ContainerImage {
  list: (typeof CONTAINER_LISTS)[number];
  index: number;
  container: string;
  image: unknown;
}

/** Where a container's image is, as a problem names the field. */
function imagePath(entry: ContainerImage): string {
  return `spec.template.spec.${entry.list}[${entry.index}].image`;
}

function containerImages(obj: KObject): ContainerImage[] {
  if (!FIX_IMAGES_KINDS.has(obj.kind)) return [];
  const podSpec = podSpecOf(obj);
  if (!podSpec) return [];
  const found: ContainerImage[] = [];
  for (const list of CONTAINER_LISTS) {
    const containers = podSpec[list];
    if (!Array.isArray(containers)) continue;
    containers.forEach((c, index) => {
      const container = isPlainObject(c) && typeof c.name === 'string' ? c.name : `#${index}`;
      found.push({ list, index, container, image: isPlainObject(c) ? c.image : undefined });
    });
  }
  return found;
}

function withPodSpecImages(obj: KObject, images: Map<string, string>): KObject {
  const spec = obj.spec as Record<string, unknown>;
  const template = spec.template as Record<string, unknown>;
  const podSpec = { ...(template.spec as Record<string, unknown>) };
  for (const list of CONTAINER_LISTS) {
    const containers = podSpec[list];
    if (!Array.isArray(containers)) continue;
    podSpec[list] = containers.map((c, index) => {
      const image = images.get(`${list}/${index}`);
      return image === undefined ? c : { ...(c as Record<string, unknown>), image };
    });
  }
  return { ...obj, spec: { ...spec, template: { ...template, spec: podSpec } } };
}

/**
 * clusterctl FixImages with the operator's alterImage: rewrite `containers[].image` and
 * `initContainers[].image` of every Deployment and DaemonSet with the merged ImageMeta for
 * `component` (the provider's manifest label, or `cert-manager`). Unparseable images are
 * reported together.
 */
export function applyImageOverrides(
  objs: KObject[],
  component: string,
  overrides: Record<string, ImageMeta>,
  marked?: MarkedRender,
  /** Images to leave as they are. */
  keep?: (obj: KObject, path: string, image: unknown) => boolean,
): KObject[] {
  const bag = new DiagnosticBag();
  const result = objs.map((obj) => {
    const changed = new Map<string, string>();
    for (const entry of containerImages(obj)) {
      const path = imagePath(entry);
      if (keep?.(obj, path, entry.image)) continue;
      if (typeof entry.image !== 'string') {
        bag.add(imageDiagnostic(obj, path, `container "${entry.container}" has no image`));
        continue;
      }
      const altered = alterImage(entry.image, component, overrides);
      if (marked && 'error' in altered && entry.image.match(marked.pattern)) {
        // The marked render (render/component.ts): a mark where an image's name belongs does not
        // parse, but the real render parsed the secret value. Untouched by any override, the
        // image is the value itself; else the override derived the image from it: a mark-free
        // image, recorded with the marks it was derived from for the secrets stage.
        if (overrideMayApply(overrides, component)) {
          changed.set(`${entry.list}/${entry.index}`, entry.image.replace(marked.pattern, ''));
          marked.derived.push({ kind: obj.kind, name: obj.metadata?.name, path, read: entry.image });
        }
      } else if ('error' in altered) {
        bag.add(imageDiagnostic(obj, path, `container "${entry.container}": cannot parse image "${entry.image}": ${altered.error}`));
      } else if (altered.image !== entry.image) {
        changed.set(`${entry.list}/${entry.index}`, altered.image);
      }
    }
    return changed.size > 0 ? withPodSpecImages(obj, changed) : obj;
  });
  bag.throwIfAny();
  return result;
}

/**
 * The operator's second image pass (cluster-api-operator internal/controller/phase_fetch.go
 * imageOverrides, after customizeObjectsFn and applyPatches), with the overrides of its mounted
 * clusterctl.yaml, which Config.images stands for: an image that deployment.containers[].imageUrl
 * or a patch set is overridden too. Images the customisations left as they were already had
 * their overrides (the configSecret's included), so only changed ones are altered.
 */
export function overrideCustomizedImages(
  before: KObject[],
  after: KObject[],
  component: string,
  overrides: Record<string, ImageMeta>,
): KObject[] {
  if (Object.keys(overrides).length === 0) return after;
  // no customisation replaced an object (they return the ones they leave as they are): nothing to do
  if (after.length === before.length && after.every((obj, i) => obj === before[i])) return after;
  const previous = new Set(imageFields(before).map((f) => `${f.object}\0${f.path}\0${String(f.image)}`));
  // what no customisation set, and what has no image (told by the first pass, or the API server's)
  const keep = (obj: KObject, path: string, image: unknown) =>
    typeof image !== 'string' || previous.has(`${describeObject(obj)}\0${path}\0${image}`);
  return applyImageOverrides(after, component, overrides, undefined, keep);
}

function imageDiagnostic(obj: KObject, path: string, message: string): Diagnostic {
  return {
    object: describeObject(obj),
    path,
    message,
    expected: 'an image reference such as registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0',
    hint: 'fix the image in the components file or with a patch; clusterctl refuses images it cannot parse',
  };
}

/**
 * Every container image field: the object, the field path and its value (for tracking where a
 * value went). With `namespace`, each object is named in that namespace: the one clusterctl's
 * fixTargetNamespace moves every Deployment and DaemonSet to after FixImages, so a field recorded
 * before the move names the object as it is written.
 */
export function imageFields(objs: KObject[], namespace?: string): { object: string; path: string; image: unknown }[] {
  return objs.flatMap((obj) =>
    containerImages(obj).map((entry) => ({
      object: describeObject(namespace === undefined ? obj : { kind: obj.kind, metadata: { ...obj.metadata, namespace } }),
      path: imagePath(entry),
      image: entry.image,
    })),
  );
}

/** Every image of every Deployment and DaemonSet (InspectImages), sorted and unique. */
export function inspectImages(objs: KObject[]): string[] {
  const images = new Set<string>();
  for (const obj of objs) {
    for (const entry of containerImages(obj)) {
      if (typeof entry.image === 'string') images.add(entry.image);
    }
  }
  return [...images].sort(compareStrings);
}

/** The component cert-manager's images are overridden as (clusterctl config.CertManagerImageComponent). */
const CERT_MANAGER_IMAGES_KEY = 'cert-manager';

/**
 * The override keys whose component (before any `/<image>`) is none of the render's: clusterctl's
 * getImageMeta looks keys up by manifest label (`infrastructure-docker`, not the provider name
 * `docker`) and ignores any other key without a word. Each comes with the labels it likely meant:
 * those of a provider so named, else the closest name. `certManager`: whether cert-manager reads
 * these overrides (a configSecret's are read for its providers only).
 */
export function unreadImageKeys(
  keys: readonly string[],
  labels: readonly string[],
  certManager = true,
): { key: string; meant: string[] }[] {
  const known = [ALL_IMAGES_KEY, ...(certManager ? [CERT_MANAGER_IMAGES_KEY] : []), ...labels];
  return [...keys].sort(compareStrings).flatMap((key) => {
    const component = key.includes('/') ? key.slice(0, key.indexOf('/')) : key;
    if (known.includes(component)) return [];
    const named = labels.filter((label) => label.endsWith(`-${component}`)).sort(compareStrings);
    const close = closestName(component, known);
    const meant = named.length > 0 ? named : close ? [close] : [];
    return [{ key, meant: meant.map((label) => label + key.slice(component.length)) }];
  });
}

// ---- override sources -------------------------------------------------------------------

/** A problem at a path of the images value (never quoting it). */
type ProblemAt = (path: string, message: string, expected: string) => Diagnostic;

const IMAGES_HINT =
  "write it as clusterctl's images config, one key per line, e.g. `all: {repository: mirror.example.com/capi}` or `bootstrap-kubeadm: {tag: v1.12.1}`";

/**
 * Parse a configSecret's `images` value: clusterctl's images map, `key: {repository, name, tag}`.
 * Values come from a Secret, so messages name keys and fields but never echo a value.
 */
export function parseImagesValue(
  yamlText: string,
  origin: string,
  position?: SourcePosition,
  /** A key the value gives twice, which the operator reads as the last one (and so does this). */
  onWarning?: (warning: Diagnostic) => void,
): Record<string, ImageMeta> {
  const where = position ? { file: position.file, line: position.line, column: position.column } : {};
  const problem: ProblemAt = (path, message, expected) => ({
    ...where,
    object: origin,
    path,
    message,
    expected,
    hint: IMAGES_HINT,
  });

  const lineCounter = new YAML.LineCounter();
  const doc = YAML.parseDocument(yamlText, { version: '1.1', uniqueKeys: false, lineCounter });
  reportDuplicateKeys(doc, lineCounter);
  // the operator reads the key with clusterctl's MemoryReader.UnmarshalKey: sigs.k8s.io/yaml over
  // go-yaml v2, whose decoder (decode.go setMapIndex, not strict) keeps a repeated key's last value
  const repeated = doc.errors.filter((e) => e.code === 'DUPLICATE_KEY');
  doc.errors = doc.errors.filter((e) => e.code !== 'DUPLICATE_KEY');
  if (doc.errors.length === 0) for (const e of repeated) onWarning?.(repeatedImagesKey(e, lineCounter, where, origin));
  if (doc.errors.length > 0) {
    throw new CapiGitopsError(
      doc.errors.map((e) => problem('images', `is not valid YAML (${e.code} at line ${e.linePos?.[0].line ?? '?'})`, 'a YAML mapping')),
    );
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 0 });
  } catch {
    throw new CapiGitopsError(problem('images', 'uses YAML aliases', 'plain YAML without anchors or aliases'));
  }
  // An empty value means no overrides, as clusterctl's UnmarshalKey leaves the map nil.
  if (value === null || value === undefined) return {};
  if (!isPlainObject(value)) {
    throw new CapiGitopsError(
      problem(
        'images',
        `is a ${typeName(value)}, not a mapping`,
        'a mapping of `all`, `<component>` or `<component>/<image>` to {repository, name, tag}',
      ),
    );
  }

  const bag = new DiagnosticBag();
  const result: Record<string, ImageMeta> = {};
  for (const key of Object.keys(value).sort(compareStrings)) {
    const entry = value[key];
    const path = `images.${key}`;
    if (entry === null) {
      setOwnValue(result, key, {});
      continue;
    }
    if (!isPlainObject(entry)) {
      bag.add(problem(path, `is a ${typeName(entry)}, not a mapping`, 'a mapping with repository, name and/or tag'));
      continue;
    }
    if (key === 'images') {
      // The Secret key is already `images`: a second level is clusterctl.yaml's layout pasted in.
      bag.add({
        ...problem(path, 'nests the overrides under another `images:` key', 'the map itself, e.g. `all: {repository: …}`'),
        hint: 'remove the outer `images:` line and unindent the rest',
      });
      continue;
    }
    setOwnValue(result, key, imageMetaOf(entry, path, problem, bag));
  }
  bag.throwIfAny();
  return result;
}

/** A key the images value gives twice: by its lines in the value, whose text (a Secret's) is never quoted. */
function repeatedImagesKey(
  error: YAML.YAMLError,
  lineCounter: YAML.LineCounter,
  where: Pick<Diagnostic, 'file' | 'line' | 'column'>,
  origin: string,
): Diagnostic {
  const again = lineCounter.linePos(error.pos[0]).line;
  const first = /at line (\d+)/.exec(error.message)?.[1] ?? '?';
  return {
    ...where,
    object: origin,
    path: 'images',
    message: `line ${again} of the value gives a key of line ${first} again: the operator reads the last one (clusterctl's MemoryReader, go-yaml v2), and so does capi-gitops`,
    expected: 'each key once in its map',
    hint: `keep the value you mean: delete line ${first} or line ${again} of the value (with the lines below it that belong to it)`,
  };
}

/** An images entry's {repository, name, tag}, each a valid part of an image reference; problems go to `bag`. */
function imageMetaOf(entry: Record<string, unknown>, path: string, problem: ProblemAt, bag: DiagnosticBag): ImageMeta {
  const meta: ImageMeta = {};
  for (const [field, fieldValue] of Object.entries(entry)) {
    if (!(IMAGE_META_FIELDS as readonly string[]).includes(field)) {
      bag.add(problem(`${path}.${field}`, `unknown field "${field}"`, 'one of repository, name, tag'));
    } else if (fieldValue === null) {
      continue;
    } else if (typeof fieldValue !== 'string') {
      bag.add(
        problem(
          `${path}.${field}`,
          `is a ${typeName(fieldValue)}, not a string`,
          'a string (quote values such as tags that look like numbers)',
        ),
      );
    } else {
      // Checked as the manifest's Config.images fields are (schema formats); the value is not quoted.
      const wrong = imageFieldProblem(`image-${field}` as ImageField, fieldValue);
      if (wrong)
        bag.add(
          problem(
            `${path}.${field}`,
            `is not a valid image ${field}: ${wrong}`,
            `the ${field} part of an image reference: ${IMAGE_REFERENCE_GRAMMAR}`,
          ),
        );
      else meta[field as (typeof IMAGE_META_FIELDS)[number]] = fieldValue;
    }
  }
  return meta;
}

/** YAML-flavoured type names for messages; YAML 1.1 turns unquoted dates into timestamps. */
function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Date) return 'timestamp';
  if (isPlainObject(value)) return 'mapping';
  return typeof value;
}
