/**
 * The sops strategy: a Secret file is encrypted as `sops --encrypt --age <recipients>
 * --encrypted-regex '^(data|stringData)$'` would (getsops/sops sops.go Tree.Encrypt,
 * aes/cipher.go, age/keysource.go): a random 32-byte data key, each value under data/stringData
 * as `ENC[AES256_GCM,data:…,iv:…,tag:…,type:…]` with a 32-byte IV and the key path as additional
 * data, the data key age-encrypted (armored) to each recipient, and the MAC: SHA-512 over every
 * value in file order, upper-case hex, encrypted with `lastmodified` as additional data.
 * age itself comes from the age-encryption library.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Decrypter, Encrypter, armor } from 'age-encryption';
import { parseDocument } from 'yaml';
import { isPlainObject } from '../core/kobject.js';
import { emitYamlDocument } from '../yaml/emit.js';

export const SOPS_VERSION = '3.9.4';
export const ENCRYPTED_REGEX = '^(data|stringData)$';
const ENCRYPTED = new RegExp(ENCRYPTED_REGEX);

type Scalar = string | number | boolean | null;

/** sops' ToBytes: how a value is hashed and encrypted. */
function scalarText(value: Scalar): { text: string; type: string } {
  if (typeof value === 'string') return { text: value, type: 'str' };
  if (typeof value === 'boolean') return { text: value ? 'True' : 'False', type: 'bool' };
  if (typeof value === 'number')
    return Number.isInteger(value) ? { text: String(value), type: 'int' } : { text: String(value), type: 'float' };
  return { text: '', type: 'str' };
}

function encryptText(text: string, key: Uint8Array, additionalData: string, type: string): string {
  const iv = randomBytes(32);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(additionalData, 'utf8'));
  const data = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return `ENC[AES256_GCM,data:${data.toString('base64')},iv:${iv.toString('base64')},tag:${tag.toString('base64')},type:${type}]`;
}

/** RFC 3339 in UTC without fractions, as sops writes lastmodified. */
function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

/**
 * Encrypts one YAML document (an object file of the output). The leading comment line stays,
 * as sops keeps comments outside encrypted keys.
 */
export async function sopsEncryptFile(text: string, recipients: readonly string[], now = new Date()): Promise<string> {
  const header = /^(#[^\n]*\n)*/.exec(text)![0];
  const root = parseDocument(text, { schema: 'core' }).toJS() as Record<string, unknown>;
  const dataKey = randomBytes(32);
  const hash = createHash('sha512');
  const walk = (value: unknown, path: string[], encrypted: boolean): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item, path, encrypted)); // list indices are not in the path
    if (isPlainObject(value)) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, [...path, k], encrypted || ENCRYPTED.test(k))]));
    }
    const { text: plain, type } = scalarText(value as Scalar);
    hash.update(plain, 'utf8');
    return encrypted ? encryptText(plain, dataKey, path.join(':') + ':', type) : value;
  };
  const encrypted = walk(root, [], false) as Record<string, unknown>;
  const lastmodified = rfc3339(now);
  const mac = hash.digest('hex').toUpperCase();
  const age = [];
  for (const recipient of recipients) {
    const encrypter = new Encrypter();
    encrypter.addRecipient(recipient);
    age.push({ recipient, enc: armor.encode(await encrypter.encrypt(dataKey)) });
  }
  encrypted.sops = {
    age,
    lastmodified,
    mac: encryptText(mac, dataKey, lastmodified, 'str'),
    encrypted_regex: ENCRYPTED_REGEX,
    version: SOPS_VERSION,
  };
  return header + emitYamlDocument(encrypted);
}

/**
 * sops' default key file, read whatever else is set: `sops/age/keys.txt` in Go's
 * os.UserConfigDir (getsops/sops age/keysource.go getUserConfigDir, which also takes
 * XDG_CONFIG_HOME on macOS). Undefined when that directory cannot be determined, as Go errs.
 */
export function sopsUserKeyFile(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | undefined {
  const xdg = env.XDG_CONFIG_HOME ?? '';
  const home = env.HOME ?? '';
  let dir: string | undefined;
  if (platform === 'win32') dir = env.AppData || env.APPDATA || undefined;
  else if (platform === 'darwin') dir = xdg || (home ? path.join(home, 'Library', 'Application Support') : undefined);
  else if (xdg) dir = path.isAbsolute(xdg) ? xdg : undefined;
  else dir = home ? path.join(home, '.config') : undefined;
  return dir === undefined ? undefined : path.join(dir, 'sops', 'age', 'keys.txt');
}

/** The identities sops itself reads: SOPS_AGE_KEY (keys, one a line), SOPS_AGE_KEY_FILE and its default key file. */
export async function sopsIdentities(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Promise<string[]> {
  const read = (file: string | undefined) => (file ? readFile(file, 'utf8').catch(() => '') : Promise.resolve(''));
  const text = [env.SOPS_AGE_KEY ?? '', await read(env.SOPS_AGE_KEY_FILE), await read(sopsUserKeyFile(env, platform))].join('\n');
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.startsWith('AGE-SECRET-KEY-'));
}

function decryptValue(enc: string, key: Uint8Array, additionalData: string): string | undefined {
  const match = /^ENC\[AES256_GCM,data:([^,]*),iv:([^,]*),tag:([^,]*),type:(\w+)\]$/.exec(enc);
  if (!match) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(match[2]!, 'base64'));
    decipher.setAAD(Buffer.from(additionalData, 'utf8'));
    decipher.setAuthTag(Buffer.from(match[3]!, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(match[1]!, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

/**
 * Whether `previous` (the file written last time) already holds `plain` for the same recipients:
 * then it is kept byte for byte, so an unchanged Secret does not churn in review. Needs one of
 * the recipients' identities; anything unexpected answers false (the file is re-encrypted).
 */
export async function sopsFileHolds(
  previous: string,
  plain: string,
  recipients: readonly string[],
  identities: readonly string[],
): Promise<boolean> {
  if (identities.length === 0) return false;
  const header = /^(#[^\n]*\n)*/.exec(plain)![0];
  if (!previous.startsWith(header)) return false;
  let old: Record<string, unknown>;
  try {
    old = parseDocument(previous, { schema: 'core' }).toJS() as Record<string, unknown>;
  } catch {
    return false;
  }
  const metadata = old.sops as { age?: { recipient?: string; enc?: string }[]; encrypted_regex?: string } | undefined;
  const stanzas = metadata?.age ?? [];
  if (metadata?.encrypted_regex !== ENCRYPTED_REGEX || !isDeepStrictEqual(stanzas.map((s) => s.recipient).sort(), [...recipients].sort()))
    return false;
  let dataKey: Uint8Array | undefined;
  for (const stanza of stanzas) {
    try {
      const decrypter = new Decrypter();
      for (const identity of identities) decrypter.addIdentity(identity);
      dataKey = await decrypter.decrypt(armor.decode(stanza.enc ?? ''), 'uint8array');
      break;
    } catch {
      // not ours; try the next stanza
    }
  }
  if (!dataKey) return false;
  const { sops: _, ...body } = old;
  let intact = true;
  const walk = (value: unknown, path: string[], encrypted: boolean): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item, path, encrypted));
    if (isPlainObject(value))
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, [...path, k], encrypted || ENCRYPTED.test(k))]));
    if (!encrypted) return value;
    const text = typeof value === 'string' ? decryptValue(value, dataKey!, path.join(':') + ':') : undefined;
    if (text === undefined) intact = false;
    return text;
  };
  const decrypted = walk(body, [], false);
  return intact && isDeepStrictEqual(decrypted, stringsUnderEncrypted(parseDocument(plain, { schema: 'core' }).toJS(), false));
}

/** Encrypted values come back as their text; compare the new plaintext the same way. */
function stringsUnderEncrypted(value: unknown, encrypted: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => stringsUnderEncrypted(item, encrypted));
  if (isPlainObject(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stringsUnderEncrypted(v, encrypted || ENCRYPTED.test(k))]));
  return encrypted ? scalarText(value as Scalar).text : value;
}
