/**
 * One component's sequence (src/render/component.ts), with the run's parts given as plain values:
 * raw YAML (additionalManifests appended), variables, substitution, parse, filters, in that order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import type { KObject } from '../../src/core/kobject.js';
import type { ConfigMapObject, ProviderObject } from '../../src/manifest/types.js';
import type { ResolvedProvider } from '../../src/resolve/resolve.js';
import type { VariableLookup, VariableValue } from '../../src/render/types.js';
import { substituteVariables } from '../../src/render/variables.js';
import { parseArtifacts } from '../../src/yaml/parse.js';
import { taintMarker, type MarkedText } from '../../src/secrets/taint.js';
import {
  BatchParseError,
  renderProviderComponent,
  type CacheableParseInput,
  type ProviderInput,
  type RenderRun,
} from '../../src/render/component.js';

const COMPONENTS = `apiVersion: v1
kind: Namespace
metadata:
  name: capex-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: capex-controller-manager
  namespace: capex-system
spec:
  template:
    spec:
      containers:
      - name: manager
        image: registry.example.com/capex:v0.1.0
        args: ["--region=\${EXAMPLE_REGION}"]
`;

const EXTRA = `apiVersion: v1
kind: ConfigMap
metadata:
  name: extra
  namespace: capex-system
data:
  zone: \${EXAMPLE_ZONE:=a}
`;

function provider(spec: ProviderObject['spec'] = {}): ProviderObject {
  return {
    kind: 'InfrastructureProvider',
    name: 'example',
    namespace: 'capex-target',
    spec,
    position: { file: 'providers.yaml', line: 3, column: 1 },
  };
}

function resolved(text = COMPONENTS, spec: ProviderObject['spec'] = {}): ResolvedProvider {
  return {
    provider: provider(spec),
    label: 'infrastructure-example',
    kind: 'InfrastructureProvider',
    name: 'example',
    namespace: 'capex-target',
    requestedVersion: 'v0.1.0',
    version: 'v0.1.0',
    contract: 'v1beta2',
    components: {
      name: 'infrastructure-components.yaml',
      text,
      sha256: createHash('sha256').update(text).digest('hex'),
      url: 'https://example.com/infrastructure-components.yaml',
    },
    metadata: { name: 'metadata.yaml', text: '', sha256: '', url: '' },
    repository: { sourceType: 'https', location: 'https://example.com' },
  };
}

const configMap = (manifests: string): ConfigMapObject => ({
  name: 'extras',
  namespace: 'capex-target',
  labels: {},
  annotations: {},
  data: { manifests },
  binaryData: {},
  position: { file: 'providers.yaml', line: 20, column: 1 },
});

function lookupOf(values: Record<string, string>, secret: readonly string[] = []): VariableLookup {
  return (name) =>
    Object.hasOwn(values, name)
      ? ({
          value: values[name]!,
          origin: secret.includes(name) ? 'Secret capex-target/vars' : 'Config.variables',
          fromSecret: secret.includes(name),
        } satisfies VariableValue)
      : undefined;
}

function input(overrides: Partial<ProviderInput> = {}): ProviderInput {
  return {
    resolved: resolved(),
    configMaps: [],
    lookup: lookupOf({ EXAMPLE_REGION: 'eu-1' }),
    givenVariables: ['EXAMPLE_REGION'],
    imageOverrides: {},
    ...overrides,
  };
}

/** A run that records each step it is asked for, in order. */
function recordingRun(
  steps: string[],
  parse?: (input: CacheableParseInput) => Promise<KObject[]>,
): RenderRun<MarkedText> & {
  requests: CacheableParseInput[];
} {
  const requests: CacheableParseInput[] = [];
  return {
    requests,
    substitute: (text, lookup, file) => {
      steps.push('substitute');
      return substituteVariables(text, lookup, file);
    },
    parse: async (request) => {
      steps.push('parse');
      requests.push(request);
      return parse ? parse(request) : parseArtifacts([request])[0]!;
    },
    secrets: { holdsSecret: (text) => text.includes('hunter2-secret'), marks: taintMarker },
  };
}

test('raw YAML with spec.additionalManifests appended, then variables, substitution, parse and the filters (operator phase_load.go, clusterctl components.go NewComponents)', async () => {
  const steps: string[] = [];
  const run = recordingRun(steps);
  const outcome = await renderProviderComponent(
    input({
      resolved: resolved(COMPONENTS, { additionalManifests: { name: 'extras' } }),
      configMaps: [configMap(EXTRA)],
    }),
    run,
  );
  assert.deepEqual(outcome.problems, []);
  assert.deepEqual(steps, ['substitute', 'parse']);
  // the additional manifests' variables are the provider's variables
  assert.deepEqual(outcome.variables, [{ name: 'EXAMPLE_REGION' }, { name: 'EXAMPLE_ZONE', default: 'a' }]);
  // the parser receives the substituted text, additional manifests included, under the artifact's name
  assert.equal(run.requests.length, 1);
  assert.match(run.requests[0]!.text, /--region=eu-1/);
  assert.match(run.requests[0]!.text, /zone: a/);
  assert.equal(run.requests[0]!.source, 'infrastructure-example v0.1.0 infrastructure-components.yaml');
  assert.equal(run.requests[0]!.keepOutOfCache, false);
  // the filters ran: target namespace, common labels, inventory, order
  const objects = outcome.component!.objects;
  assert.ok(objects.some((o) => o.kind === 'Namespace' && o.metadata.name === 'capex-target'));
  const extra = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'extra')!;
  assert.equal(extra.metadata.namespace, 'capex-target');
  assert.equal(extra.metadata.labels?.['cluster.x-k8s.io/provider'], 'infrastructure-example');
  assert.ok(objects.some((o) => o.kind === 'Provider' && o.metadata.name === 'infrastructure-example'));
  assert.equal(outcome.marked, undefined);
});

test('a missing variable stops the component before parsing, naming every missing variable once (clusterctl simple_processor.go errMissingVariables)', async () => {
  const steps: string[] = [];
  const outcome = await renderProviderComponent(input({ lookup: lookupOf({}), givenVariables: ['EXAMPLE_REGON'] }), recordingRun(steps));
  assert.deepEqual(steps, ['substitute']);
  assert.equal(outcome.component, undefined);
  assert.deepEqual(outcome.variables, [{ name: 'EXAMPLE_REGION' }]);
  assert.equal(outcome.problems.length, 1);
  const [problem] = outcome.problems;
  assert.match(problem!.message, /value for variable \[EXAMPLE_REGION\] is not set/);
  assert.equal(problem!.object, 'InfrastructureProvider/capex-target/example');
  assert.deepEqual([problem!.file, problem!.line, problem!.column], ['providers.yaml', 3, 1]);
  assert.match(problem!.hint!, /EXAMPLE_REGON was given: did you mean EXAMPLE_REGION\?/);
});

test('a missing variable only spec.additionalManifests reads names its ConfigMap, not the artifact, as what uses it (operator phase_load.go appends it; clusterctl simple_processor.go errMissingVariables)', async () => {
  const missing = async (extra: string, given: Record<string, string>) =>
    (
      await renderProviderComponent(
        input({
          resolved: resolved(COMPONENTS, { additionalManifests: { name: 'extras' } }),
          configMaps: [configMap(extra)],
          lookup: lookupOf(given),
        }),
        recordingRun([]),
      )
    ).problems.map((p) => p.message);
  const site = EXTRA.replace('${EXAMPLE_ZONE:=a}', '${SITE_NAME}');
  assert.deepEqual(await missing(site, { EXAMPLE_REGION: 'eu-1' }), [
    'value for variable [SITE_NAME] is not set (used by ConfigMap capex-target/extras of spec.additionalManifests)',
  ]);
  assert.deepEqual(await missing(site, {}), [
    'value for variables [EXAMPLE_REGION, SITE_NAME] is not set (used by https://example.com/infrastructure-components.yaml and ConfigMap capex-target/extras of spec.additionalManifests)',
  ]);
  assert.deepEqual(await missing(EXTRA, {}), [
    'value for variable [EXAMPLE_REGION] is not set (used by https://example.com/infrastructure-components.yaml)',
  ]);
});

test("a Secret's value keeps the text out of the parse cache and renders it a second time with marks, never shared", async () => {
  const steps: string[] = [];
  const run = recordingRun(steps);
  let shared = 0;
  run.share = (_key, _objects, render) => {
    shared++;
    return render();
  };
  const outcome = await renderProviderComponent(
    input({ lookup: lookupOf({ EXAMPLE_REGION: 'hunter2-secret' }, ['EXAMPLE_REGION']), shareKey: 'key' }),
    run,
  );
  assert.deepEqual(outcome.problems, []);
  assert.equal(shared, 0);
  assert.deepEqual(
    run.requests.map((r) => r.keepOutOfCache),
    [true, false],
  );
  assert.match(run.requests[1]!.text, /--region=CapiGitopsTaint0x/);
  assert.ok(outcome.marked);
  assert.deepEqual(
    outcome.marked.marks.marks.map((m) => m.variables),
    [['EXAMPLE_REGION']],
  );
  assert.match(JSON.stringify(outcome.marked.objects), /CapiGitopsTaint0x/);
  assert.match(JSON.stringify(outcome.component!.objects), /--region=hunter2-secret/);
});

test('without a Secret the render is shared under its key', async () => {
  const run = recordingRun([]);
  const keys: string[] = [];
  run.share = (key, _objects, render) => {
    keys.push(key);
    return render();
  };
  const outcome = await renderProviderComponent(input({ shareKey: 'key' }), run);
  assert.deepEqual(outcome.problems, []);
  assert.deepEqual(keys, ['key']);
});

test("a value that breaks the YAML is reported as its variable, never its value (the parse error's own text may quote it)", async () => {
  const outcome = await renderProviderComponent(
    input({ lookup: lookupOf({ EXAMPLE_REGION: 'x", [hunter2-secret' }, ['EXAMPLE_REGION']) }),
    recordingRun([]),
  );
  assert.equal(outcome.component, undefined);
  assert.equal(outcome.problems.length, 1);
  assert.match(outcome.problems[0]!.message, /the value of variable EXAMPLE_REGION \(from Secret capex-target\/vars\) breaks the YAML/);
  assert.ok(!JSON.stringify(outcome.problems).includes('hunter2'));
});

test('an object without kind is refused before the filters (apimachinery "Object \'Kind\' is missing")', async () => {
  const outcome = await renderProviderComponent(input({ resolved: resolved('apiVersion: v1\nmetadata: {name: x}\n') }), recordingRun([]));
  assert.equal(outcome.component, undefined);
  assert.deepEqual(
    outcome.problems.map((d) => [d.file, d.message]),
    [['infrastructure-example v0.1.0 infrastructure-components.yaml', 'object 1 has no kind']],
  );
});

test('a List document is refused, named or not, not written for kustomize to expand (util/yaml ToUnstructured keeps it one object, components.go fixTargetNamespace moves only it)', async () => {
  // clusterctl reads each document as one object: the List gets the target namespace and the
  // labels, its items neither, and the operator's apply fails (the API server has no List
  // resource). Written out, kustomize would expand it with the items in their own namespaces.
  const text =
    'apiVersion: v1\nkind: Namespace\nmetadata: {name: capex-system}\n---\n' +
    'apiVersion: v1\nkind: List\nmetadata: {name: stuff}\nitems:\n- {apiVersion: v1, kind: ServiceAccount, metadata: {name: a, namespace: capex-system}}\n---\n' +
    'apiVersion: v1\nkind: ServiceAccountList\nitems: []\n';
  const outcome = await renderProviderComponent(input({ resolved: resolved(text) }), recordingRun([]));
  assert.equal(outcome.component, undefined);
  assert.deepEqual(
    outcome.problems.map((d) => [d.file, d.message]),
    [
      [
        'infrastructure-example v0.1.0 infrastructure-components.yaml',
        'object 2 is a List (kind List), not an object clusterctl can install',
      ],
      [
        'infrastructure-example v0.1.0 infrastructure-components.yaml',
        'object 3 is a List (kind ServiceAccountList), not an object clusterctl can install',
      ],
    ],
  );
  assert.match(outcome.problems[0]!.hint ?? '', /document of its own/);
});

test("a filter's problem about a rendered object names the artifact it came from, as a parse problem does", async () => {
  const text = COMPONENTS.replace('registry.example.com/capex:v0.1.0', 'Registry.Example.com/CAPEX:v0.1.0');
  const outcome = await renderProviderComponent(input({ resolved: resolved(text) }), recordingRun([]));
  assert.equal(outcome.component, undefined);
  assert.deepEqual(
    outcome.problems.map((d) => [d.file, d.object]),
    [['infrastructure-example v0.1.0 infrastructure-components.yaml', 'Deployment/capex-system/capex-controller-manager']],
  );
});

test('a problem of the whole parse batch reaches the component as it is: the same diagnostics, so the run reports them once', async () => {
  const batch = new CapiGitopsError({ file: 'other', message: 'the inputs of this run hold more than 1 YAML nodes' });
  const outcome = await renderProviderComponent(
    input(),
    recordingRun([], () => Promise.reject(new BatchParseError(batch))),
  );
  assert.equal(outcome.problems.length, 1);
  assert.equal(outcome.problems[0], batch.diagnostics[0]);
});

test("a filter's problem about a provider field points at that field in the manifest", async () => {
  const spec = { deployment: { containers: [{ name: 'no-such-container' }] } } as ProviderObject['spec'];
  const component = resolved(COMPONENTS, spec);
  component.provider.fieldPosition = (path) => ({ file: 'providers.yaml', line: 10 + path.length, column: 7 });
  const outcome = await renderProviderComponent(input({ resolved: component }), recordingRun([]));
  assert.equal(outcome.component, undefined);
  assert.ok(outcome.problems.length > 0);
  const problem = outcome.problems[0]!;
  assert.match(problem.path ?? '', /^spec\.deployment\.containers/);
  // spec.deployment.containers[0].name: five segments, so line 15 of the fake positions
  assert.deepEqual([problem.file, problem.line, problem.column], ['providers.yaml', 15, 7]);
});
