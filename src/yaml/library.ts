/**
 * The `yaml` library, loaded on first use. It reads what the fast parser declines and writes
 * what the project's own writers do not, so a render of plain YAML (the usual manifest, lockfile
 * and artifacts) never evaluates it (issue 13). Modules on the render path take it from here
 * instead of importing it; commands built on its Document API (update, convert) import it.
 */
import { createRequire } from 'node:module';

type YamlLibrary = typeof import('yaml');
let library: YamlLibrary | undefined;

export function yamlLibrary(): YamlLibrary {
  // A literal require, so the bundles (scripts/build-bundle.mjs) inline the package.
  library ??= createRequire(import.meta.url)('yaml') as YamlLibrary;
  return library;
}
