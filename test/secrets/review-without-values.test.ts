/**
 * The pull-request workflow with the secret values kept outside Git: `check` and `diff` need no
 * value under a strategy that keeps them out of the output (external-secrets, flux-substitute,
 * refuse), and `diff --base` reads files that hold only Secrets from the working tree for both
 * sides, inside the repository (ignored) or outside it. sops needs the values (to keep an
 * unchanged Secret's bytes), and says so.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CapiGitopsError, type Diagnostic } from '../../src/core/diagnostics.js';
import type { RenderOptions } from '../../src/app/run.js';
import { render } from '../../src/app/render.js';
import { check } from '../../src/app/check.js';
import { diff } from '../../src/app/diff.js';
import { FIXTURES, PROJECT_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { assertNoSecret, SUITE_SECRETS } from '../helpers/secret-scan.js';
import { readTree } from '../helpers/tree.js';
import { runCli } from '../helpers/cli.js';

const B64 = Buffer.from(SUITE_SECRETS.landingCredentials).toString('base64');
const SECRETS = [B64, SUITE_SECRETS.landingSecretKey];
const url = (...parts: string[]) => pathToFileURL(path.join(...parts)).href;
const CORE_URL = url(PROJECT_ROOT, 'examples', 'repository', 'cluster-api', 'latest', 'core-components.yaml');
const AWS_URL = url(FIXTURES, 'secrets', 'infrastructure-aws', 'latest', 'infrastructure-components.yaml');
const COMMAND = 'capi-gitops render -f mc -o out';

function git(cwd: string, args: string[]): void {
  const r = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
}

interface Workspace {
  repo: string;
  mc: string;
  out: string;
  /** The configSecret's file, git-ignored, inside mc/. */
  secretFile: string;
  options: (extra?: Partial<RenderOptions>) => RenderOptions & { warnings: Diagnostic[] };
}

/**
 * A repository whose manifest names a configSecret kept in mc/aws.secret.yaml, which .gitignore
 * lists; rendered once with it and committed (manifest, lockfile, output).
 */
async function workspace(
  secrets: string,
  secretData = `AWS_B64ENCODED_CREDENTIALS: ${Buffer.from(B64).toString('base64')}`,
  awsUrl = AWS_URL,
) {
  const repo = tempDir('capi-gitops-review-secrets-');
  const mc = path.join(repo, 'mc');
  mkdirSync(mc);
  writeFileSync(path.join(repo, '.gitignore'), '*.secret.yaml\n');
  writeFileSync(
    path.join(mc, 'providers.yaml'),
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec:
  version: v0.2.0
  fetchConfig: {url: ${JSON.stringify(CORE_URL)}}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata: {name: aws, namespace: capa-system}
spec:
  version: v0.3.0
  configSecret: {name: aws-variables}
  fetchConfig: {url: ${JSON.stringify(awsUrl)}}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
${secrets}`,
  );
  const secretFile = path.join(mc, 'aws.secret.yaml');
  writeFileSync(
    secretFile,
    `apiVersion: v1\nkind: Secret\nmetadata: {name: aws-variables, namespace: capa-system}\ndata:\n  ${secretData}\n`,
  );
  const out = path.join(repo, 'out');
  const options = (extra: Partial<RenderOptions> = {}) => {
    const warnings: Diagnostic[] = [];
    return { manifestPaths: [mc], command: COMMAND, outputDir: out, onWarning: (w: Diagnostic) => warnings.push(w), warnings, ...extra };
  };
  await render(options(), out);
  git(repo, ['init', '-q', '-b', 'main']);
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'render']);
  return { repo, mc, out, secretFile, options } satisfies Workspace;
}

const EXTERNAL_SECRETS = 'secrets:\n  strategy: external-secrets\n  externalSecrets:\n    secretStoreRef: {name: aws-store}\n';
const FLUX = 'output: {layout: flux}\ngitops: {path: out}\nsecrets:\n  strategy: flux-substitute\n';

/** The CI job: the Secret's file is not there (it never is in a fresh checkout). */
/** A secret source outside the repository, as the README's command names it (where one machine keeps it). */
const OUTSIDE = '<file-outside-the-repository>';

function withoutSecretFile(ws: Workspace): string {
  const away = path.join(tempDir('capi-gitops-away-'), 'aws.secret.yaml');
  renameSync(ws.secretFile, away);
  return away;
}

for (const [strategy, secrets] of [
  ['external-secrets', EXTERNAL_SECRETS],
  ['flux-substitute', FLUX],
] as const) {
  test(`${strategy}: check and diff without the configSecret or any value: up to date, no change, a note at spec.configSecret that it rendered without the Secret`, async () => {
    const ws = await workspace(secrets);
    const withValues = ws.options();
    assert.deepEqual((await check(withValues, ws.out)).report.problems, []);
    withoutSecretFile(ws);
    const options = ws.options();
    const checked = await check(options, ws.out);
    assert.deepEqual(checked.report.problems, []);
    const note = options.warnings.find((w) => w.path === 'spec.configSecret')!;
    assert.match(
      note.message,
      /Secret capa-system\/aws-variables is not in the input: rendered without it, as the secrets strategy keeps secret values out/,
    );
    // at spec.configSecret, as render's error about the same Secret is, not at the provider's first line
    const lines = readFileSync(path.join(ws.mc, 'providers.yaml'), 'utf8').split('\n');
    const at = lines.findIndex((l) => l.startsWith('  configSecret:'));
    assert.deepEqual([note.line, note.column], [at + 1, lines[at]!.indexOf('{name: aws-variables}') + 1]);
    const { report } = await diff({ output: ws.out, current: ws.options() });
    assert.equal(report.summary.changed + report.summary.added + report.summary.removed, 0);
    // render itself still needs the value: a missing one is most likely a mistake there
    await assert.rejects(render(ws.options(), path.join(tempDir(), 'out')), /Secret capa-system\/aws-variables is not in the input/);
  });
}

// not a credential: declared public, it is meant for Git
const PLAIN_SETTINGS = Buffer.from('[default]\nregion = eu-west-1\n').toString('base64');

test('refuse with nothing to refuse: a configSecret that only holds a fetch credential is not needed by check', async () => {
  const ws = await workspace(
    `variables:\n  AWS_B64ENCODED_CREDENTIALS: ${PLAIN_SETTINGS}\nsecrets:\n  strategy: refuse\n  public: [AWS_B64ENCODED_CREDENTIALS]\n`,
    `OCI_PASSWORD: ${Buffer.from(SUITE_SECRETS.landingSecretKey).toString('base64')}`,
  );
  withoutSecretFile(ws);
  assert.deepEqual((await check(ws.options(), ws.out)).report.problems, []);
});

test('refuse: a value check does not have but that would land in a Secret is refused at the field, as render would refuse it', async () => {
  // rendered with a plain value declared public; then the manifest drops both, and check has no value
  const ws = await workspace(
    `variables:\n  AWS_B64ENCODED_CREDENTIALS: ${PLAIN_SETTINGS}\nsecrets:\n  strategy: refuse\n  public: [AWS_B64ENCODED_CREDENTIALS]\n`,
    'OTHER: eA==',
  );
  const file = path.join(ws.mc, 'providers.yaml');
  writeFileSync(
    file,
    readFileSync(file, 'utf8')
      .replace(/variables:\n.*\n/, '')
      .replace('  public: [AWS_B64ENCODED_CREDENTIALS]\n', ''),
  );
  const err = await check(ws.options(), ws.out).then(
    () => assert.fail('checked'),
    (e: unknown) => e as CapiGitopsError,
  );
  assert.match(err.message, /data\.credentials: would receive the secret value of AWS_B64ENCODED_CREDENTIALS/);
});

const AGE_MISSING = spawnSync('age-keygen', ['--version']).status === 0 ? false : 'age-keygen is not installed';

test(
  'sops needs the values for check and diff (an unchanged Secret keeps its bytes only when its values and an age key are known): a missing configSecret says so, and its hint, followed in CI (the file from a CI secret, SOPS_AGE_KEY), makes check pass',
  { skip: AGE_MISSING },
  async () => {
    const keygen = spawnSync('age-keygen', [], { encoding: 'utf8' }).stdout;
    const recipient = keygen.match(/public key: (age1\w+)/)?.[1];
    assert.ok(recipient);
    const ws = await workspace(`secrets:\n  strategy: sops\n  sops:\n    ageRecipients: [${recipient}]\n`);
    const away = withoutSecretFile(ws);
    const base = { revision: 'HEAD', manifestPaths: [ws.mc], options: (manifestPaths: string[]) => ws.options({ manifestPaths }) };
    for (const [command, run] of [
      ['check', () => check(ws.options(), ws.out)],
      ['diff', () => diff({ output: ws.out, current: ws.options() })],
      ['diff --base', () => diff({ output: ws.out, current: ws.options(), base })],
    ] as const) {
      const err = await run().then(
        () => assert.fail(`${command} succeeded`),
        (e: unknown) => e as CapiGitopsError,
      );
      const [problem] = err.diagnostics;
      assert.equal(err.diagnostics.length, 1, err.message);
      assert.equal(
        problem!.message,
        'Secret capa-system/aws-variables is not in the input, and check and diff under the sops strategy need its values: ' +
          'a SOPS file keeps its bytes only when its plain text and an age key of secrets.sops.ageRecipients are at hand',
        command,
      );
      // what CI gives: the file, written from a CI secret, and the age key; not a way to leave the Secret out
      assert.match(problem!.hint!, /with another -f, as render does \(in CI, write it from a CI secret/);
      assert.match(problem!.hint!, /SOPS_AGE_KEY/);
      assert.doesNotMatch(problem!.hint!, /remove spec\.configSecret/);
    }
    // the hint followed: the Secret's file with another -f, and the key in SOPS_AGE_KEY
    process.env.SOPS_AGE_KEY = keygen;
    try {
      const checked = await check(ws.options({ manifestPaths: [ws.mc, away] }), ws.out);
      assert.deepEqual(checked.report.problems, []);
    } finally {
      delete process.env.SOPS_AGE_KEY;
    }
  },
);

/** The objects a review reports changed, each with its field paths. */
function changedObjects(report: Awaited<ReturnType<typeof diff>>['report']): [string, string[]][] {
  return report.components.flatMap((c) =>
    c.kinds.flatMap((k) => k.objects.map((o) => [`${k.kind}/${o.name}`, o.paths] as [string, string[]])),
  );
}

test(
  'sops: diff --base renders the same Secret equal on both sides, with or without the age key, run after run; a change to it shows alone, without sops.mac or sops.lastmodified (getsops/sops: each encryption writes both anew)',
  { skip: AGE_MISSING },
  async () => {
    const keygen = spawnSync('age-keygen', [], { encoding: 'utf8' }).stdout;
    const recipient = keygen.match(/public key: (age1\w+)/)![1]!;
    const identityFile = path.join(tempDir('capi-gitops-age-'), 'key.txt');
    writeFileSync(identityFile, keygen);
    const ws = await workspace(`secrets:\n  strategy: sops\n  sops:\n    ageRecipients: [${recipient}]\n`);
    // the value rotated in the Secret's file, which both sides read from the working tree: the same on both
    const rotated = Buffer.from(Buffer.from(SUITE_SECRETS.landingCredentials + '# rotated\n').toString('base64')).toString('base64');
    writeFileSync(ws.secretFile, readFileSync(ws.secretFile, 'utf8').replace(/(AWS_B64ENCODED_CREDENTIALS: ).*/, `$1${rotated}`));
    const baseDiff = async () =>
      (
        await diff({
          output: ws.out,
          current: ws.options(),
          base: { revision: 'HEAD', manifestPaths: [ws.mc], options: (manifestPaths) => ws.options({ manifestPaths }) },
        })
      ).report;
    // no age key anywhere sops looks (its default key file is under XDG_CONFIG_HOME)
    const configHome = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = tempDir('capi-gitops-sops-config-');
    try {
      for (const run of ['first', 'second']) assert.deepEqual(changedObjects(await baseDiff()), [], `without the key, ${run} run`);
      process.env.SOPS_AGE_KEY_FILE = identityFile;
      assert.deepEqual(changedObjects(await baseDiff()), [], 'with the key');
      // a label on the Secret: its values keep their bytes, and the MAC and time written anew are no change of their own
      const providers = path.join(ws.mc, 'providers.yaml');
      writeFileSync(
        providers,
        readFileSync(providers, 'utf8').replace(
          '  configSecret: {name: aws-variables}\n',
          '  configSecret: {name: aws-variables}\n  manifestPatches:\n    - |\n      apiVersion: v1\n      kind: Secret\n' +
            '      metadata: {name: capa-manager-bootstrap-credentials, labels: {team: platform}}\n',
        ),
      );
      for (const key of ['with', 'without']) {
        if (key === 'without') delete process.env.SOPS_AGE_KEY_FILE;
        const report = await baseDiff();
        assert.deepEqual(
          changedObjects(report),
          [['Secret/capa-manager-bootstrap-credentials', ['metadata.labels.team']]],
          `${key} the key`,
        );
        assertNoSecret([...SECRETS, rotated], { texts: { report: JSON.stringify(report) } });
      }
    } finally {
      delete process.env.SOPS_AGE_KEY_FILE;
      if (configHome === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = configHome;
    }
  },
);

test('diff --base reads a git-ignored Secret file inside a -f directory, and a -f file of Secrets outside the repository, from the working tree for both sides, and its base label says so', async () => {
  const ws = await workspace(EXTERNAL_SECRETS);
  // inside: mc/aws.secret.yaml is ignored, so the base commit does not have it
  const { report: inside } = await diff({
    output: ws.out,
    current: ws.options(),
    base: { revision: 'HEAD', manifestPaths: [ws.mc], options: (manifestPaths) => ws.options({ manifestPaths }) },
  });
  assert.equal(inside.summary.changed + inside.summary.added + inside.summary.removed, 0);
  // the base side says it took them from the working tree: a rotated value or a public key changed there does not show
  assert.match(
    inside.old.label,
    /^the manifest at HEAD \([0-9a-f]{12}\), with .*mc\/aws\.secret\.yaml as it is now \(its changes do not show\)$/,
  );
  // outside: the Secret's file kept out of the repository and passed with its own -f
  const away = withoutSecretFile(ws);
  const manifestPaths = [ws.mc, away];
  const { report: outside } = await diff({
    output: ws.out,
    current: ws.options({ manifestPaths }),
    base: { revision: 'HEAD', manifestPaths, options: (paths) => ws.options({ manifestPaths: paths }) },
  });
  assert.equal(outside.summary.changed + outside.summary.added + outside.summary.removed, 0);
  assert.match(outside.old.label, new RegExp(`, with .*${path.basename(away).replace(/\./g, '\\.')} as it is now`));
  assertNoSecret(SECRETS, { texts: { inside: JSON.stringify(inside), outside: JSON.stringify(outside) } });
  // a file outside that holds more than Secrets is still refused, with what may be outside
  const stray = path.join(tempDir('capi-gitops-outside-'), 'providers.yaml');
  writeFileSync(stray, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: capa-system}\n');
  await assert.rejects(
    diff({
      output: ws.out,
      current: ws.options({ manifestPaths: [ws.mc, stray] }),
      base: { revision: 'HEAD', manifestPaths: [ws.mc, stray], options: (paths) => ws.options({ manifestPaths: paths }) },
    }),
    /is outside the Git repository .*, and holds more than Secrets[\s\S]*only files of Secrets/,
  );
});

test('diff --base: a warning about the Secret file both sides read from the working tree (a key no component uses) is told once, not once per side', async () => {
  const unused = `UNUSED_TOKEN: ${Buffer.from(SUITE_SECRETS.landingSecretKey).toString('base64')}`;
  const ws = await workspace(EXTERNAL_SECRETS, `AWS_B64ENCODED_CREDENTIALS: ${Buffer.from(B64).toString('base64')}\n  ${unused}`);
  // one sink for both renders, as the CLI prints them
  const told: Diagnostic[] = [];
  const onWarning = (w: Diagnostic) => told.push(w);
  await diff({
    output: ws.out,
    current: ws.options({ onWarning }),
    base: { revision: 'HEAD', manifestPaths: [ws.mc], options: (manifestPaths) => ws.options({ manifestPaths, onWarning }) },
  });
  const unusedWarnings = told.filter((w) => /variable UNUSED_TOKEN is not used/.test(w.message));
  assert.equal(unusedWarnings.length, 1, JSON.stringify(told, null, 1));
  assertNoSecret(SECRETS, { texts: { told: JSON.stringify(told) } });
});

test('render warns that a Secret file Git would commit holds values; an ignored one is not mentioned', async () => {
  const ws = await workspace(EXTERNAL_SECRETS);
  const quiet = ws.options();
  await render(quiet, ws.out);
  assert.deepEqual(
    quiet.warnings.filter((w) => w.object?.startsWith('Secret/')),
    [],
  );
  const tracked = path.join(ws.mc, 'aws-variables.yaml');
  renameSync(ws.secretFile, tracked);
  const loud = ws.options();
  await render(loud, ws.out);
  const warning = loud.warnings.find((w) => w.file === tracked)!;
  assert.match(warning.message, /is not ignored by Git: git add -A would commit it/);
  assert.equal(warning.object, 'Secret/capa-system/aws-variables');
});

test('under inline, which writes the values, the README records the command with the -f file of Secrets, outside the repository as a placeholder: filled in, it renders again and check agrees', async () => {
  const ws = await workspace(EXTERNAL_SECRETS);
  const away = withoutSecretFile(ws);
  const cli = async (args: string[]) => await runCli([...args], { cwd: ws.repo });
  const rendered = await cli(['render', '-f', 'mc', '-f', away, '-o', 'out', '--secrets', 'inline', '--allow-secret-values', '--quiet']);
  assert.equal(rendered.code, 0, rendered.stderr);
  const recorded = /\n(capi-gitops render [^\n]*)\n/.exec(readFileSync(path.join(ws.out, 'README.md'), 'utf8'))![1]!;
  assert.equal(recorded, `capi-gitops render -f mc -f ${OUTSIDE} -o out --secrets inline --allow-secret-values`);
  // the README's command, word for word (the paths hold no spaces), from the repository root, the file filled in
  const filled = recorded.replace(OUTSIDE, path.relative(ws.repo, away));
  const again = await cli([...filled.split(' ').slice(1), '--quiet']);
  assert.equal(again.code, 0, again.stderr);
  const checked = await cli(['check', ...filled.split(' ').slice(2)]);
  assert.equal(checked.code, 0, checked.stdout + checked.stderr);
});

test('external-secrets: the README records the command with the -f file of Secrets and the --secret-file, outside the repository as placeholders: filled in, it renders the same output, and check with them is up to date', async () => {
  const loglevel = `CAPA_LOGLEVEL: ${Buffer.from('4').toString('base64')}`;
  const ws = await workspace(`${EXTERNAL_SECRETS}  public: [CAPA_LOGLEVEL]\n`);
  const away = withoutSecretFile(ws);
  // the Secret holds a public key the output shows; the credentials come from a --secret-file
  writeFileSync(away, `apiVersion: v1\nkind: Secret\nmetadata: {name: aws-variables, namespace: capa-system}\ndata:\n  ${loglevel}\n`);
  const env = path.join(path.dirname(away), 'aws.env');
  writeFileSync(env, `AWS_B64ENCODED_CREDENTIALS=${B64}\n`);
  const cli = async (args: string[]) => await runCli([...args], { cwd: ws.repo });
  const flags = ['-f', 'mc', '-f', away, '-o', 'out', '--secret-file', env];
  const rendered = await cli(['render', ...flags, '--quiet']);
  assert.equal(rendered.code, 0, rendered.stderr);
  const recorded = /\n(capi-gitops render [^\n]*)\n/.exec(readFileSync(path.join(ws.out, 'README.md'), 'utf8'))![1]!;
  assert.equal(recorded, `capi-gitops render -f mc -f ${OUTSIDE} -o out --secret-file ${OUTSIDE}`);
  git(ws.repo, ['add', '-A']);
  git(ws.repo, ['commit', '-q', '-m', 'render with the Secret file']);
  const before = readTree(ws.out);
  // the README's command, word for word (the paths hold no spaces), from the repository root, into a new output, the files filled in
  rmSync(ws.out, { recursive: true });
  const filled = recorded.replace(OUTSIDE, path.relative(ws.repo, away)).replace(OUTSIDE, path.relative(ws.repo, env));
  const again = await cli([...filled.split(' ').slice(1), '--quiet']);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(readTree(ws.out), before);
  const checked = await cli(['check', ...flags]);
  assert.equal(checked.code, 0, checked.stdout + checked.stderr);
  // without the Secret's file CAPA_LOGLEVEL takes its default: that file is told, not the README
  const withoutSecret = await cli(['check', '-f', 'mc', '-o', 'out', '--secret-file', env]);
  assert.equal(withoutSecret.code, 1);
  assert.match(withoutSecret.stdout, /changed +04-infrastructure-aws\/deployment-capa-controller-manager\.yaml/);
  assert.doesNotMatch(withoutSecret.stdout, /README\.md/);
  assertNoSecret(SECRETS, { texts: { stdout: rendered.stdout + again.stdout + checked.stdout, stderr: withoutSecret.stdout } });
});

test('external-secrets: check in CI (no secret sources) prints the render to regenerate with the --secret-file the README records, outside the repository a placeholder; filled in, it renders and check agrees', async () => {
  const ws = await workspace(EXTERNAL_SECRETS);
  const away = withoutSecretFile(ws);
  const env = path.join(path.dirname(away), 'aws.env');
  writeFileSync(env, `AWS_B64ENCODED_CREDENTIALS=${B64}\n`);
  const cli = async (args: string[], cwd = ws.repo) => await runCli([...args], { cwd });
  assert.equal((await cli(['render', '-f', 'mc', '-f', away, '-o', 'out', '--secret-file', env, '--quiet'])).code, 0);
  git(ws.repo, ['add', '-A']);
  git(ws.repo, ['commit', '-q', '-m', 'render with the Secret file and the --secret-file']);
  editByHand(ws);
  // from a subdirectory: the README's paths are from the repository's root, the printed command's from here
  const mc = path.join(ws.repo, 'mc');
  const checked = await cli(['check', '-f', '.', '-o', '../out'], mc);
  assert.equal(checked.code, 1, checked.stdout + checked.stderr);
  const fix = /to regenerate, run: (capi-gitops render [^\n]*)\n/.exec(checked.stdout)?.[1];
  assert.equal(fix, `capi-gitops render -f . -f ${PLACEHOLDER} -o ../out --secret-file ${OUTSIDE}`);
  const filled = fix!.replace(PLACEHOLDER, path.relative(mc, away)).replace(OUTSIDE, path.relative(mc, env));
  const rendered = await cli([...filled.split(' ').slice(1), '--quiet'], mc);
  assert.equal(rendered.code, 0, rendered.stderr);
  const again = await cli(['check', '-f', 'mc', '-o', 'out']);
  assert.equal(again.code, 0, again.stdout + again.stderr);
  assertNoSecret(SECRETS, { texts: { stdout: checked.stdout, stderr: checked.stderr } });
});

test('a configSecret given with its own -f file, as the render hint says: the README records the command with it, and check in CI (no such file) is up to date', async () => {
  const ws = await workspace(EXTERNAL_SECRETS);
  const away = withoutSecretFile(ws);
  const cli = async (args: string[]) => await runCli([...args], { cwd: ws.repo });
  const rendered = await cli(['render', '-f', 'mc', '-f', away, '-o', 'out', '--quiet']);
  assert.equal(rendered.code, 0, rendered.stderr);
  assert.match(readFileSync(path.join(ws.out, 'README.md'), 'utf8'), new RegExp(`\ncapi-gitops render -f mc -f ${OUTSIDE} -o out\n`));
  git(ws.repo, ['add', '-A']);
  git(ws.repo, ['commit', '-q', '-m', 'render with the Secret file']);
  // with the file (a developer's checkout) and without it (CI): both up to date
  assert.equal((await cli(['check', '-f', 'mc', '-f', away, '-o', 'out'])).code, 0);
  renameSync(away, away + '.gone');
  const checked = await cli(['check', '-f', 'mc', '-o', 'out']);
  assert.equal(checked.code, 0, checked.stdout + checked.stderr);
  assertNoSecret(SECRETS, { texts: { stdout: checked.stdout, stderr: checked.stderr } });
});

/** An edit by hand, so check has something to report. */
function editByHand(ws: Workspace): void {
  const file = path.join(ws.out, '04-infrastructure-aws', 'deployment-capa-controller-manager.yaml');
  writeFileSync(file, readFileSync(file, 'utf8') + '# edited\n');
}

const PLACEHOLDER = '<file-holding-Secret-capa-system/aws-variables>';

test('external-secrets: check without the configSecret prints the render to regenerate with a -f for its file, which render needs; filled in, it renders and check agrees', async () => {
  const ws = await workspace(EXTERNAL_SECRETS);
  const away = path.relative(ws.repo, withoutSecretFile(ws));
  editByHand(ws);
  const cli = async (args: string[]) => await runCli([...args], { cwd: ws.repo });
  const checked = await cli(['check', '-f', 'mc', '-o', 'out']);
  assert.equal(checked.code, 1, checked.stdout + checked.stderr);
  const fix = /to regenerate, run: (capi-gitops render [^\n]*)\n/.exec(checked.stdout)?.[1];
  assert.equal(fix, `capi-gitops render -f mc -f ${PLACEHOLDER} -o out`);
  assert.match(
    checked.stdout,
    /not given Secret capa-system\/aws-variables \(mc\/providers\.yaml:13:\d+, spec\.configSecret of InfrastructureProvider/,
  );
  assert.match(checked.stdout, new RegExp(`in place of ${PLACEHOLDER}, put the path of the file that holds it`));
  // no public key of the Secret is in question here
  assert.doesNotMatch(checked.stdout, /may hold/);
  // as the line says: the placeholder replaced by the file's path
  const rendered = await cli([...fix!.replace(PLACEHOLDER, away).split(' ').slice(1), '--quiet']);
  assert.equal(rendered.code, 0, rendered.stderr);
  const again = await cli(['check', '-f', 'mc', '-o', 'out']);
  assert.equal(again.code, 0, again.stdout + again.stderr);
  assertNoSecret(SECRETS, { texts: { stdout: checked.stdout, stderr: checked.stderr } });
});

/**
 * external-secrets with CAPA_LOGLEVEL declared public but kept in the configSecret, rendered with
 * the Secret's file, which is then moved out of the repository (`away`, relative to it).
 */
async function publicKeyInSecret() {
  const loglevel = `CAPA_LOGLEVEL: ${Buffer.from('4').toString('base64')}`;
  const ws = await workspace(
    `${EXTERNAL_SECRETS}  public: [CAPA_LOGLEVEL]\n`,
    `AWS_B64ENCODED_CREDENTIALS: ${Buffer.from(B64).toString('base64')}\n  ${loglevel}`,
  );
  const away = path.relative(ws.repo, withoutSecretFile(ws));
  const cli = async (args: string[]) => await runCli([...args], { cwd: ws.repo });
  assert.equal((await cli(['render', '-f', 'mc', '-f', away, '-o', 'out', '--quiet'])).code, 0);
  return { away, cli, repo: ws.repo };
}

test('external-secrets: a key declared public but kept in the configSecret, checked without it: the change is told with the key, and the check with the Secret is up to date', async () => {
  const { away, cli } = await publicKeyInSecret();
  // without the Secret the manager's --v takes its default: the output is not what this check renders
  const checked = await cli(['check', '-f', 'mc', '-o', 'out']);
  assert.equal(checked.code, 1, checked.stdout + checked.stderr);
  assert.match(checked.stdout, /changed +04-infrastructure-aws\/deployment-capa-controller-manager\.yaml/);
  const told = /it may hold CAPA_LOGLEVEL, declared public .*; to compare with the Secret, run: (capi-gitops check [^;]*);/.exec(
    checked.stdout,
  );
  assert.equal(told?.[1], `capi-gitops check -f mc -f ${PLACEHOLDER} -o out`);
  const withSecret = await cli(told![1]!.replace(PLACEHOLDER, away).split(' ').slice(1));
  assert.equal(withSecret.code, 0, withSecret.stdout + withSecret.stderr);
  const json = JSON.parse((await cli(['check', '-f', 'mc', '-o', 'out', '--json'])).stdout) as { secretsNotGiven: unknown };
  assert.deepEqual(json.secretsNotGiven, [
    {
      secret: 'capa-system/aws-variables',
      objects: ['InfrastructureProvider/capa-system/aws'],
      file: 'mc/providers.yaml',
      line: 13,
      column: 17,
      publicKeys: ['CAPA_LOGLEVEL'],
    },
  ]);
});

test('external-secrets: a key declared public that the release needs without a default, kept in the configSecret and checked without it: out of date, with the check to run with the Secret, never refused as a secret', async () => {
  // the fixture's release with one more argument, --region=${AWS_REGION}, which has no default
  const repository = tempDir('capi-gitops-aws-region-');
  const release = path.join(repository, 'infrastructure-aws', 'v0.3.0');
  mkdirSync(release, { recursive: true });
  const fixture = path.join(FIXTURES, 'secrets', 'infrastructure-aws', 'v0.3.0');
  writeFileSync(path.join(release, 'metadata.yaml'), readFileSync(path.join(fixture, 'metadata.yaml')));
  const components = readFileSync(path.join(fixture, 'infrastructure-components.yaml'), 'utf8');
  assert.ok(components.includes('        - --leader-elect\n'));
  writeFileSync(
    path.join(release, 'infrastructure-components.yaml'),
    components.replace('        - --leader-elect\n', '        - --leader-elect\n        - --region=${AWS_REGION}\n'),
  );
  const ws = await workspace(
    `${EXTERNAL_SECRETS}  public: [AWS_REGION]\n`,
    `AWS_B64ENCODED_CREDENTIALS: ${Buffer.from(B64).toString('base64')}\n  AWS_REGION: ${Buffer.from('eu-west-1').toString('base64')}`,
    url(repository, 'infrastructure-aws', 'latest', 'infrastructure-components.yaml'),
  );
  const away = path.relative(ws.repo, withoutSecretFile(ws));
  const cli = async (args: string[]) => await runCli([...args], { cwd: ws.repo });
  assert.equal((await cli(['render', '-f', 'mc', '-f', away, '-o', 'out', '--quiet'])).code, 0);
  const checked = await cli(['check', '-f', 'mc', '-o', 'out']);
  assert.equal(checked.code, 1, checked.stdout + checked.stderr);
  assert.doesNotMatch(checked.stderr, /error:/);
  assert.match(checked.stdout, /changed +04-infrastructure-aws\/deployment-capa-controller-manager\.yaml/);
  const told = /it may hold AWS_REGION, declared public .*; to compare with the Secret, run: (capi-gitops check [^;]*);/.exec(
    checked.stdout,
  );
  assert.equal(told?.[1], `capi-gitops check -f mc -f ${PLACEHOLDER} -o out`);
  // AWS_REGION has no default: the check took a placeholder, and says so
  assert.match(checked.stdout, /this check took their defaults \(a placeholder for one without\)/);
  const withSecret = await cli(told![1]!.replace(PLACEHOLDER, away).split(' ').slice(1));
  assert.equal(withSecret.code, 0, withSecret.stdout + withSecret.stderr);
  assertNoSecret(SECRETS, { texts: { stdout: checked.stdout, stderr: checked.stderr } });
});

test('a fleet checked without the configSecret its clusters share: the Secret is named once, with its public key, and the check with it is up to date', async () => {
  const loglevel = `CAPA_LOGLEVEL: ${Buffer.from('4').toString('base64')}`;
  const ws = await workspace(
    `${EXTERNAL_SECRETS}  public: [CAPA_LOGLEVEL]\nclusters:\n- name: eu\n- name: us\n`,
    `AWS_B64ENCODED_CREDENTIALS: ${Buffer.from(B64).toString('base64')}\n  ${loglevel}`,
  );
  const away = path.relative(ws.repo, withoutSecretFile(ws));
  const cli = async (args: string[]) => await runCli([...args], { cwd: ws.repo });
  assert.equal((await cli(['render', '-f', 'mc', '-f', away, '-o', 'out', '--quiet'])).code, 0);
  const checked = await cli(['check', '-f', 'mc', '-o', 'out', '--json']);
  assert.equal(checked.code, 1, checked.stdout + checked.stderr);
  const { secretsNotGiven } = JSON.parse(checked.stdout) as { secretsNotGiven: { secret: string; publicKeys: string[] }[] };
  assert.deepEqual(
    secretsNotGiven.map((s) => [s.secret, s.publicKeys]),
    [['capa-system/aws-variables', ['CAPA_LOGLEVEL']]],
  );
  const withSecret = await cli(['check', '-f', 'mc', '-f', away, '-o', 'out']);
  assert.equal(withSecret.code, 0, withSecret.stdout + withSecret.stderr);
});

test('external-secrets: diff without the configSecret that holds a public key tells that the render took its default, with the diff to run with the Secret, which shows no change', async () => {
  const { away, cli } = await publicKeyInSecret();
  const diffed = await cli(['diff', '-f', 'mc', '-o', 'out']);
  assert.equal(diffed.code, 0, diffed.stderr);
  // the manager's --v took its default: the diff shows a change that is that alone
  assert.match(diffed.stdout, /deployment|capa-controller-manager/i);
  assert.match(
    diffed.stderr,
    /^warning: this diff was not given Secret capa-system\/aws-variables \(spec\.configSecret of InfrastructureProvider\/capa-system\/aws\), which may hold CAPA_LOGLEVEL, declared public/m,
  );
  const rerun = /hint: run (capi-gitops diff [^,]*), with the path/.exec(diffed.stderr)?.[1];
  assert.equal(rerun, `capi-gitops diff -f mc -f ${PLACEHOLDER} -o out`);
  const withSecret = await cli(rerun!.replace(PLACEHOLDER, away).split(' ').slice(1));
  assert.equal(withSecret.code, 0, withSecret.stderr);
  assert.doesNotMatch(withSecret.stderr, /was not given Secret/);
  assert.match(withSecret.stdout, /no object changed/i);
  assertNoSecret(SECRETS, { texts: { stdout: diffed.stdout + withSecret.stdout, stderr: diffed.stderr + withSecret.stderr } });
});

test('two providers naming one configSecret (the chart-wide configSecret import helm-values writes into each): check and diff tell the Secret once, naming both, with one -f for its file', async () => {
  const { away, cli, repo } = await publicKeyInSecret();
  const providers = path.join(repo, 'mc', 'providers.yaml');
  writeFileSync(
    providers,
    readFileSync(providers, 'utf8').replace(
      '  version: v0.2.0\n',
      '  version: v0.2.0\n  configSecret: {name: aws-variables, namespace: capa-system}\n',
    ),
  );
  assert.equal((await cli(['render', '-f', 'mc', '-f', away, '-o', 'out', '--quiet'])).code, 0);
  const checked = await cli(['check', '-f', 'mc', '-o', 'out']);
  assert.equal(checked.code, 1, checked.stdout + checked.stderr);
  assert.equal(checked.stdout.match(/this check was not given Secret capa-system\/aws-variables/g)?.length, 1, checked.stdout);
  assert.match(checked.stdout, /spec\.configSecret of CoreProvider\/capi-system\/cluster-api, InfrastructureProvider\/capa-system\/aws\)/);
  // the warning that it rendered without the Secret: once, at the first provider, naming both
  const without = checked.stderr.match(/.*Secret capa-system\/aws-variables is not in the input: rendered without it/g);
  assert.equal(without?.length, 1, checked.stderr);
  assert.match(
    without[0],
    /providers\.yaml:\d+:\d+: warning: CoreProvider\/capi-system\/cluster-api, InfrastructureProvider\/capa-system\/aws: /,
  );
  // render without it: one error, naming both
  const rendered = await cli(['render', '-f', 'mc', '-o', 'out2']);
  assert.equal(rendered.code, 1);
  assert.equal(rendered.stderr.match(/Secret capa-system\/aws-variables is not in the input/g)?.length, 1, rendered.stderr);
  assert.match(rendered.stderr, /CoreProvider\/capi-system\/cluster-api, InfrastructureProvider\/capa-system\/aws: spec\.configSecret/);
  assert.match(
    checked.stdout,
    new RegExp(`to regenerate, run: capi-gitops render -f mc -f ${PLACEHOLDER.replace(/[/]/g, '\\/')} -o out\n`),
  );
  const diffed = await cli(['diff', '-f', 'mc', '-o', 'out']);
  assert.equal(diffed.stderr.match(/this diff was not given Secret capa-system\/aws-variables/g)?.length, 1, diffed.stderr);
});
