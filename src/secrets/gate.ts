/**
 * The final gate and redaction: every form a secret value could take in text (raw, base64 in
 * the three alignments, base64 of base64 for the `*_B64` convention), searched in every output
 * byte before anything is written, and removed from every message.
 */
import { compareStrings, type Diagnostic } from '../core/diagnostics.js';

/** Values shorter than this are not searched for (too many accidental hits). */
export const MINIMUM_SECRET_LENGTH = 4;

/**
 * Values too common to mean anything as bytes: YAML 1.1's booleans and null, and numbers of
 * fewer than 8 characters (ports, counts, seconds). "true" is in every rendered tree, so a byte
 * scan for it only ever finds accidents. Taint tracking still protects such a value wherever it
 * is substituted; only the byte scan, redaction and masking pass it by.
 */
const COMMON_WORD = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|~)$/;
const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/** Whether the bytes of a secret value are worth searching for: long enough and not a common value. */
export function isScannableSecret(value: string): boolean {
  return value.length >= MINIMUM_SECRET_LENGTH && !COMMON_WORD.test(value) && !(value.length < 8 && NUMBER.test(value));
}

/**
 * The part of base64(prefix + value + suffix) that depends only on `value`, for each of the
 * three offsets the value can start at inside the encoded stream.
 */
function base64Forms(bytes: Buffer): string[] {
  const forms: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const first = Math.ceil((offset * 8) / 6); // first character made of value bits only
    const last = Math.floor(((offset + bytes.length) * 8) / 6); // characters before this are complete
    const stable = encoded.slice(first, last);
    if (stable.length >= MINIMUM_SECRET_LENGTH) forms.push(stable);
  }
  return forms;
}

/** Every needle for one value, longest first (so redaction removes the most). */
export function secretForms(value: string): string[] {
  if (!isScannableSecret(value)) return [];
  const raw = Buffer.from(value, 'utf8');
  const once = raw.toString('base64');
  const forms = new Set<string>([value, ...base64Forms(raw), ...base64Forms(Buffer.from(once, 'utf8'))]);
  // the text a base64 value (the *_B64 convention) encodes, which is the credential itself
  const decoded = decodedText(value);
  if (decoded !== undefined && isScannableSecret(decoded)) forms.add(decoded);
  // YAML writes a multi-line value as an indented block: its lines are searched one by one
  for (const text of [value, decoded ?? ''])
    for (const line of text.split(/\r?\n/)) if (line.trim().length >= MINIMUM_LINE_LENGTH) forms.add(line.trim());
  return [...forms].sort((a, b) => b.length - a.length || compareStrings(a, b));
}

/** Lines of a multi-line value shorter than this are not searched alone (`[default]`, `-----END`). */
const MINIMUM_LINE_LENGTH = 16;

/** The UTF-8 text of a canonical base64 value, when it is text (no control characters but tab and line breaks). */
function decodedText(value: string): string | undefined {
  if (value.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return undefined;
  const bytes = Buffer.from(value, 'base64');
  if (bytes.toString('base64') !== value) return undefined;
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  return text.includes('\uFFFD') || /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text) ? undefined : text;
}

export interface SecretNeedles {
  /** [needle, variable name], longest needle first. */
  needles: [string, string][];
}

export function secretNeedles(values: ReadonlyMap<string, readonly string[]>): SecretNeedles {
  const needles: [string, string][] = [];
  for (const [name, list] of values) for (const value of list) for (const form of secretForms(value)) needles.push([form, name]);
  needles.sort(([a, an], [b, bn]) => b.length - a.length || compareStrings(a, b) || compareStrings(an, bn));
  return { needles };
}

/**
 * Adds values found secret during the render (a plain value that landed in a Secret's data) to
 * `needles` in place, so every holder (the gate, redaction, the parse cache's check) sees them;
 * returns the new needles alone (for masks).
 */
export function addSecretValues(needles: SecretNeedles, values: ReadonlyMap<string, readonly string[]>): SecretNeedles {
  const known = new Set(needles.needles.map(([needle, name]) => `${name}\0${needle}`));
  const added = secretNeedles(values).needles.filter(([needle, name]) => !known.has(`${name}\0${needle}`));
  if (added.length > 0) {
    needles.needles.push(...added);
    needles.needles.sort(([a, an], [b, bn]) => b.length - a.length || compareStrings(a, b) || compareStrings(an, bn));
  }
  return { needles: added };
}

/** Whether `text` holds any form of any secret value. */
export function containsSecret(text: string, needles: SecretNeedles): boolean {
  return needles.needles.some(([needle]) => text.includes(needle));
}

/** The object a hit is in: `kind/name` of the YAML document around `at`, when there is one. */
function objectAround(text: string, at: number): string | undefined {
  const start = text.lastIndexOf('\n---', at);
  const endAt = text.indexOf('\n---', at);
  const doc = text.slice(start < 0 ? 0 : start, endAt < 0 ? text.length : endAt);
  const kind = /^kind:\s*(\S+)/m.exec(doc)?.[1];
  const name = /^metadata:\s*\n(?:[ \t]+.*\n)*?[ \t]+name:\s*(\S+)/m.exec(doc)?.[1];
  return kind ? `${kind}/${name ?? '?'}` : undefined;
}

/** One problem per file and variable found in it; no value, no excerpt. */
export function scanOutput(files: ReadonlyMap<string, string>, needles: SecretNeedles, exempt: ReadonlySet<string>): Diagnostic[] {
  const problems: Diagnostic[] = [];
  for (const [file, text] of files) {
    if (exempt.has(file)) continue;
    const reported = new Set<string>();
    for (const [needle, name] of needles.needles) {
      if (reported.has(name)) continue;
      const at = text.indexOf(needle);
      if (at < 0) continue;
      reported.add(name);
      const object = objectAround(text, at);
      problems.push({
        file,
        ...(object ? { object } : {}),
        message: `the output would contain the secret value of ${name}, raw or encoded; nothing was written`,
        expected: 'no secret value in any output file, the wiring, the README or the lockfile',
        hint:
          'find where the value enters (additionalManifests, patches, images, chart values) and use ${' +
          name +
          '} in a Secret instead, or declare it in Config.secrets.public if it is not secret',
      });
    }
  }
  return problems;
}

/** `text` with every secret form replaced by `[secret NAME]`. */
export function redact(text: string, needles: SecretNeedles): string {
  let out = text;
  for (const [needle, name] of needles.needles) if (out.includes(needle)) out = out.split(needle).join(`[secret ${name}]`);
  return out;
}

/** A diagnostic with every field redacted. */
export function redactDiagnostic(d: Diagnostic, needles: SecretNeedles): Diagnostic {
  const out: Diagnostic = { ...d };
  for (const key of ['message', 'file', 'path', 'object', 'expected', 'hint'] as const) {
    const value = out[key];
    if (typeof value === 'string') out[key] = redact(value, needles);
  }
  return out;
}

/** GitHub Actions workflow commands that mask each secret form in the job log. */
export function githubMasks(needles: SecretNeedles): string[] {
  // a value with a line break is masked line by line, as the runner matches single lines
  const lines = new Set<string>();
  for (const [needle] of needles.needles)
    for (const line of needle.split(/\r?\n/)) if (line.length >= MINIMUM_SECRET_LENGTH) lines.add(line);
  return [...lines].sort(compareStrings).map((line) => `::add-mask::${line}`);
}
