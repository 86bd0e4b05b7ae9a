import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type AnySchemaObject, type ValidateFunction } from 'ajv';
import { parse, parseAllDocuments } from 'yaml';
import { loadManifest } from '../../src/manifest/load.js';
import { checkProviderSpecRules } from '../../src/manifest/providers.js';
import { PROVIDER_KINDS, type ProviderKind } from '../../src/core/provider.js';
import { isPlainObject } from '../../src/core/kobject.js';
import { CRDS, SCHEMA_PATH } from '../helpers/paths.js';
import { MANIFEST_FIXTURES, loadText, provider } from '../fixtures/manifest/helpers.js';

const CRD_FILE: Record<ProviderKind, string> = {
  CoreProvider: 'capi-operator-coreproviders.yaml',
  BootstrapProvider: 'capi-operator-bootstrapproviders.yaml',
  ControlPlaneProvider: 'capi-operator-controlplaneproviders.yaml',
  InfrastructureProvider: 'capi-operator-infrastructureproviders.yaml',
  IPAMProvider: 'capi-operator-ipamproviders.yaml',
  RuntimeExtensionProvider: 'capi-operator-runtimeextensionproviders.yaml',
  AddonProvider: 'capi-operator-addonproviders.yaml',
};

const crdCache = new Map<ProviderKind, AnySchemaObject>();
/** The v1alpha2 openAPIV3Schema of a provider kind's CRD, read in place. */
function upstreamSchema(kind: ProviderKind): AnySchemaObject {
  if (!crdCache.has(kind)) {
    const crd = parse(readFileSync(path.join(CRDS, CRD_FILE[kind]), 'utf8'));
    const version = crd.spec.versions.find((v: { name: string }) => v.name === 'v1alpha2');
    crdCache.set(kind, version.schema.openAPIV3Schema);
  }
  return crdCache.get(kind)!;
}

/**
 * The CRD schema as a JSON Schema that behaves like the API server with strict field validation:
 * `x-kubernetes-*` extensions removed (int-or-string keeps its `anyOf: [integer, string]`),
 * and objects with declared properties closed to unknown fields (structural pruning/strict decoding).
 */
function asStrictJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(asStrictJsonSchema);
  if (!isPlainObject(schema)) return schema;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith('x-kubernetes-')) continue;
    result[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, asStrictJsonSchema(v)]))
        : asStrictJsonSchema(value);
  }
  if (result.properties && result.additionalProperties === undefined) result.additionalProperties = false;
  return result;
}

const validators = new Map<ProviderKind, ValidateFunction>();
function upstreamValidator(kind: ProviderKind): ValidateFunction {
  if (!validators.has(kind)) {
    const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
    validators.set(kind, ajv.compile(asStrictJsonSchema(upstreamSchema(kind)) as AnySchemaObject));
  }
  return validators.get(kind)!;
}

function upstreamAccepts(doc: Record<string, unknown>): boolean {
  return upstreamValidator(doc.kind as ProviderKind)(doc) === true;
}

/** The provider documents of a YAML file as plain data (YAML 1.1, aliases resolved). */
function providerDocuments(file: string): Record<string, unknown>[] {
  return parseAllDocuments(readFileSync(file, 'utf8'), { version: '1.1' })
    .map((doc) => doc.toJS({ maxAliasCount: 1000 }) as Record<string, unknown>)
    .filter((doc) => PROVIDER_KINDS.includes(doc?.kind as ProviderKind));
}

const FULL_PROVIDERS = path.join(MANIFEST_FIXTURES, 'full', 'providers.yaml');

test('input that passes the upstream CRD schemas is accepted: the every-field manifest passes both the CRDs and loadManifest', async () => {
  const docs = providerDocuments(FULL_PROVIDERS);
  assert.equal(docs.length, 7);
  for (const doc of docs) {
    const validate = upstreamValidator(doc.kind as ProviderKind);
    assert.equal(validate(doc), true, `${String(doc.kind)}: ${JSON.stringify(validate.errors)}`);
  }
  const manifest = await loadManifest([FULL_PROVIDERS]);
  assert.equal(manifest.providers.length, 7);
});

/** Every property path of a schema: `a.b`, `a[].c`, `a{}.d` for map values. */
function schemaPaths(schema: AnySchemaObject, prefix: string, out: Set<string>): Set<string> {
  for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, AnySchemaObject>)) {
    const childPath = prefix ? `${prefix}.${name}` : name;
    out.add(childPath);
    walkSchemaChildren(child, childPath, out);
  }
  return out;
}
function walkSchemaChildren(schema: AnySchemaObject, at: string, out: Set<string>): void {
  schemaPaths(schema, at, out);
  if (isPlainObject(schema.items)) walkSchemaChildren(schema.items as AnySchemaObject, `${at}[]`, out);
  if (isPlainObject(schema.additionalProperties)) walkSchemaChildren(schema.additionalProperties as AnySchemaObject, `${at}{}`, out);
}

/** Every field path used in a value, written like schemaPaths; `mapFields` names the map-typed fields. */
function valuePaths(value: unknown, at: string, schema: AnySchemaObject, out: Set<string>): void {
  if (Array.isArray(value) && isPlainObject(schema.items)) {
    for (const item of value) valuePaths(item, `${at}[]`, schema.items as AnySchemaObject, out);
  } else if (isPlainObject(value)) {
    const properties = (schema.properties ?? {}) as Record<string, AnySchemaObject>;
    for (const [key, field] of Object.entries(value)) {
      if (properties[key]) {
        const childPath = at ? `${at}.${key}` : key;
        out.add(childPath);
        valuePaths(field, childPath, properties[key], out);
      } else if (isPlainObject(schema.additionalProperties)) {
        valuePaths(field, `${at}{}`, schema.additionalProperties as AnySchemaObject, out);
      }
    }
  }
}

test('the every-field manifest sets every field of the upstream v1alpha2 ProviderSpec, down to the Kubernetes core types', () => {
  const specSchema = (upstreamSchema('CoreProvider').properties as Record<string, AnySchemaObject>).spec;
  const all = schemaPaths(specSchema, '', new Set());
  const used = new Set<string>();
  for (const doc of providerDocuments(FULL_PROVIDERS)) valuePaths(doc.spec, '', specSchema, used);
  const missing = [...all].filter((p) => !used.has(p));
  assert.deepEqual(missing, []);
  assert.ok(all.size > 150, `expected the full ProviderSpec tree, got ${all.size} paths`);
});

const mySchema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as AnySchemaObject;
function deref(schema: AnySchemaObject): AnySchemaObject {
  const ref = schema.$ref as string | undefined;
  return ref ? deref((mySchema.$defs as Record<string, AnySchemaObject>)[ref.slice('#/$defs/'.length)]) : schema;
}
function typeOf(schema: AnySchemaObject): string | undefined {
  if (schema['x-kubernetes-int-or-string'] || Array.isArray(schema.anyOf)) return 'int-or-string';
  return schema.type as string | undefined;
}

/** Differences in fields, types, required lists, minimums and defaults between two schema trees. */
function structuralDifferences(upstream: AnySchemaObject, ours: AnySchemaObject, at: string, out: string[]): string[] {
  const mine = deref(ours);
  if (typeOf(upstream) !== typeOf(mine)) out.push(`${at}: type ${typeOf(upstream)} upstream, ${typeOf(mine)} here`);
  for (const keyword of ['minimum', 'default'] as const) {
    if (JSON.stringify(upstream[keyword]) !== JSON.stringify(mine[keyword]))
      out.push(`${at}: ${keyword} ${JSON.stringify(upstream[keyword])} upstream, ${JSON.stringify(mine[keyword])} here`);
  }
  const sortedRequired = (s: AnySchemaObject) => JSON.stringify([...((s.required as string[]) ?? [])].sort());
  if (sortedRequired(upstream) !== sortedRequired(mine))
    out.push(`${at}: required ${sortedRequired(upstream)} upstream, ${sortedRequired(mine)} here`);
  const upstreamProps = (upstream.properties ?? {}) as Record<string, AnySchemaObject>;
  const myProps = (mine.properties ?? {}) as Record<string, AnySchemaObject>;
  const names = new Set([...Object.keys(upstreamProps), ...Object.keys(myProps)]);
  for (const name of names) {
    if (!upstreamProps[name]) out.push(`${at}.${name}: only here`);
    else if (!myProps[name]) out.push(`${at}.${name}: only upstream`);
    else structuralDifferences(upstreamProps[name], myProps[name], `${at}.${name}`, out);
  }
  if (Object.keys(upstreamProps).length > 0 && mine.additionalProperties !== false) out.push(`${at}: unknown fields are not rejected here`);
  if (isPlainObject(upstream.items))
    structuralDifferences(upstream.items as AnySchemaObject, mine.items as AnySchemaObject, `${at}[]`, out);
  if (isPlainObject(upstream.additionalProperties)) {
    structuralDifferences(upstream.additionalProperties as AnySchemaObject, mine.additionalProperties as AnySchemaObject, `${at}{}`, out);
  }
  return out;
}

test('schema/capi-gitops.schema.json ProviderSpec has exactly the upstream fields, types, required lists, minimums and defaults', () => {
  for (const kind of PROVIDER_KINDS) {
    const spec = (upstreamSchema(kind).properties as Record<string, AnySchemaObject>).spec;
    assert.deepEqual(structuralDifferences(spec, { $ref: '#/$defs/ProviderSpec' }, 'spec', []), [], kind);
  }
});

test('quantities: the schema pattern accepts exactly the strings the CRD pattern accepts', () => {
  const limits = (upstreamSchema('CoreProvider').properties as any).spec.properties.deployment.properties.containers.items.properties
    .resources.properties.limits.additionalProperties as AnySchemaObject;
  const upstreamPattern = new RegExp(limits.pattern as string);
  const ourPattern = new RegExp((mySchema.$defs as any).Quantity.anyOf[1].pattern as string);
  const samples = [
    '1',
    '500m',
    '0.5',
    '.5',
    '1.',
    '128Mi',
    '2Gi',
    '1Ki',
    '1ki',
    '1e3',
    '1.5E-2',
    '+1',
    '-1',
    '1n',
    '1u',
    '1k',
    '1K',
    '1E',
    '1Ei',
    '',
    'Gi',
    '1e',
    '1.2.3',
    '12x',
    '1m5',
    ' 1',
    '1 ',
  ];
  for (const sample of samples) assert.equal(ourPattern.test(sample), upstreamPattern.test(sample), JSON.stringify(sample));
});

const SAMPLES: [string, string][] = [
  ['a valid spec', 'version: v1.12.0\nmanager: {maxConcurrentReconciles: 1, verbosity: 0}\ndeployment: {replicas: 0}'],
  ['an unknown spec field', 'versoin: v1'],
  ['an unknown container field', 'deployment: {containers: [{name: m, image: x}]}'],
  ['maxConcurrentReconciles 0', 'manager: {maxConcurrentReconciles: 0}'],
  ['replicas -1', 'deployment: {replicas: -1}'],
  ['verbosity -1', 'manager: {verbosity: -1}'],
  ['leaderElection without its required fields', 'manager: {leaderElection: {leaderElect: true}}'],
  ['a fractional quantity as a number', 'deployment: {containers: [{name: m, resources: {limits: {cpu: 0.5}}}]}'],
  ['a malformed quantity string', 'deployment: {containers: [{name: m, resources: {limits: {cpu: 12x}}}]}'],
  ['a quoted feature gate boolean', 'manager: {featureGates: {MachinePool: "true"}}'],
  ['a container without a name', 'deployment: {containers: [{imageUrl: x}]}'],
  ['an env var without a name', 'deployment: {containers: [{name: m, env: [{value: x}]}]}'],
  ['tolerationSeconds as a string', 'deployment: {tolerations: [{tolerationSeconds: "30"}]}'],
  [
    'a preferred affinity term without weight',
    'deployment: {affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{preference: {}}]}}}',
  ],
  ['an unknown patch target field', 'patches: [{patch: "x", target: {kinds: Service}}]'],
  ['additionalArgs with a number value', 'manager: {additionalArgs: {--v: 5}}'],
  ['configSecret without name', 'configSecret: {namespace: x}'],
];

for (const [what, spec] of SAMPLES) {
  const valid = what === 'a valid spec';
  test(`loadManifest and the upstream CRD both ${valid ? 'accept' : 'reject'} ${what}`, async () => {
    const text = provider(spec);
    const upstream = upstreamAccepts(parse(text, { version: '1.1' }));
    const ours = await loadText(text).then(
      () => true,
      () => false,
    );
    assert.equal(upstream, valid, 'upstream verdict');
    assert.equal(ours, valid, 'capi-gitops verdict');
  });
}

test('the CEL rules enforced in code are the upstream CRD rules, and their messages are quoted', () => {
  const spec = (upstreamSchema('CoreProvider').properties as Record<string, AnySchemaObject>).spec;
  const specRules = spec['x-kubernetes-validations'] as { rule: string; message: string }[];
  const fetchRules = (spec.properties as Record<string, AnySchemaObject>).fetchConfig['x-kubernetes-validations'] as {
    rule: string;
    message: string;
  }[];
  assert.deepEqual(
    specRules.map((r) => r.rule),
    ['!(has(self.manifestPatches) && has(self.patches))'],
  );
  assert.deepEqual(
    fetchRules.map((r) => r.rule),
    ['[has(self.oci), has(self.url), has(self.selector)].exists_one(x,x)'],
  );
  const [fetch, patches] = checkProviderSpecRules({ fetchConfig: {}, patches: [], manifestPatches: [] });
  assert.ok(fetch.expected?.includes(fetchRules[0].message), fetch.expected);
  assert.ok(patches.expected?.includes(specRules[0].message), patches.expected);
});
