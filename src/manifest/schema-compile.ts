/**
 * The manifest schema compiled with ajv at run time: for the build step's check
 * (test/manifest/precompiled.test.ts) and for a bare `tsc` build, which has no precompiled
 * validator. schema.ts loads it with `import()`, so neither bundle carries ajv's compiler.
 */
import { createRequire } from 'node:module';
import type { Ajv as AjvClass, AnySchemaObject, ValidateFunction } from 'ajv';
import { AJV_OPTIONS, SCHEMA_FORMATS } from './schema-options.js';

/** The schema compiled with our options (what the build precompiles). */
export function compileDocumentValidator(root: AnySchemaObject): ValidateFunction {
  const { Ajv } = createRequire(import.meta.url)('ajv') as { Ajv: typeof AjvClass };
  const ajv = new Ajv(AJV_OPTIONS);
  for (const [name, format] of Object.entries(SCHEMA_FORMATS)) ajv.addFormat(name, format);
  return ajv.compile(root);
}

/** schema/capi-gitops.schema.json, read and compiled. */
export function compileSchemaFile(): { validate: ValidateFunction; root: AnySchemaObject } {
  const root = createRequire(import.meta.url)('../../../schema/capi-gitops.schema.json') as AnySchemaObject;
  return { validate: compileDocumentValidator(root), root };
}
