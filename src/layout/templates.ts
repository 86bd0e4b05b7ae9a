import { createRequire } from 'node:module';
import type HandlebarsModule from 'handlebars';
import { YAML11_NON_STRING } from '../yaml/emit.js';

// The templates under templates/ are precompiled at build time (scripts/build-templates.mjs,
// options noEscape and strict), so a run loads only the Handlebars runtime.
const require = createRequire(import.meta.url);
const Handlebars = require('handlebars/runtime.js') as typeof HandlebarsModule;
const PRECOMPILED = require('./templates.precompiled.cjs') as Record<string, Parameters<typeof HandlebarsModule.template>[0]>;

// A plain scalar only when it is made of path characters and both YAML 1.1 (kustomize's Go
// parser) and YAML 1.2 read it back as the same string; anything else is double-quoted.
const PLAIN_CANDIDATE = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;

// What the `yaml` library reads as a non-string plain scalar in YAML 1.2: its core schema's tag
// tests (yaml/dist/schema: core/*.js, common/null.js); YAML 1.1's are the emitter's. Matching them
// here instead of parsing every scalar twice with the library saved 12-23 ms of a render (issue 13);
// test/layout/layout.test.ts checks both against the library itself.
const YAML12_NON_STRING = new RegExp(
  [
    '^(?:~|[Nn]ull|NULL)?$',
    '^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$',
    '^(?:[-+]?\\.(?:inf|Inf|INF)|\\.nan|\\.NaN|\\.NAN)$',
    '^[-+]?(?:\\.[0-9]+|[0-9]+(?:\\.[0-9]*)?)[eE][-+]?[0-9]+$',
    '^[-+]?(?:\\.[0-9]+|[0-9]+\\.[0-9]*)$',
    '^0o[0-7]+$',
    '^[-+]?[0-9]+$',
    '^0x[0-9a-fA-F]+$',
  ].join('|'),
);

/** True when both YAML 1.1 and YAML 1.2 read this plain scalar back as this very string. */
export function readsBackAsItself(text: string): boolean {
  return PLAIN_CANDIDATE.test(text) && !YAML11_NON_STRING.test(text) && !YAML12_NON_STRING.test(text);
}

/** A string as a one-line YAML scalar: plain if unambiguous, else double-quoted with ASCII escapes. */
export function yamlScalar(value: unknown): string {
  const text = String(value);
  if (readsBackAsItself(text)) return text;
  // JSON string escapes are valid YAML double-quoted escapes; escaping all non-ASCII as \uXXXX
  // keeps characters that YAML 1.1 treats as line breaks (U+0085, U+2028, U+2029) off the line.
  return JSON.stringify(text).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// An isolated Handlebars environment: our helper does not leak into other users of the library.
const handlebars = Handlebars.create();
handlebars.registerHelper('yamlScalar', yamlScalar);

const loaded = new Map<string, HandlebarsModule.TemplateDelegate>();

/**
 * The template `templates/<name>`, loaded from its precompiled spec on first use.
 * `noEscape`: the output is YAML, not HTML; values are quoted by helpers instead.
 * `strict`: a misspelt field fails loudly rather than rendering as empty.
 */
export function template(name: string): HandlebarsModule.TemplateDelegate {
  let fn = loaded.get(name);
  if (!fn) {
    const spec = PRECOMPILED[name];
    if (!spec) throw new Error(`no precompiled template ${name}; run npm run build`);
    fn = handlebars.template(spec);
    loaded.set(name, fn);
  }
  return fn;
}

interface KustomizationView {
  /** Comment line(s), each ending in a newline, written before the document. */
  comment: string;
  /** Paths relative to the kustomization, in the order to list them. */
  resources: string[];
}

export function renderKustomization(view: KustomizationView): string {
  return template('kustomize/kustomization.yaml.hbs')(view);
}
