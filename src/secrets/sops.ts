/**
 * The sops strategy: a Secret file is encrypted as `sops --encrypt --age <recipients>
 * --encrypted-regex '^(data|stringData)$'` would (getsops/sops sops.go Tree.Encrypt,
 * aes/cipher.go, age/keysource.go): a random 32-byte data key, each value under data/stringData
 * as `ENC[AES256_GCM,data:…,iv:…,tag:…,type:…]` with a 32-byte IV and the key path as additional
 * data, the data key age-encrypted (armored) to each recipient, and the MAC: SHA-512 over every
 * value in file order, upper-case hex, encrypted with `lastmodified` as additional data.
 * age itself comes from the age-encryption library.
 */
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { Encrypter, armor } from 'age-encryption';
import { parseDocument } from 'yaml';
import { isPlainObject } from '../model/kobject.js';
import { emitYamlDocument } from '../yaml/emit.js';

export const SOPS_VERSION = '3.9.4';
export const ENCRYPTED_REGEX = '^(data|stringData)$';
const ENCRYPTED = new RegExp(ENCRYPTED_REGEX);

type Scalar = string | number | boolean | null;

/** sops' ToBytes: how a value is hashed and encrypted. */
function scalarText(value: Scalar): { text: string; type: string } {
  if (typeof value === 'string') return { text: value, type: 'str' };
  if (typeof value === 'boolean') return { text: value ? 'True' : 'False', type: 'bool' };
  if (typeof value === 'number') return Number.isInteger(value) ? { text: String(value), type: 'int' } : { text: String(value), type: 'float' };
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
