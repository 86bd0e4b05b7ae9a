/**
 * Credentials go only where the person running the tool said (issue 27, class 2). A pull request
 * edits the manifest: it can name any registry in fetchConfig.oci and any GitLab URL, and a source
 * it names can redirect anywhere. OCI_* and GITLAB_* from the environment (CI's secrets) reach a
 * host only when the runner lists it (CAPI_GITOPS_OCI_REGISTRIES, CAPI_GITOPS_GITLAB_HOSTS; like
 * GITHUB_API_URL for GITHUB_TOKEN), never over plain http except to loopback; and no hop of a
 * redirect goes to plain http unless the source allows it. The fakes on 127.0.0.1 log every
 * Authorization header they receive.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { renderManagementCluster } from '../../src/app/cluster.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { environmentCredentialProblem, httpsAuthorization } from '../../src/sources/credentials.js';
import { openOciRepository } from '../../src/sources/oci/repository.js';
import { openGitLabRepository } from '../../src/sources/gitlab/repository.js';
import { openHttpsRepository } from '../../src/sources/https/repository.js';
import type { ProviderRepository } from '../../src/sources/source.js';
import { EchoServer } from '../helpers/echo-server.js';
import { writeTempManifest } from '../helpers/corpus-manifest.js';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';
import { rejection } from '../helpers/assertions.js';
import { SUITE_SECRETS } from '../helpers/secret-scan.js';

const OCI_USER = 'ci-robot';
const OCI_PASSWORD = SUITE_SECRETS.ciRegistryPassword;
const GITLAB_TOKEN = SUITE_SECRETS.ciGitLabToken;
const BASIC = `Basic ${Buffer.from(`${OCI_USER}:${OCI_PASSWORD}`).toString('base64')}`;
const NO_RETRIES = { retries: 0, timeoutMs: 5_000, sleep: async () => undefined };

/** A registry (or GitLab) that asks for Basic credentials and logs every Authorization it gets. */
const attacker = await EchoServer.start((request) =>
  request.headers.authorization === undefined
    ? { status: 401, body: '{"errors":[{"code":"UNAUTHORIZED"}]}', headers: { 'www-authenticate': 'Basic realm="registry"' } }
    : { status: 404, body: '{"errors":[{"code":"MANIFEST_UNKNOWN"}]}' },
);
after(() => attacker.close());
const attackerHost = new URL(attacker.origin).host;
const authorizations = () => attacker.requests.map((r) => r.headers.authorization).filter((a) => a !== undefined);

test("a pull request's fetchConfig.oci naming its own registry gets no OCI_USERNAME/OCI_PASSWORD from the environment; the error says which variable lists trusted registries", async () => {
  attacker.requests.length = 0;
  const manifest = writeTempManifest({
    'providers.yaml': `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
  namespace: capi-system
spec:
  version: v1.12.0
  fetchConfig:
    oci: http://${attackerHost}/capi/core
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager:
  enabled: false
`,
  });
  const logs: string[] = [];
  const env = { OCI_USERNAME: OCI_USER, OCI_PASSWORD };
  const render = (extra: Record<string, string>) =>
    renderManagementCluster({
      manifestPaths: [manifest],
      command: 'capi-gitops render',
      sources: { env: { ...env, ...extra }, http: NO_RETRIES, log: (line) => logs.push(line) },
    }).then(
      () => assert.fail('the render succeeded'),
      (err: unknown) => err,
    );
  const refused = await render({});
  assert.ok(refused instanceof CapiGitopsError, String(refused));
  assert.ok(attacker.requests.length > 0, 'the registry was asked, anonymously');
  assert.deepEqual(authorizations(), []);
  assert.match(refused.message, /requires a username and password/);
  assert.match(refused.message, /goes only to hosts listed in CAPI_GITOPS_OCI_REGISTRIES, and 127\.0\.0\.1:\d+ is not listed/);
  assert.match(
    refused.message,
    new RegExp(`add it to CAPI_GITOPS_OCI_REGISTRIES \\(e\\.g\\. CAPI_GITOPS_OCI_REGISTRIES=${attackerHost}\\)`),
  );
  assert.ok(logs.some((line) => /^oci: OCI_\* .* from the environment goes only to hosts listed in CAPI_GITOPS_OCI_REGISTRIES/.test(line)));
  for (const text of [refused.message, ...logs]) assert.ok(!text.includes(OCI_PASSWORD), text);

  // the runner names the registry: now, and only now, it gets them (loopback, so plain http is fine)
  attacker.requests.length = 0;
  await render({ CAPI_GITOPS_OCI_REGISTRIES: `other.example.com, ${attackerHost}` });
  assert.ok(authorizations().length > 0 && authorizations().every((a) => a === BASIC));
});

test("OCI credentials from the environment never go over plain http to a host other than loopback, even a listed one; the configSecret keeps the operator's rule", () => {
  const listed = { OCI_USERNAME: OCI_USER, OCI_PASSWORD, CAPI_GITOPS_OCI_REGISTRIES: 'registry.example.net' };
  const logs: string[] = [];
  openOciRepository('http://registry.example.net/capi/core', {
    providerType: 'CoreProvider',
    providerName: 'cluster-api',
    env: listed,
    log: (line) => logs.push(line),
  });
  assert.deepEqual(logs, [
    'oci: OCI_* (OCI_USERNAME, OCI_PASSWORD, …) from the environment is not sent to registry.example.net over plain http (https only, or a loopback address)',
  ]);
  const check = (url: string, env: Record<string, string>) => environmentCredentialProblem(new URL(url), 'X', 'LIST', env);
  assert.equal(check('https://registry.example.net', { LIST: 'registry.example.net' }), undefined);
  assert.equal(check('https://registry.example.net:5000', { LIST: 'https://registry.example.net:5000/' }), undefined);
  assert.match(check('https://registry.example.net:5000', { LIST: 'registry.example.net' }) ?? '', /is not listed/);
  assert.match(check('https://evil.example.net', { LIST: 'registry.example.net' }) ?? '', /is not listed/);
  assert.equal(check('http://127.0.0.1:5000', { LIST: '127.0.0.1:5000' }), undefined);
  // CAPI_GITOPS_HTTPS_AUTHORIZATION: the named host, over https (or loopback) only
  const httpsEnv = { CAPI_GITOPS_HTTPS_AUTHORIZATION: 'env-token-0451', CAPI_GITOPS_HTTPS_AUTHORIZATION_HOST: 'artifacts.example.net' };
  assert.equal(httpsAuthorization('https://artifacts.example.net/v1/c.yaml', undefined, httpsEnv), 'Bearer env-token-0451');
  assert.equal(httpsAuthorization('http://artifacts.example.net/v1/c.yaml', undefined, httpsEnv), undefined);
});

function gitlab(url: string, env: Record<string, string>, logs: string[] = []): ProviderRepository {
  const repository = openGitLabRepository(url, {
    hosts: [attackerHost],
    env,
    http: NO_RETRIES,
    log: (line) => logs.push(line),
    origin: { file: 'providers.yaml', line: 1, column: 1 },
  });
  assert.ok(repository);
  return repository;
}

test('GITLAB_TOKEN goes to gitlab.com or a GitLab the runner lists in CAPI_GITOPS_GITLAB_HOSTS, not to any host a manifest names', async () => {
  const url = `${attacker.origin}/api/v4/projects/team%2Fcapi/packages/generic/cluster-api/v1.12.0/core-components.yaml`;
  attacker.requests.length = 0;
  const logs: string[] = [];
  const refused = await rejection(gitlab(url, { GITLAB_TOKEN }, logs).getFile('v1.12.0', 'metadata.yaml'));
  assert.deepEqual(authorizations(), []);
  assert.match(refused.message, /unauthorized access/);
  assert.match(refused.diagnostics[0]!.hint ?? '', /goes only to hosts listed in CAPI_GITOPS_GITLAB_HOSTS \(and gitlab\.com\)/);
  assert.match(
    refused.diagnostics[0]!.hint ?? '',
    new RegExp(`if you trust ${attackerHost.replace('.', '\\.')}, add it to CAPI_GITOPS_GITLAB_HOSTS`),
  );
  assert.ok(logs.some((line) => line.startsWith('gitlab: GITLAB_ACCESS_TOKEN (or GITLAB_TOKEN) from the environment goes only to')));
  assert.ok(!(refused.message + logs.join('\n')).includes(GITLAB_TOKEN));

  attacker.requests.length = 0;
  await rejection(gitlab(url, { GITLAB_TOKEN, CAPI_GITOPS_GITLAB_HOSTS: attackerHost }).getFile('v1.12.0', 'metadata.yaml'));
  assert.deepEqual(authorizations(), [`Bearer ${GITLAB_TOKEN}`]);
  // a configSecret's token goes to the URL's host, as clusterctl sends it
  attacker.requests.length = 0;
  const fromSecret = openGitLabRepository(url, {
    hosts: [attackerHost],
    env: {},
    http: NO_RETRIES,
    credentials: { 'gitlab-access-token': 'x-from-secret' },
  });
  await rejection(fromSecret!.getFile('v1.12.0', 'metadata.yaml'));
  assert.deepEqual(authorizations(), ['Bearer x-from-secret']);
});

test('a redirect from a source to plain http on another host is not followed unless the repository allows plain http (allowInsecure), for every hop', async () => {
  const metadata = readFileSync(path.join(CORPUS_REPOSITORY, 'cluster-api', 'v1.12.0', 'metadata.yaml'));
  const mirror = await EchoServer.start((request) =>
    request.url.startsWith('/hop/')
      ? { status: 302, body: '', headers: { location: 'http://mirror.example.net/capi/metadata.yaml' } }
      : request.url === '/capi/v1.12.0/metadata.yaml'
        ? { status: 302, body: '', headers: { location: '/hop/1' } }
        : { status: 200, body: metadata },
  );
  try {
    const open = (allowInsecure: boolean) =>
      openHttpsRepository(`${mirror.origin}/capi/{version}/core-components.yaml`, {
        allowInsecure,
        versions: ['v1.12.0'],
        http: NO_RETRIES,
      })!;
    const refused = await rejection(open(false).getFile('v1.12.0', 'metadata.yaml'));
    assert.match(
      refused.message,
      /GET http:\/\/127\.0\.0\.1:\d+\/hop\/1: redirected to plain http \(http:\/\/mirror\.example\.net\/capi\/metadata\.yaml\), not followed/,
    );
    assert.match(refused.message, /allowInsecure: true on a Config repository/);
    // with allowInsecure the hop is followed (and then stopped by the suite's loopback-only network)
    const followed = await rejection(open(true).getFile('v1.12.0', 'metadata.yaml'));
    assert.match(followed.message, /GET http:\/\/mirror\.example\.net\/capi\/metadata\.yaml: refused, CAPI_GITOPS_NETWORK=loopback/);
  } finally {
    await mirror.close();
  }
});
