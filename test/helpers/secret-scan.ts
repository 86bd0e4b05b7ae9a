import assert from 'node:assert/strict';
import { appendFileSync, existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { deserialize } from 'node:v8';
import { declaredSecretFiles } from '../../src/review/secret-files.js';

/**
 * The forms a secret takes in text, computed here independently of src/secrets: the value, and
 * base64 of it and of its base64 at each of the three byte offsets (only characters that
 * depend on the value alone).
 */
function forms(value: string): string[] {
  const out = new Set<string>([value]);
  for (const bytes of [Buffer.from(value), Buffer.from(Buffer.from(value).toString('base64'))]) {
    for (let pad = 0; pad < 3; pad++) {
      const encoded = Buffer.concat([Buffer.alloc(pad, 0x41), bytes]).toString('base64');
      const inner = encoded.slice([0, 2, 3][pad], Math.floor(((pad + bytes.length) * 4) / 3));
      if (inner.length >= 8) out.add(inner);
    }
  }
  return [...out];
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

/**
 * Fails when any secret, in any form, is in an output directory, a lockfile, stdout, stderr or a
 * diff (`texts`), except in `allowedFiles` (inline output).
 */
export function assertNoSecret(
  secrets: readonly string[],
  where: { dirs?: string[]; files?: string[]; texts?: Record<string, string>; allowedFiles?: string[] },
): void {
  const allowed = new Set((where.allowedFiles ?? []).map((f) => path.resolve(f)));
  const haystacks: [string, string][] = Object.entries(where.texts ?? {});
  for (const file of [...(where.dirs ?? []).flatMap(filesUnder), ...(where.files ?? []).filter(existsSync)]) {
    if (!allowed.has(path.resolve(file))) haystacks.push([file, readFileSync(file, 'utf8')]);
  }
  for (const secret of secrets) {
    for (const form of forms(secret)) {
      for (const [name, text] of haystacks) assert.ok(!text.includes(form), `a secret (form ${forms(secret).indexOf(form)}) is in ${name}`);
    }
  }
}

/**
 * The files an output directory declares as holding secret values (the inline strategy's
 * warning section of its README), as absolute paths: the only places a secret may be.
 */
export function inlineSecretFiles(outputDir: string): string[] {
  const readme = path.join(outputDir, 'README.md');
  if (!existsSync(readme)) return [];
  return [...declaredSecretFiles(new Map([['README.md', readFileSync(readme, 'utf8')]]))].map((f) => path.join(outputDir, f)).sort();
}

/**
 * The secret values the suite's tests give capi-gitops (configSecrets, --secret-file,
 * --env-secret). A test that uses a secret takes it from here, so that the sweep after the whole
 * suite (scripts/run-tests.mjs → sweepSuiteForSecrets) looks for it too.
 */
const awsCredentials = (id: string, key: string) => `[default]\naws_access_key_id = ${id}\naws_secret_access_key = ${key}\n`;
export const SUITE_SECRETS = {
  /** A CAPA-style credentials file and its parts (test/secrets.test.ts). */
  vaultCredentials: awsCredentials('AKIAVAULTEXAMPLE7Q', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzSECRET'),
  vaultSecretKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzSECRET',
  /** Before and after a rotation (test/secrets/e2e.test.ts). */
  oldCredentials: awsCredentials('AKIAE2ETESTEXAMPLE', 'Zx9tQm4RkL2pVb7nWc3yHd8sJf5gTa1e'),
  oldSecretKey: 'Zx9tQm4RkL2pVb7nWc3yHd8sJf5gTa1e',
  oldToken: 'vtok-6f1c2a9e4b7d0358aa',
  newCredentials: awsCredentials('AKIAE2ETESTEXAMPLE', 'Qa7wEr3tYu9iOp2lKj5hGf8dSa1zXc6v'),
  newSecretKey: 'Qa7wEr3tYu9iOp2lKj5hGf8dSa1zXc6v',
  newToken: 'vtok-0e8d3b6a91c4f27755',
  /** Smuggled into chart values and an image tag (test/secrets.test.ts). */
  gitToken: 'ghpsmuggled0a1b2c3d4e5f6a7b8',
  /** Given in every place a value can come from, landing in a Secret's data (test/secrets/landing.test.ts). */
  landingCredentials: awsCredentials('AKIALANDINGEXAMPLE', 'Lk8sVb2nQx7mRt4wPz9cYh3jDf6gSa5e'),
  landingSecretKey: 'Lk8sVb2nQx7mRt4wPz9cYh3jDf6gSa5e',
  /** CI's registry password and GitLab token that a pull request's manifest tries to reach (test/hardening/credential-hosts.test.ts). */
  ciRegistryPassword: 'ci-registry-password-0451',
  ciGitLabToken: 'glpat-CiTokenNeverLeaves0451',
  /** A configSecret's github-token (test/sources/github-token.test.ts). */
  configSecretGitHubToken: 'ghp_cfgsecret9z8y7x6w5v4u3t2s1r0q',
  /** Pasted into a ConfigMap escaped as YAML and JSON, URL-encoded, in hex, in two halves (test/secrets/gate-encodings.test.ts). */
  quotedToken: 'Qz\'9"k\\Lm: 7Wp x2Vr',
  splitToken: 'sk-live-4f9Qa7Zt2Lp8Wx3Ne6Rb1Yc5',
  /** A key file whose lines are all shorter than 16 characters. */
  shortLinesKey: 'MIIBqk7\nx7Qa9kL\npZt3Rw8\nYcEnd4Q\n',
  /** Per-cluster inline credentials of a fleet, before and after a rotation (test/review/fleet-secrets.test.ts). */
  fleetOldToken: 'OldFleetCred-1111-a9Qz',
  fleetNewToken: 'NewFleetCred-2222-b7Wx',
  /** An API token a patch moves out of a Deployment's env, beside a merged feature flag (test/secrets/derived-taint.test.ts). */
  derivedTaintToken: 'acmetok-9f8e7d6c5b4a3210fedcba98',
} as const;

/** Every suite secret, and the base64 a configSecret or secret file carries of each credentials file. */
function suiteSecretValues(): string[] {
  const values: string[] = Object.values(SUITE_SECRETS);
  for (const v of [
    SUITE_SECRETS.vaultCredentials,
    SUITE_SECRETS.oldCredentials,
    SUITE_SECRETS.newCredentials,
    SUITE_SECRETS.landingCredentials,
  ])
    values.push(Buffer.from(v).toString('base64'));
  return values;
}

/** Where CLI runs of the suite append their stdout and stderr (set by scripts/run-tests.mjs). */
export const OUTPUT_LOG_VARIABLE = 'CAPI_GITOPS_TEST_OUTPUT_LOG';
const RUN_SEPARATOR = '\n\u0000>>> ';

/** Appends one CLI run to the suite's output log, when the runner asked for one. */
export function logCliRun(args: readonly string[], stdout: string, stderr: string): void {
  const log = process.env[OUTPUT_LOG_VARIABLE];
  if (log) appendFileSync(log, `${RUN_SEPARATOR}capi-gitops ${args.join(' ')}\n${stdout}\n${stderr}`);
}

function walk(dir: string, visit: (file: string) => void): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry);
    const st = lstatSync(full, { throwIfNoEntry: false });
    if (st?.isDirectory()) walk(full, visit);
    else if (st?.isFile()) visit(full);
  }
}

/** An output directory: where a render left its ownership index. */
function outputRoot(file: string, root: string): string | undefined {
  for (let dir = path.dirname(file); dir.startsWith(root) && dir !== root; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, '.capi-gitops-index'))) return dir;
  }
  return undefined;
}

const GRAM = 4;
/** Four characters as one number: the index key, and 20 bits of it the filter's slot. */
const gramAt = (s: string, i: number) =>
  Math.imul(s.charCodeAt(i) ^ (s.charCodeAt(i + 1) << 8) ^ (s.charCodeAt(i + 2) << 16) ^ (s.charCodeAt(i + 3) << 24), 0x9e3779b1);

/**
 * Whether a text holds any of many needles, in one pass. The sweep reads several hundred MB of
 * what the suite wrote, and one `includes` pass per needle form (133 of them) took 11 s of one
 * core after every test had ended. With every needle at least L characters long, an occurrence
 * at p covers the positions p … p+L-4, one of which is a multiple of L-3: reading the four
 * characters at those multiples finds a needle's four at that offset, and a hit is confirmed
 * with `startsWith`.
 */
export class NeedleSearch {
  private readonly stride: number;
  private readonly filter = new Uint8Array(1 << 20);
  private readonly atGram = new Map<number, [needle: string, offset: number][]>();

  constructor(private readonly needles: string[]) {
    this.stride = Math.min(...needles.map((n) => n.length)) - GRAM + 1;
    for (const needle of this.stride > 0 ? needles : []) {
      for (let offset = 0; offset < this.stride; offset++) {
        const gram = gramAt(needle, offset);
        this.filter[gram >>> 12] = 1;
        this.atGram.set(gram, [...(this.atGram.get(gram) ?? []), [needle, offset]]);
      }
    }
  }

  foundIn(text: string): boolean {
    if (this.stride <= 0) return this.needles.some((n) => text.includes(n));
    for (let i = 0; i + GRAM <= text.length; i += this.stride) {
      const gram = gramAt(text, i);
      if (this.filter[gram >>> 12] === 0) continue;
      for (const [needle, offset] of this.atGram.get(gram) ?? []) if (i >= offset && text.startsWith(needle, i - offset)) return true;
    }
    return false;
  }
}

/**
 * After the whole suite: every output directory, lockfile and cache record the tests left under
 * `tmpRoot`, the default cache's records written since `since`, and every CLI run's stdout and
 * stderr (`log`, without the `::add-mask::` commands that carry each secret to the runner),
 * searched for every suite secret in every form. Files an output README declares as holding
 * secret values (inline) are where they may be. Returns one line per hit.
 */
export function sweepSuiteForSecrets(options: { tmpRoot: string; log?: string; cacheDir?: string; since?: number }): string[] {
  const needles = new NeedleSearch(suiteSecretValues().flatMap(forms));
  const hits: string[] = [];
  const search = (name: string, text: string) => {
    if (needles.foundIn(text)) hits.push(name);
  };
  const declared = new Map<string, Set<string>>();
  const allowedIn = (dir: string) => {
    let set = declared.get(dir);
    if (!set) {
      const readmes = new Map<string, string>();
      walk(dir, (f) => {
        if (path.basename(f) === 'README.md') readmes.set(path.relative(dir, f).split(path.sep).join('/'), readFileSync(f, 'utf8'));
      });
      set = new Set([...declaredSecretFiles(readmes)].map((f) => path.join(dir, f)));
      declared.set(dir, set);
    }
    return set;
  };
  const isCacheRecord = (file: string) => /[/\\](parsed|http|blobs)[/\\]/.test(file);
  // A parsed entry is V8's serialisation, which holds a string with characters past U+00FF as UTF-16: searched decoded too.
  const recordText = (file: string) => {
    const bytes = readFileSync(file);
    if (!/[/\\]parsed[/\\][^/\\]+\.v8$/.test(file)) return bytes.toString('latin1');
    let decoded = '';
    try {
      decoded = JSON.stringify(deserialize(bytes.subarray(65)));
    } catch {
      // not a whole entry (torn): the raw bytes are still searched
    }
    return `${bytes.toString('latin1')}\n${decoded}`;
  };
  walk(options.tmpRoot, (file) => {
    const output = outputRoot(file, options.tmpRoot);
    const scanned = output ? !allowedIn(output).has(file) : path.basename(file) === 'capi-gitops.lock.yaml' || isCacheRecord(file);
    if (scanned && statSync(file).size < 64 * 1024 * 1024) search(file, recordText(file));
  });
  if (options.cacheDir) {
    walk(options.cacheDir, (file) => {
      if (isCacheRecord(file) && statSync(file).mtimeMs >= (options.since ?? 0)) search(file, recordText(file));
    });
  }
  if (options.log && existsSync(options.log)) {
    for (const run of readFileSync(options.log, 'utf8').split(RUN_SEPARATOR).slice(1)) {
      const [command = '', ...rest] = run.split('\n');
      const printed = rest.filter((l) => !l.startsWith('::add-mask::')).join('\n');
      search(`the output of ${command}`, printed);
    }
  }
  return hits;
}
