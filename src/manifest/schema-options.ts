/**
 * How the manifest schema is compiled: shared by the runtime (src/manifest/schema.ts) and the
 * build step that precompiles it (scripts/build-validator.mjs), so both validate alike.
 */
import type { Options } from 'ajv';
import { IMAGE_FIELD_PATTERNS } from '../core/image-reference.js';

/**
 * `useDefaults` applies the CRD's `default:` values as the API server does. `messages: false`:
 * schema.ts words every problem from the keyword and params, so ajv's own texts would be dead
 * code in the precompiled validator.
 */
export const AJV_OPTIONS: Options = {
  allErrors: true,
  messages: false,
  verbose: true,
  useDefaults: true,
  strict: true,
  strictTypes: true,
  strictTuples: true,
  strictRequired: true,
};

/**
 * Go decodes these into int32/int64 fields; values outside the range cannot be read by the operator
 * (ranges and messages: format-findings.ts).
 */
export const SCHEMA_FORMATS = {
  int32: { type: 'number' as const, validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 },
  int64: { type: 'number' as const, validate: (n: number) => Number.isSafeInteger(n) },
  port: { type: 'number' as const, validate: (n: number) => Number.isInteger(n) && n >= 0 && n <= 65535 },
  ...Object.fromEntries(
    Object.entries(IMAGE_FIELD_PATTERNS).map(([name, pattern]) => [name, { type: 'string' as const, validate: pattern }]),
  ),
};

/**
 * The precompiled validator and its formats, written next to schema.js by the build (schema.ts
 * requires the validator by this literal name).
 */
export const PRECOMPILED_VALIDATOR = 'schema-validator.cjs';
export const PRECOMPILED_FORMATS = 'schema-formats.cjs';
