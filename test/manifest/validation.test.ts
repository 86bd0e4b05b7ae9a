import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { closestName, editDistance, formatFieldPath } from '../../src/manifest/fields.js';
import { applyWebhookDefaults, checkProviderSpecRules } from '../../src/manifest/providers.js';
import { SCHEMA_PATH } from '../helpers/paths.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { loadText, loadTextError, provider, summary } from '../fixtures/manifest/helpers.js';

test('an unknown field is reported at its key with the closest known field suggested', async () => {
  const { error, file } = await loadTextError(provider('versoin: v1.12.0'));
  assert.deepEqual(error.diagnostics, [
    {
      file,
      line: 7,
      column: 3,
      path: 'spec.versoin',
      object: 'CoreProvider/capi-system/cluster-api',
      message: 'unknown field "versoin"',
      expected:
        'a field of ProviderSpec: additionalDeployments, additionalManifests, configSecret, deployment, fetchConfig, manager, manifestPatches, patches, version',
      hint: 'did you mean "version"?',
    },
  ]);
  assert.equal(
    error.message,
    `${file}:7:3: error: CoreProvider/capi-system/cluster-api: spec.versoin: unknown field "versoin"\n` +
      '  expected: a field of ProviderSpec: additionalDeployments, additionalManifests, configSecret, deployment, fetchConfig, manager, manifestPatches, patches, version\n' +
      '  hint: did you mean "version"?',
  );
});

test('unknown fields deep in the spec, in any case, and misplaced fields get the right suggestion', async () => {
  const { error } = await loadTextError(
    provider('manager:\n  maxConcurrentReconcile: 2\ndeployment:\n  containers:\n    - name: manager\n      imageURL: x\n  tolerance: []') +
      'version: v1.12.0\n',
  );
  assert.deepEqual(
    error.diagnostics.map((d) => [`${d.line}:${d.column}`, d.path, d.hint]),
    [
      ['8:5', 'spec.manager.maxConcurrentReconcile', 'did you mean "maxConcurrentReconciles"?'],
      ['12:9', 'spec.deployment.containers[0].imageURL', 'did you mean "imageUrl"?'],
      ['13:5', 'spec.deployment.tolerance', 'remove it, or check its spelling and indentation'],
      ['14:1', 'version', '"version" is a field of "spec": move it under spec'],
    ],
  );
});

test('fetchConfig must set exactly one of url, selector and oci (CRD CEL rule on FetchConfiguration)', async () => {
  const none = await loadTextError(provider('fetchConfig: {}'));
  assert.deepEqual(summary(none.error.diagnostics), ['7:3 spec.fetchConfig: fetchConfig sets none of url, selector and oci']);
  const two = await loadTextError(provider('fetchConfig:\n  url: https://example.com/releases\n  oci: registry.example.com/core:v1'));
  assert.deepEqual(summary(two.error.diagnostics), ['7:3 spec.fetchConfig: fetchConfig sets url and oci together']);
  const three = await loadTextError(provider('fetchConfig: {url: u, oci: o, selector: {}}'));
  assert.deepEqual(summary(three.error.diagnostics), ['7:3 spec.fetchConfig: fetchConfig sets url and selector and oci together']);
  // has() is about presence: an empty url still counts as the one source.
  for (const one of ['{url: ""}', '{selector: {}}', '{oci: registry.example.com/x:v1}']) await loadText(provider(`fetchConfig: ${one}`));
});

test('patches and manifestPatches are mutually exclusive, even when empty (CRD CEL rule on ProviderSpec)', async () => {
  const { error } = await loadTextError(provider('manifestPatches: []\npatches: []'));
  assert.deepEqual(summary(error.diagnostics), ['8:3 spec.patches: "patches" and "manifestPatches" cannot both be set']);
  await loadText(provider('manifestPatches: ["kind: Deployment"]'));
  await loadText(provider('patches: [{patch: "kind: Deployment"}]'));
  // A null field is pruned before the rule is evaluated.
  await loadText(provider('manifestPatches: null\npatches: []'));
});

test('a manifestPatches entry written as a mapping gets a hint whose YAML block prints with real line breaks, ready to copy', async () => {
  const { error, file } = await loadTextError(provider('manifestPatches:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: x}'));
  assert.equal(
    error.message,
    `${file}:8:5: error: CoreProvider/capi-system/cluster-api: spec.manifestPatches[0]: must be a string, got a mapping (key: value lines)\n` +
      '  expected: a string\n' +
      '  hint: manifestPatches is a list of strings, each a whole merge patch; write it as a block:\n' +
      '    manifestPatches:\n' +
      '    - |\n' +
      '      apiVersion: v1\n' +
      '      kind: ConfigMap\n' +
      '      metadata:\n' +
      '        name: …',
  );
});

test('schema minimums: maxConcurrentReconciles >= 1, replicas >= 0, verbosity >= 0, also in additionalDeployments', async () => {
  const { error } = await loadTextError(
    provider(
      'manager: {maxConcurrentReconciles: 0, verbosity: -1}\ndeployment: {replicas: -1}\nadditionalDeployments:\n  extra:\n    manager: {maxConcurrentReconciles: 0}',
    ),
  );
  assert.deepEqual(summary(error.diagnostics), [
    '7:38 spec.manager.maxConcurrentReconciles: must be >= 1',
    '7:52 spec.manager.verbosity: must be >= 0',
    '8:26 spec.deployment.replicas: must be >= 0',
    '11:42 spec.additionalDeployments.extra.manager.maxConcurrentReconciles: must be >= 1',
  ]);
  await loadText(provider('manager: {maxConcurrentReconciles: 1, verbosity: 0}\ndeployment: {replicas: 0}'));
});

test('leaderElection requires all seven fields of LeaderElectionConfiguration', async () => {
  const { error } = await loadTextError(provider('manager:\n  leaderElection:\n    leaderElect: true\n    leaseDuration: 15s'));
  assert.deepEqual(
    error.diagnostics.map((d) => `${d.line}:${d.column} ${d.path}`),
    [
      '8:5 spec.manager.leaderElection.renewDeadline',
      '8:5 spec.manager.leaderElection.resourceLock',
      '8:5 spec.manager.leaderElection.resourceName',
      '8:5 spec.manager.leaderElection.resourceNamespace',
      '8:5 spec.manager.leaderElection.retryPeriod',
    ],
  );
  assert.equal(error.diagnostics[0].message, 'missing required field "renewDeadline"');
});

test('type mismatches explain YAML typing and show the source to quote', async () => {
  const { error } = await loadTextError(
    provider(
      'version: 1.10\nmanager:\n  additionalArgs: {--v: 0755}\n  featureGates: {MachinePool: "true"}\ndeployment: {replicas: "2", containers: [{name: m, resources: {limits: {cpu: 0.5}}}]}',
    ),
  );
  assert.deepEqual(
    error.diagnostics.map((d) => [d.path, d.message, d.hint]),
    [
      ['spec.version', 'must be a string, got a number', 'YAML reads the unquoted value as a number; quote it: "1.10"'],
      [
        'spec.manager.additionalArgs["--v"]',
        'must be a string, got an integer',
        'YAML reads the unquoted value as a number; quote it: "0755"',
      ],
      ['spec.manager.featureGates.MachinePool', 'must be a boolean (true or false), got a string', 'write true without quotes'],
      ['spec.deployment.replicas', 'must be an integer, got a string', 'write 2 without quotes'],
      ['spec.deployment.containers[0].resources.limits.cpu', 'is not a valid quantity', 'change the value to the form described above'],
    ],
  );
  assert.match(error.diagnostics[4].expected ?? '', /Write fractions as strings/);
});

test('a word where a number or a boolean belongs gets a hint that works when followed, not "write the number without quotes"', async () => {
  const { error } = await loadTextError(
    provider('manager:\n  verbosity: high\n  featureGates: {MachinePool: enabled}\ndeployment: {replicas: "2.5"}'),
  );
  assert.deepEqual(
    error.diagnostics.map((d) => [d.path, d.hint]),
    [
      ['spec.manager.verbosity', 'write a whole number, without quotes'],
      ['spec.manager.featureGates.MachinePool', 'write true or false, without quotes'],
      ['spec.deployment.replicas', 'write a whole number, without quotes'],
    ],
  );
});

test('metadata names and namespaces must be valid Kubernetes names', async () => {
  const { error } = await loadTextError(provider('', 'InfrastructureProvider', 'AWS', 'capa_system'));
  assert.deepEqual(summary(error.diagnostics), [
    '4:9 metadata.name: is not a valid DNS subdomain name',
    '5:14 metadata.namespace: is not a valid DNS label',
  ]);
  assert.match(error.diagnostics[0].expected ?? '', /lowercase RFC 1123 subdomain/);
});

test('edit distance counts a swap of adjacent letters as one edit', () => {
  assert.equal(editDistance('versoin', 'version'), 1);
  assert.equal(editDistance('', 'abc'), 3);
  assert.equal(editDistance('kitten', 'sitting'), 3);
});

test('closestName prefers a case-insensitive match, then the nearest within a third of the length', () => {
  assert.equal(closestName('imageURL', ['imageUrl', 'name']), 'imageUrl');
  assert.equal(closestName('replica', ['replicas', 'nodeSelector']), 'replicas');
  assert.equal(closestName('tolerance', ['tolerations', 'affinity']), undefined);
  assert.equal(closestName('ab', ['ac', 'ad']), 'ac');
});

test('closestName leaves out by length alone a candidate no edits within the limit can reach: a 1.1 MB kind (a value pasted by mistake) built an edit table per kind, 20 s of render', () => {
  assert.equal(closestName('x'.repeat(1_100_000), ['CoreProvider', 'InfrastructureProvider', 'Secret']), undefined);
  // at the limit (a third of the longer name), a candidate is still compared and found
  assert.equal(closestName('abcdef', ['abcdefgh']), 'abcdefgh');
  assert.equal(closestName('abcdefgh', ['abcdef']), 'abcdef');
  assert.equal(closestName('abcde', ['abcdefgh']), undefined);
});

test('field paths use dots for identifiers and brackets for indexes and other keys', () => {
  assert.equal(formatFieldPath(['spec', 'deployment', 'containers', 0, 'args', '--v']), 'spec.deployment.containers[0].args["--v"]');
  assert.equal(formatFieldPath(['metadata', 'labels', 'app.kubernetes.io/name']), 'metadata.labels["app.kubernetes.io/name"]');
  assert.equal(formatFieldPath([]), '');
});

test('checkProviderSpecRules passes a spec that follows both CEL rules', () => {
  assert.deepEqual(checkProviderSpecRules({ fetchConfig: { url: 'u' }, patches: [] }), []);
  assert.deepEqual(checkProviderSpecRules({}), []);
});

test('applyWebhookDefaults fills only missing or empty namespaces and does not change its input (operator webhook setDefaultProviderSpec)', () => {
  const spec = { configSecret: { name: 's' }, additionalManifests: { name: 'm', namespace: 'other' } };
  assert.deepEqual(applyWebhookDefaults(spec, 'capi-system'), {
    configSecret: { name: 's', namespace: 'capi-system' },
    additionalManifests: { name: 'm', namespace: 'other' },
  });
  assert.deepEqual(spec.configSecret, { name: 's' });
  assert.deepEqual(applyWebhookDefaults({}, 'capi-system'), {});
});

test('schema/capi-gitops.schema.json is draft-07 and every field has a description for editor hovers', () => {
  const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as { $schema: string; $defs: Record<string, Record<string, unknown>> };
  assert.equal(schema.$schema, 'http://json-schema.org/draft-07/schema#');
  const described = (field: Record<string, unknown>): boolean => {
    if (typeof field.description === 'string' && field.description.length > 0) return true;
    const ref = field.$ref as string | undefined;
    return ref !== undefined && typeof schema.$defs[ref.slice('#/$defs/'.length)]?.description === 'string';
  };
  const undescribed: string[] = [];
  const visit = (node: unknown, at: string): void => {
    if (Array.isArray(node)) node.forEach((item, i) => visit(item, `${at}/${i}`));
    else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'properties' && at.split('/').at(-1) !== 'if') {
          for (const [name, field] of Object.entries(value as Record<string, Record<string, unknown>>))
            if (!described(field)) undescribed.push(`${at}/properties/${name}`);
        }
        visit(value, `${at}/${key}`);
      }
    }
  };
  visit(schema, '#');
  assert.deepEqual(undescribed, []);
});

test('a value that does not match its pattern says which form is expected (an age recipient), never "described above" with nothing described', async () => {
  const config = 'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nsecrets:\n  strategy: sops\n  sops:\n    ageRecipients: [age2abc]\n';
  const { error } = await loadTextError(`${provider('version: v1.12.0')}---\n${config}`);
  const problem = error.diagnostics.find((d) => d.path === 'secrets.sops.ageRecipients[0]');
  assert.ok(problem, error.message);
  assert.match(problem.expected ?? '', /^an age recipient \(public key\): age1 .*age-keygen -y/);
});

test('a 1.1 MB value pasted as a kind is told in a message cut to its start and end, not echoed whole to stderr (megabytes a line)', async () => {
  const dir = tempDir();
  const kind = `Core${'x'.repeat(1_100_000)}Provider`;
  writeFileSync(
    path.join(dir, 'providers.yaml'),
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: ${kind}\nmetadata: {name: cluster-api, namespace: capi-system}\nspec: {version: v1.12.0}\n`,
  );
  const result = await runCli(['render', '-f', 'providers.yaml', '-o', 'out'], { cwd: dir });
  assert.equal(result.code, 1);
  assert.ok(result.stderr.length < 20_000, `${result.stderr.length} characters`);
  assert.match(result.stderr, /providers\.yaml:2:7: error: .*Corexxx.*characters left out.*xxxProvider/);
});
