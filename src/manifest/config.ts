import { isPlainObject } from '../core/kobject.js';
import { setOwnValue } from '../core/own-keys.js';
import type { Finding } from './documents.js';
import type { FieldPath } from './yaml-source.js';
import type { SourcePosition, ToolConfig, UserRepository } from './types.js';

const CONFIG_FIELDS = [
  'repositories',
  'images',
  'pinImages',
  'certManager',
  'turtles',
  'variables',
  'output',
  'operator',
  'github',
  'gitops',
  'overrides',
  'clusters',
  'release',
  'secrets',
  'network',
  'namespace',
] as const;

/**
 * The Config document's settings (already schema-validated); repositories must be unique by type
 * and name. `imageKeys`: each `images` key as read (lowercased) → as written, to locate it.
 */
export function toToolConfig(
  value: Record<string, unknown>,
  position: SourcePosition,
): { config: ToolConfig; findings: Finding[]; imageKeys: ReadonlyMap<string, string> } {
  const config: ToolConfig = { position };
  for (const field of CONFIG_FIELDS) {
    if (value[field] !== undefined) (config as Record<string, unknown>)[field] = value[field];
  }
  const images = isPlainObject(value.images) ? viperImageKeys(value.images) : undefined;
  if (images) config.images = images.images as ToolConfig['images'];
  return {
    config,
    findings: [
      ...duplicateRepositories(config.repositories),
      ...exclusiveVersionLists(config.repositories),
      ...(images?.repeats ?? []).map(({ key, first }) => imageKeyRepeat(['images'], key, first)),
    ],
    imageKeys: images?.writtenAs ?? new Map(),
  };
}

/**
 * `images` keys as clusterctl reads them: it reads clusterctl.yaml through viper
 * (cmd/clusterctl/client/config/reader_viper.go UnmarshalKey, imagemeta_client.go getImageMeta),
 * which lowercases every key it reads (spf13/viper util.go insensitiviseMap), so `Cluster-API:` is
 * `cluster-api` and `ALL:` is `all`. Two keys alike but for case are one key to viper, which keeps
 * whichever its walk of a Go map (in random order) reaches last: each later one is in `repeats`.
 */
export function viperImageKeys(images: Record<string, unknown>): {
  images: Record<string, unknown>;
  writtenAs: Map<string, string>;
  repeats: { key: string; first: string }[];
} {
  const read: Record<string, unknown> = {};
  const writtenAs = new Map<string, string>();
  const repeats: { key: string; first: string }[] = [];
  for (const [key, meta] of Object.entries(images)) {
    const lower = key.toLowerCase();
    const first = writtenAs.get(lower);
    if (first !== undefined) {
      repeats.push({ key, first });
      continue;
    }
    writtenAs.set(lower, key);
    setOwnValue(read, lower, meta);
  }
  return { images: read, writtenAs, repeats };
}

/** A field path with its `images` key (after `base`) as written, where the lowercased one was read. */
export function writtenImagePath(path: FieldPath, base: FieldPath, writtenAs: ReadonlyMap<string, string>): FieldPath {
  const at = base.length;
  const key = path[at];
  if (typeof key !== 'string' || !base.every((segment, i) => path[i] === segment)) return path;
  const written = writtenAs.get(key);
  return written === undefined ? path : [...base, written, ...path.slice(at + 1)];
}

/** Two `images` keys alike but for case, at the later one. */
export function imageKeyRepeat(base: FieldPath, key: string, first: string): Finding {
  return {
    path: [...base, key],
    at: 'key',
    message: `${key} and ${first} are one images key to clusterctl, which reads clusterctl.yaml's keys lowercased (viper): which of the two it applies is left to chance`,
    expected: 'each images key once, in any case',
    hint: `keep one of them: delete ${key} or ${first}, or merge their fields into one`,
    related: [...base, first],
  };
}

function duplicateRepositories(repositories: unknown): Finding[] {
  if (!Array.isArray(repositories)) return [];
  const first = new Map<string, number>();
  const findings: Finding[] = [];
  repositories.forEach((repository: unknown, index) => {
    if (!isPlainObject(repository)) return;
    const { name, type } = repository as Partial<UserRepository>;
    if (typeof name !== 'string' || typeof type !== 'string') return;
    const id = `${type}/${name}`;
    const earlier = first.get(id);
    if (earlier === undefined) {
      first.set(id, index);
      return;
    }
    findings.push({
      path: ['repositories', index],
      at: 'value',
      message: `duplicate repository ${type} "${name}"`,
      expected: 'each provider type and name once',
      hint: 'remove one of them',
      related: ['repositories', earlier],
    });
  });
  return findings;
}

/** A plain HTTPS repository lists its versions one way: `versions` or `versionsUrl`. */
function exclusiveVersionLists(repositories: unknown): Finding[] {
  if (!Array.isArray(repositories)) return [];
  const findings: Finding[] = [];
  repositories.forEach((repository: unknown, index) => {
    if (isPlainObject(repository) && repository.versions !== undefined && repository.versionsUrl !== undefined) {
      findings.push({
        path: ['repositories', index, 'versionsUrl'],
        at: 'key',
        message: 'versions and versionsUrl are mutually exclusive',
        expected: 'either a list of versions or a URL that lists them',
        hint: 'keep one of them',
      });
    }
  });
  return findings;
}
