/**
 * A fleet's clusters each with a configSecret of their own: a value of one cluster's Secret that
 * another cluster writes in plain (its own variable) is refused, naming the variable and the
 * cluster whose value it is, never the value; each cluster's own gate knew only its own values.
 * Every form a cluster's own gate finds counts: a multi-line value's runs of lines, a long value
 * in two pieces, a line decoded; and the files the fleet writes itself (the ApplicationSet) are
 * searched for every cluster's values.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exampleCopy } from '../helpers/cli.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { renderOutput } from '../../src/app/run.js';
import { writeOutput } from '../../src/output/write.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import type { RenderOptions } from '../../src/app/types.js';
import { rejection } from '../helpers/assertions.js';

const EU_TOKEN = 'eu1-api-token-4f9a2c7e51d0';
const US_TOKEN = 'us1-api-token-8b3e6d2a90f4';
/** A value of the run (--secret-file), every cluster's. */
const RUN_TOKEN = 'run-token-5c8e1f3a7b92d0';
/** An INI credentials file whose every line is shorter than the 16 characters a line is searched alone at. */
const EU_CREDENTIALS = '[default]\nuser = svc-eu1\npass = Zq8kP2xW\n';

interface FleetInput {
  /** us-1's EXAMPLE_REGION. */
  usRegion?: string;
  /** The data of a ConfigMap us-1's provider adds (additionalManifests), YAML lines indented by 6. */
  usConfigMapData?: string;
  /** More of us-1's entry (YAML lines indented by 2). */
  usEntry?: string;
  /** The name of the ConfigMap us-1's additionalManifests add (its output file is named after it). */
  usObjectName?: string;
}

function fleet({ usRegion = 'us-east-1', usConfigMapData, usEntry = '', usObjectName = 'legacy' }: FleetInput = {}): string[] {
  const manifest = path.join(exampleCopy(), 'management-cluster');
  rmSync(path.join(manifest, 'capi-gitops.lock.yaml'));
  const extra = usConfigMapData ? ', additionalManifests: {name: us-extra}' : '';
  const own = (cluster: string, more = '') =>
    `  providers: {InfrastructureProvider/example: {spec: {configSecret: {name: ${cluster}-vars}${more}}}}\n`;
  writeFileSync(
    path.join(manifest, 'fleet.yaml'),
    `apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: eu-1\n${own('eu')}- name: us-1\n${own('us', extra)}` +
      `  variables: {EXAMPLE_REGION: "${usRegion}"}\n${usEntry}`,
  );
  const secrets = path.join(tempDir('capi-gitops-foreign-secrets-'), 'secrets.yaml');
  const secret = (cluster: string, token: string, more = '') =>
    `apiVersion: v1\nkind: Secret\nmetadata: {name: ${cluster}-vars, namespace: capex-system}\nstringData:\n  API_TOKEN: "${token}"\n${more}`;
  const credentials = `  CREDENTIALS: |\n${EU_CREDENTIALS.replace(/^/gm, '    ').trimEnd()}\n`;
  const configMap = usConfigMapData
    ? [
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: us-extra, namespace: capex-system}\ndata:\n  manifests: |\n' +
          '    apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: ' +
          usObjectName +
          ', namespace: capex-system}\n    data:\n' +
          usConfigMapData,
      ]
    : [];
  writeFileSync(secrets, [secret('eu', EU_TOKEN, credentials), secret('us', US_TOKEN), ...configMap].join('---\n'));
  return [manifest, secrets];
}

/** The render's refusal of eu-1's `variable` in `file` (below the output), never with the value. */
async function refusedAsEuValue(options: RenderOptions, variable: string, file: RegExp): Promise<void> {
  const error = await rejection(renderOutput(options));
  assert.ok(error instanceof CapiGitopsError, String(error));
  const leaks = error.diagnostics.filter((d) => new RegExp(`secret value of ${variable} of cluster eu-1`).test(d.message));
  assert.ok(leaks.length > 0, error.message);
  assert.ok(
    leaks.every((d) => file.test(d.file ?? '')),
    leaks.map((d) => `${d.file} ${d.object}`).join('\n'),
  );
  for (const secret of [EU_TOKEN, ...EU_CREDENTIALS.split('\n').filter((line) => line.length > 4)])
    assert.ok(!error.message.includes(secret), error.message);
}

test("a cluster's secret value in another cluster's files is refused, naming the variable and its cluster, never the value", async () => {
  const error = await rejection(renderOutput({ manifestPaths: fleet({ usRegion: EU_TOKEN }) }));
  assert.ok(error instanceof CapiGitopsError, String(error));
  const leaks = error.diagnostics.filter((d) => /secret value of API_TOKEN of cluster eu-1/.test(d.message));
  assert.ok(leaks.length > 0, error.message);
  assert.ok(
    leaks.every((d) => d.object?.startsWith('cluster us-1') && d.file?.startsWith('clusters/us-1/')),
    leaks.map((d) => `${d.file} ${d.object}`).join('\n'),
  );
  assert.doesNotMatch(error.message, new RegExp(EU_TOKEN));
});

test("a cluster's multi-line value (an INI file of short lines) that another cluster writes as a block is refused, as its own gate's runs of lines find it", async () => {
  const data = `      credentials: |\n${EU_CREDENTIALS.replace(/^/gm, '        ').trimEnd()}\n`;
  await refusedAsEuValue({ manifestPaths: fleet({ usConfigMapData: data }) }, 'CREDENTIALS', /^clusters\/us-1\//);
});

test("a cluster's long value that another cluster writes in two pieces is refused", async () => {
  const data = `      tokenPrefix: ${EU_TOKEN.slice(0, 14)}\n      tokenSuffix: ${EU_TOKEN.slice(14)}\n`;
  await refusedAsEuValue({ manifestPaths: fleet({ usConfigMapData: data }) }, 'API_TOKEN', /^clusters\/us-1\//);
});

test("a cluster's value that another cluster writes URL-encoded (a query string) is refused", async () => {
  const data = `      endpoint: https://api.example.com/v1?token=${EU_TOKEN.replace(/-/g, '%2D')}\n`;
  await refusedAsEuValue({ manifestPaths: fleet({ usConfigMapData: data }) }, 'API_TOKEN', /^clusters\/us-1\//);
});

/**
 * A fleet rendered with its ApplicationSet, then `--cluster eu-1` with us-1's Argo CD destination
 * named `usDestination`. A `--cluster` run keeps the lookups of the clusters it does not render
 * as the last ApplicationSet holds them; here there is none (its file removed, as before a fleet's
 * first render with applicationSet: true), so us-1's lookups come from the manifest.
 */
async function renderEuWithUsDestination(usDestination: string, secretFiles: string[] = []): Promise<RenderOptions> {
  const set = ['repoURL=https://git.example.com/platform/fleet.git', 'path=fleet', 'applicationSet=true'].map((expression) => ({
    expression,
    forceString: false,
  }));
  const out = tempDir();
  const first = await renderOutput({ manifestPaths: fleet(), layout: 'argocd', set, outputDir: out, secretFiles });
  assert.ok(first.fleet);
  await writeOutput(out, first.files);
  rmSync(path.join(out, 'argocd', 'applicationset-capi-gitops-fleet.yaml'));
  const usEntry = `  argocd: {values: {destination: {name: "${usDestination}"}}}\n`;
  return { manifestPaths: fleet({ usEntry }), layout: 'argocd', set, outputDir: out, clusters: ['eu-1'], secretFiles };
}

test("a cluster whose own gate refuses a file name (its own value) has the other clusters' values in its files told in the same run, no value quoted", async () => {
  const data = '      region: us\n';
  const error = await rejection(
    renderOutput({ manifestPaths: fleet({ usRegion: EU_TOKEN, usConfigMapData: data, usObjectName: US_TOKEN }) }),
  );
  assert.ok(error instanceof CapiGitopsError, String(error));
  const own = error.diagnostics.filter((d) => /secret value of API_TOKEN, raw or encoded/.test(d.message));
  const foreign = error.diagnostics.filter((d) => /secret value of API_TOKEN of cluster eu-1/.test(d.message));
  assert.ok(own.length > 0, error.message);
  assert.ok(foreign.length > 0, error.message);
  assert.ok(
    [...own, ...foreign].every((d) => d.file?.startsWith('clusters/us-1/')),
    error.diagnostics.map((d) => `${d.file} ${d.object}`).join('\n'),
  );
  // the file whose name holds us-1's value, named redacted, in us-1's folder too
  const named = error.diagnostics.filter((d) => /the output file's name would contain the secret value of API_TOKEN/.test(d.message));
  assert.ok(named.length > 0, error.message);
  assert.ok(
    named.every((d) => d.file?.startsWith('clusters/us-1/') && d.file.includes('[secret API_TOKEN]')),
    named.map((d) => d.file).join('\n'),
  );
  const told = error.diagnostics.map((d) => JSON.stringify(d));
  assert.equal(new Set(told).size, told.length, error.message);
  for (const secret of [EU_TOKEN, US_TOKEN]) assert.ok(!error.message.includes(secret), error.message);
});

test("the fleet's ApplicationSet is searched too: a cluster's value in the chart values of a cluster --cluster does not render is refused there", async () => {
  const options = await renderEuWithUsDestination(EU_TOKEN);
  await refusedAsEuValue(options, 'API_TOKEN', /^argocd\/applicationset-capi-gitops-fleet\.yaml$/);
});

test("the fleet's ApplicationSet is searched for the run's values too (--secret-file)", async () => {
  const secretFile = path.join(tempDir('capi-gitops-foreign-secrets-'), 'run.env');
  writeFileSync(secretFile, `RUN_TOKEN=${RUN_TOKEN}\n`);
  const error = await rejection(renderOutput(await renderEuWithUsDestination(RUN_TOKEN, [secretFile])));
  assert.ok(error instanceof CapiGitopsError, String(error));
  assert.deepEqual(
    error.diagnostics.filter((d) => /secret value of RUN_TOKEN/.test(d.message)).map((d) => d.file),
    ['argocd/applicationset-capi-gitops-fleet.yaml'],
  );
  assert.ok(!error.message.includes(RUN_TOKEN), error.message);
});

test('clusters with values of their own render', async () => {
  const result = await renderOutput({ manifestPaths: fleet() });
  assert.ok(result.fleet);
});
