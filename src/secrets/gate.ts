/**
 * The final gate and redaction: every form a secret value could take in text (raw, base64 in
 * the three alignments, base64 of base64 for the `*_B64` convention, the escaped forms YAML and
 * JSON write, hex), searched in every output byte before anything is written, and removed from
 * every message. The gate also searches each output line holding an escape decoded (YAML and JSON
 * escapes, URL encoding), a multi-line value as runs of lines, and a long value split in two.
 */
import { CapiGitopsError, compareStrings, type Diagnostic } from '../core/diagnostics.js';
import { doubleQuoted } from '../yaml/emit.js';
import { ONLY_IF_NOT_A_CREDENTIAL } from '../render/types.js';
import { clusterRanges } from '../core/cluster-ranges.js';
import { StringIndex } from '../core/string-index.js';
import { sha256Hex } from '../core/digest.js';
import { escapeData } from '../core/workflow-commands.js';
import { fileNameCuts, sanitizeFileNamePart } from '../core/names.js';

/** Values shorter than this are not searched for (too many accidental hits). */
const MINIMUM_SECRET_LENGTH = 4;

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
 * Lines of a multi-line value that carry no secret (an INI section, a comment, PEM armour), also in
 * form encoding (`+` for a space); as action/secrets.mjs STRUCTURE_LINE (a test holds the two equal).
 * Searched alone, a public certificate anywhere in the output would match a secret key's armour;
 * masked, `[default]` would be starred all over the job log.
 */
const STRUCTURE_LINE = /^\s*(\[[^\]]*\]|[#;].*|-----(BEGIN|END) [A-Z0-9 ]+-----)\s*$/;
/** An INI or dotenv line's value (`aws_secret_access_key = …`): masked on its own too, as the Action does. */
const ASSIGNED_VALUE = /^\s*[\w.-]+\s*=\s*(.*?)\s*$/;

/** Whether a line of a multi-line secret is structure only (action/secrets.mjs isStructureLine). */
export function isStructureLine(line: string): boolean {
  return STRUCTURE_LINE.test(line) || STRUCTURE_LINE.test(line.replace(/\+/g, ' '));
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

/**
 * The text between the quotes where the emitter (yaml/emit.ts) or JSON writes `value` inside a
 * string: YAML double quotes (JSON's escapes, `\xXX`, `\ ` before an escaped line break), YAML
 * single quotes (`''`), JSON, and JSON inside either YAML form (a JSON document in a ConfigMap).
 * Escaping is per character, so each is also the form of the value inside a longer string; a
 * trailing space, escaped only before a line break, is also searched without.
 */
function escapedForms(value: string): string[] {
  const forms: string[] = [];
  for (const text of value.endsWith(' ') ? [value, value.slice(0, -1)] : [value]) {
    const json = JSON.stringify(text).slice(1, -1);
    for (const body of [json, doubleQuoted(text).slice(1, -1), doubleQuoted(json).slice(1, -1)]) forms.push(body, body.replace(/'/g, "''"));
    forms.push(text.replace(/'/g, "''"));
  }
  return forms.filter((form) => form.length >= MINIMUM_SECRET_LENGTH);
}

/** Values shorter than this are not searched in hex or with `+` for spaces (8 hex digits occur in digests). */
const MINIMUM_ENCODED_LENGTH = 8;

/** Hex of the UTF-8 bytes (either case), and form encoding's `+` for a space (`%XX` is decoded, see decodedLines). */
function encodedForms(value: string): string[] {
  if (value.length < MINIMUM_ENCODED_LENGTH) return [];
  const hex = Buffer.from(value, 'utf8').toString('hex');
  return [hex, hex.toUpperCase(), ...(value.includes(' ') ? [value.replace(/ /g, '+')] : [])];
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
  for (const text of [value, ...(decoded !== undefined && isScannableSecret(decoded) ? [decoded] : [])])
    for (const form of [...escapedForms(text), ...encodedForms(text)]) forms.add(form);
  // YAML writes a multi-line value as an indented block: its lines are searched one by one, but
  // for those of structure alone (PEM armour, a comment), which other values have too
  for (const text of [value, decoded ?? ''])
    for (const line of text.split(/\r?\n/)) if (line.trim().length >= MINIMUM_LINE_LENGTH && !isStructureLine(line)) forms.add(line.trim());
  return [...forms].sort((a, b) => b.length - a.length || compareStrings(a, b));
}

/** Lines of a multi-line value shorter than this are not searched alone (`[default]`, `-----END`). */
const MINIMUM_LINE_LENGTH = 16;

/**
 * Runs of consecutive lines of a multi-line value, for the lines shorter than MINIMUM_LINE_LENGTH:
 * each line with the lines after it until the run holds MINIMUM_LINE_LENGTH characters, joined by
 * line breaks, leading white space dropped (YAML indents a block). A short line counts only where
 * the lines around it match too, so `[default]` alone never does.
 */
export function lineRuns(value: string): string[] {
  const lines = value.split(/\r?\n/).map((line) => line.replace(/^[ \t]+/, ''));
  if (lines.length < 2 || isYamlDocument(lines)) return [];
  const runs = new Set<string>();
  lines.forEach((line, i) => {
    if (line.length >= MINIMUM_LINE_LENGTH) return;
    let length = line.length;
    let end = i;
    while (length < MINIMUM_LINE_LENGTH && end + 1 < lines.length) length += lines[++end]!.length;
    if (length >= MINIMUM_LINE_LENGTH && end > i) runs.add(lines.slice(i, end + 1).join('\n'));
  });
  return [...runs];
}

const YAML_KEY_LINE = /^(?:- )?["']?[\w./-]+["']?:(?:[ \t]|$)/;

/**
 * A value that is itself a YAML document (a kubeconfig, a cloud config): most of its lines are
 * `key:` lines every manifest has (`apiVersion: v1`, `kind: Secret`), so runs of them would be
 * found in any output. Its lines of 16 characters or more are still searched.
 */
function isYamlDocument(lines: readonly string[]): boolean {
  const filled = lines.filter((line) => line !== '');
  return filled.filter((line) => YAML_KEY_LINE.test(line)).length * 2 >= filled.length;
}

/** A long value with no white space (a token, a password) split in two: this many characters at each end. */
const HALF_LENGTH = 12;
const MINIMUM_SPLIT_LENGTH = 2 * HALF_LENGTH;

/**
 * The two ends of a value that could be pasted in two pieces: a value of at least 24 characters
 * without white space is found split anywhere from its 12th to its 12th-last character when its
 * first 12 and its last 12 characters are both in the output. Values with white space (files,
 * certificates) and base64 texts are searched by lines instead: their ends are often boilerplate.
 */
function valueEnds(value: string): [string, string] | undefined {
  // a base64 text (the *_B64 convention) starts and ends in boilerplate; its text is searched by lines
  if (value.length < MINIMUM_SPLIT_LENGTH || /\s/.test(value) || decodedText(value) !== undefined) return undefined;
  return [value.slice(0, HALF_LENGTH), value.slice(-HALF_LENGTH)];
}

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
  /** [form in an output path (pathForm), variable name]: searched by the gate in every file's path. */
  paths?: [string, string][];
  /** [run of lines (lineRuns), variable name]: searched by the gate alone, in the output's lines without indentation. */
  lineRuns?: [string, string][];
  /** [first characters, last characters, variable name] (valueEnds): searched by the gate alone. */
  ends?: [string, string, string][];
}

/** Forms in an output path shorter than this are not searched: paths are lower-case words (kinds, components). */
const MINIMUM_PATH_FORM_LENGTH = MINIMUM_ENCODED_LENGTH;

/**
 * The form `value` takes in an output file's path when an object's name holds it: the layout's
 * file naming (sanitizeFileNamePart) lower-cases it and writes `-` for other characters. Inside a
 * longer name the value's form is the same, but for a `-` or `.` at its ends, which this drops.
 */
function pathForm(value: string): string | undefined {
  const form = sanitizeFileNamePart(value);
  return isScannableSecret(value) && form.length >= MINIMUM_PATH_FORM_LENGTH ? form : undefined;
}

/**
 * Where in `head` (a text up to a file name's cut, fileNameCuts) the start of `form` that the cut
 * kept begins, or -1. A value longer than a file name allows, or starting late in it, leaves only
 * its start before the cut: searched when that start is itself of a path form's length and not the
 * whole form (which the whole-form search finds).
 */
function cutPathFormAt(head: string, form: string): number {
  const start = form.slice(0, MINIMUM_PATH_FORM_LENGTH);
  for (let at = head.indexOf(start, Math.max(0, head.length - form.length + 1)); at >= 0; at = head.indexOf(start, at + 1))
    if (head.length - at >= MINIMUM_PATH_FORM_LENGTH && form.startsWith(head.slice(at))) return at;
  return -1;
}

/** The first characters of a path form that FleetSecrets indexes to find it where a file name was cut. */
function pathFormStart(form: string): string {
  return form.slice(0, MINIMUM_PATH_FORM_LENGTH);
}

/** A path form in a text: the whole form, or its start from `from` to a file name's cut at `to`. */
interface PathHit {
  name: string;
  form: string;
  cut?: { from: number; to: number };
}

/** The path forms (`forms`: [form, variable name], longest first) `text` holds whole or before a file name's cut. */
function pathHits(text: string, forms: Iterable<readonly [string, string]>): PathHit[] {
  const cuts = fileNameCuts(text);
  const hits: PathHit[] = [];
  for (const [form, name] of forms) {
    if (text.includes(form)) hits.push({ name, form });
    else
      for (const to of cuts) {
        const from = cutPathFormAt(text.slice(0, to), form);
        if (from >= 0) hits.push({ name, form, cut: { from, to } });
      }
  }
  return hits;
}

/** `text` with each hit replaced by `[secret NAME]`: the starts before a cut (the longest at each), then the whole forms. */
function redactPathHits(text: string, hits: readonly PathHit[]): string {
  let out = text;
  const cuts = hits.filter((hit) => hit.cut).sort((a, b) => b.cut!.to - a.cut!.to || a.cut!.from - b.cut!.from);
  let done = Infinity;
  for (const { name, cut } of cuts)
    if (cut!.to < done) {
      out = `${out.slice(0, cut!.from)}[secret ${name}]${out.slice(cut!.to)}`;
      done = cut!.from;
    }
  for (const { name, form, cut } of hits) if (!cut && out.includes(form)) out = out.split(form).join(`[secret ${name}]`);
  return out;
}

export function secretNeedles(values: ReadonlyMap<string, readonly string[]>): SecretNeedles {
  const needles: [string, string][] = [];
  const paths: [string, string][] = [];
  const runs: [string, string][] = [];
  const ends: [string, string, string][] = [];
  for (const [name, list] of values)
    for (const value of list) {
      if (!isScannableSecret(value)) continue;
      for (const form of secretForms(value)) needles.push([form, name]);
      const inPath = pathForm(value);
      if (inPath !== undefined) paths.push([inPath, name]);
      const decoded = decodedText(value);
      for (const text of decoded === undefined ? [value] : [value, decoded]) for (const run of lineRuns(text)) runs.push([run, name]);
      const pair = valueEnds(value);
      if (pair) ends.push([...pair, name]);
    }
  needles.sort(([a, an], [b, bn]) => b.length - a.length || compareStrings(a, b) || compareStrings(an, bn));
  paths.sort(([a, an], [b, bn]) => b.length - a.length || compareStrings(a, b) || compareStrings(an, bn));
  return { needles, paths, lineRuns: runs, ends };
}

/**
 * Adds values found secret during the render (a plain value that landed in a Secret's data) to
 * `needles` in place, so every holder (the gate, redaction, the parse cache's check) sees them;
 * returns the new needles alone (for masks).
 */
export function addSecretValues(needles: SecretNeedles, values: ReadonlyMap<string, readonly string[]>): SecretNeedles {
  const known = new Set(needles.needles.map(([needle, name]) => `${name}\0${needle}`));
  const more = secretNeedles(values);
  const added = more.needles.filter(([needle, name]) => !known.has(`${name}\0${needle}`));
  const knownPaths = new Set((needles.paths ?? []).map(([form, name]) => `${name}\0${form}`));
  const addedPaths = (more.paths ?? []).filter(([form, name]) => !knownPaths.has(`${name}\0${form}`));
  if (addedPaths.length > 0)
    needles.paths = [...(needles.paths ?? []), ...addedPaths].sort(([a], [b]) => b.length - a.length || compareStrings(a, b));
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

const AN_ESCAPE = /\\|''|%[0-9A-Fa-f]{2}/g;
const ESCAPE_SEQUENCE = /\\(?:u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|U([0-9a-fA-F]{8})|([\s\S]))|''/g;
const SHORT_ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  N: '\x85',
  _: '\xa0',
  L: '\u2028',
  P: '\u2029',
};
const URL_ENCODED_RUN = /(?:%[0-9A-Fa-f]{2})+/g;

/** One line with its JSON and YAML escapes (`\"`, `\\`, `\n`, `\uXXXX`, `\xXX`, `''`, …) and its URL encoding decoded. */
function decodeLine(line: string): string {
  const unescaped = line.replace(ESCAPE_SEQUENCE, (match, u?: string, x?: string, big?: string, char?: string) => {
    if (match === "''") return "'";
    const code = u ?? x ?? big;
    if (code !== undefined) {
      const point = Number.parseInt(code, 16);
      return point <= 0x10ffff ? String.fromCodePoint(point) : match;
    }
    return SHORT_ESCAPES[char!] ?? char!;
  });
  return unescaped.replace(URL_ENCODED_RUN, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'));
}

/** The lines of a file that hold an escape or URL encoding: as written, and decoded. */
interface EscapedLines {
  /** Those lines as written, one per line. */
  raw: string;
  /** Each decoded once, twice and three times (a JSON document in a YAML string is escaped twice). */
  decoded: string;
  /** Where each line starts in the file, with its decoded forms (to name the object a finding is in). */
  lines: { start: number; decoded: string }[];
}

/**
 * The lines of `text` that hold an escape or URL encoding. The emitter writes every string on one
 * line or as a block of lines, and no escape spans a line break, so decoding line by line decodes
 * every scalar.
 */
function escapedLines(text: string): EscapedLines {
  const raw: string[] = [];
  const lines: { start: number; decoded: string }[] = [];
  let lastLineStart = -1;
  for (const match of text.matchAll(AN_ESCAPE)) {
    const start = text.lastIndexOf('\n', match.index) + 1;
    if (start === lastLineStart) continue;
    lastLineStart = start;
    const end = text.indexOf('\n', match.index);
    let line = text.slice(start, end < 0 ? text.length : end);
    raw.push(line);
    const decoded: string[] = [];
    for (let pass = 0; pass < 3; pass++) {
      const next = decodeLine(line);
      if (next === line) break;
      decoded.push(next);
      line = next;
    }
    if (decoded.length > 0) lines.push({ start, decoded: decoded.join('\n') });
  }
  return { raw: raw.join('\n'), decoded: lines.map((line) => line.decoded).join('\n'), lines };
}

/** Lines without their indentation, so a run of a block's lines reads as in the value. */
function unindented(text: string): string {
  return text.replace(/^[ \t]+/gm, '');
}

function longestLine(run: string): string {
  return run.split('\n').reduce((a, b) => (b.length > a.length ? b : a));
}

/**
 * One output file as the gate searches it: its text, and its escaped lines as written and decoded.
 * A needle holding an escape (`\`, `''`) can only be on an escaped line, so only those are searched
 * for it; the whole text is searched for the rest.
 */
class SearchedFile {
  #escaped: EscapedLines | undefined;
  #unindented: SearchedFile | undefined;
  readonly #found = new Map<string, boolean>();

  constructor(readonly text: string) {}

  get escaped(): EscapedLines {
    this.#escaped ??= escapedLines(this.text);
    return this.#escaped;
  }

  /** Where `needle` is in the text (for a decoded line, where that line starts), undefined when nowhere. */
  find(needle: string): number | undefined {
    const escaped = needle.includes('\\') || needle.includes("''");
    const at = escaped && !this.escaped.raw.includes(needle) ? -1 : this.text.indexOf(needle);
    if (at >= 0) return at;
    if (!this.escaped.decoded.includes(needle)) return undefined;
    return this.escaped.lines.find((line) => line.decoded.includes(needle))?.start ?? -1;
  }

  /** find, remembered: for needles several searches share (a run's longest line, a value's ends). */
  has(needle: string): boolean {
    let found = this.#found.get(needle);
    if (found === undefined) this.#found.set(needle, (found = this.find(needle) !== undefined));
    return found;
  }

  /** The same file without indentation (each line's leading white space dropped), decoded lines too. */
  get unindented(): SearchedFile {
    if (this.#unindented === undefined) {
      this.#unindented = new SearchedFile(unindented(this.text));
      this.#unindented.#escaped = { raw: unindented(this.escaped.raw), decoded: unindented(this.escaped.decoded), lines: [] };
    }
    return this.#unindented;
  }
}

/** One problem per file and variable found in it; no value, no excerpt. */
export function scanOutput(files: ReadonlyMap<string, string>, needles: SecretNeedles, exempt: ReadonlySet<string>): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const reportedAnywhere = new Set<string>();
  const report = (file: string, text: string, name: string, at: number) => {
    reportedAnywhere.add(name);
    const object = at >= 0 ? objectAround(text, at) : undefined;
    problems.push({
      file,
      ...(object ? { object } : {}),
      message: `the output would contain the secret value of ${name}, raw or encoded`,
      expected: 'no secret value in any output file, the wiring, the README or the lockfile',
      hint:
        'find where the value enters (additionalManifests, patches, images, chart values) and use ${' +
        name +
        `} in a Secret instead, or declare it in Config.secrets.public ${ONLY_IF_NOT_A_CREDENTIAL}`,
    });
  };
  problems.push(...pathLeaks([...files.keys()], needles));
  const runs = (needles.lineRuns ?? []).map(([run, name]) => [run, name, longestLine(run)] as const);
  const ends = needles.ends ?? [];
  if (needles.needles.length === 0 && runs.length === 0 && ends.length === 0) return problems;
  const scanned = [...files].filter(([file]) => !exempt.has(file)).map(([file, text]) => [file, new SearchedFile(text)] as const);
  for (const [file, searched] of scanned) {
    const reported = new Set<string>();
    for (const [needle, name] of needles.needles) {
      if (reported.has(name)) continue;
      const at = searched.find(needle);
      if (at === undefined) continue;
      reported.add(name);
      report(file, searched.text, name, at);
    }
    for (const [run, name, longest] of runs) {
      // the file without indentation is made only for a run whose longest line is in it
      if (reported.has(name) || !searched.has(longest) || searched.unindented.find(run) === undefined) continue;
      reported.add(name);
      report(file, searched.text, name, searched.find(longest) ?? -1);
    }
  }
  // A value in two pieces: its first characters in some file and its last in some file. The last
  // are searched only where the first were found somewhere.
  for (const [first, last, name] of ends) {
    if (reportedAnywhere.has(name)) continue;
    const at = scanned.find(([, searched]) => searched.has(first));
    if (at && scanned.some(([, searched]) => searched.has(last))) report(at[0], at[1].text, name, at[1].find(first) ?? -1);
  }
  return problems;
}

/**
 * One problem per file whose path holds a value's path form (an object named after a secret),
 * inline files included: their text may hold a value, their path goes to Git as any other. The
 * path is named with the form redacted.
 */
function pathLeaks(files: readonly string[], needles: SecretNeedles): Diagnostic[] {
  const problems: Diagnostic[] = [];
  for (const file of files) {
    const found = pathHits(file, needles.paths ?? []);
    for (const name of new Set(found.map(({ name }) => name)))
      problems.push({
        file: redactPathHits(file, found),
        message: `the output file's name would contain the secret value of ${name}, in lower case as file names are written`,
        expected: 'no secret value in any output file or its name',
        hint:
          'find the object whose metadata.name takes ${' +
          name +
          '} (additionalManifests, patches, the provider components) and give it a name without the value',
      });
  }
  return problems;
}

function redactPath(text: string, needles: SecretNeedles): string {
  return redactPathHits(text, pathHits(text, needles.paths ?? []));
}

/** `text` with every secret form replaced by `[secret NAME]`, the forms in file names too. */
function redact(text: string, needles: SecretNeedles): string {
  let out = text;
  for (const [needle, name] of needles.needles) if (out.includes(needle)) out = out.split(needle).join(`[secret ${name}]`);
  return redactPath(out, needles);
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
  // a value with a line break is masked line by line too, as the runner matches within a line; a
  // line as common as `true` is not (its mask would star out every `true` in the job log), nor one
  // of structure alone (action/secrets.mjs maskCommands)
  const masks = new Set<string>();
  const add = (text: string) => isScannableSecret(text) && masks.add(text);
  for (const [needle] of needles.needles) {
    add(needle);
    const lines = needle.split(/\r?\n/);
    if (lines.length === 1) continue;
    for (const line of lines) {
      if (isStructureLine(line)) continue;
      add(line);
      const assigned = ASSIGNED_VALUE.exec(line)?.[1];
      if (assigned) add(assigned);
    }
  }
  return [...masks].sort(compareStrings).map((text) => `::add-mask::${escapeData(text)}`);
}

/** Texts at least this long are remembered once found clean: a fleet's clusters share their CRDs. */
const REMEMBERED_TEXT_LENGTH = 16_384;

/**
 * What of a run's longest line the one pass finds before the run is searched: its end, where a
 * line's value is (`pass = …`). Its start is the same in every cluster's run (`user = `), and the
 * index would check each cluster's at every `user` of every text.
 */
function runTrigger(longest: string): string {
  return longest.slice(-RUN_TRIGGER_LENGTH);
}
const RUN_TRIGGER_LENGTH = 8;

/** A form, run of lines or pair of ends in a fleet: its variable and the clusters whose value it is. */
interface FleetNeedle {
  name: string;
  clusters: Set<string>;
}

/** The needle under `key` in `map`, with `cluster` among its owners. */
function owned<T extends FleetNeedle>(map: Map<string, T>, key: string, cluster: string, make: () => T): T {
  let needle = map.get(key);
  if (needle === undefined) map.set(key, (needle = make()));
  needle.clusters.add(cluster);
  return needle;
}

/**
 * A fleet's secret values, each cluster's own (its configSecrets'), searched in every other
 * cluster's files, and with the run's values in the files the fleet writes itself (its README, the
 * shared layout's kustomizations, its ApplicationSet), which no cluster's gate sees: each cluster's
 * gate knows only its own values, so a value of cluster A that cluster B writes in plain (a
 * variable of B's entry) would pass it. The forms are the gate's (scanOutput): every needle, in
 * the text and in its decoded lines; a multi-line value's runs of lines; a long value's two ends
 * in one cluster's files. One pass over each text whatever the fleet's size (StringIndex); a long
 * text found clean is not searched again.
 */
export class FleetSecrets {
  /** The needles, each run's trigger and each long value's ends: one pass finds them all. */
  readonly #index = new StringIndex();
  readonly #needles = new Map<string, FleetNeedle>();
  /** Runs of lines, searched in a text without indentation only where a run's trigger is. */
  readonly #runIndex = new StringIndex();
  readonly #runs = new Map<string, FleetNeedle & { longest: string }>();
  readonly #runTriggers = new Set<string>();
  /** A long value's first and last characters (valueEnds), by its first. */
  readonly #endsByFirst = new Map<string, (FleetNeedle & { last: string })[]>();
  readonly #ends = new Set<string>();
  /** Path forms (pathForm), searched in every file's path, as the gate searches a cluster's own. */
  readonly #pathIndex = new StringIndex();
  readonly #paths = new Map<string, FleetNeedle>();
  /** Each longer path form's start (pathFormStart), to find the forms a cut file name may keep the start of. */
  readonly #pathStartIndex = new StringIndex();
  readonly #formsByStart = new Map<string, Set<string>>();
  /** Digests of long texts that hold no cluster's value (a digest: V8 hashes a long string by its length). */
  readonly #clean = new Set<string>();

  /** `run`: the values every cluster's gate has (--secret-file, --env-secret), searched here in the fleet's own files. */
  constructor(
    byCluster: ReadonlyMap<string, SecretNeedles>,
    private readonly run: SecretNeedles = { needles: [] },
  ) {
    const pairs = new Map<string, FleetNeedle & { last: string }>();
    for (const [cluster, needles] of byCluster) {
      for (const [form, name] of needles.needles) {
        owned(this.#needles, form, cluster, () => ({ name, clusters: new Set() }));
        this.#index.add(form);
      }
      for (const [form, name] of needles.paths ?? []) {
        owned(this.#paths, form, cluster, () => ({ name, clusters: new Set() }));
        this.#pathIndex.add(form);
        const start = pathFormStart(form);
        if (start === form) continue;
        this.#pathStartIndex.add(start);
        this.#formsByStart.set(start, (this.#formsByStart.get(start) ?? new Set()).add(form));
      }
      for (const [run, name] of needles.lineRuns ?? []) {
        const { longest } = owned(this.#runs, run, cluster, () => ({ name, clusters: new Set(), longest: longestLine(run) }));
        this.#runIndex.add(run);
        this.#runTriggers.add(runTrigger(longest));
        this.#index.add(runTrigger(longest));
      }
      for (const [first, last, name] of needles.ends ?? []) {
        const key = `${first}\0${last}`;
        const known = pairs.has(key);
        const pair = owned(pairs, key, cluster, () => ({ name, clusters: new Set(), last }));
        if (known) continue;
        this.#endsByFirst.set(first, [...(this.#endsByFirst.get(first) ?? []), pair]);
        for (const end of [first, last]) {
          this.#ends.add(end);
          this.#index.add(end);
        }
      }
    }
  }

  /** The leaks of `cluster`'s files (in `directory` of the output), told with its own gate's problems. */
  clusterLeaks(cluster: string, directory: string, files: ReadonlyMap<string, string>): Diagnostic[] {
    return this.leaks(cluster, files).map((d) => ({ ...d, file: `${directory}/${d.file}` }));
  }

  /**
   * Throws the leaks of the files the fleet writes itself, searched as a cluster's files are: what
   * they hold comes from every cluster (the ApplicationSet's lookups), those --cluster did not
   * render included, whose files no gate searched in this run.
   */
  refuseFleetLeaks(files: ReadonlyMap<string, string>): void {
    const problems = [...scanOutput(files, this.run, new Set()), ...this.leaks(undefined, files)];
    if (problems.length > 0) throw new CapiGitopsError(problems);
  }

  /**
   * Every needle, run of lines and end `file` holds, in its text or its decoded lines (as
   * SearchedFile.find finds them). A run found without indentation has its longest line in the
   * text, as scanOutput asks: its trigger only spares the texts without it that search.
   */
  #search(file: SearchedFile): Set<string> {
    const found = new Set(this.#index.foundIn(file.text));
    if (file.escaped.decoded !== '') for (const s of this.#index.foundIn(file.escaped.decoded)) found.add(s);
    if (![...found].some((s) => this.#runTriggers.has(s))) return found;
    const unindented = file.unindented;
    for (const text of [unindented.text, unindented.escaped.decoded]) for (const run of this.#runIndex.foundIn(text)) found.add(run);
    return found;
  }

  /** The path forms `path` holds, whole or their start before a file name's cut (pathHits), found through the indexes. */
  #pathHits(path: string): PathHit[] {
    const forms = new Set(this.#pathIndex.foundIn(path));
    if (fileNameCuts(path).length > 0)
      for (const start of this.#pathStartIndex.foundIn(path)) for (const form of this.#formsByStart.get(start)!) forms.add(form);
    const longestFirst = [...forms].sort((a, b) => b.length - a.length || compareStrings(a, b));
    return pathHits(
      path,
      longestFirst.map((form) => [form, this.#paths.get(form)!.name]),
    );
  }

  /** One problem per file and variable of another cluster found in `cluster`'s files (the fleet's own: any cluster's); no value. */
  leaks(cluster: string | undefined, files: ReadonlyMap<string, string>): Diagnostic[] {
    const problems: Diagnostic[] = [];
    const foreign = (needle: FleetNeedle) => cluster === undefined || !needle.clusters.has(cluster);
    const toldAnywhere = new Set<string>();
    const tell = (file: string, searched: SearchedFile, needle: FleetNeedle, found: string) => {
      toldAnywhere.add(needle.name);
      const at = searched.find(found) ?? -1;
      const object = at >= 0 ? objectAround(searched.text, at) : undefined;
      problems.push({ file, ...(object ? { object } : {}), ...fleetLeakMessage(needle, cluster) });
    };
    /** Where each end was first found in these files: a value in two pieces may be in two files. */
    const endsAt = new Map<string, [string, SearchedFile]>();
    for (const [path, text] of files) {
      // a path holding a value (its own cluster's too) is never named as it is
      const inPath = this.#pathHits(path);
      const file = redactPathHits(path, inPath);
      const foreignInPath = new Map(
        inPath
          .map(({ form }) => this.#paths.get(form)!)
          .filter(foreign)
          .map((needle) => [needle.name, needle] as const),
      );
      for (const needle of foreignInPath.values()) problems.push({ file, ...fleetLeakMessage(needle, cluster, 'path') });
      const digest = text.length >= REMEMBERED_TEXT_LENGTH ? sha256Hex(text) : undefined;
      if (digest !== undefined && this.#clean.has(digest)) continue;
      const searched = new SearchedFile(text);
      const found = this.#search(searched);
      // clean for every cluster only when it holds no cluster's value, its own included
      if (digest !== undefined && found.size === 0) this.#clean.add(digest);
      const told = new Set<string>();
      for (const s of found) {
        const run = this.#runs.get(s);
        const needle = this.#needles.get(s) ?? run;
        if (needle && foreign(needle) && !told.has(needle.name)) {
          told.add(needle.name);
          // a run is told where its longest line is
          tell(file, searched, needle, needle === run ? run.longest : s);
        }
        if (this.#ends.has(s) && !endsAt.has(s)) endsAt.set(s, [file, searched]);
      }
    }
    for (const [first, [file, searched]] of endsAt)
      for (const pair of this.#endsByFirst.get(first) ?? [])
        if (foreign(pair) && endsAt.has(pair.last) && !toldAnywhere.has(pair.name)) tell(file, searched, pair, first);
    return problems;
  }
}

/** A leak of another cluster's value into a cluster's files, or of any cluster's into the fleet's own (`cluster` undefined). */
function fleetLeakMessage(
  needle: FleetNeedle,
  cluster: string | undefined,
  where: 'text' | 'path' = 'text',
): Pick<Diagnostic, 'message' | 'expected' | 'hint'> {
  const owners = [...needle.clusters];
  const whose = `the secret value of ${needle.name} of ${owners.length > 1 ? 'clusters' : 'cluster'} ${clusterRanges(owners)}`;
  const message =
    where === 'path'
      ? `the output file's name would contain ${whose}, in lower case as file names are written`
      : `the output would contain ${whose}, raw or encoded`;
  if (where === 'path')
    return {
      message,
      expected:
        cluster === undefined
          ? "no cluster's secret value in the names of the files the fleet writes itself"
          : "no cluster's secret value in another cluster's file names",
      hint: `find the object whose metadata.name takes the value (additionalManifests, patches, the provider components, chart values) and give it a name without the value`,
    };
  if (cluster === undefined)
    return {
      message,
      expected:
        "no cluster's secret value in the files the fleet writes itself (its README, the bases' kustomizations, its ApplicationSet)",
      hint: "find where the value enters the fleet's files (a cluster's chart values: its destination, project or releaseName) and remove it",
    };
  return {
    message,
    expected: "no cluster's secret value in another cluster's files",
    hint: `find where the value enters this cluster (its variables, images, chart values, patches) and give the cluster a value of its own`,
  };
}
