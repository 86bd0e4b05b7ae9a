/**
 * `-f` paths that hold nothing but v1 Secrets: `diff --base` reads them from the working tree
 * for both sides, wherever they are (outside the repository, or ignored by it), since secret
 * values are kept out of Git and the base commit cannot have them; the output README's command
 * leaves them out, as it leaves out --secret-file. Read synchronously: the README's command is
 * built before a run starts.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { isPlainObject } from '../core/kobject.js';
import { isManifestName, MAX_MANIFEST_BYTES } from '../manifest/files.js';
import YAML from 'yaml';
import { YamlBudget } from '../yaml/bounds.js';

/** Whether a YAML file's documents are all v1 Secrets (and there is one). */
export function fileHoldsOnlySecrets(file: string): boolean {
  let text: string;
  try {
    // a named pipe would block this synchronous read, and with it the signal handlers, for ever;
    // the manifest's reader reports it (and a file over its bound)
    const info = statSync(file);
    if (!info.isFile() || info.size > MAX_MANIFEST_BYTES) return false;
    text = readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  // most manifest files name no Secret: no parse for them
  if (!/\bSecret\b/.test(text)) return false;
  let secrets = 0;
  try {
    // the loader's bounds first: past them the parse is what they prevent (a 6 MB flow list is
    // gigabytes), and the loader reports the file at its line
    new YamlBudget().check(text, file);
    for (const doc of YAML.parseAllDocuments(text)) {
      if (doc.errors.length > 0) return false;
      const value: unknown = doc.toJS();
      if (value === null || value === undefined) continue;
      if (!isPlainObject(value) || value.apiVersion !== 'v1' || value.kind !== 'Secret') return false;
      secrets++;
    }
  } catch {
    return false;
  }
  return secrets > 0;
}

/** Whether a `-f` path (a file, or a directory of manifest files) holds only Secrets. */
export function holdsOnlySecrets(given: string): boolean {
  let names: string[];
  try {
    if (statSync(given).isFile()) return fileHoldsOnlySecrets(given);
    names = readdirSync(given).filter(isManifestName);
  } catch {
    return false;
  }
  return names.length > 0 && names.every((name) => fileHoldsOnlySecrets(path.join(given, name)));
}
