/**
 * Readable problems for the schema's formats, found before anything is rendered:
 * - integers Kubernetes cannot hold: a field typed int32 or int64 outside its range, and any
 *   integer JavaScript cannot hold exactly (beyond ±(2^53 − 1)), which would otherwise be written
 *   rounded or as `1e+29` into a flag;
 * - image references and override fields that are not in the reference grammar, which would
 *   otherwise render an image no registry serves.
 */
import type { AnySchemaObject } from 'ajv';
import { isPlainObject } from '../core/kobject.js';
import { IMAGE_FIELD_PATTERNS, IMAGE_REFERENCE_GRAMMAR, imageFieldProblem, type ImageField } from '../core/image-reference.js';
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
  int64: {
    min: -Number.MAX_SAFE_INTEGER,
    max: Number.MAX_SAFE_INTEGER,
    why: 'an int64 field, as far as capi-gitops holds integers exactly',
  },
  port: { min: 0, max: 65535, why: "a TCP port; 0 keeps the provider's default" },
};

/** The range problem of a value that failed one of INTEGER_FORMATS, the field's own minimum/maximum folded in. */
export function integerRangeFinding(
  path: FieldPath,
  format: string,
  field: AnySchemaObject,
  source: string | undefined,
): Finding | undefined {
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

const IMAGE_FIELD_NAMES: Record<ImageField, string> = {
  'image-reference': 'image reference',
  'image-repository': 'image repository',
  'image-name': 'image name',
  'image-tag': 'image tag',
};

/** The problem of a string that failed one of the image formats; undefined for other formats. */
export function imageFieldFinding(path: FieldPath, format: string, value: unknown): Finding | undefined {
  if (!(format in IMAGE_FIELD_PATTERNS) || typeof value !== 'string') return undefined;
  const field = format as ImageField;
  return {
    path,
    at: 'value',
    message: `is not a valid ${IMAGE_FIELD_NAMES[field]}: ${imageFieldProblem(field, value) ?? 'does not match the grammar'}`,
    expected:
      field === 'image-reference'
        ? `an image reference: ${IMAGE_REFERENCE_GRAMMAR}`
        : `the ${field.slice('image-'.length)} part of an image reference: ${IMAGE_REFERENCE_GRAMMAR}`,
    hint:
      field === 'image-tag'
        ? 'quote a tag that looks like a number or a date; remove spaces and other characters'
        : 'write the reference in lower case, without spaces or a scheme (no https://)',
  };
}
