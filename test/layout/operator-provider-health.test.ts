/**
 * The Argo CD health checks of the operator layout's provider objects, shipped with the built-in
 * argocd chart beside the Application check: one Lua script for the seven kinds of
 * operator.cluster.x-k8s.io, run here on provider objects shaped as the cluster-api-operator
 * writes their status (internal/controller/healthcheck: Ready mirrors the provider Deployment's
 * Available condition; api/v1alpha2/conditions_consts.go for the preflight reasons). Argo CD runs
 * health scripts with gopher-lua, a Lua 5.1, so the tests use Debian's lua5.1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { builtInChartFiles } from '../../src/layout/chart/load.js';
import { PROVIDER_KINDS } from '../../src/core/provider.js';
import { tempDir } from '../helpers/corpus-manifest.js';

const FILE = 'files/argocd-cm-operator-provider-health.yaml';
const files = new Map(await builtInChartFiles('argocd'));
const patch = parse(files.get(FILE) ?? '') as { data: Record<string, string> };

test('the argocd chart ships a health check for each of the seven operator provider kinds, one script for all', () => {
  assert.ok(files.has('files/argocd-cm-application-health.yaml'), 'the Application check ships beside it');
  assert.deepEqual(
    Object.keys(patch.data).sort(),
    PROVIDER_KINDS.map((kind) => `resource.customizations.health.operator.cluster.x-k8s.io_${kind}`).sort(),
  );
  assert.equal(PROVIDER_KINDS.length, 7);
  const scripts = new Set(Object.values(patch.data));
  assert.equal(scripts.size, 1);
  assert.match([...scripts][0]!, /condition\.type == "Ready"/);
});

/** A Lua table constructor for a JSON value, as Argo CD hands an object to a health script (null becomes nil). */
function luaValue(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `{${value.map(luaValue).join(', ')}}`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([key, v]) => `[${JSON.stringify(key)}] = ${luaValue(v)}`)
    .join(', ')}}`;
}

const lua = spawnSync('lua5.1', ['-v'], { encoding: 'utf8' });
const skip = lua.error ? 'lua5.1 is not installed (.ci/install-test-deps.sh installs it)' : false;

function health(object: unknown): { status: string; message: string } {
  const script = path.join(tempDir('capi-gitops-lua-'), 'health.lua');
  writeFileSync(
    script,
    `obj = ${luaValue(object)}\nlocal function check()\n${Object.values(patch.data)[0]}\nend\nlocal hs = check()\nio.write(hs.status, "\\n", hs.message)\n`,
  );
  const run = spawnSync('lua5.1', [script], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const [status, ...message] = run.stdout.split('\n');
  return { status: status!, message: message.join('\n') };
}

const provider = (status?: Record<string, unknown>, generation = 1) => ({
  apiVersion: 'operator.cluster.x-k8s.io/v1alpha2',
  kind: 'InfrastructureProvider',
  metadata: { name: 'docker', namespace: 'capd-system', generation },
  spec: { version: 'v1.10.4' },
  ...(status ? { status } : {}),
});
const condition = (type: string, status: string, reason: string, message = '', extra: Record<string, unknown> = {}) => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: '2025-01-01T00:00:00Z',
  ...extra,
});

test('the health script reads the Ready condition: Healthy when True, Progressing until then (Lua 5.1, as gopher-lua)', { skip }, () => {
  assert.deepEqual(health(provider()), {
    status: 'Progressing',
    message: "Waiting for the cluster-api-operator to report the provider's conditions",
  });
  assert.deepEqual(health(provider({ conditions: [condition('PreflightCheckPassed', 'True', 'Passed')] })), {
    status: 'Progressing',
    message: 'Waiting for the Ready condition',
  });
  const installed = {
    observedGeneration: 2,
    installedVersion: 'v1.10.4',
    conditions: [
      condition('PreflightCheckPassed', 'True', 'Passed'),
      condition('ProviderInstalled', 'True', 'Installed'),
      condition('Ready', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'),
    ],
  };
  assert.deepEqual(health(provider(installed, 2)), { status: 'Healthy', message: 'Ready: v1.10.4 installed' });
  // a spec change the operator has not seen yet
  assert.deepEqual(health(provider(installed, 3)), {
    status: 'Progressing',
    message: 'Waiting for the cluster-api-operator to observe generation 3',
  });
  // the Deployment not yet available: the message, else the reason
  assert.deepEqual(health(provider({ conditions: [condition('Ready', 'False', 'NoDeploymentAvailableConditionReason')] })), {
    status: 'Progressing',
    message: 'NoDeploymentAvailableConditionReason',
  });
  assert.deepEqual(
    health(provider({ conditions: [condition('Ready', 'Unknown', 'Pending', 'Deployment does not have minimum availability.')] })),
    { status: 'Progressing', message: 'Deployment does not have minimum availability.' },
  );
  // cluster-api v1beta1 conditions (operator releases before metav1 conditions) carry a severity and no message
  assert.deepEqual(health(provider({ conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' }] })), {
    status: 'Healthy',
    message: 'Ready',
  });
});

test('a failed preflight check is Degraded, except waiting for the core provider (api/v1alpha2/conditions_consts.go)', { skip }, () => {
  assert.deepEqual(
    health(
      provider({
        conditions: [
          condition('PreflightCheckPassed', 'False', 'UnknownProvider', 'Provider docker is not known', { severity: 'Error' }),
          condition('Ready', 'False', 'NoDeploymentAvailableConditionReason'),
        ],
      }),
    ),
    { status: 'Degraded', message: 'Provider docker is not known' },
  );
  assert.deepEqual(health(provider({ conditions: [condition('PreflightCheckPassed', 'False', 'IncorrectVersionFormat')] })), {
    status: 'Degraded',
    message: 'IncorrectVersionFormat',
  });
  assert.deepEqual(
    health(
      provider({
        conditions: [
          condition('PreflightCheckPassed', 'False', 'WaitingForCoreProviderReady', 'Waiting for the core provider to be ready'),
        ],
      }),
    ),
    { status: 'Progressing', message: 'Waiting for the core provider to be ready' },
  );
});
