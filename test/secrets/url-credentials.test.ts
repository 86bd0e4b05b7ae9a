/**
 * A Git URL given to the wiring chart with its credentials (`https://user:token@host/repo.git`)
 * would be committed in every Application, the GitRepository and the README's regenerate command.
 * Argo CD and Flux read a repository's credentials from a Secret, never from the URL.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exampleCopy, runCli } from '../helpers/cli.js';

const TOKEN = 'glpat-UrlCredential0123456789';
const WITH_CREDENTIALS = `https://oauth2:${TOKEN}@gitlab.example.com/platform/mgmt.git`;

async function renderExample(out: string, ...flags: string[]) {
  return await runCli(['render', '-f', path.join(exampleCopy(), 'management-cluster'), '-o', out, '--set', 'path=clusters/mgmt', ...flags]);
}

test('a Git URL with credentials in the wiring chart values is refused once, at an object that holds it, never quoting them (argo-cd docs user-guide/private-repositories, Flux GitRepository spec.secretRef); the hint, followed, renders', async () => {
  for (const [layout, value] of [
    ['argocd', 'repoURL'],
    ['flux', 'gitRepository.url'],
  ] as const) {
    const out = path.join(exampleCopy(), 'out');
    const refused = await renderExample(out, '--layout', layout, '--set', `${value}=${WITH_CREDENTIALS}`);
    assert.equal(refused.code, 1, refused.stderr);
    assert.equal(refused.stderr.match(/error:/g)?.length, 1, refused.stderr);
    assert.match(
      refused.stderr,
      new RegExp(
        `^${layout}/[a-z0-9-]+\\.yaml:\\d+:\\d+: error: holds a URL with credentials in it \\(https://\\*+@gitlab\\.example\\.com\\)`,
        'm',
      ),
    );
    assert.match(refused.stderr, /hint: give the URL without its credentials where you gave it/);
    assert.ok(!refused.stderr.includes(TOKEN) && !refused.stderr.includes('oauth2:'), refused.stderr);
    assert.equal(existsSync(out), false, 'nothing written');

    // followed: the URL without its credentials
    const followed = await renderExample(out, '--layout', layout, '--set', `${value}=https://gitlab.example.com/platform/mgmt.git`);
    assert.equal(followed.code, 0, followed.stderr);
  }
});

test('a URL whose password is a reference to be filled in (Flux ${VAR}) is not a credential; --secrets inline --allow-secret-values writes real ones with the warning', async () => {
  const substituted = await renderExample(
    path.join(exampleCopy(), 'out'),
    '--layout',
    'flux',
    '--set',
    'gitRepository.url=https://oauth2:${GIT_TOKEN}@gitlab.example.com/platform/mgmt.git',
  );
  assert.equal(substituted.code, 0, substituted.stderr);

  const out = path.join(exampleCopy(), 'out');
  const inline = await renderExample(
    out,
    '--layout',
    'argocd',
    '--set',
    `repoURL=${WITH_CREDENTIALS}`,
    '--secrets',
    'inline',
    '--allow-secret-values',
  );
  assert.equal(inline.code, 0, inline.stderr);
  assert.match(
    inline.stderr,
    /warning: --secrets inline: these files hold secret values .*README\.md, argocd\/application-capi-gitops-00-cert-manager\.yaml/,
  );
  const holding = readdirSync(path.join(out, 'argocd')).filter((f) => readFileSync(path.join(out, 'argocd', f), 'utf8').includes(TOKEN));
  assert.ok(holding.length > 0);
});

test('a Git URL with credentials given in a --values file or the Config is refused at the line that gives it, naming the value and the file the chart would write it into; the hint, followed there, renders', async () => {
  const dir = path.join(exampleCopy(), 'management-cluster');
  const values = path.join(dir, '..', 'creds.yaml');
  for (const [layout, text, at] of [
    ['argocd', `# the platform repository\nrepoURL: ${WITH_CREDENTIALS}\n`, ':2:10: error: value repoURL'],
    ['flux', `gitRepository:\n  url: ${WITH_CREDENTIALS}\n`, ':2:8: error: value gitRepository.url'],
  ] as const) {
    writeFileSync(values, text);
    const out = path.join(dir, '..', 'out');
    const refused = await renderExample(out, '--layout', layout, '--values', values);
    assert.equal(refused.code, 1, refused.stderr);
    assert.equal(refused.stderr.match(/error:/g)?.length, 1, refused.stderr);
    assert.ok(
      new RegExp(
        `creds\\.yaml${at} holds a URL with credentials in it \\(https://\\*+@gitlab\\.example\\.com\\), which the chart writes into ${layout}/`,
      ).test(refused.stderr),
      refused.stderr,
    );
    assert.ok(!refused.stderr.includes(TOKEN) && !refused.stderr.includes('oauth2:'), refused.stderr);
    writeFileSync(values, text.replace(`oauth2:${TOKEN}@`, ''));
    const followed = await renderExample(out, '--layout', layout, '--values', values);
    assert.equal(followed.code, 0, followed.stderr);
    rmSync(out, { recursive: true, force: true });
  }
  // in the Config, at its line there
  const config = path.join(dir, 'config.yaml');
  const line = readFileSync(config, 'utf8').split('\n').length + 3;
  appendFileSync(config, `gitops:\n  values:\n    # the platform repository\n    repoURL: ${WITH_CREDENTIALS}\n`);
  const refused = await runCli([
    'render',
    '-f',
    dir,
    '-o',
    path.join(dir, '..', 'out'),
    '--set',
    'path=clusters/mgmt',
    '--layout',
    'argocd',
  ]);
  assert.equal(refused.code, 1, refused.stderr);
  assert.ok(refused.stderr.includes(`config.yaml:${line}:14: error: value repoURL holds a URL with credentials`), refused.stderr);
});
