import { createRequire } from 'node:module';
import type { AnySchemaObject, ErrorObject, ValidateFunction } from 'ajv';
import { isPlainObject } from '../core/kobject.js';
import { compareStrings } from '../core/diagnostics.js';
import { closestName } from './fields.js';
import { INTEGER_FORMATS, imageFieldFinding, inexactIntegerFindings, integerRangeFinding } from './format-findings.js';
import { CLUSTERCTL_RENAMED_KEYS, type Finding } from './documents.js';
import type { FieldPath } from './yaml-source.js';
import { ownValue } from '../core/own-keys.js';

/** A schema violation, already phrased for a person. Paths are relative to the validated document. */
export interface SchemaProblem extends Finding {
  /** For missing required fields: the field's name (`path` is the parent's, where it belongs). */
  missingField?: string;
}

/** How the mapper may quote the document: Secret keys and values must never appear in messages. */
export interface SourceAccess {
  /** The YAML source of a scalar, or undefined when it must not be shown. */
  sourceText(path: FieldPath): string | undefined;
  /** Whether map keys under this path may be quoted (false inside Secrets). */
  mayQuoteKeys(path: FieldPath): boolean;
}

let compiled: { validate: ValidateFunction; root: AnySchemaObject } | undefined;

/**
 * Loads the validator once per process: the build precompiles the schema (ajv standalone code,
 * which carries the schema object, `rootSchema`) so a run does not spend ~100 ms compiling it;
 * without that file (a bare tsc build) it is compiled here. `loadManifest` awaits this before any
 * document is validated.
 */
export async function loadDocumentValidator(): Promise<void> {
  if (compiled) return;
  let precompiled: (ValidateFunction & { rootSchema: AnySchemaObject }) | undefined;
  try {
    // A literal path, so the bundles (scripts/build-bundle.mjs) can inline the file.
    precompiled = createRequire(import.meta.url)('./schema-validator.cjs') as typeof precompiled; // PRECOMPILED_VALIDATOR
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
  }
  compiled ??= precompiled
    ? { validate: precompiled, root: precompiled.rootSchema }
    : (await import('./schema-compile.js')).compileSchemaFile();
}

/**
 * Validates one document against schema/capi-gitops.schema.json, filling in schema defaults
 * (the value is changed in place), and returns every violation in readable form.
 */
export function validateDocument(value: unknown, access: SourceAccess): SchemaProblem[] {
  if (!compiled) throw new Error('validateDocument before loadDocumentValidator');
  const { validate, root } = compiled;
  const problems = validate(value) ? [] : dedupe(relevantErrors(validate.errors ?? []).map((error) => describeError(error, root, access)));
  // Integers no field's schema caught (free-form values, quantities) but that cannot be held exactly.
  const reported = new Set(problems.map((p) => JSON.stringify(p.path)));
  for (const finding of inexactIntegerFindings(value)) if (!reported.has(JSON.stringify(finding.path))) problems.push(finding);
  return problems;
}

/**
 * Drops errors that only restate another one: `if` (a failed `then` already reported),
 * the branches of an `anyOf` (the `anyOf` itself is reported), and the inner errors of
 * `propertyNames` (the `propertyNames` error names the key).
 */
function relevantErrors(errors: ErrorObject[]): ErrorObject[] {
  const anyOfs = errors.filter((e) => e.keyword === 'anyOf');
  // An integer format's message states the whole range, the field's minimum included.
  const ranged = new Set(
    errors.filter((e) => e.keyword === 'format' && INTEGER_FORMATS[String(e.params.format)]).map((e) => e.instancePath),
  );
  return errors.filter((error) => {
    if (error.keyword === 'if') return false;
    if ((error.keyword === 'minimum' || error.keyword === 'maximum') && ranged.has(error.instancePath)) return false;
    if (error.keyword !== 'propertyNames' && (error as { propertyName?: string }).propertyName !== undefined) return false;
    return !anyOfs.some((a) => a !== error && a.instancePath === error.instancePath && error.schemaPath.startsWith(a.schemaPath + '/'));
  });
}

function dedupe(problems: SchemaProblem[]): SchemaProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const id = JSON.stringify([p.path, p.message]);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** `/spec/deployment/containers/0` → ['spec', 'deployment', 'containers', 0]. */
function pointerToPath(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^(0|[1-9][0-9]*)$/.test(segment) ? Number(segment) : segment));
}

function resolveRef(schema: unknown, root: AnySchemaObject): AnySchemaObject | undefined {
  if (!isPlainObject(schema)) return undefined;
  const ref = schema.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/$defs/'))
    return (root.$defs as Record<string, AnySchemaObject>)[ref.slice('#/$defs/'.length)];
  return schema as AnySchemaObject;
}

function describeError(error: ErrorObject, root: AnySchemaObject, access: SourceAccess): SchemaProblem {
  const path = pointerToPath(error.instancePath);
  const parent = (error.parentSchema ?? {}) as AnySchemaObject;
  switch (error.keyword) {
    case 'additionalProperties':
      return unknownField(path, String(error.params.additionalProperty), parent, root);
    case 'required': {
      const field = String(error.params.missingProperty);
      const fieldSchema = parent.properties ? (ownValue(parent.properties as object, field) as AnySchemaObject | undefined) : undefined;
      const description = fieldSchema?.description ?? resolveRef(fieldSchema, root)?.description;
      return {
        path,
        displayPath: [...path, field],
        at: 'key',
        message: `missing required field "${field}"`,
        expected: `"${field}"${typeof description === 'string' ? `: ${description}` : ''}`,
        hint: `add "${field}" here`,
        missingField: field,
      };
    }
    case 'type':
      return typeMismatch(path, String(error.params.type), error.data, access);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return {
        path,
        at: 'value',
        message: `must be ${error.params.comparison} ${error.params.limit}`,
        expected: `${parent.type === 'integer' ? 'an integer' : 'a number'} ${error.params.comparison} ${error.params.limit}`,
        hint: 'the upstream CRD rejects other values',
      };
    case 'enum':
    case 'const': {
      const allowed = (error.keyword === 'enum' ? (error.params.allowedValues as unknown[]) : [error.params.allowedValue]).map(String);
      const guess = typeof error.data === 'string' ? closestName(error.data, allowed) : undefined;
      return {
        path,
        at: 'value',
        message: allowed.length === 1 ? `must be "${allowed[0]}"` : `must be one of: ${allowed.join(', ')}`,
        expected: allowed.length === 1 ? `"${allowed[0]}"` : `one of ${allowed.join(', ')}`,
        hint: guess ? `did you mean "${guess}"?` : 'use one of the listed values',
      };
    }
    case 'minLength':
      if (error.params.limit === 1)
        return {
          path,
          at: 'value',
          message: 'must not be empty',
          expected: describeSchema(parent),
          hint: 'give a value, or remove the field',
        };
      return formatMismatch(path, parent);
    case 'format':
      return (
        integerRangeFinding(path, String(error.params.format), parent, access.sourceText(path)) ??
        imageFieldFinding(path, String(error.params.format), error.data) ??
        formatMismatch(path, parent)
      );
    case 'pattern':
      return privateKeyFinding(path, error.data) ?? formatMismatch(path, parent);
    case 'maxLength':
    case 'anyOf':
      return formatMismatch(path, parent);
    case 'propertyNames': {
      const key = String(error.params.propertyName);
      const keySchema = resolveRef(error.schema, root);
      const quoted = access.mayQuoteKeys(path);
      return {
        path: [...path, key],
        displayPath: quoted ? [...path, key] : path,
        at: 'key',
        message: quoted ? `invalid key "${key}"` : 'invalid key',
        expected: keySchema?.description ?? 'a valid key',
        hint: 'rename the key',
      };
    }
    default:
      return {
        path,
        at: 'value',
        message: `does not satisfy the schema keyword "${error.keyword}"`,
        expected: describeSchema(parent),
        hint: 'see schema/capi-gitops.schema.json',
      };
  }
}

function describeSchema(schema: AnySchemaObject): string | undefined {
  return typeof schema.description === 'string' ? schema.description : undefined;
}

function formatMismatch(path: FieldPath, schema: AnySchemaObject): SchemaProblem {
  const title = typeof schema.title === 'string' ? schema.title : 'value';
  return {
    path,
    at: 'value',
    message: `is not a valid ${title}`,
    expected: describeSchema(schema) ?? (typeof schema.pattern === 'string' ? `a value matching ${schema.pattern}` : undefined),
    hint: describeSchema(schema) ? 'change the value to the form described above' : 'see schema/capi-gitops.schema.json',
  };
}

/** An age private key where a recipient (its public key) goes: the file holding it may already be in Git. */
function privateKeyFinding(path: FieldPath, data: unknown): SchemaProblem | undefined {
  if (typeof data !== 'string' || !/^\s*AGE-SECRET-KEY-/i.test(data)) return undefined;
  return {
    path,
    at: 'value',
    message: 'is an age identity (a private key), not a recipient',
    expected: 'an age recipient (public key, age1…), as `age-keygen -y <key file>` prints it',
    hint:
      'put the recipient `age-keygen -y <key file>` prints in its place; if this file was committed or shared, ' +
      'make a new key (age-keygen -o <new key file>), use its recipient, and re-encrypt with it',
  };
}

/** The hint for a clusterctl.yaml key written at the top of a Config: its name here, or `variables:` for a variable. */
function clusterctlConfigHint(field: string): string | undefined {
  if (Object.hasOwn(CLUSTERCTL_RENAMED_KEYS, field)) return `clusterctl.yaml's ${field}: is ${CLUSTERCTL_RENAMED_KEYS[field]}`;
  if (/^[A-Z][A-Z0-9_]*$/.test(field))
    return `clusterctl.yaml's variables are top-level keys; here they go under variables: (move ${field} there, its value quoted)`;
  return undefined;
}

function unknownField(path: FieldPath, field: string, parent: AnySchemaObject, root: AnySchemaObject): SchemaProblem {
  const properties = (parent.properties ?? {}) as Record<string, unknown>;
  const known = Object.keys(properties).sort(compareStrings);
  const title = typeof parent.title === 'string' ? parent.title : 'this object';
  const home = known.find(
    (name) =>
      isPlainObject(resolveRef(properties[name], root)?.properties) &&
      Object.hasOwn(resolveRef(properties[name], root)!.properties as object, field),
  );
  const guess = closestName(field, known);
  const clusterctl = title === 'Config' && path.length === 0 ? clusterctlConfigHint(field) : undefined;
  let hint: string;
  if (clusterctl) hint = clusterctl;
  else if (home) hint = `"${field}" is a field of "${home}": move it under ${home}`;
  else if (guess) hint = `did you mean "${guess}"?`;
  else hint = 'remove it, or check its spelling and indentation';
  return {
    path: [...path, field],
    at: 'key',
    message: `unknown field "${field}"`,
    expected: `a field of ${title}: ${known.join(', ')}`,
    hint,
  };
}

const ARTICLE: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean (true or false)',
  object: 'a mapping (key: value lines)',
  array: 'a list (lines starting with "- ")',
  null: 'null',
};

function jsonType(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'object') return 'object';
  return typeof value;
}

function typeMismatch(path: FieldPath, expectedType: string, data: unknown, access: SourceAccess): SchemaProblem {
  const expected = expectedType
    .split(',')
    .map((t) => ARTICLE[t] ?? t)
    .join(' or ');
  const got = jsonType(data);
  return {
    path,
    at: 'value',
    message: `must be ${expected}, got ${ARTICLE[got] ?? got}`,
    expected,
    hint: typeHint(expectedType, got, access.sourceText(path)),
  };
}

function typeHint(expectedTypes: string, got: string, source: string | undefined): string {
  // a union such as `string,null` (a fleet overlay's value, null deletes) takes the hint of its non-null type
  const types = expectedTypes.split(',');
  const expectedType = types.filter((t) => t !== 'null').length === 1 ? types.find((t) => t !== 'null')! : expectedTypes;
  if (expectedType === 'string' && (got === 'integer' || got === 'number' || got === 'boolean')) {
    const example = source !== undefined && !/^["']/.test(source) ? `: "${source}"` : '';
    return `YAML reads the unquoted value as a ${got === 'boolean' ? 'boolean' : 'number'}; quote it${example}`;
  }
  if (expectedType === 'string' && got === 'null') return 'give a value; write "" for an empty string';
  // what was written, without its quotes: `"2"` takes "write 2 without quotes", `high` is no number at all
  const written = source?.replace(/^(["'])(.*)\1$/s, '$2');
  if (expectedType === 'boolean' && got === 'string')
    return written === 'true' || written === 'false' ? `write ${written} without quotes` : 'write true or false, without quotes';
  if (expectedType === 'integer' && got === 'number') return 'use a whole number';
  if ((expectedType === 'integer' || expectedType === 'number') && got === 'string')
    return written !== undefined && /^-?[0-9]+(\.[0-9]+)?$/.test(written) && (expectedType === 'number' || !written.includes('.'))
      ? `write ${written} without quotes`
      : `write a ${expectedType === 'integer' ? 'whole ' : ''}number, without quotes`;
  if (expectedType === 'object') return 'write key: value lines indented under the field';
  if (expectedType === 'array') return 'write each item on its own line, starting with "- "';
  return `change the value to ${types.map((t) => ARTICLE[t] ?? t).join(' or ')}`;
}
