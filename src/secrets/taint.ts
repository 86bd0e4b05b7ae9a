/**
 * Taint tracking. A provider whose substitution uses a secret is rendered a second time with
 * every reference that carries a secret replaced by a mark (`CapiGitopsTaint<n>x`); the marked
 * objects go through the same transforms, so comparing them with the real objects shows which
 * fields received which variable, whatever the string functions, patches or customisations did.
 */
import { CapiGitopsError, compareStrings } from '../core/diagnostics.js';
import { describeObject, isPlainObject, type KObject } from '../core/kobject.js';
import type { TaintMarks } from '../render/secret-landing.js';
import type { TaintMarker } from '../render/variables.js';
import type { DerivedField, VariableLookup } from '../render/types.js';

/** One marked reference: what it evaluated to, the secret variables in it, its source text. */
export interface Mark {
  result: string;
  variables: string[];
  reference: string;
}

export interface MarkedText extends TaintMarks {
  marks: Mark[];
}

/** A component rendered with its secret references marked (render/component.ts). */
export interface MarkedComponent {
  objects: KObject[];
  marks: MarkedText;
  /** The fields its transforms computed from a value, with the text each read. */
  derived: readonly DerivedField[];
}

/** A marker whose marks cannot collide with anything in `text`. */
export function taintMarker(text: string): MarkedText {
  let prefix = 'CapiGitopsTaint';
  while (text.includes(prefix)) prefix += 'Q';
  const marks: Mark[] = [];
  const marker: TaintMarker = (mark) => {
    marks.push(mark);
    return `${prefix}${marks.length - 1}x`;
  };
  return { marker, marks, pattern: new RegExp(`${prefix}(\\d+)x`, 'g') };
}

export type FieldPath = (string | number)[];

/** A field (or map key) that received a secret. */
export interface TaintedField {
  object: KObject;
  /** Index of the object in its component. */
  index: number;
  path: FieldPath;
  /** The field as marked: literal text and marks (indices into `marks`). */
  pieces: (string | Mark)[];
  variables: string[];
  /** The field is a map key. */
  key: boolean;
  /**
   * A transform computed the field from a secret (e.g. the feature-gates merge reads whether a
   * gate is `true`), so it holds no mark: `pieces` is empty and `variables` are the secrets whose
   * marks the transform read for this field.
   */
  derived?: boolean;
  /** Where the first of `variables` given at a known place was given (a Secret's key, a --secret-file), for messages. */
  given?: { file: string; line?: number; column?: number };
}

export function formatPath(path: FieldPath): string {
  let out = '';
  for (const part of path)
    out += typeof part === 'number' ? `[${part}]` : /^[A-Za-z0-9_-]+$/.test(part) ? (out ? '.' : '') + part : `[${JSON.stringify(part)}]`;
  return out;
}

function splitMarks(text: string, marked: MarkedText): (string | Mark)[] | undefined {
  const pieces: (string | Mark)[] = [];
  let last = 0;
  let found = false;
  for (const match of text.matchAll(marked.pattern)) {
    found = true;
    if (match.index > last) pieces.push(text.slice(last, match.index));
    pieces.push(marked.marks[Number(match[1])]!);
    last = match.index + match[0].length;
  }
  if (!found) return undefined;
  if (last < text.length) pieces.push(text.slice(last));
  return pieces;
}

/**
 * Whether a value substituted into a scalar can change the YAML around it: a line break, a
 * mapping's ": " or a comment's " #", flow punctuation, a quote or backslash (which end or escape
 * a quoted `"${VAR}"`), or an indicator that starts a node (YAML 1.2 spec, 5.3).
 * `http://proxy:3128` cannot; `a\nkey: b` can.
 */
const STRUCTURE_CHANGING = /[\n\r,[\]{}"'\\]|: | #|:$|^[-?:#&*!|>%@`]/;

function structureError(obj: KObject, path: FieldPath, marks: Mark[], lookup: VariableLookup | undefined): CapiGitopsError {
  const all = [...new Set(marks.flatMap((m) => m.variables))].sort(compareStrings);
  // blame the values that can change the structure; when none can (or their values are unknown), all
  const culprits = all.filter((name) => STRUCTURE_CHANGING.test(lookup?.(name)?.value ?? ''));
  const variables = culprits.length > 0 ? culprits : all;
  const given = variables.flatMap((name) => {
    const value = lookup?.(name);
    return value ? [{ name, ...value }] : [];
  });
  const origins = [...new Set(given.map((v) => v.origin))].sort(compareStrings);
  const names = variables.join(', ') || 'a secret variable';
  return new CapiGitopsError({
    // where the value was given: the object and path are of a generated file the user never wrote
    ...given.find((v) => v.position)?.position,
    object: describeObject(obj),
    path: formatPath(path),
    message: `the value of ${names}${origins.length > 0 ? ` (from ${origins.join(', ')})` : ''} changes the YAML structure of this object, so its fields cannot be tracked`,
    expected: 'secret values that substitute into a scalar (no line breaks or YAML syntax that adds fields)',
    hint: `check the value of ${names}: a line break, or ": " or "- " after one, adds fields where the component expects one value`,
  });
}

/** The variables a computed field was derived from: the marks its transform read there. */
function derivedFrom(field: TaintedField, component: MarkedComponent): string[] {
  const variablesIn = (reads: readonly DerivedField[]) =>
    reads.flatMap((d) => (splitMarks(d.read, component.marks) ?? []).flatMap((p) => (typeof p === 'string' ? [] : p.variables)));
  const { kind, metadata } = field.object;
  const path = formatPath(field.path);
  const here = variablesIn(component.derived.filter((d) => d.kind === kind && d.name === metadata?.name && d.path === path));
  // a later filter (a patch) moved the field: what any transform read; none recorded: every secret
  const names = here.length > 0 ? here : variablesIn(component.derived);
  return [...new Set(names.length > 0 ? names : component.marks.marks.flatMap((m) => m.variables))].sort(compareStrings);
}

/**
 * Every tainted field of a component: walks the marked objects beside the real ones. The two
 * must have the same shape except at tainted scalars.
 */
export function taintedFields(real: readonly KObject[], component: MarkedComponent, lookup?: VariableLookup): TaintedField[] {
  const { objects: markedObjects, marks: marked } = component;
  const fields: TaintedField[] = [];
  const derived: TaintedField[] = [];
  if (real.length !== markedObjects.length) throw structureError(markedObjects[0] ?? real[0]!, [], marked.marks, lookup);
  markedObjects.forEach((markedObject, index) => {
    const object = real[index]!;
    const visit = (m: unknown, r: unknown, path: FieldPath) => {
      if (typeof m === 'string') {
        const pieces = splitMarks(m, marked);
        if (pieces) {
          const variables = [...new Set(pieces.flatMap((p) => (typeof p === 'string' ? [] : p.variables)))].sort(compareStrings);
          fields.push({ object, index, path, pieces, variables, key: false });
        } else if (typeof r === 'string' && m !== r)
          derived.push({ object, index, path, pieces: [], variables: [], key: false, derived: true });
        else if (m !== r) throw structureError(object, path, marked.marks, lookup);
        return;
      }
      if (Array.isArray(m)) {
        if (!Array.isArray(r) || r.length !== m.length) throw structureError(object, path, marked.marks, lookup);
        m.forEach((item, i) => visit(item, r[i], [...path, i]));
        return;
      }
      if (isPlainObject(m)) {
        if (!isPlainObject(r)) throw structureError(object, path, marked.marks, lookup);
        const mKeys = Object.keys(m);
        const rKeys = Object.keys(r);
        if (mKeys.length !== rKeys.length) throw structureError(object, path, marked.marks, lookup);
        mKeys.forEach((k, i) => {
          const keyPieces = splitMarks(k, marked);
          if (keyPieces) {
            const variables = [...new Set(keyPieces.flatMap((p) => (typeof p === 'string' ? [] : p.variables)))].sort(compareStrings);
            fields.push({ object, index, path: [...path, rKeys[i]!], pieces: keyPieces, variables, key: true });
          } else if (k !== rKeys[i]) throw structureError(object, [...path, k], marked.marks, lookup);
          visit(m[k], r[rKeys[i]!], [...path, rKeys[i]!]);
        });
        return;
      }
      if (!Object.is(m, r)) throw structureError(object, path, marked.marks, lookup);
    };
    visit(markedObject, object, []);
  });
  for (const field of derived) fields.push({ ...field, variables: derivedFrom(field, component) });
  for (const field of fields) {
    const given = field.variables.map((name) => lookup?.(name)?.position).find((p) => p !== undefined);
    if (given) field.given = given;
  }
  return fields;
}
