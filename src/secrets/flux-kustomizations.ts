/**
 * The Secrets that the laid-out Flux Kustomizations read and the user must create in the cluster:
 * those postBuild.substituteFrom names (the flux-substitute strategy) and the age key that
 * spec.decryption.secretRef names (the sops strategy).
 */
import { parseAllDocuments } from 'yaml';
import { isPlainObject } from '../core/kobject.js';
import { compareStrings } from '../core/diagnostics.js';
import { shellWord } from '../core/shell.js';

/** A Secret that Kustomizations read, in their namespace (when they name one), with the files that say so. */
export interface ReferencedSecret {
  namespace?: string;
  name: string;
  files: string[];
}

/**
 * The Secrets `namesOf` finds in the spec of each Flux Kustomization of `files` whose text holds
 * `needle`, sorted by namespace and name.
 */
export function kustomizationSecrets(
  files: ReadonlyMap<string, string>,
  needle: string,
  namesOf: (spec: Record<string, unknown>) => string[],
): ReferencedSecret[] {
  const secrets = new Map<string, ReferencedSecret>();
  for (const [file, text] of files) {
    if (!text.includes(needle)) continue;
    for (const doc of parseAllDocuments(text)) {
      const object: unknown = doc.errors.length > 0 ? undefined : doc.toJS();
      if (
        !isPlainObject(object) ||
        object.kind !== 'Kustomization' ||
        !String(object.apiVersion).startsWith('kustomize.toolkit.fluxcd.io/')
      )
        continue;
      const metadata = isPlainObject(object.metadata) ? object.metadata : {};
      const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : undefined;
      for (const name of namesOf(isPlainObject(object.spec) ? object.spec : {})) {
        const key = `${namespace ?? ''}/${name}`;
        const entry = secrets.get(key) ?? { ...(namespace ? { namespace } : {}), name, files: [] };
        if (!entry.files.includes(file)) entry.files.push(file);
        secrets.set(key, entry);
      }
    }
  }
  return [...secrets.entries()].sort(([a], [b]) => compareStrings(a, b)).map(([, secret]) => secret);
}

/** Where a Secret is, in words, and the kubectl flag that creates it there. */
export function secretPlace(secret: ReferencedSecret): { where: string; namespaceFlag: string } {
  return secret.namespace
    ? { where: `in namespace ${secret.namespace}`, namespaceFlag: ` --namespace ${shellWord(secret.namespace)}` }
    : { where: "in the Kustomizations' namespace", namespaceFlag: '' };
}

/**
 * What the user must create for Flux to decrypt the sops strategy's files: the age key in each
 * Secret that spec.decryption.secretRef names, under a key ending in `.agekey`, as
 * kustomize-controller reads it (fluxcd/kustomize-controller internal/decryptor/decryptor.go,
 * DecryptionAgeExt). Without a secretRef the controller's own --sops-age-secret is used: nothing to tell.
 */
export function sopsKeySecretWarnings(files: ReadonlyMap<string, string>, encrypted: readonly string[]): string[] {
  const secrets = kustomizationSecrets(files, 'decryption', (spec) => {
    const decryption = isPlainObject(spec.decryption) ? spec.decryption : {};
    const ref = isPlainObject(decryption.secretRef) ? decryption.secretRef : {};
    return decryption.provider === 'sops' && typeof ref.name === 'string' ? [ref.name] : [];
  });
  const decrypted = [...new Set(encrypted)].sort(compareStrings).join(', ');
  return secrets.map((secret) => {
    const { where, namespaceFlag } = secretPlace(secret);
    return (
      `--secrets sops: Flux decrypts ${decrypted} with the age key in Secret ${secret.name} ${where} ` +
      `(spec.decryption.secretRef in ${secret.files.sort(compareStrings).join(', ')}); create it in the cluster, ` +
      `with SOPS_AGE_KEY_FILE set to the age identity file: ` +
      `kubectl create secret generic ${shellWord(secret.name)}${namespaceFlag} --from-file=age.agekey="$SOPS_AGE_KEY_FILE"`
    );
  });
}
