/**
 * `-f` paths that hold nothing but v1 Secrets: `diff --base` reads them from the working tree
 * for both sides, wherever they are (outside the repository, or ignored by it), since secret
 * values are kept out of Git and the base commit cannot have them.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { isPlainObject } from '../core/kobject.js';
import { LOCKFILE_NAME } from '../manifest/files.js';
import YAML from 'yaml';

/** The names a `-f` directory contributes (manifest/files.ts: *.yaml and *.yml directly in it, not the lockfile). */
export function isManifestFileName(name: string): boolean {
  return name !== LOCKFILE_NAME && (name.endsWith('.yaml') || name.endsWith('.yml'));
}

/** Whether a YAML file's documents are all v1 Secrets (and there is one). */
export async function fileHoldsOnlySecrets(file: string): Promise<boolean> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return false;
  let secrets = 0;
  try {
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
export async function holdsOnlySecrets(given: string): Promise<boolean> {
  const info = await stat(given).catch(() => undefined);
  if (!info) return false;
  if (info.isFile()) return fileHoldsOnlySecrets(given);
  if (!info.isDirectory()) return false;
  const names = (await readdir(given)).filter(isManifestFileName);
  if (names.length === 0) return false;
  for (const name of names) if (!(await fileHoldsOnlySecrets(path.join(given, name)))) return false;
  return true;
}
