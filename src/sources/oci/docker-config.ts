/**
 * Registry credentials from the Docker config file, where `docker login` keeps them:
 * `$DOCKER_CONFIG/config.json`, else `~/.docker/config.json` (docker/cli cli/config/config.go).
 * The `auths` entry for a registry is found as docker/cli's file store finds it
 * (cli/config/credentials/file_store.go): the key as written, else a key whose host part
 * (`https://` or `http://` and any path removed, ConvertToHostname) is the registry; Docker Hub
 * is `https://index.docker.io/v1/`. An entry holds `auth` (base64 of `user:password`) or
 * `username`/`password`, and may hold `identitytoken` (an OAuth2 refresh token) or
 * `registrytoken` (a bearer token).
 *
 * Credential helpers (`credsStore`, `credHelpers`) are not run: that would execute a program
 * named by a file. `helperFor` says which helper the file names for a registry so the caller can
 * warn that its credentials were not used.
 */
import { readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CapiGitopsError, type Diagnostic } from '../../core/diagnostics.js';
import { shellWord } from '../../core/shell.js';
import { isPlainObject } from '../../core/kobject.js';
import { registerSecret } from '../../core/redact.js';
import type { OciCredentials } from './auth.js';

/** Docker Hub's names: what images say, where the API is, and the key `docker login` writes. */
const DOCKER_HUB_HOSTS = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);
const DOCKER_HUB_KEY = 'https://index.docker.io/v1/';

export interface DockerConfig {
  /** The file read, for messages; undefined when there is none. */
  file?: string;
  credentials(registry: string): OciCredentials | undefined;
  /** The credential helper the file names for `registry` (credHelpers, else credsStore), if any. */
  helperFor(registry: string): string | undefined;
  /** Why no file was read where one was meant (DOCKER_CONFIG naming a file), for the caller to warn. */
  warning?: Diagnostic;
}

/** The Docker config file's path for an environment (DOCKER_CONFIG is a directory). */
export function dockerConfigPath(env: Record<string, string | undefined>): string {
  const dir = env.DOCKER_CONFIG?.trim() || path.join(env.HOME?.trim() || os.homedir(), '.docker');
  return path.join(dir, 'config.json');
}

/** ConvertToHostname: `https://host:port/v1/` → `host:port`. */
function hostOf(key: string): string {
  return key.replace(/^https?:\/\//, '').split('/')[0]!;
}

function sameRegistry(a: string, b: string): boolean {
  return a === b || (DOCKER_HUB_HOSTS.has(a) && DOCKER_HUB_HOSTS.has(b));
}

function configError(file: string, message: string, hint: string): CapiGitopsError {
  return new CapiGitopsError({ file, message, expected: 'a Docker config file as `docker login` writes it', hint });
}

/** One `auths` entry as credentials; a malformed `auth` is an error naming the key, never the value. */
function entryCredentials(file: string, key: string, entry: Record<string, unknown>): OciCredentials | undefined {
  const text = (field: string) => (typeof entry[field] === 'string' && entry[field] !== '' ? (entry[field] as string) : undefined);
  const credentials: OciCredentials = {};
  const auth = text('auth');
  registerSecret(auth);
  if (auth !== undefined) {
    const decoded = /^[A-Za-z0-9+/]+={0,2}$/.test(auth) ? Buffer.from(auth, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    if (colon <= 0)
      throw configError(
        file,
        `auths["${key}"].auth is not the base64 of "username:password"`,
        `run \`docker login ${hostOf(key)}\` again, or write username and password in the entry`,
      );
    credentials.username = decoded.slice(0, colon);
    credentials.password = decoded.slice(colon + 1);
  } else {
    if (text('username')) credentials.username = text('username');
    if (text('password')) credentials.password = text('password');
  }
  if (text('identitytoken')) credentials.refreshToken = text('identitytoken');
  if (text('registrytoken')) credentials.accessToken = text('registrytoken');
  // usernames are not secret; passwords and tokens never reach a message
  for (const value of [credentials.password, credentials.accessToken, credentials.refreshToken]) registerSecret(value);
  return Object.keys(credentials).length > 0 ? credentials : undefined;
}

async function isFile(file: string): Promise<boolean> {
  return (await stat(file).catch(() => undefined))?.isFile() ?? false;
}

/** Reads the Docker config file of `env`; no file is an empty config, a file that is not one an error. */
export async function readDockerConfig(env: Record<string, string | undefined>): Promise<DockerConfig> {
  const file = dockerConfigPath(env);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const none = { credentials: () => undefined, helperFor: () => undefined };
    // DOCKER_CONFIG=~/.docker/config.json: docker/cli warns that it cannot load its config
    if (code === 'ENOTDIR' && env.DOCKER_CONFIG?.trim() && (await isFile(env.DOCKER_CONFIG.trim())))
      return {
        ...none,
        warning: {
          file: env.DOCKER_CONFIG.trim(),
          message: `DOCKER_CONFIG (${env.DOCKER_CONFIG.trim()}) is not a directory, so no Docker config file was read and no registry credentials from it`,
          hint: `set DOCKER_CONFIG=${shellWord(path.dirname(env.DOCKER_CONFIG.trim()))}: it names the directory that holds config.json`,
        },
      };
    if (code === 'ENOENT' || code === 'ENOTDIR') return none;
    throw configError(file, `cannot read the Docker config file: ${code ?? (error as Error).message}`, 'check its permissions');
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw configError(file, 'the Docker config file is not JSON', 'fix the file, or point DOCKER_CONFIG at another directory');
  }
  if (!isPlainObject(data)) throw configError(file, 'the Docker config file is not a JSON object', 'fix the file');
  const auths = isPlainObject(data.auths) ? data.auths : {};
  const helpers = isPlainObject(data.credHelpers) ? data.credHelpers : {};
  const store = typeof data.credsStore === 'string' && data.credsStore !== '' ? data.credsStore : undefined;
  const entryFor = (registry: string): [string, Record<string, unknown>] | undefined => {
    const exact = sameRegistry(registry, 'docker.io') ? DOCKER_HUB_KEY : registry;
    if (isPlainObject(auths[exact])) return [exact, auths[exact]];
    const key = Object.keys(auths)
      .sort()
      .find((k) => isPlainObject(auths[k]) && sameRegistry(hostOf(k), registry));
    return key === undefined ? undefined : [key, auths[key] as Record<string, unknown>];
  };
  return {
    file,
    credentials: (registry) => {
      const found = entryFor(registry);
      return found && entryCredentials(file, found[0], found[1]);
    },
    helperFor: (registry) => {
      const key = Object.keys(helpers)
        .sort()
        .find((k) => sameRegistry(hostOf(k), registry));
      const helper = key === undefined ? undefined : helpers[key];
      return typeof helper === 'string' && helper !== '' ? helper : store;
    },
  };
}
