import { isPlainObject } from '../core/kobject.js';
import type { Finding } from './documents.js';
import type { SourcePosition, ToolConfig, UserRepository } from './types.js';

const CONFIG_FIELDS = [
  'repositories',
  'images',
  'pinImages',
  'certManager',
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

/** The Config document's settings (already schema-validated); repositories must be unique by type and name. */
export function toToolConfig(value: Record<string, unknown>, position: SourcePosition): { config: ToolConfig; findings: Finding[] } {
  const config: ToolConfig = { position };
  for (const field of CONFIG_FIELDS) {
    if (value[field] !== undefined) (config as Record<string, unknown>)[field] = value[field];
  }
  return { config, findings: [...duplicateRepositories(config.repositories), ...exclusiveVersionLists(config.repositories)] };
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
