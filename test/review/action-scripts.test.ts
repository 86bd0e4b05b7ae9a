/**
 * The scripts under action/ that action.yml runs, called in this process (words.mjs, secrets.mjs,
 * comment.mjs against a comments API on 127.0.0.1) or as the runner starts them (install.sh).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { githubMasks, isScannableSecret, isStructureLine, secretNeedles } from '../../src/secrets/gate.js';

const actionModule = async <T>(name: string): Promise<T> =>
  (await import(pathToFileURL(path.join(PROJECT_ROOT, 'action', name)).href)) as T;
const { splitWords } = await actionModule<{ splitWords: (text: string) => string[] }>('words.mjs');
const {
  parseSecrets,
  maskCommands,
  isMaskable,
  isStructureLine: isActionStructureLine,
} = await actionModule<{
  parseSecrets: (text: string, env: Record<string, string | undefined>) => { variables: Map<string, string>; problems: string[] };
  maskCommands: (variables: Map<string, string>) => string[];
  isMaskable: (text: string) => boolean;
  isStructureLine: (line: string) => boolean;
}>('secrets.mjs');
const { postComment, MARKER } = await actionModule<{
  postComment: (env: Record<string, string>, write: (line: string) => void) => Promise<{ action: string; id?: number }>;
  MARKER: string;
}>('comment.mjs');

test('args are split as a POSIX shell splits words, with no expansion (action/words.mjs)', () => {
  const cases: [string, string[]][] = [
    ['', []],
    ['  --layout   argocd  ', ['--layout', 'argocd']],
    ['--set a=b\n--set\tc=d\r\n', ['--set', 'a=b', '--set', 'c=d']],
    [`--set 'path=two words' --set "x=y z"`, ['--set', 'path=two words', '--set', 'x=y z']],
    [`--set "a=\\"q\\" \\\\ \\$HOME \\n"`, ['--set', 'a="q" \\ $HOME \\n']],
    [`--set a='it'"'"'s'`, ['--set', "a=it's"]],
    ['--values *.yaml ~/v.yaml $HOME $(id) [ab]', ['--values', '*.yaml', '~/v.yaml', '$HOME', '$(id)', '[ab]']],
    ['a\\ b c\\\\d', ['a b', 'c\\d']],
    ['--set a=b \\\n  --set c=d', ['--set', 'a=b', '--set', 'c=d']],
    ["--set empty= ''", ['--set', 'empty=', '']],
    ['# only a comment\n--quiet # trailing\n--set color=#fff', ['--quiet', '--set', 'color=#fff']],
  ];
  for (const [text, words] of cases) assert.deepEqual(splitWords(text), words, JSON.stringify(text));
  assert.throws(() => splitWords(`--set 'a=b`), /args: the single quote at character 7 is not closed; quote a value/);
  assert.throws(() => splitWords('--set "a=b'), /args: the double quote at character 7 is not closed/);
  assert.throws(() => splitWords('--set a=b \\'), /args: the backslash at the end escapes nothing/);
});

test('the secrets input: NAME=value lines and names taken from the environment; masks escaped like actions/toolkit escapeData (action/secrets.mjs)', () => {
  const { variables, problems } = parseSecrets('AWS_B64ENCODED_CREDENTIALS=a=b c%d\r\n  # comment\n\nFROM_ENV\n', {
    FROM_ENV: '-----BEGIN KEY-----\nabc%def\r\n-----END KEY-----',
  });
  assert.deepEqual(problems, []);
  assert.deepEqual(
    [...variables],
    [
      ['AWS_B64ENCODED_CREDENTIALS', 'a=b c%d'],
      ['FROM_ENV', '-----BEGIN KEY-----\nabc%def\r\n-----END KEY-----'],
    ],
  );
  assert.deepEqual(maskCommands(variables), [
    '::add-mask::a=b c%25d',
    '::add-mask::-----BEGIN KEY-----%0Aabc%25def%0D%0A-----END KEY-----',
    '::add-mask::abc%25def',
  ]);
  // an AWS credentials file: each secret line and its value, never the [default] header or a comment
  const credentials = '[default]\n# rotated monthly\naws_access_key_id = AKIAEXAMPLE123\naws_secret_access_key = s3cr3t/value+x';
  assert.deepEqual(maskCommands(new Map([['AWS_CREDENTIALS', credentials]])), [
    `::add-mask::${credentials.replace(/\n/g, '%0A')}`,
    '::add-mask::aws_access_key_id = AKIAEXAMPLE123',
    '::add-mask::AKIAEXAMPLE123',
    '::add-mask::aws_secret_access_key = s3cr3t/value+x',
    '::add-mask::s3cr3t/value+x',
  ]);
  // a value of fewer than 4 characters would mask ordinary words all over the log
  assert.deepEqual(maskCommands(new Map([['SHORT', 'ab']])), []);
  const bad = parseSecrets('1NAME=hunter2-value\nlower_ok=x\nABSENT', {});
  assert.deepEqual(bad.problems, [
    'secrets, line 1: expected NAME=value or NAME (letters, digits and _, not starting with a digit); the line is not shown',
    "secrets, line 3: ABSENT is not in the environment; set it in the step's env: or write ABSENT=value",
  ]);
  assert.deepEqual([...bad.variables.keys()], ['lower_ok']);
});

test('the secrets input refuses a name that would replace the environment capi-gitops runs in (PATH, HOME, NODE_OPTIONS, GITHUB_*), never showing its value (action/secrets.mjs)', () => {
  const text = [
    'PATH=/tmp/evil-bin-value',
    'HOME=/tmp/evil-home-value',
    'NODE_OPTIONS=--require=/tmp/evil-value.js',
    'GITHUB_STEP_SUMMARY=/tmp/evil-summary-value',
    'node_options=--inspect-evil-value',
    'LD_PRELOAD=/tmp/evil-lib-value.so',
    'RUNNER_TEMP',
    'ALREADY_SET=another-evil-value',
    'ALREADY_SAME=same-value-ok',
    'AWS_B64ENCODED_CREDENTIALS=fine-value',
  ].join('\n');
  const { variables, problems } = parseSecrets(text, {
    PATH: '/usr/bin',
    RUNNER_TEMP: '/tmp/runner',
    ALREADY_SET: 'original',
    ALREADY_SAME: 'same-value-ok',
  });
  assert.deepEqual([...variables.keys()], ['ALREADY_SAME', 'AWS_B64ENCODED_CREDENTIALS']);
  assert.equal(problems.length, 8, problems.join('\n'));
  for (const [index, name] of [
    'PATH',
    'HOME',
    'NODE_OPTIONS',
    'GITHUB_STEP_SUMMARY',
    'node_options',
    'LD_PRELOAD',
    'RUNNER_TEMP',
  ].entries()) {
    assert.match(problems[index]!, new RegExp(`^secrets, line ${index + 1}: ${name} would replace the environment capi-gitops runs in`));
  }
  assert.match(problems[7]!, /^secrets, line 8: ALREADY_SET is already in the step's environment with another value/);
  for (const problem of problems) {
    assert.doesNotMatch(problem, /evil|original/, problem);
    assert.match(problem, /the value is not shown/);
  }
});

test('run.mjs refuses a secret named PATH before capi-gitops starts: the error names the input and the line, never the value, and nothing is masked or run (action/run.mjs)', () => {
  const result = spawnSync(process.execPath, [path.join(PROJECT_ROOT, 'action', 'run.mjs'), 'check'], {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      MANIFEST: 'm',
      OUTPUT: 'o',
      ARGS: '',
      SECRETS: 'PATH=/tmp/evil-path-value\nNODE_OPTIONS=--require=/tmp/evil.js',
    },
  });
  assert.equal(result.status, 1, result.stderr);
  assert.match(result.stderr, /::error title=capi-gitops action::secrets, line 1: PATH would replace the environment/);
  assert.match(result.stderr, /::error title=capi-gitops action::secrets, line 2: NODE_OPTIONS would replace the environment/);
  assert.doesNotMatch(result.stdout + result.stderr, /evil/);
  assert.equal(result.stdout, '');
});

test('the secrets input: a value too common to be a credential (true, 1, 9443, null) is not masked, or every occurrence in the log would be *** (action/secrets.mjs, as src/secrets/gate.ts isScannableSecret)', () => {
  const { variables } = parseSecrets(
    'EXP_MACHINE_POOL=true\nREPLICAS=1\nPORT=9443\nOPTIONAL=null\nDISABLED=False\nTOKEN=tok-12345\nPIN=12345678\nSETTINGS',
    {
      SETTINGS: '[flags]\nenabled = true\nretries = 3\npassword = hunter2-value',
    },
  );
  assert.deepEqual(maskCommands(variables), [
    '::add-mask::tok-12345',
    '::add-mask::12345678',
    '::add-mask::[flags]%0Aenabled = true%0Aretries = 3%0Apassword = hunter2-value',
    '::add-mask::enabled = true',
    '::add-mask::retries = 3',
    '::add-mask::password = hunter2-value',
    '::add-mask::hunter2-value',
  ]);
  // the Action masks exactly what the CLI counts as a secret's bytes (it cannot import the CLI's modules)
  const samples = [
    'true',
    'TRUE',
    'yes',
    'off',
    'Null',
    '~',
    'y',
    '1',
    '0.5',
    '-42',
    '1e3',
    '9443',
    '1234567',
    '12345678',
    'abcd',
    'abc',
    'truely',
    ' true',
    '+.5',
  ];
  for (const value of samples) assert.equal(isMaskable(value), isScannableSecret(value), JSON.stringify(value));
});

test('a multi-line secret: the Action and the CLI leave out the same structure lines ([default], comments, PEM armour) and the CLI masks all the Action masks (action/secrets.mjs maskCommands, src/secrets/gate.ts githubMasks)', () => {
  const samples = [
    '[default]',
    '  [profile prod]  ',
    '# comment',
    '; comment',
    '-----BEGIN CERTIFICATE-----',
    '-----END+RSA+PRIVATE+KEY-----',
    '-----BEGIN AGE ENCRYPTED FILE-----',
    'aws_access_key_id = AKIAEXAMPLE123',
    'MIIBszCCAVmgAwIBAgIU',
    '[default] x',
    '-----BEGIN-----',
  ];
  for (const line of samples) assert.equal(isActionStructureLine(line), isStructureLine(line), JSON.stringify(line));
  const values = new Map([
    ['AWS_CREDENTIALS', '[default]\n# rotated\naws_access_key_id = AKIAEXAMPLE123\naws_secret_access_key = s3cr3t/value+x'],
    [
      'CA_KEY',
      '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oIW3TLhTzGYwoAoGCCqGSM49\n-----END EC PRIVATE KEY-----',
    ],
  ]);
  const cli = new Set(githubMasks(secretNeedles(new Map([...values].map(([name, value]) => [name, [value]])))));
  for (const mask of maskCommands(values)) assert.ok(cli.has(mask), mask);
  for (const structure of ['[default]', '# rotated', '-----BEGIN EC PRIVATE KEY-----', '-----END EC PRIVATE KEY-----'])
    assert.ok(!cli.has(`::add-mask::${structure}`), structure);
});

/** GitHub's issue-comments API for acme/mgmt pull request 7: pages of per_page with Link headers. */
async function commentsApi(comments: { id: number; body: string }[], linkOrigin?: string) {
  const requests: { method: string; url: string; body: string }[] = [];
  let origin = '';
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      requests.push({ method: req.method!, url: req.url!, body });
      const url = new URL(req.url!, origin);
      res.setHeader('content-type', 'application/json');
      if (req.method === 'GET' && url.pathname === '/repos/acme/mgmt/issues/7/comments') {
        const perPage = Number(url.searchParams.get('per_page'));
        const page = Number(url.searchParams.get('page') ?? 1);
        if (page * perPage < comments.length)
          res.setHeader(
            'link',
            `<${linkOrigin ?? origin}${url.pathname}?per_page=${perPage}&page=${page + 1}>; rel="next", <x>; rel="last"`,
          );
        return void res.end(JSON.stringify(comments.slice((page - 1) * perPage, page * perPage)));
      }
      if (req.method === 'POST') return void res.end(JSON.stringify({ id: 9999, body: JSON.parse(body).body }));
      if (req.method === 'PATCH') return void res.end(JSON.stringify({ id: 1, body: JSON.parse(body).body }));
      res.statusCode = 404;
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function commentEnv(apiUrl: string): Record<string, string> {
  const diff = path.join(tempDir('capi-gitops-diff-'), 'diff.md');
  writeFileSync(diff, '## capi-gitops diff\n\nno changes\n');
  return { GITHUB_API_URL: apiUrl, GITHUB_REPOSITORY: 'acme/mgmt', GITHUB_TOKEN: 'ghs_fake', PR_NUMBER: '7', DIFF_FILE: diff };
}

const others = (n: number) => Array.from({ length: n }, (_, i) => ({ id: 1000 + i, body: `review comment ${i}` }));

test('the comment step finds its own comment on the third page of a busy pull request and updates it (action/comment.mjs)', async () => {
  const comments = others(250);
  comments[230] = { id: 1230, body: `${MARKER}\nthe previous diff` };
  const api = await commentsApi(comments);
  try {
    const result = await postComment(commentEnv(api.origin), () => assert.fail('nothing to tell'));
    assert.deepEqual(result, { action: 'updated', id: 1230 });
    assert.deepEqual(
      api.requests.map((r) => `${r.method} ${r.url}`),
      [
        'GET /repos/acme/mgmt/issues/7/comments?per_page=100',
        'GET /repos/acme/mgmt/issues/7/comments?per_page=100&page=2',
        'GET /repos/acme/mgmt/issues/7/comments?per_page=100&page=3',
        'PATCH /repos/acme/mgmt/issues/comments/1230',
      ],
    );
    assert.equal(JSON.parse(api.requests[3]!.body).body, `${MARKER}\n## capi-gitops diff\n\nno changes\n`);
  } finally {
    await api.close();
  }
});

test('the comment step reads every page before creating a comment, and never follows a Link to another origin with the token', async () => {
  const api = await commentsApi(others(150));
  try {
    assert.deepEqual(await postComment(commentEnv(api.origin), () => {}), { action: 'created', id: 9999 });
    assert.deepEqual(
      api.requests.map((r) => r.method),
      ['GET', 'GET', 'POST'],
    );
  } finally {
    await api.close();
  }
  const elsewhere = await commentsApi(others(150), 'http://localhost:9');
  try {
    await assert.rejects(
      postComment(commentEnv(elsewhere.origin), () => {}),
      /a Link header points away from http:\/\/127\.0\.0\.1:\d+/,
    );
    assert.equal(elsewhere.requests.length, 1);
  } finally {
    await elsewhere.close();
  }
});

test('install.sh in a checkout without the bundle builds it with `npm run build:fast` (esbuild), never the tsc build, and puts it on PATH', () => {
  const checkout = tempDir('capi-gitops-action-checkout-');
  const runnerTemp = tempDir('capi-gitops-runner-');
  try {
    cpSync(path.join(PROJECT_ROOT, 'action'), path.join(checkout, 'action'), { recursive: true });
    // npm as a stand-in: records its arguments; `run build:fast` writes a bundle that prints its own
    const fakeBin = path.join(runnerTemp, 'fake-bin');
    mkdirSync(fakeBin);
    const calls = path.join(runnerTemp, 'npm-calls');
    writeFileSync(
      path.join(fakeBin, 'npm'),
      `#!/usr/bin/env bash\necho "$*" >> ${JSON.stringify(calls)}\n` +
        `if [ "$1 $2" = "run build:fast" ]; then mkdir -p "$4/dist" && echo 'console.log("bundle", process.argv.slice(2).join(" "))' > "$4/dist/capi-gitops.mjs"; fi\n`,
    );
    chmodSync(path.join(fakeBin, 'npm'), 0o755);
    const githubPath = path.join(runnerTemp, 'path');
    writeFileSync(githubPath, '');
    const env = {
      ...process.env,
      PATH: `${fakeBin}${path.delimiter}${process.env.PATH}`,
      ACTION_PATH: checkout,
      CAPI_GITOPS_VERSION: '',
      RUNNER_TEMP: runnerTemp,
      GITHUB_PATH: githubPath,
    };
    const install = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', path.join(checkout, 'action', 'install.sh')], {
      env,
      encoding: 'utf8',
    });
    assert.equal(install.status, 0, install.stderr);
    assert.deepEqual(readFileSync(calls, 'utf8').trim().split('\n'), [
      `ci --prefix ${checkout} --no-fund --no-audit`,
      `run build:fast --prefix ${checkout}`,
    ]);
    const scripts = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
    assert.equal(
      scripts['build:fast'],
      'node scripts/build-fast.mjs --bundle',
      'build:fast is the esbuild build of the single-file bundle',
    );
    const bin = readFileSync(githubPath, 'utf8').trim();
    const run = spawnSync(path.join(bin, 'capi-gitops'), ['render', '-f', 'a b'], { encoding: 'utf8' });
    assert.equal(run.stdout, 'bundle render -f a b\n');

    // a second job on the same checkout finds the bundle: no npm at all
    rmSync(calls);
    assert.equal(spawnSync('bash', [path.join(checkout, 'action', 'install.sh')], { env }).status, 0);
    assert.throws(() => readFileSync(calls), /ENOENT/);
  } finally {
    rmSync(checkout, { recursive: true, force: true });
    rmSync(runnerTemp, { recursive: true, force: true });
  }
});
