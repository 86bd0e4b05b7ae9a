/**
 * The release a local cert-manager manifest is, when neither `certManager.version` nor its
 * directory says: cert-manager's release manifest tags every image with the release
 * (`quay.io/jetstack/cert-manager-controller:v1.13.0`) and labels every object
 * `app.kubernetes.io/version: v1.13.0`. When all of them name one semantic version, that is the
 * release; otherwise (none, several, a mirror retagged) the run is refused rather than stamped
 * with the default release, which the lockfile, the version annotation and `plan` would repeat.
 */
import { CapiGitopsError, compareStrings, type DiagnosticOrigin } from '../core/diagnostics.js';
import { isPlainObject, type KObject } from '../core/kobject.js';
import { parseImage } from '../core/image-reference.js';
import { parseSemantic } from '../core/versions.js';
import { parseArtifact } from '../yaml/parse.js';

const VERSION_LABEL = 'app.kubernetes.io/version';
const CONTAINER_LISTS = ['containers', 'initContainers'];

/** Every image tag of a container and every app.kubernetes.io/version label, anywhere in the object. */
function collectVersions(value: unknown, found: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectVersions(item, found);
    return;
  }
  if (!isPlainObject(value)) return;
  for (const [key, field] of Object.entries(value)) {
    if (key === 'labels' && isPlainObject(field) && typeof field[VERSION_LABEL] === 'string') found.add(field[VERSION_LABEL]);
    if (CONTAINER_LISTS.includes(key) && Array.isArray(field)) {
      for (const container of field) {
        if (!isPlainObject(container) || typeof container.image !== 'string') continue;
        const image = parseImage(container.image);
        // an image pinned by digest alone names no release
        if (image.ok && image.reference.tag) found.add(image.reference.tag);
      }
    }
    collectVersions(field, found);
  }
}

/** The versions a cert-manager manifest names, sorted. */
export function certManagerManifestVersions(objects: readonly KObject[]): string[] {
  const found = new Set<string>();
  for (const obj of objects) collectVersions(obj, found);
  return [...found].sort(compareStrings);
}

/** The release the file at `file` is, or a problem at `origin` asking for certManager.version. */
export function certManagerFileVersion(text: string, file: string, origin: DiagnosticOrigin): string {
  const versions = certManagerManifestVersions(parseArtifact(text, { source: file }));
  if (versions.length === 1 && parseSemantic(versions[0]!)) return versions[0]!;
  const said =
    versions.length === 0
      ? 'names no release in its image tags or app.kubernetes.io/version labels'
      : `names ${versions.length === 1 ? 'the release' : 'several releases'} ${versions.join(', ')} in its image tags and app.kubernetes.io/version labels`;
  throw new CapiGitopsError({
    ...origin,
    message: `${file} is not in a directory named for its release, certManager.version is not set, and the file ${said}`,
    expected: 'certManager.version: <the release of the file>, or the file in a directory named for it (…/v1.13.0/cert-manager.yaml)',
    hint: 'add version: <tag> (the cert-manager release the file comes from) under certManager: in the Config document',
  });
}
