/**
 * The image reference grammar of github.com/distribution/reference v0.6.0 (normalize.go,
 * regexp.go, reference.go), which clusterctl and the operator use: parsing for the image
 * overrides (render/images.ts), and the schema formats that check references and override
 * fields in the manifest (manifest/schema-options.ts).
 */

// ---- docker reference grammar (distribution/reference regexp.go) ---------------------------

const ALPHANUMERIC = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|[-]+)';
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN_NAME = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*`;
const IPV6_ADDRESS = '\\[(?:[a-fA-F0-9:]+)\\]';
const DOMAIN_AND_PORT = `(?:${DOMAIN_NAME}|${IPV6_ADDRESS})(?::[0-9]+)?`;
const PATH_COMPONENT = `${ALPHANUMERIC}(?:${SEPARATOR}${ALPHANUMERIC})*`;
const REMOTE_NAME = `${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const NAME = `(?:${DOMAIN_AND_PORT}/)?${REMOTE_NAME}`;
// Go's `\w` is ASCII-only, like JavaScript's without the `u` flag.
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}';

const REFERENCE_RE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const ANCHORED_NAME_RE = new RegExp(`^(?:(${DOMAIN_AND_PORT})/)?(${REMOTE_NAME})$`);
const IDENTIFIER_RE = /^[a-f0-9]{64}$/;
const MAX_PATH_LENGTH = 255;

/** Digest algorithms clusterctl registers (crypto/sha256 and crypto/sha512 imports), hex length. */
const DIGEST_HEX_LENGTH: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };
/** go-digest's DigestRegexp, used to tell a malformed digest from an unsupported algorithm. */
const GO_DIGEST_RE = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;

export const DOCKER_HUB = 'docker.io';
const LEGACY_DOCKER_HUB = 'index.docker.io';
const OFFICIAL_PREFIX = 'library/';

/** A parsed, normalised image reference: `domain/path[:tag][@digest]`. */
export interface ImageReference {
  domain: string;
  path: string;
  tag: string;
  digest: string;
}

type ParsedImage = { ok: true; reference: ImageReference } | { ok: false; message: string };

/** Why a digest is not acceptable, or undefined (go-digest Digest.Validate). */
function digestProblem(digest: string): string | undefined {
  const colon = digest.indexOf(':');
  if (colon <= 0 || colon + 1 === digest.length) return 'invalid digest format';
  const algorithm = digest.slice(0, colon);
  const encoded = digest.slice(colon + 1);
  const hexLength = DIGEST_HEX_LENGTH[algorithm];
  if (hexLength === undefined) {
    return GO_DIGEST_RE.test(digest) ? `unsupported digest algorithm "${algorithm}"` : 'invalid digest format';
  }
  if (encoded.length !== hexLength) return 'invalid checksum digest length';
  if (!/^[a-f0-9]+$/.test(encoded)) return 'invalid checksum digest format';
  return undefined;
}

/** reference.Parse: the grammar only, no normalisation. */
function parseReference(text: string): ImageReference | string {
  if (text === '') return 'repository name must have at least one component';
  const match = REFERENCE_RE.exec(text);
  if (!match) {
    const lower = text.toLowerCase();
    if (lower !== text && REFERENCE_RE.test(lower)) return 'repository name must be lowercase';
    return 'invalid reference format';
  }
  const nameMatch = ANCHORED_NAME_RE.exec(match[1]);
  const domain = nameMatch?.[1] ?? '';
  const path = nameMatch?.[2] ?? match[1];
  if (path.length > MAX_PATH_LENGTH) return `repository name must not be more than ${MAX_PATH_LENGTH} characters`;
  const digest = match[3] ?? '';
  if (digest) {
    const problem = digestProblem(digest);
    if (problem) return problem;
  }
  return { domain, path, tag: match[2] ?? '', digest };
}

/** splitDockerDomain: `busybox` → docker.io + library/busybox, `org/img` → docker.io + org/img. */
function splitDockerDomain(name: string): [domain: string, remainder: string] {
  const slash = name.indexOf('/');
  if (slash < 0) return [DOCKER_HUB, OFFICIAL_PREFIX + name];
  const maybeDomain = name.slice(0, slash);
  const maybeRemainder = name.slice(slash + 1);
  let domain: string;
  let remainder: string;
  if (maybeDomain === 'localhost') {
    [domain, remainder] = [maybeDomain, maybeRemainder];
  } else if (maybeDomain === LEGACY_DOCKER_HUB) {
    [domain, remainder] = [DOCKER_HUB, maybeRemainder];
  } else if (/[.:]/.test(maybeDomain) || maybeDomain.toLowerCase() !== maybeDomain) {
    [domain, remainder] = [maybeDomain, maybeRemainder];
  } else {
    [domain, remainder] = [DOCKER_HUB, name];
  }
  if (domain === DOCKER_HUB && !remainder.includes('/')) remainder = OFFICIAL_PREFIX + remainder;
  return [domain, remainder];
}

/** Parse an image the way Docker does (reference.ParseNormalizedNamed). */
export function parseImage(text: string): ParsedImage {
  if (IDENTIFIER_RE.test(text)) {
    return { ok: false, message: 'invalid repository name, cannot specify 64-byte hexadecimal strings' };
  }
  const [domain, remainder] = splitDockerDomain(text);
  const colon = remainder.indexOf(':');
  const remote = colon < 0 ? remainder : remainder.slice(0, colon);
  if (remote.toLowerCase() !== remote) return { ok: false, message: 'repository name must be lowercase' };
  const parsed = parseReference(`${domain}/${remainder}`);
  if (typeof parsed === 'string') return { ok: false, message: parsed };
  return { ok: true, reference: parsed };
}

// ---- checks of manifest fields (schema formats) -------------------------------------------

/** A digest clusterctl accepts: a registered algorithm and its exact lower-case hex length. */
const CHECKED_DIGEST = Object.entries(DIGEST_HEX_LENGTH)
  .map(([algorithm, length]) => `${algorithm}:[a-f0-9]{${length}}`)
  .join('|');

/**
 * What each image field of the manifest must match. They are regular expressions (not
 * functions) so that the precompiled validator can carry them as literals. An override field may
 * be empty (it then overrides nothing, as in clusterctl).
 */
export const IMAGE_FIELD_PATTERNS = {
  /** A whole reference, Docker-normalised as parseImage reads it (`busybox` is `docker.io/library/busybox`). */
  'image-reference': new RegExp(`^(?![a-f0-9]{64}$)${NAME}(?::${TAG})?(?:@(?:${CHECKED_DIGEST}))?$`),
  /** An override's `repository`: a registry host, or host and path; one trailing `/` is dropped. */
  'image-repository': new RegExp(`^(?:(?:${DOMAIN_AND_PORT}|${NAME})/?)?$`),
  /** An override's `name`: the path components that replace the image's last one. */
  'image-name': new RegExp(`^(?:${REMOTE_NAME})?$`),
  /** An override's `tag`. */
  'image-tag': new RegExp(`^(?:${TAG})?$`),
} as const;

export type ImageField = keyof typeof IMAGE_FIELD_PATTERNS;

/** The grammar in a sentence, for hints. */
export const IMAGE_REFERENCE_GRAMMAR =
  '[registry[:port]/]path[:tag][@digest], where path is lower-case components of letters and digits joined by ".", "_", "__" or "-" and separated by "/", a tag is up to 128 of A-Z a-z 0-9 _ . - not starting with . or -, and a digest is sha256:<64 hex digits> (e.g. registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0)';

/** Why `text` does not fit the image field `field` (undefined when it does); never quotes the text. */
export function imageFieldProblem(field: ImageField, text: string): string | undefined {
  if (IMAGE_FIELD_PATTERNS[field].test(text)) return undefined;
  if (field === 'image-reference') {
    if (text === '') return 'an empty image reference';
    const parsed = parseImage(text);
    return parsed.ok ? 'not an image reference' : parsed.message;
  }
  if (/\s/.test(text)) return 'contains white space';
  if (field !== 'image-tag' && text.toLowerCase() !== text && IMAGE_FIELD_PATTERNS[field].test(text.toLowerCase()))
    return 'repository names must be lower-case';
  return field === 'image-tag' ? 'not a valid tag' : `not a valid ${field === 'image-name' ? 'image name' : 'repository'}`;
}
