import { readFileSync } from 'node:fs';
import Handlebars from 'handlebars';
import YAML from 'yaml';

/** `templates/` at the package root: three levels above dist/src/emit/, where this module runs. */
export const TEMPLATES_DIR = new URL('../../../templates/', import.meta.url);

// A plain scalar only when it is made of path characters and both YAML 1.1 (kustomize's Go
// parser) and YAML 1.2 read it back as the same string; anything else is double-quoted.
const PLAIN_CANDIDATE = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;

function readsBackAsItself(text: string): boolean {
  try {
    return YAML.parse(text, { version: '1.1' }) === text && YAML.parse(text, { version: '1.2' }) === text;
  } catch {
    return false;
  }
}

/** A string as a one-line YAML scalar: plain if unambiguous, else double-quoted with ASCII escapes. */
export function yamlScalar(value: unknown): string {
  const text = String(value);
  if (PLAIN_CANDIDATE.test(text) && readsBackAsItself(text)) return text;
  // JSON string escapes are valid YAML double-quoted escapes; escaping all non-ASCII as \uXXXX
  // keeps characters that YAML 1.1 treats as line breaks (U+0085, U+2028, U+2029) off the line.
  return JSON.stringify(text).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// An isolated Handlebars environment: our helper does not leak into other users of the library.
const handlebars = Handlebars.create();
handlebars.registerHelper('yamlScalar', yamlScalar);

const compiled = new Map<string, Handlebars.TemplateDelegate>();

/**
 * A template from `templates/<name>`, compiled on first use and cached for the process.
 * `noEscape`: the output is YAML, not HTML; values are quoted by helpers instead.
 * `strict`: a misspelt field fails loudly rather than rendering as empty.
 */
export function template(name: string): Handlebars.TemplateDelegate {
  let fn = compiled.get(name);
  if (!fn) {
    const source = readFileSync(new URL(name, TEMPLATES_DIR), 'utf8');
    fn = handlebars.compile(source, { noEscape: true, strict: true });
    compiled.set(name, fn);
  }
  return fn;
}

export interface KustomizationView {
  /** Comment line(s), each ending in a newline, written before the document. */
  comment: string;
  /** Paths relative to the kustomization, in the order to list them. */
  resources: string[];
}

export function renderKustomization(view: KustomizationView): string {
  return template('kustomize/kustomization.yaml.hbs')(view);
}
