/**
 * OCI references as the cluster-api-operator's parseOCISource reads them
 * (internal/controller/oci_source.go): `[http://]registry[:port]/repository[:tag]`, plus a
 * `@sha256:<hex>` digest pin (an extension), checked against the distribution spec's grammars.
 */
import { CapiGitopsError } from '../../core/diagnostics.js';
import { MASK } from '../../core/redact.js';

export const SHA256_DIGEST = /^sha256:([0-9a-f]{64})$/;
/** The distribution spec's tag grammar. */
export const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
/** The distribution spec's repository name grammar: lower-case path components. */
const REPOSITORY = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*)*$/;
const REGISTRY_HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
const REFERENCE_FORM = '[http://]<registry>[:<port>]/<repository>[:<tag>], e.g. ghcr.io/example/cluster-api:v1.12.0';

/** An OCI reference split as the operator's parseOCISource splits it. */
export interface OciReference {
  /** `host[:port]` */
  registry: string;
  repository: string;
  /** The tag written in the reference; the provider version is pulled when absent. */
  tag?: string;
  /** `sha256:<hex>` written after `@` (an extension). */
  digest?: string;
  plainHttp: boolean;
}

function referenceError(reference: string, why: string, hint?: string): CapiGitopsError {
  return new CapiGitopsError({ message: `invalid OCI reference ${JSON.stringify(reference)}: ${why}`, expected: REFERENCE_FORM, hint });
}

/**
 * Splits `[http://]registry/repository[:tag][@sha256:…]`. The tag rule is the operator's: split
 * on ":" (at most 3 parts); two parts make a tag unless the second holds a "/" (then it was a
 * port), three parts are registry:port/repository:tag.
 */
export function parseOciReference(reference: string): OciReference {
  const written = reference.trim();
  const plainHttp = written.startsWith('http://');
  let rest = plainHttp ? written.slice('http://'.length) : written;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(rest)?.[1];
  if (scheme) {
    throw referenceError(
      reference,
      `the "${scheme}://" prefix is not part of an OCI reference`,
      'write the registry host first; only an "http://" prefix is understood, meaning plain HTTP',
    );
  }
  let digest: string | undefined;
  const at = rest.indexOf('@');
  // `user:password@registry/…`: an "@" before the first "/" is userinfo, which a reference cannot carry
  if (at >= 0 && !rest.slice(0, at).includes('/')) {
    // never quoted: without a scheme, the printed message's URL redaction would not mask it
    const masked = `${plainHttp ? 'http://' : ''}${MASK}@${rest.slice(at + 1)}`;
    throw referenceError(
      masked,
      'credentials (user:password@) are not part of an OCI reference',
      "write the registry host first, and give the credentials as OCI_USERNAME and OCI_PASSWORD in the provider's configSecret",
    );
  }
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!SHA256_DIGEST.test(digest))
      throw referenceError(reference, `"${digest}" is not a sha256 digest`, 'a digest reads sha256:<64 lower-case hex digits>');
  }
  let tag: string | undefined;
  const parts = rest.split(':');
  if (parts.length === 2 && !parts[1].includes('/')) {
    rest = parts[0];
    tag = parts[1];
  } else if (parts.length >= 3) {
    rest = `${parts[0]}:${parts[1]}`;
    tag = parts.slice(2).join(':');
  }
  const slash = rest.indexOf('/');
  if (slash < 0)
    throw referenceError(
      reference,
      'no registry host',
      'name the registry, e.g. ghcr.io/<repository> (Docker Hub is registry-1.docker.io)',
    );
  const registry = rest.slice(0, slash);
  const repository = rest.slice(slash + 1);
  if (!REGISTRY_HOST.test(registry)) throw referenceError(reference, `"${registry}" is not a registry host`);
  if (!REPOSITORY.test(repository))
    throw referenceError(
      reference,
      `"${repository}" is not a repository name`,
      'repository names are lower-case path components of letters, digits and . _ -',
    );
  if (tag !== undefined && !TAG.test(tag)) throw referenceError(reference, `"${tag}" is not a valid tag`);
  return { registry, repository, tag, digest, plainHttp };
}
