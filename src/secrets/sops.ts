/**
 * The sops strategy: a Secret file is encrypted as `sops --encrypt --age <recipients>
 * --encrypted-regex '^(data|stringData)$'` would (getsops/sops sops.go Tree.Encrypt,
 * aes/cipher.go, age/keysource.go): a random 32-byte data key, each value under data/stringData
 * as `ENC[AES256_GCM,data:…,iv:…,tag:…,type:…]` with a 32-byte IV and the key path as additional
 * data, the data key age-encrypted (armored) to each recipient, and the MAC: SHA-512 over every
 * value in file order, upper-case hex, encrypted with `lastmodified` as additional data.
 * age itself comes from the age-encryption library.
 */
import { spawn } from 'node:child_process';
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Decrypter, Encrypter, armor } from 'age-encryption';
import { parseDocument } from 'yaml';
import { isPlainObject } from '../core/kobject.js';
import { registerSecret } from '../core/redact.js';
import { clearedEachRun } from '../core/run-state.js';
import { emitYamlDocument } from '../yaml/emit.js';

const SOPS_VERSION = '3.9.4';
const ENCRYPTED_REGEX = '^(data|stringData)$';
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
 * What a file written before gives a new encryption of it, as sops keeps them when it edits a
 * file (cmd/sops edit, aes/cipher.go stash): its data key with the age stanzas that carry it, and
 * the encrypted form of each value (by additional data, type and text), so a value that did not
 * change keeps its bytes and review shows only the ones that did.
 */
export interface SopsReuse {
  dataKey: Uint8Array;
  age: unknown[];
  values: Map<string, string>;
}

const reuseKey = (additionalData: string, type: string, text: string) => `${additionalData}\0${type}\0${text}`;

/**
 * Encrypts one YAML document (an object file of the output). The leading comment line stays,
 * as sops keeps comments outside encrypted keys. With `reuse`, the data key and the unchanged
 * values of the file written before are kept. Returns the file and what a later encryption of
 * it can reuse.
 */
export async function sopsEncryptFile(
  text: string,
  recipients: readonly string[],
  reuse?: SopsReuse,
): Promise<{ text: string; reuse: SopsReuse }> {
  const header = /^(#[^\n]*\n)*/.exec(text)![0];
  const root = parseDocument(text, { schema: 'core' }).toJS() as Record<string, unknown>;
  const dataKey = reuse?.dataKey ?? randomBytes(32);
  const values = new Map<string, string>();
  const encryptValue = (plain: string, additionalData: string, type: string) => {
    const key = reuseKey(additionalData, type, plain);
    const enc = reuse?.values.get(key) ?? encryptText(plain, dataKey, additionalData, type);
    values.set(key, enc);
    return enc;
  };
  const hash = createHash('sha512');
  const walk = (value: unknown, path: string[], encrypted: boolean): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item, path, encrypted)); // list indices are not in the path
    if (isPlainObject(value)) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, [...path, k], encrypted || ENCRYPTED.test(k))]));
    }
    // as sops: a null is neither hashed nor encrypted, an empty string is written empty (aes/cipher.go isEmpty);
    // its parser (`data:(.+)`) refuses an ENC[…] whose data is empty, so Flux could not decrypt the file
    if (value === null || value === '') return value;
    const { text: plain, type } = scalarText(value as Scalar);
    hash.update(plain, 'utf8');
    return encrypted ? encryptValue(plain, path.join(':') + ':', type) : value;
  };
  const encrypted = walk(root, [], false) as Record<string, unknown>;
  const lastmodified = rfc3339(new Date());
  const mac = hash.digest('hex').toUpperCase();
  const age: unknown[] = reuse ? [...reuse.age] : [];
  for (const recipient of reuse ? [] : recipients) {
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
  return { text: header + emitYamlDocument(encrypted), reuse: { dataKey, age, values } };
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

/** The identities sops reads, and why a source it was told of gave none (words without the command's output). */
interface SopsIdentities {
  identities: string[];
  failures: string[];
}

/**
 * The identities sops itself reads (getsops/sops age/keysource.go loadIdentities): SOPS_AGE_KEY
 * (keys, one a line), SOPS_AGE_KEY_FILE, the stdout of SOPS_AGE_KEY_CMD and the default key
 * file. As there, a source that fails is recorded and the others still count. Each identity is
 * registered as a secret, so no message can print it.
 */
export async function sopsIdentities(env: NodeJS.ProcessEnv): Promise<SopsIdentities> {
  const read = (file: string | undefined) => (file ? readFile(file, 'utf8').catch(() => '') : Promise.resolve(''));
  const failures: string[] = [];
  const command = env.SOPS_AGE_KEY_CMD === undefined ? '' : await keyCommandOutput(env.SOPS_AGE_KEY_CMD, failures);
  const text = [env.SOPS_AGE_KEY ?? '', await keyFile(env.SOPS_AGE_KEY_FILE, failures), command, await read(sopsUserKeyFile(env))].join(
    '\n',
  );
  const identities = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.startsWith('AGE-SECRET-KEY-'));
  for (const identity of identities) registerSecret(identity);
  return { identities, failures };
}

/**
 * SOPS_AGE_KEY_FILE, which sops fails on when it cannot open it ("failed to open file"): told
 * by its path and the error's code, and when it holds no identity (a recipient, a `.pub` file).
 */
async function keyFile(file: string | undefined, failures: string[]): Promise<string> {
  if (!file) return '';
  try {
    const text = await readFile(file, 'utf8');
    if (!/^\s*AGE-SECRET-KEY-/m.test(text)) failures.push(`SOPS_AGE_KEY_FILE: ${file} holds no AGE-SECRET-KEY- line`);
    return text;
  } catch (err) {
    failures.push(`SOPS_AGE_KEY_FILE: ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'unknown error'})`);
    return '';
  }
}

/** One run of each SOPS_AGE_KEY_CMD per process: a fleet's clusters (or a prompt it shows) ask once. */
const commandOutputs = clearedEachRun(new Map<string, Promise<{ stdout: string } | { failure: string }>>());

async function keyCommandOutput(command: string, failures: string[]): Promise<string> {
  let output = commandOutputs.get(command);
  if (output === undefined) commandOutputs.set(command, (output = runKeyCommand(command)));
  const result = await output;
  if ('failure' in result) failures.push(`SOPS_AGE_KEY_CMD: ${result.failure}`);
  return 'stdout' in result ? result.stdout : '';
}

/**
 * As sops: the value split into words as google/shlex Split does, the first run with the others
 * as its arguments (no shell), stdin empty; its stdout read, its stderr kept from the terminal
 * (exec.Cmd Output). A failure is told by its exit code, never by what the command printed.
 */
function runKeyCommand(command: string): Promise<{ stdout: string } | { failure: string }> {
  let words: string[];
  try {
    words = shlexSplit(command);
  } catch (err) {
    return Promise.resolve({ failure: `cannot be split into words: ${(err as Error).message}` });
  }
  // sops indexes the first word unchecked (a panic); an empty value is told here instead
  if (words.length === 0) return Promise.resolve({ failure: 'names no command' });
  const program = words[0]!;
  return new Promise((resolve) => {
    const child = spawn(program, words.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.resume();
    child.on('error', (err: NodeJS.ErrnoException) =>
      resolve({ failure: `the command ${program} could not be run (${err.code ?? 'unknown error'})` }),
    );
    child.on('close', (code, signal) => {
      if (code === 0) resolve({ stdout: Buffer.concat(chunks).toString('utf8') });
      else if (code !== null) resolve({ failure: `the command ${program} failed with exit code ${code}` });
      else if (signal !== null) resolve({ failure: `the command ${program} was ended by ${signal}` });
    });
  });
}

/**
 * google/shlex Split (the version sops uses): words separated by space, tab, CR and LF; '…' is
 * literal; "…" takes a backslash as escaping the next character; a backslash outside quotes
 * escapes the next one; a # that starts a word begins a comment to the end of the line.
 */
function shlexSplit(text: string): string[] {
  const words: string[] = [];
  const space = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';
  let i = 0;
  while (i < text.length) {
    if (space(text[i]!)) {
      i++;
      continue;
    }
    if (text[i] === '#') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    let word = '';
    while (i < text.length && !space(text[i]!)) {
      const c = text[i++]!;
      if (c === '\\') {
        if (i >= text.length) throw new Error('it ends in a backslash');
        word += text[i++];
      } else if (c === "'") {
        const end = text.indexOf("'", i);
        if (end < 0) throw new Error('a quote is not closed');
        word += text.slice(i, end);
        i = end + 1;
      } else if (c === '"') {
        for (;;) {
          if (i >= text.length) throw new Error('a quote is not closed');
          const q = text[i++]!;
          if (q === '"') break;
          if (q === '\\') {
            if (i >= text.length) throw new Error('it ends in a backslash');
            word += text[i++];
          } else word += q;
        }
      } else word += c;
    }
    words.push(word);
  }
  return words;
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
 * Whether `previous` (the file written last time) already holds `plain` for the same recipients
 * (`holds`): then it is kept byte for byte, so an unchanged Secret does not churn in review. Needs
 * one of the recipients' identities: `unopened` when none at hand opens its data key; anything
 * else unexpected answers `differs` (the file is re-encrypted), with what it can reuse when it
 * opened.
 */
export async function sopsFileState(
  previous: string,
  plain: string,
  recipients: readonly string[],
  identities: readonly string[],
): Promise<{ state: 'holds' | 'differs' | 'unopened'; reuse?: SopsReuse }> {
  const header = /^(#[^\n]*\n)*/.exec(plain)![0];
  if (!previous.startsWith(header)) return { state: 'differs' };
  let old: unknown;
  try {
    old = parseDocument(previous, { schema: 'core' }).toJS();
  } catch {
    return { state: 'differs' };
  }
  // a file emptied or edited by hand is encrypted afresh, whatever shape it has
  if (!isPlainObject(old) || !isPlainObject(old.sops)) return { state: 'differs' };
  const metadata = old.sops as { age?: unknown; encrypted_regex?: unknown };
  const stanzas = (Array.isArray(metadata.age) ? metadata.age.filter(isPlainObject) : []) as { recipient?: unknown; enc?: unknown }[];
  if (metadata.encrypted_regex !== ENCRYPTED_REGEX || !isDeepStrictEqual(stanzas.map((s) => s.recipient).sort(), [...recipients].sort()))
    return { state: 'differs' };
  let dataKey: Uint8Array | undefined;
  for (const stanza of stanzas) {
    try {
      const decrypter = new Decrypter();
      for (const identity of identities) decrypter.addIdentity(identity);
      dataKey = await decrypter.decrypt(armor.decode(typeof stanza.enc === 'string' ? stanza.enc : ''), 'uint8array');
      break;
    } catch {
      // not ours; try the next stanza
    }
  }
  if (!dataKey) return { state: 'unopened' };
  const { sops: _, ...body } = old;
  const values = new Map<string, string>();
  let intact = true;
  const walk = (value: unknown, path: string[], encrypted: boolean): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item, path, encrypted));
    if (isPlainObject(value))
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, [...path, k], encrypted || ENCRYPTED.test(k))]));
    if (!encrypted || value === null || value === '') return value;
    const additionalData = path.join(':') + ':';
    const text = typeof value === 'string' ? decryptValue(value, dataKey!, additionalData) : undefined;
    if (text === undefined) intact = false;
    else values.set(reuseKey(additionalData, /,type:(\w+)\]$/.exec(value as string)![1]!, text), value as string);
    return text;
  };
  const decrypted = walk(body, [], false);
  const holds = intact && isDeepStrictEqual(decrypted, stringsUnderEncrypted(parseDocument(plain, { schema: 'core' }).toJS(), false));
  return { state: holds ? 'holds' : 'differs', reuse: { dataKey, age: stanzas, values } };
}

/** Encrypted values come back as their text; compare the new plaintext the same way. */
function stringsUnderEncrypted(value: unknown, encrypted: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => stringsUnderEncrypted(item, encrypted));
  if (isPlainObject(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stringsUnderEncrypted(v, encrypted || ENCRYPTED.test(k))]));
  return encrypted && value !== null ? scalarText(value as Scalar).text : value;
}
