import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** Tests run from dist/test/…; the project root is two levels above dist/test. */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/**
 * The shared corpus and CRDs, read in place (never copied into the project): `../shared` beside
 * the checkout, or where CAPI_GITOPS_SHARED points (a clone elsewhere).
 */
export const SHARED = process.env.CAPI_GITOPS_SHARED
  ? path.resolve(process.env.CAPI_GITOPS_SHARED)
  : path.resolve(PROJECT_ROOT, '..', 'shared');
export const CORPUS_REPOSITORY = path.join(SHARED, 'corpus', 'repository');
export const CORPUS_CONFIGMAPS = path.join(SHARED, 'corpus', 'configmaps');
export const CRDS = path.join(SHARED, 'crds');
export const FIXTURES = path.join(PROJECT_ROOT, 'test', 'fixtures');
/** The JSON Schema of one manifest document (draft-07, which ajv and yaml-language-server both support). */
export const SCHEMA_PATH = path.join(PROJECT_ROOT, 'schema', 'capi-gitops.schema.json');
