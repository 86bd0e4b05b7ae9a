/**
 * Integers Kubernetes cannot hold, found before they are rendered: a field typed int32 or int64
 * (the schema's `format`) outside its range, and any integer JavaScript cannot hold exactly
 * (beyond ±(2^53 − 1)), which would otherwise be written rounded or as `1e+29` into a flag.
 */
import type { AnySchemaObject } from 'ajv';
import { isPlainObject } from '../model/kobject.js';
import type { Finding } from './documents.js';
import type { FieldPath } from './yaml-source.js';

interface IntegerFormat {
  min: number;
  max: number;
  /** Why the range is what it is, for the `expected:` line. */
  why: string;
}

/**
 * The ranges of schema/capi-gitops.schema.json's integer formats. int64 stops at 2^53 − 1: the
 * API server holds up to 2^63 − 1, but no number past 2^53 survives a JavaScript number intact,
 * and no operator setting needs one.
 */
export const INTEGER_FORMATS: Record<string, IntegerFormat> = {
  int32: { min: -(2 ** 31), max: 2 ** 31 - 1, why: 'an int32 field: Kubernetes and the provider read no other values' },
  int64: { min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER, why: 'an int64 field, as far as capi-gitops holds integers exactly' },
  port: { min: 0, max: 65535, why: 'a TCP port; 0 keeps the provider\'s default' },
};

/** The range problem of a value that failed one of INTEGER_FORMATS, the field's own minimum/maximum folded in. */
export function integerRangeFinding(path: FieldPath, format: string, field: AnySchemaObject, source: string | undefined): Finding | undefined {
  const range = INTEGER_FORMATS[format];
  if (!range) return undefined;
  const min = typeof field.minimum === 'number' ? Math.max(field.minimum, range.min) : range.min;
  const max = typeof field.maximum === 'number' ? Math.min(field.maximum, range.max) : range.max;
  const written = source !== undefined && source.length <= 40 ? ` (${source} is written)` : '';
  return {
    path,
    at: 'value',
    message: `must be an integer from ${min} to ${max}${written}`,
    expected: `an integer from ${min} to ${max} (${range.why})`,
    hint: `write a number between ${min} and ${max}`,
  };
}

/**
 * Every integer of a document that JavaScript cannot hold exactly, at its path. Messages do not
 * quote the value: it may be in a Secret.
 */
export function inexactIntegerFindings(value: unknown): Finding[] {
  const findings: Finding[] = [];
  const path: (string | number)[] = []; // one stack, copied only for a finding
  const visit = (node: unknown): void => {
    if (typeof node === 'number') {
      if (Number.isInteger(node) && !Number.isSafeInteger(node)) {
        findings.push({
          path: [...path],
          at: 'value',
          message: `is an integer beyond ±${Number.MAX_SAFE_INTEGER}, which cannot be held exactly`,
          expected: `an integer from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}, or a quoted string`,
          hint: 'Kubernetes int32 and int64 fields hold far smaller numbers; quote the value if it is text',
        });
      }
    } else if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        path.push(index);
        visit(node[index]);
        path.pop();
      }
    } else if (isPlainObject(node)) {
      for (const [key, field] of Object.entries(node)) {
        path.push(key);
        visit(field);
        path.pop();
      }
    }
  };
  visit(value);
  return findings;
}
