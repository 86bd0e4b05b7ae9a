/** Registry credentials from the Docker config file (src/sources/oci/docker-config.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { dockerConfigPath, readDockerConfig } from '../../src/sources/oci/docker-config.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { tempDir } from '../helpers/corpus-manifest.js';

const PASSWORD = 'docker-config-Pa55-not-printed';

function configDir(config: unknown): Record<string, string> {
  const dir = tempDir('capi-gitops-docker-config-');
  writeFileSync(path.join(dir, 'config.json'), typeof config === 'string' ? config : JSON.stringify(config));
  return { DOCKER_CONFIG: dir };
}

const basic = (user: string, password: string) => Buffer.from(`${user}:${password}`).toString('base64');

test('DOCKER_CONFIG names the directory; without it ~/.docker (docker/cli cli/config/config.go Dir)', () => {
  assert.equal(dockerConfigPath({ DOCKER_CONFIG: '/etc/ci/docker' }), '/etc/ci/docker/config.json');
  assert.equal(dockerConfigPath({ HOME: '/home/ci' }), '/home/ci/.docker/config.json');
});

test('an auths entry is found by its key, or by the host of a legacy https:// key; Docker Hub is https://index.docker.io/v1/ (docker/cli cli/config/credentials/file_store.go Get, ConvertToHostname)', async () => {
  const docker = await readDockerConfig(
    configDir({
      auths: {
        'registry.example.com:5000': { auth: basic('ci', PASSWORD) },
        'https://mirror.example.com/v1/': { username: 'mirror-bot', password: PASSWORD },
        'https://index.docker.io/v1/': { auth: basic('hub-user', PASSWORD) },
        'ghcr.io': { username: 'x', identitytoken: 'refresh-token-value', registrytoken: 'bearer-token-value' },
      },
    }),
  );
  assert.deepEqual(docker.credentials('registry.example.com:5000'), { username: 'ci', password: PASSWORD });
  assert.deepEqual(docker.credentials('mirror.example.com'), { username: 'mirror-bot', password: PASSWORD });
  assert.deepEqual(docker.credentials('docker.io'), { username: 'hub-user', password: PASSWORD });
  assert.deepEqual(docker.credentials('ghcr.io'), {
    username: 'x',
    refreshToken: 'refresh-token-value',
    accessToken: 'bearer-token-value',
  });
  assert.equal(docker.credentials('registry.example.com'), undefined, 'the port is part of the registry');
  assert.equal(docker.helperFor('ghcr.io'), undefined);
});

test('credential helpers are not run: credHelpers for the registry, else credsStore, is what helperFor names', async () => {
  const docker = await readDockerConfig(configDir({ auths: { 'gcr.io': {} }, credsStore: 'desktop', credHelpers: { 'gcr.io': 'gcloud' } }));
  assert.equal(docker.credentials('gcr.io'), undefined, 'an empty entry (a helper keeps the secret) gives no credentials');
  assert.equal(docker.helperFor('gcr.io'), 'gcloud');
  assert.equal(docker.helperFor('quay.io'), 'desktop');
});

test('no file is an empty config; a file that is not JSON, or an auth that is not base64 of user:password, is an error that never quotes a value', async () => {
  const none = await readDockerConfig({ DOCKER_CONFIG: tempDir('capi-gitops-docker-config-') });
  assert.equal(none.credentials('registry.example.com'), undefined);
  await assert.rejects(readDockerConfig(configDir('{"auths": ')), /the Docker config file is not JSON/);
  const bad = await readDockerConfig(configDir({ auths: { 'registry.example.com': { auth: Buffer.from(PASSWORD).toString('base64') } } }));
  assert.throws(
    () => bad.credentials('registry.example.com'),
    (error: unknown) =>
      error instanceof CapiGitopsError &&
      /auths\["registry\.example\.com"\]\.auth is not the base64 of "username:password"/.test(error.message) &&
      !error.message.includes(PASSWORD) &&
      !error.message.includes(Buffer.from(PASSWORD).toString('base64')),
  );
});

test('DOCKER_CONFIG naming the config.json file instead of its directory is told, not read as no credentials (docker/cli warns on a config it cannot load)', async () => {
  const dir = configDir({ auths: { 'registry.example.com': { auth: basic('ci', PASSWORD) } } }).DOCKER_CONFIG!;
  const file = path.join(dir, 'config.json');
  const docker = await readDockerConfig({ DOCKER_CONFIG: file });
  assert.equal(docker.credentials('registry.example.com'), undefined);
  assert.ok(docker.warning, 'a warning says why no credentials were read');
  assert.equal(docker.warning.file, file);
  assert.match(docker.warning.message, new RegExp(`DOCKER_CONFIG \\(${file.replace(/[.]/g, '\\.')}\\) is not a directory`));
  assert.equal(docker.warning.hint, `set DOCKER_CONFIG=${dir}: it names the directory that holds config.json`);
});
