/**
 * Images pinned by digest and locked (Config `pinImages`, `--pin-images`): each component's
 * container images, as rendered (after image overrides and patches), take the digest its lock
 * entry records; only images the lock does not know are asked of their registries
 * (sources/oci/image-digests.ts), so a locked render makes no request. `--frozen` (and `check`)
 * asks again for every image and fails on a tag that moved; `--offline` asks nothing. Under
 * either, an image the lock lacks is an error naming it. The lock then records exactly the
 * images this render pinned, beside the entry's files.
 *
 * `plan` re-asks the registries for every locked image (`recheckLockedImages`) and lists the
 * tags that moved, and the images a registry could not answer for; `update --images` takes the
 * new digests (`refreshLockedImages`) and fails on a registry that cannot answer, as a render does.
 */
import { CapiGitopsError, DiagnosticBag, compareStrings, sortDiagnostics, type Diagnostic } from '../core/diagnostics.js';
import { parseImage } from '../core/image-reference.js';
import type { KObject } from '../core/kobject.js';
import { OPERATOR_LABEL, OPERATOR_NAMESPACE } from '../resolve/operator-release.js';
import type { SourceOptions } from '../sources/request.js';
import type {
  ImageDigestAnswer,
  ImageDigestOptions,
  ImageDigestProblem,
  ImageDigestRequest,
  ImageUse,
} from '../sources/oci/image-digests.js';
import type { RenderedComponent } from '../render/types.js';
import { containerImages, hasDigest, pinComponentImages, pinObjectImages } from '../render/pin-images.js';
import { alterImage, overrideKeyFor } from '../render/images.js';
import { imageCopyCommands } from '../sources/oci/image-copy.js';
import { buildLockfile } from '../resolve/lock/build.js';
import { unknownLabelHint } from '../resolve/upgrade-plan.js';
import { assertFrozen, diffLockfiles, FROZEN } from '../resolve/lock/diff.js';
import { CERT_MANAGER_NAME, CERT_MANAGER_NAMESPACE } from '../resolve/lock/request.js';
import type { LockOutcome } from '../resolve/lock/session.js';
import type { MovedImage, UncheckedImage } from '../resolve/upgrade-plan.js';
import { lockEntryLabel, sameIdentity, type LockEntry, type LockIdentity, type LockedImage, type Lockfile } from '../resolve/lock/types.js';
import type { Resolution } from './types.js';
import type { ImageMeta, SourcePosition } from '../manifest/types.js';

/** Asks registries for the digests of images: those they answered, and a problem for each image they did not. */
export type DigestAsker = (requests: readonly ImageDigestRequest[]) => Promise<ImageDigestAnswer>;

export interface PinImagesInput<M extends { objects: KObject[] }> {
  /** `--pin-images`; Config pinImages otherwise. */
  flag?: boolean;
  frozen?: boolean;
  onWarning?: (warning: Diagnostic) => void;
  resolution: Resolution;
  components: readonly RenderedComponent[];
  /** The secrets stage's marked renders, by label: pinned the same way, so they still line up. */
  marked?: ReadonlyMap<string, M>;
  /** Tests and callers with their own registry client. */
  ask?: DigestAsker;
  /** Each provider's configSecret `images` overrides (by component label), and where that key is. */
  secretImages?: ReadonlyMap<string, { overrides: Record<string, ImageMeta>; at: SourcePosition | undefined }>;
  /** The fleet cluster rendered, if any: `update` refuses fleets, so a moved tag's hint differs. */
  fleetCluster?: string;
  /** A fleet's agreed digests (agreedImageDigests): an image the component's entry lacks takes one before any registry is asked. */
  fleetImageDigests?: ReadonlyMap<string, string>;
}

export interface PinImagesResult<M> {
  components: RenderedComponent[];
  marked: Map<string, M>;
  lock: LockOutcome;
}

/**
 * The default asker: the distribution API with the run's network options (loaded on first use).
 * `purpose` words a registry that cannot be reached: pinning images, or checking locked ones (`plan`).
 */
export function registryDigests(
  sources: SourceOptions,
  onWarning?: (warning: Diagnostic) => void,
  purpose: ImageDigestOptions['purpose'] = 'pin',
): DigestAsker {
  const { cache, offline, http, log, onProgress, env } = sources;
  const options = { cache, offline, http, log, onProgress, env, onWarning, purpose };
  return async (requests) => (await import('../sources/oci/image-digests.js')).askImageDigests(requests, options);
}

/** A render and `update --images` need every digest they asked for: every problem, together, fails them. */
function failOnProblems(problems: readonly ImageDigestProblem[]): void {
  if (problems.length > 0) throw new CapiGitopsError(sortDiagnostics(problems.map((p) => p.diagnostic)));
}

/** The lock entry a rendered component belongs to. */
function lockIdentityOf(component: Pick<RenderedComponent, 'label' | 'type' | 'name' | 'namespace'>): LockIdentity {
  if (component.label === OPERATOR_LABEL) return { kind: 'Operator', name: OPERATOR_LABEL, namespace: OPERATOR_NAMESPACE };
  if (component.type === 'CertManager') return { kind: 'CertManager', name: CERT_MANAGER_NAME, namespace: CERT_MANAGER_NAMESPACE };
  return { kind: component.type, name: component.name, namespace: component.namespace };
}

/** `core-components.yaml of cluster-api v1.12.0`: the artifact a component's images came from. */
function artifactOf(resolution: Resolution, component: RenderedComponent): string {
  return `${componentsOf(resolution, component)?.name ?? 'the components'} of ${component.label} ${component.version}`;
}

/** The components artifact a rendered component came from. */
function componentsOf(resolution: Resolution, component: RenderedComponent): { name: string; text: string } | undefined {
  const identity = lockIdentityOf(component);
  if (identity.kind === 'Operator') return resolution.operator?.components;
  if (identity.kind === 'CertManager') return resolution.certManager?.components;
  return resolution.providers.find((p) => sameIdentity({ kind: p.kind, name: p.name, namespace: p.namespace }, identity))?.components;
}

/**
 * Where the manifest chose an image: the configSecret's images key when one of its overrides applies
 * (its first pass chose the image Config.images then rewrites), else the Config images key whose
 * override applies to it, else the provider object (the Config's certManager or operator key for theirs).
 */
function imageOrigin(
  input: PinImagesInput<{ objects: KObject[] }>,
  component: RenderedComponent,
  image: string,
): SourcePosition | undefined {
  const { resolution } = input;
  const secret = input.secretImages?.get(component.label);
  if (secret?.at && overrideKeyFor(secret.overrides, component.label, image) !== undefined) return secret.at;
  const config = resolution.manifest.config;
  const key = overrideKeyFor(config.images ?? {}, component.label, image);
  if (key !== undefined) return config.locate?.(['images', key], 'key') ?? config.position;
  const identity = lockIdentityOf(component);
  // cert-manager and the operator are the Config's: its certManager or operator key, else the Config
  if (identity.kind === 'CertManager' || identity.kind === 'Operator') {
    const field = identity.kind === 'CertManager' ? 'certManager' : 'operator';
    return (config[field] ? config.locate?.([field], 'key') : undefined) ?? config.position;
  }
  return resolution.providers.find((p) => sameIdentity({ kind: p.kind, name: p.name, namespace: p.namespace }, identity))?.provider
    .position;
}

/**
 * The image as the components wrote it, when an override (a mirror) rewrote it: the image in the
 * component's artifact that the overrides turn into `image`. A registry that lacks `image` is then
 * told with the copy that fills it. None when no override applies, or none of the artifact's
 * images gives `image` (one written with a variable). Asked only then: it reads the artifact's
 * text, megabytes for a core provider, which a render that pins from its lock never needs.
 */
function imageSource(input: PinImagesInput<{ objects: KObject[] }>, component: RenderedComponent, image: string): () => string | undefined {
  let found: { source?: string } | undefined;
  return () => (found ??= writtenImage(input, component, image)).source;
}

function writtenImage(input: PinImagesInput<{ objects: KObject[] }>, component: RenderedComponent, image: string): { source?: string } {
  const { resolution } = input;
  const config = resolution.manifest.config.images ?? {};
  const secret = input.secretImages?.get(component.label)?.overrides ?? {};
  if (overrideKeyFor(config, component.label, image) === undefined && overrideKeyFor(secret, component.label, image) === undefined)
    return {};
  // the operator's two passes: the configSecret's overrides, then Config.images over what they wrote
  const altered = (candidate: string) => {
    const first = alterImage(candidate, component.label, secret);
    return 'image' in first ? alterImage(first.image, component.label, config) : first;
  };
  const artifact = componentsOf(resolution, component);
  for (const candidate of artifact ? imagesWrittenIn(artifact) : []) {
    const result = altered(candidate);
    if (candidate !== image && 'image' in result && result.image === image) return { source: candidate };
  }
  return {};
}

/** The images an artifact's text writes, sorted: read once per artifact, however many images a registry lacks. */
function imagesWrittenIn(artifact: { text: string }): string[] {
  let images = writtenImages.get(artifact);
  if (images === undefined) {
    images = [...new Set([...artifact.text.matchAll(/^\s*(?:- )?image:\s*["']?([^\s"'#]+)/gm)].map((m) => m[1]!))].sort(compareStrings);
    writtenImages.set(artifact, images);
  }
  return images;
}
// keyed by the artifact object, never by its megabytes of text
const writtenImages = new WeakMap<object, string[]>();

/** The entries without their `images`. */
function withoutImages(entries: readonly LockEntry[]): LockEntry[] {
  return entries.map(({ images: _images, ...entry }) => entry);
}

function concluded(input: PinImagesInput<{ objects: KObject[] }>, lock: Lockfile): LockOutcome {
  const { resolution } = input;
  // the lock as read tells where: the entries it holds are the ones this run resolved
  if (input.frozen)
    assertFrozen({ entries: resolution.lock.lock.entries, locate: resolution.lock.previous?.locate }, lock, resolution.lockFile);
  return { ...resolution.lock, lock, changes: diffLockfiles(resolution.lock.previous, lock) };
}

interface PinPlan {
  component: RenderedComponent;
  identity: LockIdentity;
  /** The entry's locked digests, by image. */
  known: Map<string, string>;
  uses: (ImageUse & { image: string })[];
}

/**
 * The digests to ask the registries for: images the lock does not know, and under `--frozen`
 * every image (a locked tag may have been pushed again; an artifact's digest may be gone). A
 * missing digest fails `--frozen` and `--offline`, which ask nothing for it; a moved tag fails
 * `--frozen`, naming the image and both digests. `--offline` asks no registry at all. A registry
 * that cannot answer for an image fails the render: it has no digest to pin.
 */
async function askRegistries(input: PinImagesInput<{ objects: KObject[] }>, plans: readonly PinPlan[]): Promise<Map<string, string>> {
  const { resolution } = input;
  const offline = resolution.sources.offline === true;
  const recheck = input.frozen === true && !offline;
  const missing = new Map<string, ImageUse[]>();
  const asked = new Map<string, ImageUse[]>();
  for (const plan of plans)
    for (const use of plan.uses) {
      if (!plan.known.has(use.image)) missing.set(use.image, [...(missing.get(use.image) ?? []), use]);
      if (recheck || !plan.known.has(use.image)) asked.set(use.image, [...(asked.get(use.image) ?? []), use]);
    }
  const unlocked = input.frozen || offline ? missingDigests(input, missing) : [];
  // --offline asks nothing; --frozen still asks for what the lock holds, so a moved tag is told in the same run
  if (unlocked.length > 0 && offline) throw new CapiGitopsError(unlocked);
  for (const image of unlocked.length > 0 ? missing.keys() : []) asked.delete(image);
  if (asked.size === 0) {
    if (unlocked.length > 0) throw new CapiGitopsError(unlocked);
    return new Map();
  }
  const ask = input.ask ?? registryDigests(resolution.sources, input.onWarning);
  const { digests: current, problems } = await ask(
    [...asked].sort(([a], [b]) => compareStrings(a, b)).map(([image, uses]) => ({ image, uses })),
  );
  if (problems.length > 0) throw new CapiGitopsError(sortDiagnostics([...unlocked, ...problems.map((p) => p.diagnostic)]));
  const moved: Diagnostic[] = [];
  for (const plan of plans)
    for (const [image, locked] of plan.known) {
      const now = current.get(image);
      if (now === undefined || now === locked) continue;
      const use = plan.uses.find((u) => u.image === image);
      moved.push({
        // the image's entry in the lockfile read (a fleet cluster's view locates in the fleet's lockfile)
        file: resolution.lockFile,
        ...resolution.lock.previous?.locate?.({ ...plan.identity, image }),
        ...(use?.object ? { object: use.object, path: use.path } : {}),
        message: `${FROZEN}: the tag of image ${image} now serves ${now}; the lockfile pins ${locked}${use ? ` (${use.where})` : ''}`,
        expected: 'the content the lockfile pinned, or a lockfile updated on purpose',
        hint: movedTagHint(plan.component.label, image, input.fleetCluster),
      });
    }
  if (moved.length > 0 || unlocked.length > 0) throw new CapiGitopsError(sortDiagnostics([...unlocked, ...uniqueDiagnostics(moved)]));
  return current;
}

/** The images the lockfile has no digest for, under --frozen or --offline, which take none from a registry. */
function missingDigests(input: PinImagesInput<{ objects: KObject[] }>, missing: ReadonlyMap<string, ImageUse[]>): Diagnostic[] {
  const { resolution } = input;
  const offline = resolution.sources.offline === true;
  // the flag that keeps the registry from being asked: --offline when given, --frozen else
  const flag = offline ? '--offline' : '--frozen';
  return [...missing].map(([image, uses]) => ({
    // where the manifest chose the image; the lockfile has no line for what it lacks
    ...(uses[0]?.file ? { file: uses[0].file, line: uses[0].line, column: uses[0].column } : { file: resolution.lockFile }),
    ...(uses[0]?.object ? { object: uses[0].object, path: uses[0].path } : {}),
    message: `${input.frozen ? FROZEN : flag}: the lockfile has no digest for image ${image} (${uses.map((u) => u.where).join('; ')}), and ${flag} asks no registry for it`,
    expected: 'every rendered image pinned in the lockfile',
    hint: input.frozen
      ? `run \`capi-gitops render\` without --frozen${offline ? ' and --offline' : ''} to pin it, review the lockfile and commit it`
      : 'run once without --offline to pin it in the lockfile',
  }));
}

/**
 * What takes a moved tag's new digest: `update --images`, which a fleet refuses; there, the render
 * re-asks for an image no entry of the lock holds (a cluster takes a digest another entry holds).
 */
function movedTagHint(label: string, image: string, fleetCluster: string | undefined): string {
  if (fleetCluster === undefined)
    return `run \`capi-gitops update --images ${label}\`, review the new digest in the lockfile and commit it`;
  return (
    `update refuses a fleet: delete the two lines of ${image} (its \`- image:\` and \`digest:\`) from every lockfile entry that lists it ` +
    `(the ${label} entry of cluster ${fleetCluster} among them), run \`capi-gitops render\` to pin the digest the tag serves now, ` +
    'review it and commit it'
  );
}

/** `name:tag` of an image named by tag (its last path element), for images of one name and tag in two registries. */
function nameAndTag(image: string): string | undefined {
  const parsed = parseImage(image);
  if (!parsed.ok || !parsed.reference.tag || parsed.reference.digest) return undefined;
  return `${parsed.reference.path.slice(parsed.reference.path.lastIndexOf('/') + 1)}:${parsed.reference.tag}`;
}

/**
 * An image pinned afresh where the lock pinned the same name and tag from another registry or
 * repository (an images override moved to another mirror), and the new one serves another digest:
 * the content the kubelet pulls changes as when a tag moves, a risk review tells (docs/images.md),
 * while the lock change reads as one image removed and another pinned. A mirror that copied the
 * image with every architecture serves its digest: the same digest is no warning.
 */
function contentSwitches(
  input: PinImagesInput<{ objects: KObject[] }>,
  plans: readonly PinPlan[],
  resolved: ReadonlyMap<string, string>,
): Diagnostic[] {
  const warnings: Diagnostic[] = [];
  for (const plan of plans) {
    const used = new Set(plan.uses.map((u) => u.image));
    const before = [...plan.known].filter(([image]) => !used.has(image));
    for (const use of plan.uses) {
      // only an image asked afresh: one the lock pins already kept its content
      const [now, key] = plan.known.has(use.image) ? [] : [resolved.get(use.image), nameAndTag(use.image)];
      const old = key === undefined ? undefined : before.find(([image, digest]) => nameAndTag(image) === key && digest !== now);
      if (now === undefined || !old) continue;
      const [oldImage, locked] = old;
      const repository = use.image.slice(0, use.image.lastIndexOf(':'));
      // what the lock pinned, by its digest: the content reviewed before the mirror moved
      const copy = imageCopyCommands(`${oldImage.slice(0, oldImage.lastIndexOf(':'))}@${locked}`, use.image);
      warnings.push({
        ...(use.file ? { file: use.file, line: use.line, column: use.column } : {}),
        ...(use.object ? { object: use.object, path: use.path } : {}),
        message:
          `image ${use.image} (${use.where}) is pinned to ${now}, where the lockfile pinned ${oldImage} at ${locked}: ` +
          'the same image and tag from another registry or repository, with other content (as when a tag moves)',
        expected: `${locked}, which a copy of the image with every architecture keeps`,
        hint:
          `review the new content as a moved tag; if ${repository} should serve what ${oldImage} did, copy it there: ${copy}; ` +
          `then ${movedTagHint(plan.component.label, use.image, input.fleetCluster)}`,
      });
    }
  }
  return uniqueDiagnostics(warnings);
}

/** One diagnostic per message: two components that run one image report its move once. */
function uniqueDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...new Map(diagnostics.map((d) => [d.message, d])).values()];
}

/**
 * Pins every container image of `components` (see the module comment) and returns them with the
 * lock that records the digests. Without pinning, the lock loses any images it recorded.
 */
export async function pinImages<M extends { objects: KObject[] }>(input: PinImagesInput<M>): Promise<PinImagesResult<M>> {
  const { resolution } = input;
  const entries = resolution.lock.lock.entries;
  const marked = new Map(input.marked ?? []);
  if (!(input.flag ?? resolution.manifest.config.pinImages ?? false)) {
    if (!entries.some((e) => e.images)) return { components: [...input.components], marked, lock: resolution.lock };
    if (input.frozen) throw new CapiGitopsError(unpinnedRun(input));
    return { components: [...input.components], marked, lock: concluded(input, buildLockfile(withoutImages(entries))) };
  }
  const plans = input.components.map((component) => {
    const identity = lockIdentityOf(component);
    const entry = entries.find((e) => sameIdentity(e, identity));
    const artifact = artifactOf(resolution, component);
    const uses = containerImages(component.objects).map((use) => ({
      image: use.image,
      object: use.object,
      path: use.path,
      where: `container ${use.container} of ${use.object} in ${artifact}`,
      ...imageOrigin(input, component, use.image),
      source: imageSource(input, component, use.image),
    }));
    const known = new Map((entry?.images ?? []).map((i) => [i.image, i.digest]));
    for (const { image } of uses) {
      const agreed = input.fleetImageDigests?.get(image);
      if (agreed !== undefined && !known.has(image)) known.set(image, agreed);
    }
    const plan: PinPlan = { component, identity, known, uses };
    return plan;
  });
  const resolved = await askRegistries(input, plans);
  for (const warning of contentSwitches(input, plans, resolved)) input.onWarning?.(warning);

  const components: RenderedComponent[] = [];
  const pinned = new Map<string, LockedImage[]>();
  for (const plan of plans) {
    const digests = new Map<string, string>();
    for (const use of plan.uses) {
      const digest = plan.known.get(use.image) ?? resolved.get(use.image);
      // every image asked has a digest or a problem, which failed the render; one without either is a bug
      if (digest === undefined) throw new Error(`no digest was resolved for image ${use.image}`);
      digests.set(use.image, digest);
    }
    components.push(pinComponentImages(plan.component, digests));
    const entry = marked.get(plan.component.label);
    if (entry) marked.set(plan.component.label, { ...entry, objects: pinObjectImages(entry.objects, digests) });
    const key = JSON.stringify([plan.identity.kind, plan.identity.name, plan.identity.namespace]);
    const images = [...digests].map(([image, digest]) => ({ image, digest }));
    pinned.set(key, [...(pinned.get(key) ?? []), ...images]);
  }
  const lockEntries = withoutImages(entries).map((entry) => {
    const images = pinned.get(JSON.stringify([entry.kind, entry.name, entry.namespace]));
    return images?.length ? { ...entry, images: uniqueImages(images) } : entry;
  });
  return { components, marked, lock: concluded(input, buildLockfile(lockEntries)) };
}

/**
 * `--frozen` (and `check`) without pinning on a lock that pins images: the run would drop every
 * pin, so the way on keeps them (a render that drops them is the way to stop pinning on purpose).
 */
function unpinnedRun(input: PinImagesInput<{ objects: KObject[] }>): Diagnostic[] {
  const { resolution } = input;
  const render = 'run `capi-gitops render` without --frozen, review the lockfile and commit it';
  // pinImages: false (the Config, a fleet cluster's overlay) turns pinning off on purpose: dropping the pins is the way on
  const turnedOff = input.flag === false || resolution.manifest.config.pinImages === false;
  return resolution.lock.lock.entries
    .filter((entry) => entry.images?.length)
    .map((entry) => ({
      file: resolution.lockFile,
      ...resolution.lock.previous?.locate?.({ kind: entry.kind, name: entry.name, namespace: entry.namespace, field: 'images' }),
      message:
        `${FROZEN}: the lockfile pins the images of ${lockEntryLabel(entry)} ${entry.version}, and this run pins none ` +
        (turnedOff ? '(pinImages: false)' : '(no --pin-images, and the Config sets no pinImages)'),
      expected: 'pinning on while the lockfile pins images',
      hint: turnedOff
        ? `to stop pinning them, ${render}; to keep them, remove pinImages: false`
        : `run it again with --pin-images (or set pinImages: true in the Config) to check the pinned images; to stop pinning them, ${render}`,
    }));
}

/**
 * The digest each image has in a fleet's lock, where every entry that locks it agrees: a cluster
 * added to the fleet runs what the others run, not what the tag serves that day (a moved tag is
 * taken on purpose, for every cluster). Images the entries disagree on are asked again.
 */
export function agreedImageDigests(lock: Lockfile | undefined): Map<string, string> {
  const digests = new Map<string, string | null>();
  for (const entry of lock?.entries ?? [])
    for (const { image, digest } of entry.images ?? []) {
      const seen = digests.get(image);
      digests.set(image, seen === undefined || seen === digest ? digest : null);
    }
  return new Map([...digests].filter((e): e is [string, string] => e[1] !== null));
}

function uniqueImages(images: readonly LockedImage[]): LockedImage[] {
  const byImage = new Map(images.map((i) => [i.image, i]));
  return [...byImage.values()].sort((a, b) => compareStrings(a.image, b.image));
}

// ---- plan and update --images -------------------------------------------------------------------

/**
 * The entries `names` select (labels as `update` takes them: `bootstrap-kubeadm`,
 * `<namespace>/<label>`, `cert-manager`, `cluster-api-operator`); every entry when none.
 */
function selectedEntries(lock: Lockfile, names: readonly string[]): Set<LockEntry> {
  if (names.length === 0) return new Set(lock.entries);
  const selected = new Set<LockEntry>();
  const bag = new DiagnosticBag();
  for (const name of names) {
    const found = lock.entries.filter((e) => lockEntryLabel(e) === name || `${e.namespace}/${lockEntryLabel(e)}` === name);
    if (found.length === 0)
      bag.add({
        message: `no component "${name}" in the lockfile`,
        expected: `one of ${lock.entries.map(lockEntryLabel).join(', ')}`,
        hint: unknownLabelHint(
          name,
          lock.entries.map((e) => ({ name: e.name, label: lockEntryLabel(e) })),
        ),
      });
    else if (found.length > 1) bag.add({ message: `"${name}" names ${found.length} components`, hint: `write it as <namespace>/${name}` });
    found.forEach((e) => selected.add(e));
  }
  bag.throwIfAny();
  return selected;
}

export interface LockedImagesRecheck {
  /** The images whose tag now serves another digest. */
  moved: MovedImage[];
  /** The lock with those new digests. */
  lock: Lockfile;
  /** The images no registry answered for (one down, one refusing): `moved` is known to be partial. */
  unchecked: UncheckedImage[];
  problems: ImageDigestProblem[];
}

/**
 * Asks the registries again for every locked image of the selected entries that a tag names (an
 * image the artifact pinned by digest cannot move). `plan` lists the unchecked images and warns of
 * the problems; `update --images` fails on them.
 */
export async function recheckLockedImages(
  lock: Lockfile,
  ask: DigestAsker,
  names: readonly string[] = [],
  lockFile?: LockFileText,
): Promise<LockedImagesRecheck> {
  const selected = selectedEntries(lock, names);
  const requests = lockedTagRequests(selected, lockFile);
  if (requests.length === 0) return { moved: [], lock, unchecked: [], problems: [] };
  const { digests, problems } = await ask(requests);
  const unchecked: UncheckedImage[] = [];
  for (const entry of selected)
    for (const { image } of entry.images ?? []) {
      if (hasDigest(image) || digests.has(image)) continue;
      const problem = problems.find((p) => p.images.includes(image))?.diagnostic.message ?? 'the registry gave no digest';
      unchecked.push({ component: lockEntryLabel(entry), image, problem });
    }
  return { ...withCurrentDigests(lock, selected, digests), unchecked, problems };
}

/** The lockfile read, so a problem with a locked image is told at its line. */
export interface LockFileText {
  file: string;
  locate: Lockfile['locate'];
}

/** The selected entries' locked images that a tag names (an image the artifact pinned by digest cannot move). */
function lockedTagRequests(selected: ReadonlySet<LockEntry>, lockFile: LockFileText | undefined): ImageDigestRequest[] {
  const uses = new Map<string, ImageUse[]>();
  for (const entry of selected)
    for (const image of entry.images ?? []) {
      if (hasDigest(image.image)) continue;
      const at = lockFile && lockFile.locate?.({ kind: entry.kind, name: entry.name, namespace: entry.namespace, image: image.image });
      const use = {
        where: `${lockEntryLabel(entry)} ${entry.version}, locked at ${image.digest}`,
        ...(at ? { file: lockFile.file, ...at } : {}),
      };
      uses.set(image.image, [...(uses.get(image.image) ?? []), use]);
    }
  return [...uses].sort(([a], [b]) => compareStrings(a, b)).map(([image, u]) => ({ image, uses: u }));
}

/** The selected entries' images whose tag now serves another digest, and the lock with the new digests. */
function withCurrentDigests(
  lock: Lockfile,
  selected: ReadonlySet<LockEntry>,
  current: ReadonlyMap<string, string>,
): { moved: MovedImage[]; lock: Lockfile } {
  const moved: MovedImage[] = [];
  const entries = lock.entries.map((entry) => {
    if (!selected.has(entry) || !entry.images) return entry;
    const images = entry.images.map((image) => {
      const now = current.get(image.image);
      if (now === undefined || now === image.digest) return image;
      moved.push({ component: lockEntryLabel(entry), image: image.image, locked: image.digest, current: now });
      return { ...image, digest: now };
    });
    return { ...entry, images };
  });
  return { moved, lock: buildLockfile(entries) };
}

/** `update --images`: the selected entries' locked images take the digests their tags serve now. */
export async function refreshLockedImages(
  outcome: LockOutcome,
  ask: DigestAsker,
  names: readonly string[],
  lockFile?: string,
): Promise<LockOutcome & { moved: MovedImage[] }> {
  const text = lockFile === undefined ? undefined : { file: lockFile, locate: outcome.previous?.locate };
  const { moved, lock, problems } = await recheckLockedImages(outcome.lock, ask, names, text);
  failOnProblems(problems);
  return { ...outcome, lock, changes: diffLockfiles(outcome.previous, lock), moved };
}
