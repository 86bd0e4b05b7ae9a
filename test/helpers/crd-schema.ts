import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { Ajv, type AnySchemaObject, type ValidateFunction } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { createRequire } from 'node:module';
import { CRDS } from './paths.js';
import { runMemo, TEXT } from './run-memo.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A CRD's schema as JSON Schema that behaves like the API server with strict field validation:
 * `x-kubernetes-*` dropped (int-or-string becomes its anyOf), declared objects closed to unknown
 * fields, unless the schema preserves unknown fields there.
 */
function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict);
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith('x-kubernetes-')) continue;
    out[key] = key === 'properties' ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, strict(v)])) : strict(value);
  }
  if (schema['x-kubernetes-int-or-string']) return { anyOf: [{ type: 'integer' }, { type: 'string' }] };
  if (out.properties && out.additionalProperties === undefined && !schema['x-kubernetes-preserve-unknown-fields'])
    out.additionalProperties = false;
  return out;
}

/** ajv's standalone code of the validator (`module.exports`), which needs only ajv's runtime. */
function validatorCode(crdFile: string, version: string): string {
  const crd = YAML.parse(readFileSync(crdFile, 'utf8')) as {
    spec: { versions: { name: string; schema: { openAPIV3Schema: unknown } }[] };
  };
  const v = crd.spec.versions.find((x) => x.name === version);
  if (!v) throw new Error(`${crdFile} has no version ${version}`);
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, code: { source: true } });
  return standaloneCode.default(ajv, ajv.compile(strict(v.schema.openAPIV3Schema) as AnySchemaObject));
}

const require = createRequire(import.meta.url);
const cache = new Map<string, ValidateFunction>();

/** Validator for objects of the CRD in `../shared/crds/<file>` at `version`. */
export function crdValidator(file: string, version: string): ValidateFunction {
  const key = `${file}@${version}`;
  let validate = cache.get(key);
  if (!validate) {
    const crdFile = path.isAbsolute(file) ? file : path.join(CRDS, file);
    // compiling Argo CD's ApplicationSet CRD takes ajv 4 s: once per run of the suite, as code
    const code = runMemo(`crd validator\0${crdFile}\0${version}`, () => validatorCode(crdFile, version), TEXT);
    const module = { exports: {} as ValidateFunction };
    new Function('require', 'module', 'exports', code)(require, module, module.exports);
    validate = module.exports;
    cache.set(key, validate);
  }
  return validate;
}

/** The CRD file and version for each wiring kind. */
export const WIRING_CRDS: Record<string, [string, string]> = {
  'argoproj.io/v1alpha1/Application': ['argocd-application-crd.yaml', 'v1alpha1'],
  'argoproj.io/v1alpha1/ApplicationSet': ['argocd-applicationset-crd.yaml', 'v1alpha1'],
  'argoproj.io/v1alpha1/AppProject': ['argocd-appproject-crd.yaml', 'v1alpha1'],
  'kustomize.toolkit.fluxcd.io/v1/Kustomization': ['flux-kustomizations-crd.yaml', 'v1'],
  'source.toolkit.fluxcd.io/v1/GitRepository': ['flux-gitrepositories-crd.yaml', 'v1'],
};

/** Problems of one wiring object against its real CRD ([] when it validates). */
export function wiringProblems(obj: { apiVersion: string; kind: string }): string[] {
  const entry = WIRING_CRDS[`${obj.apiVersion}/${obj.kind}`];
  if (!entry) return [`no CRD known for ${obj.apiVersion} ${obj.kind}`];
  const validate = crdValidator(...entry);
  return validate(obj) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
}
