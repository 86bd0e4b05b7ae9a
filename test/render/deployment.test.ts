import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';
import {
  customizeDeployments,
  isProviderManagerDeploymentName,
  mergedFeatureGates,
  roundedSeconds,
  setArgs,
} from '../../src/render/deployment.js';
import type { KObject } from '../../src/core/kobject.js';
import { parseGoDuration } from '../../src/core/go-duration.js';
import type { LeaderElectionConfiguration, ManagerSpec, ProviderSpec } from '../../src/manifest/types.js';
import { throwsDiagnostics } from '../helpers/assertions.js';
import type { Diagnostic } from '../../src/core/diagnostics.js';
import { renderManagementCluster } from '../../src/app/cluster.js';
import { CORE_MANAGER_DEPLOYMENT, coreManifest, localCoreRelease } from '../helpers/local-release.js';
import { writeTempManifest } from '../helpers/corpus-manifest.js';

type Json = Record<string, any>;

const UPSTREAM = 'operator component_customizer.go';

/** The Deployment upstream's TestCustomizeDeployment starts from: a proxy, then the manager. */
function managerDeployment(name = 'manager'): KObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'kube-system' },
    spec: {
      template: {
        metadata: { name: 'manager' },
        spec: {
          containers: [
            { name: 'kube-rbac-proxy', image: 'registry.k8s.io/a-kube-rbac-proxy:v0.13.1' },
            {
              name: 'manager',
              image: 'registry.k8s.io/a-manager:1.6.2',
              env: [{ name: 'test1', value: 'value1' }],
              args: ['--webhook-port=2345'],
              livenessProbe: { httpGet: { path: '/healthz', port: 'healthz' } },
              readinessProbe: { httpGet: { path: '/readyz', port: 'healthz' } },
            },
          ],
        },
      },
    },
  };
}

function only(objs: KObject[]): Json {
  assert.equal(objs.length, 1);
  return objs[0] as Json;
}

function podSpec(d: Json): Json {
  return d.spec.template.spec;
}

function container(d: Json, name: string): Json {
  return podSpec(d).containers.find((c: Json) => c.name === name);
}

function managerArgs(spec: ProviderSpec, start: KObject = managerDeployment()): string[] {
  return container(only(customizeDeployments([start], spec)), 'manager').args;
}

function leaderElection(overrides: Partial<LeaderElectionConfiguration> = {}): LeaderElectionConfiguration {
  return {
    leaderElect: true,
    leaseDuration: '15s',
    renewDeadline: '10s',
    retryPeriod: '2s',
    resourceLock: 'leases',
    resourceName: 'foo',
    resourceNamespace: 'here',
    ...overrides,
  };
}

/**
 * The real core components, with `${VAR:=default}` replaced by its default the way clusterctl's
 * envsubst would when nothing is set (this file does not own variable substitution).
 */
let corpusManagerCache: KObject | undefined;
function corpusManager(): KObject {
  corpusManagerCache ??= readCorpusManager();
  return structuredClone(corpusManagerCache);
}

function readCorpusManager(): KObject {
  const file = path.join(CORPUS_REPOSITORY, 'cluster-api', 'v1.12.0', 'core-components.yaml');
  const text = readFileSync(file, 'utf8').replace(/\$\{[A-Za-z0-9_]+:=([^}]*)\}/g, '$1');
  const objs = YAML.parseAllDocuments(text, { version: '1.1' }).map((d) => d.toJS() as KObject);
  const deployments = objs.filter((o) => o?.kind === 'Deployment');
  assert.equal(deployments.length, 1);
  assert.equal(deployments[0]!.metadata.name, 'capi-controller-manager');
  return deployments[0]!;
}

// ---- customizeDeploymentSpec ----------------------------------------------------------------

test(`replicas sets spec.replicas, an explicit 0 included (${UPSTREAM} customizeDeploymentSpec)`, () => {
  assert.equal(only(customizeDeployments([managerDeployment()], { deployment: { replicas: 3 } })).spec.replicas, 3);
  assert.equal(only(customizeDeployments([managerDeployment()], { deployment: { replicas: 0 } })).spec.replicas, 0);
});

test(`nodeSelector replaces the pod's, and {} clears it (${UPSTREAM} customizeDeploymentSpec)`, () => {
  const start = managerDeployment() as Json;
  start.spec.template.spec.nodeSelector = { old: 'x' };
  assert.deepEqual(podSpec(only(customizeDeployments([start as KObject], { deployment: { nodeSelector: { a: 'b' } } }))).nodeSelector, {
    a: 'b',
  });
  assert.equal('nodeSelector' in podSpec(only(customizeDeployments([start as KObject], { deployment: { nodeSelector: {} } }))), false);
});

test(`tolerations replace the pod's, and [] clears them (${UPSTREAM} customizeDeploymentSpec, TestCustomizeDeployment_ClearsTolerationsWhenExplicitlyEmpty)`, () => {
  const start = managerDeployment() as Json;
  start.spec.template.spec.tolerations = [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }];
  const replaced = podSpec(
    only(
      customizeDeployments([start as KObject], {
        deployment: { tolerations: [{ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' }] },
      }),
    ),
  );
  assert.deepEqual(replaced.tolerations, [{ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' }]);
  assert.equal('tolerations' in podSpec(only(customizeDeployments([start as KObject], { deployment: { tolerations: [] } }))), false);
});

test(`affinity sets the pod's affinity (${UPSTREAM} customizeDeploymentSpec)`, () => {
  const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [] }] } } };
  assert.deepEqual(podSpec(only(customizeDeployments([managerDeployment()], { deployment: { affinity } }))).affinity, affinity);
});

test(`serviceAccountName sets the pod's, an empty one changes nothing (${UPSTREAM} customizeDeploymentSpec)`, () => {
  assert.equal(
    podSpec(only(customizeDeployments([managerDeployment()], { deployment: { serviceAccountName: 'foo-service-account' } })))
      .serviceAccountName,
    'foo-service-account',
  );
  const start = managerDeployment() as Json;
  start.spec.template.spec.serviceAccountName = 'capi-manager';
  assert.equal(
    podSpec(only(customizeDeployments([start as KObject], { deployment: { serviceAccountName: '' } }))).serviceAccountName,
    'capi-manager',
  );
});

test(`imagePullSecrets replace the pod's (${UPSTREAM} customizeDeploymentSpec)`, () => {
  assert.deepEqual(
    podSpec(only(customizeDeployments([managerDeployment()], { deployment: { imagePullSecrets: [{ name: 'test' }] } }))).imagePullSecrets,
    [{ name: 'test' }],
  );
});

// ---- customizeContainer ---------------------------------------------------------------------

test(`container args replace an existing flag in place and append new ones in key order (${UPSTREAM} customizeContainer/setArgs)`, () => {
  const args = managerArgs({
    deployment: { containers: [{ name: 'manager', args: { '--webhook-port': '3456', '--log_dir': '/var/log', '--a-first': 'x' } }] },
  });
  assert.deepEqual(args, ['--webhook-port=3456', '--a-first=x', '--log_dir=/var/log']);
});

test(`container env replaces a variable by name (moved last) and appends new ones (${UPSTREAM} customizeContainer/removeEnv)`, () => {
  const start = managerDeployment() as Json;
  container(start, 'manager').env = [
    { name: 'test1', value: 'value1' },
    { name: 'keep', value: 'k' },
  ];
  const out = only(
    customizeDeployments([start as KObject], {
      deployment: {
        containers: [
          {
            name: 'manager',
            env: [
              { name: 'test1', value: 'value2' },
              { name: 'new1', value: 'value22' },
            ],
          },
        ],
      },
    }),
  );
  assert.deepEqual(container(out, 'manager').env, [
    { name: 'keep', value: 'k' },
    { name: 'test1', value: 'value2' },
    { name: 'new1', value: 'value22' },
  ]);
});

test(`container resources, imageUrl and command replace the container's (${UPSTREAM} customizeContainer)`, () => {
  const out = only(
    customizeDeployments([managerDeployment()], {
      deployment: {
        containers: [
          { name: 'manager', resources: { requests: { memory: '16Gi' } }, imageUrl: 'quay.io/dev/mydns:v3.4.2', command: ['/expected'] },
        ],
      },
    }),
  );
  const manager = container(out, 'manager');
  assert.deepEqual(manager.resources, { requests: { memory: '16Gi' } });
  assert.equal(manager.image, 'quay.io/dev/mydns:v3.4.2');
  assert.deepEqual(manager.command, ['/expected']);
  assert.equal(container(out, 'kube-rbac-proxy').image, 'registry.k8s.io/a-kube-rbac-proxy:v0.13.1');
});

test(`an empty imageUrl, command or imagePullSecrets clears the field, as upstream's typed round trip drops empty values (${UPSTREAM} customizeContainer, customizeDeploymentSpec)`, () => {
  const start = managerDeployment() as Json;
  container(start, 'manager').command = ['/manager'];
  start.spec.template.spec.imagePullSecrets = [{ name: 'old' }];
  const out = only(
    customizeDeployments([start as KObject], {
      deployment: { imagePullSecrets: [], containers: [{ name: 'manager', imageUrl: '', command: [] }] },
    }),
  );
  assert.equal('image' in container(out, 'manager'), false);
  assert.equal('command' in container(out, 'manager'), false);
  assert.equal('imagePullSecrets' in podSpec(out), false);
});

test(`the CRD's default name "" and an empty env value are dropped, as the operator's typed round trip (omitempty) drops them (${UPSTREAM} customizeDeploymentSpec, customizeContainer)`, () => {
  // What the API server stores for `imagePullSecrets: [{}]` and a configMapKeyRef without a name.
  const out = only(
    customizeDeployments([managerDeployment()], {
      deployment: {
        imagePullSecrets: [{ name: '' }, { name: 'regcred' }],
        containers: [
          {
            name: 'manager',
            env: [
              { name: 'FROM_CM', valueFrom: { configMapKeyRef: { name: '', key: 'k' } } },
              { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 'creds', key: 'k' } } },
              { name: 'EMPTY', value: '' },
            ],
          },
        ],
      },
    }),
  );
  assert.deepEqual(podSpec(out).imagePullSecrets, [{}, { name: 'regcred' }]);
  assert.deepEqual(container(out, 'manager').env.slice(-3), [
    { name: 'FROM_CM', valueFrom: { configMapKeyRef: { key: 'k' } } },
    { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 'creds', key: 'k' } } },
    { name: 'EMPTY' },
  ]);
});

test(`a container spec for a container that does not exist is an error naming it, the Deployment and the field (${UPSTREAM} customizeContainer)`, () => {
  const err = throwsDiagnostics(() =>
    customizeDeployments(
      [managerDeployment('capi-controller-manager')],
      { deployment: { containers: [{ name: 'NON-EXISTENT', imageUrl: 'x' }] } },
      { object: 'CoreProvider/capi-system/cluster-api', file: 'p.yaml', line: 1, column: 1 },
    ),
  );
  assert.equal(err.diagnostics.length, 1);
  const d = err.diagnostics[0]!;
  assert.equal(d.object, 'CoreProvider/capi-system/cluster-api');
  assert.equal(d.file, 'p.yaml');
  assert.equal(d.path, 'spec.deployment.containers[0].name');
  assert.match(d.message, /"NON-EXISTENT".*"capi-controller-manager"/);
  assert.match(d.expected ?? '', /kube-rbac-proxy, manager/);
  assert.ok(d.hint);
});

// ---- customizeDeployment / findManagerContainer ---------------------------------------------

test(`manager settings run after the deployment spec and win over container args (${UPSTREAM} customizeDeployment)`, () => {
  const args = managerArgs({
    deployment: { containers: [{ name: 'manager', args: { '--v': '2', '--webhook-port': '1111' } }] },
    manager: { verbosity: 5, webhook: { port: 3579 } },
  });
  assert.deepEqual(args, ['--webhook-port=3579', '--v=5']);
});

test(`manager settings go to the container named "manager", else to the first one (${UPSTREAM} findManagerContainer)`, () => {
  const named = only(customizeDeployments([managerDeployment()], { manager: { verbosity: 3 } }));
  assert.deepEqual(container(named, 'manager').args, ['--webhook-port=2345', '--v=3']);
  assert.equal(container(named, 'kube-rbac-proxy').args, undefined);

  const unnamed = managerDeployment() as Json;
  unnamed.spec.template.spec.containers = [
    { name: 'controller', image: 'x' },
    { name: 'sidecar', image: 'y' },
  ];
  const out = only(customizeDeployments([unnamed as KObject], { manager: { verbosity: 3 } }));
  assert.deepEqual(container(out, 'controller').args, ['--v=3']);
});

test(`manager settings on a Deployment without containers are an error (${UPSTREAM} customizeDeployment)`, () => {
  const empty = managerDeployment() as Json;
  empty.spec.template.spec.containers = [];
  const err = throwsDiagnostics(() => customizeDeployments([empty as KObject], { manager: { verbosity: 3 } }));
  assert.equal(err.diagnostics[0]!.path, 'spec.manager');
  assert.match(err.diagnostics[0]!.message, /cannot find "manager" container/);
});

// ---- customizeManagerContainer: one test per flag -------------------------------------------

test(`maxConcurrentReconciles → --max-concurrent-reconciles (${UPSTREAM} customizeManagerContainer)`, () => {
  assert.deepEqual(managerArgs({ manager: { maxConcurrentReconciles: 10 } }), ['--webhook-port=2345', '--max-concurrent-reconciles=10']);
});

test(`controller.groupKindConcurrency → --<lowercased kind>-concurrency, in sorted key order (${UPSTREAM} customizeManagerContainer)`, () => {
  const args = managerArgs({ manager: { controller: { groupKindConcurrency: { MachineSet: 4, Cluster: 2, machine: 3 } } } });
  assert.deepEqual(args, ['--webhook-port=2345', '--cluster-concurrency=2', '--machineset-concurrency=4', '--machine-concurrency=3']);
});

test(`cacheNamespace → --namespace (${UPSTREAM} customizeManagerContainer stringArgMappings)`, () => {
  assert.deepEqual(managerArgs({ manager: { cacheNamespace: 'testNS' } }), ['--webhook-port=2345', '--namespace=testNS']);
});

test(`health.healthProbeBindAddress → --health-addr (${UPSTREAM} customizeManagerContainer stringArgMappings)`, () => {
  assert.deepEqual(managerArgs({ manager: { health: { healthProbeBindAddress: ':6789' } } }), [
    '--webhook-port=2345',
    '--health-addr=:6789',
  ]);
});

test(`metrics.bindAddress → --metrics-bind-addr (${UPSTREAM} customizeManagerContainer stringArgMappings)`, () => {
  assert.deepEqual(managerArgs({ manager: { metrics: { bindAddress: ':4567' } } }), ['--webhook-port=2345', '--metrics-bind-addr=:4567']);
});

test(`metrics.diagnosticsAddress replaces the real core manager's --diagnostics-address in place (${UPSTREAM} customizeManagerContainer/setArgs)`, () => {
  const before = container(corpusManager() as Json, 'manager').args as string[];
  assert.equal(before[1], '--diagnostics-address=:8443');
  const after = managerArgs({ manager: { metrics: { diagnosticsAddress: ':9443' } } }, corpusManager());
  assert.deepEqual(after, [before[0], '--diagnostics-address=:9443', ...before.slice(2)]);
});

test(`metrics.insecureDiagnostics → --insecure-diagnostics=true only when true (${UPSTREAM} customizeManagerContainer, TestInsecureDiagnostics)`, () => {
  assert.deepEqual(managerArgs({ manager: { metrics: { insecureDiagnostics: true } } }), [
    '--webhook-port=2345',
    '--insecure-diagnostics=true',
  ]);
  assert.deepEqual(managerArgs({ manager: { metrics: { insecureDiagnostics: false } } }), ['--webhook-port=2345']);
  // On the real manager the existing --insecure-diagnostics=false is replaced where it is.
  const real = managerArgs({ manager: { metrics: { insecureDiagnostics: true } } }, corpusManager());
  assert.equal(real[2], '--insecure-diagnostics=true');
  assert.equal(real.filter((a) => a.startsWith('--insecure-diagnostics')).length, 1);
});

test(`webhook.host → --webhook-host and webhook.certDir → --webhook-cert-dir (${UPSTREAM} customizeManagerContainer stringArgMappings)`, () => {
  assert.deepEqual(managerArgs({ manager: { webhook: { host: '0.0.0.0', certDir: '/tmp/certs' } } }), [
    '--webhook-port=2345',
    '--webhook-host=0.0.0.0',
    '--webhook-cert-dir=/tmp/certs',
  ]);
});

test(`webhook.port → --webhook-port, replacing the existing flag, and 0 is still passed (${UPSTREAM} customizeManagerContainer)`, () => {
  assert.deepEqual(managerArgs({ manager: { webhook: { port: 3579 } } }), ['--webhook-port=3579']);
  assert.deepEqual(managerArgs({ manager: { webhook: { port: 0 } } }), ['--webhook-port=0']);
});

test(`profilerAddress → --profiler-address (${UPSTREAM} customizeManagerContainer stringArgMappings)`, () => {
  assert.deepEqual(managerArgs({ manager: { profilerAddress: 'localhost:1234' } }), [
    '--webhook-port=2345',
    '--profiler-address=localhost:1234',
  ]);
});

test(`livenessEndpointName and readinessEndpointName rewrite the probes' httpGet paths (${UPSTREAM} customizeManagerContainer)`, () => {
  const out = only(
    customizeDeployments([managerDeployment()], {
      manager: { health: { livenessEndpointName: 'mostly', readinessEndpointName: 'readyish' } },
    }),
  );
  assert.deepEqual(container(out, 'manager').livenessProbe, { httpGet: { path: '/mostly', port: 'healthz' } });
  assert.deepEqual(container(out, 'manager').readinessProbe, { httpGet: { path: '/readyish', port: 'healthz' } });
  // A probe without httpGet is left as it is.
  const exec = managerDeployment() as Json;
  container(exec, 'manager').livenessProbe = { exec: { command: ['true'] } };
  const untouched = only(customizeDeployments([exec as KObject], { manager: { health: { livenessEndpointName: 'mostly' } } }));
  assert.deepEqual(container(untouched, 'manager').livenessProbe, { exec: { command: ['true'] } });
});

test(`leaderElection → --leader-elect, --leader-election-id and the three durations in whole seconds (${UPSTREAM} leaderElectionArgs)`, () => {
  const args = managerArgs({
    manager: { leaderElection: leaderElection({ leaseDuration: '1m30s', renewDeadline: '1500ms', retryPeriod: '7h' }) },
  });
  assert.deepEqual(args, [
    '--webhook-port=2345',
    '--leader-elect=true',
    '--leader-election-id=here/foo',
    '--leader-elect-lease-duration=90s',
    '--leader-elect-renew-deadline=2s',
    '--leader-elect-retry-period=25200s',
  ]);
});

test(`leaderElection: off sets only --leader-elect=false; the id needs name and namespace; durations under half a second are dropped (${UPSTREAM} leaderElectionArgs)`, () => {
  assert.deepEqual(managerArgs({ manager: { leaderElection: leaderElection({ leaderElect: false }) } }), [
    '--webhook-port=2345',
    '--leader-elect=false',
  ]);
  assert.deepEqual(
    managerArgs({
      manager: {
        leaderElection: leaderElection({ resourceNamespace: '', leaseDuration: '499ms', renewDeadline: '0s', retryPeriod: '500ms' }),
      },
    }),
    ['--webhook-port=2345', '--leader-elect=true', '--leader-elect-retry-period=1s'],
  );
});

test(`the real core manager's bare --leader-elect is kept and --leader-elect=true appended, as setArgs matches "name=" only (${UPSTREAM} setArgs)`, () => {
  const args = managerArgs({ manager: { leaderElection: leaderElection() } }, corpusManager());
  assert.equal(args[0], '--leader-elect');
  assert.ok(args.includes('--leader-elect=true'));
});

test(`an invalid leader election duration is an error with the field path and a hint (${UPSTREAM} leaderElectionArgs, metav1.Duration)`, () => {
  const err = throwsDiagnostics(() =>
    customizeDeployments(
      [managerDeployment()],
      { manager: { leaderElection: leaderElection({ leaseDuration: '15 seconds', retryPeriod: '2d' }) } },
      { object: 'CoreProvider/capi-system/cluster-api' },
    ),
  );
  assert.deepEqual(err.diagnostics.map((d) => d.path).sort(), [
    'spec.manager.leaderElection.leaseDuration',
    'spec.manager.leaderElection.retryPeriod',
  ]);
  for (const d of err.diagnostics) {
    assert.equal(d.object, 'CoreProvider/capi-system/cluster-api');
    assert.match(d.expected ?? '', /Go duration/);
    assert.match(d.hint ?? '', /ns, us, ms, s, m, h/);
  }
});

test(`syncPeriod → --sync-period in whole seconds, dropped when it rounds to 0 (${UPSTREAM} customizeManagerContainer)`, () => {
  assert.deepEqual(managerArgs({ manager: { syncPeriod: '1h' } }), ['--webhook-port=2345', '--sync-period=3600s']);
  assert.deepEqual(managerArgs({ manager: { syncPeriod: '10m0.5s' } }), ['--webhook-port=2345', '--sync-period=601s']);
  assert.deepEqual(managerArgs({ manager: { syncPeriod: '0s' } }), ['--webhook-port=2345']);
  const err = throwsDiagnostics(() => customizeDeployments([managerDeployment()], { manager: { syncPeriod: '10' } }));
  assert.equal(err.diagnostics[0]!.path, 'spec.manager.syncPeriod');
});

test(`gracefulShutDown sets no flag but must be a valid duration, since the operator decodes it (operator controllermanagerconfig_types.go GracefulShutdownTimeout)`, () => {
  assert.deepEqual(managerArgs({ manager: { gracefulShutDown: '30s' } }), ['--webhook-port=2345']);
  const err = throwsDiagnostics(() => customizeDeployments([managerDeployment()], { manager: { gracefulShutDown: 'soon' } }));
  assert.equal(err.diagnostics[0]!.path, 'spec.manager.gracefulShutDown');
});

test(`verbosity → --v only when it is not the CRD default 1 (${UPSTREAM} customizeManagerContainer defaultVerbosity)`, () => {
  assert.deepEqual(managerArgs({ manager: { verbosity: 1 } }), ['--webhook-port=2345']);
  assert.deepEqual(managerArgs({ manager: {} }), ['--webhook-port=2345']);
  assert.deepEqual(managerArgs({ manager: { verbosity: 0 } }), ['--webhook-port=2345', '--v=0']);
  assert.deepEqual(managerArgs({ manager: { verbosity: 5 } }), ['--webhook-port=2345', '--v=5']);
});

test(`featureGates merge into the real core manager's --feature-gates in place: existing kept, user wins, sorted (${UPSTREAM} parseFeatureGates, TestAdditiveFeatureGates)`, () => {
  const before = container(corpusManager() as Json, 'manager').args as string[];
  assert.match(before[3]!, /^--feature-gates=MachinePool=true,ClusterTopology=false,/);
  const after = managerArgs({ manager: { featureGates: { ClusterTopology: true, MachinePool: false, Zebra: true } } }, corpusManager());
  assert.equal(after.length, before.length);
  assert.deepEqual(after.slice(0, 3), before.slice(0, 3));
  assert.equal(
    after[3],
    '--feature-gates=ClusterTopology=true,InPlaceUpdates=false,MachinePool=false,MachineSetPreflightChecks=true,' +
      'MachineTaintPropagation=false,MachineWaitForVolumeDetachConsiderVolumeAttachments=true,PriorityQueue=false,' +
      'ReconcilerRateLimiting=false,RuntimeSDK=false,Zebra=true',
  );
});

test(`featureGates without an existing flag append one; an existing value other than exactly "true" reads as false (${UPSTREAM} parseFeatureGates)`, () => {
  assert.deepEqual(managerArgs({ manager: { featureGates: { TEST: true, ANOTHER: false } } }), [
    '--webhook-port=2345',
    '--feature-gates=ANOTHER=false,TEST=true',
  ]);
  assert.equal(mergedFeatureGates(['--feature-gates=A=True,B=true,broken,C=1'], { D: true }), 'A=false,B=true,C=false,D=true');
});

test(`featureGates sort as Go's sort.Strings on "Name=bool": "Foo2=…" before "Foo=…" (${UPSTREAM} customizeManagerContainer)`, () => {
  assert.equal(mergedFeatureGates([], { Foo: true, Foo2: false, foo: true }), 'Foo2=false,Foo=true,foo=true');
});

test(`additionalArgs are appended in key order (${UPSTREAM} customizeManagerContainer)`, () => {
  assert.deepEqual(managerArgs({ manager: { additionalArgs: { '--test-option': 'test-value', '--another-option': 'another-value' } } }), [
    '--webhook-port=2345',
    '--another-option=another-value',
    '--test-option=test-value',
  ]);
});

test(`an additionalArg that is already set is an error naming the arg and the Deployment (${UPSTREAM} customizeManagerContainer)`, () => {
  const err = throwsDiagnostics(() =>
    customizeDeployments([managerDeployment('capi-controller-manager')], {
      manager: {
        webhook: { port: 3579, certDir: '/tmp/certs' },
        additionalArgs: { '--test-option': 'test-value', '--webhook-port': '3579', '--webhook-cert-dir': '/x' },
      },
    }),
  );
  assert.equal(err.diagnostics.length, 2);
  assert.match(err.message, /arg "--webhook-port" already exists in Deployment "capi-controller-manager"/);
  assert.match(err.message, /arg "--webhook-cert-dir" already exists/);
  assert.ok(err.diagnostics.every((d) => d.path === 'spec.manager.additionalArgs'));
});

test(`all manager options together, in upstream's flag order (${UPSTREAM} TestCustomizeDeployment "all manager options")`, () => {
  const manager: ManagerSpec = {
    featureGates: { TEST: true, ANOTHER: false },
    profilerAddress: 'localhost:1234',
    verbosity: 5,
    cacheNamespace: 'testNS',
    syncPeriod: '7h',
    controller: { groupKindConcurrency: { machine: 3 } },
    metrics: { bindAddress: ':4567' },
    health: { healthProbeBindAddress: ':6789', readinessEndpointName: 'readyish', livenessEndpointName: 'mostly' },
    webhook: { port: 3579, certDir: '/tmp/certs' },
    leaderElection: leaderElection({ leaseDuration: '7h', renewDeadline: '7h', retryPeriod: '7h' }),
    additionalArgs: { '--test-option': 'test-value', '--another-option': 'another-value' },
  };
  assert.deepEqual(managerArgs({ manager }), [
    '--webhook-port=3579',
    '--machine-concurrency=3',
    '--namespace=testNS',
    '--health-addr=:6789',
    '--metrics-bind-addr=:4567',
    '--webhook-cert-dir=/tmp/certs',
    '--profiler-address=localhost:1234',
    '--leader-elect=true',
    '--leader-election-id=here/foo',
    '--leader-elect-lease-duration=25200s',
    '--leader-elect-renew-deadline=25200s',
    '--leader-elect-retry-period=25200s',
    '--sync-period=25200s',
    '--v=5',
    '--feature-gates=ANOTHER=false,TEST=true',
    '--another-option=another-value',
    '--test-option=test-value',
  ]);
});

// ---- customizeObjectsFn: which Deployments are customised -----------------------------------

test(`the manager name pattern is "ca*-controller-manager" (${UPSTREAM} isProviderManagerDeploymentName)`, () => {
  assert.equal(isProviderManagerDeploymentName('capi-controller-manager'), true);
  assert.equal(isProviderManagerDeploymentName('capz-controller-manager'), true);
  assert.equal(isProviderManagerDeploymentName('azureserviceoperator-controller-manager'), false);
  assert.equal(isProviderManagerDeploymentName('ca-non-manager'), false);
  assert.equal(isProviderManagerDeploymentName('non-manager-controller-manager'), false);
  assert.equal(isProviderManagerDeploymentName(''), false);
});

test(`a single Deployment is customised whatever its name, and additionalDeployments do not apply to it (${UPSTREAM} customizeObjectsFn)`, () => {
  const out = only(
    customizeDeployments([managerDeployment('some-operator')], {
      deployment: { replicas: 2 },
      additionalDeployments: { 'some-operator': { deployment: { replicas: 7 } } },
    }),
  );
  assert.equal(out.spec.replicas, 2);
});

test(`with several Deployments only manager-named ones take spec.deployment; others take additionalDeployments[name] or stay as they are (${UPSTREAM} customizeObjectsFn, TestCustomizeMultipleDeployment)`, () => {
  const withReplicas = (name: string) => {
    const d = managerDeployment(name) as Json;
    d.spec.replicas = 3;
    return d as KObject;
  };
  const manager = withReplicas('cap-controller-manager');
  const aso = withReplicas('azureserviceoperator-controller-manager');
  const other = withReplicas('ca-non-manager');
  const service: KObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' } };
  const spec: ProviderSpec = {
    deployment: { replicas: 10 },
    additionalDeployments: {
      'azureserviceoperator-controller-manager': {
        deployment: { containers: [{ name: 'manager', args: { '--crd-pattern': '.*' } }] },
        manager: { verbosity: 1 },
      },
    },
  };
  const out = customizeDeployments([manager, service, aso, other], spec) as Json[];
  assert.equal(out[0]!.spec.replicas, 10);
  assert.equal(out[1], service);
  assert.equal(out[2]!.spec.replicas, 3);
  assert.deepEqual(container(out[2]!, 'manager').args, ['--webhook-port=2345', '--crd-pattern=.*']);
  assert.equal(out[3], other, 'a Deployment with no customisation is returned untouched');
});

test(`errors from an additional Deployment name its spec.additionalDeployments path (${UPSTREAM} customizeObjectsFn)`, () => {
  const err = throwsDiagnostics(() =>
    customizeDeployments([managerDeployment('capi-controller-manager'), managerDeployment('helper')], {
      additionalDeployments: { helper: { deployment: { containers: [{ name: 'missing' }] } } },
    }),
  );
  assert.equal(err.diagnostics[0]!.path, 'spec.additionalDeployments.helper.deployment.containers[0].name');
  assert.match(err.diagnostics[0]!.message, /Deployment "helper"/);
});

test('customizeDeployments is pure: the input objects are not modified', () => {
  const start = corpusManager();
  const snapshot = structuredClone(start);
  const out = customizeDeployments([start], {
    deployment: { replicas: 4, containers: [{ name: 'manager', env: [{ name: 'X', value: '1' }], args: { '--x': 'y' } }] },
    manager: { featureGates: { ClusterTopology: true }, metrics: { diagnosticsAddress: ':1' }, health: { livenessEndpointName: 'live' } },
  });
  assert.deepEqual(start, snapshot);
  assert.notEqual(out[0], start);
});

// ---- setArgs and Go durations ---------------------------------------------------------------

test(`setArgs replaces the first "name=" arg in place, else appends, never touching look-alikes (${UPSTREAM} setArgs)`, () => {
  const args = ['--leader-elect', '--leader-elect-lease-duration=1s', '--v=1', '--v=2'];
  assert.deepEqual(setArgs(args, '--v', '4'), ['--leader-elect', '--leader-elect-lease-duration=1s', '--v=4', '--v=2']);
  assert.deepEqual(setArgs(args, '--leader-elect', 'true'), [...args, '--leader-elect=true']);
  assert.deepEqual(args, ['--leader-elect', '--leader-elect-lease-duration=1s', '--v=1', '--v=2']);
});

test('Go duration strings parse as time.ParseDuration does (metav1.Duration)', () => {
  const ok: [string, bigint][] = [
    ['15s', 15_000_000_000n],
    ['1m30s', 90_000_000_000n],
    ['1h', 3_600_000_000_000n],
    ['500ms', 500_000_000n],
    ['1.5h', 5_400_000_000_000n],
    ['.5s', 500_000_000n],
    ['1.s', 1_000_000_000n],
    ['+5s', 5_000_000_000n],
    ['-5s', -5_000_000_000n],
    ['0', 0n],
    ['-0', 0n],
    ['1h1h', 7_200_000_000_000n],
    ['3µs', 3_000n],
    ['3μs', 3_000n],
    ['2us', 2_000n],
    ['7ns', 7n],
    ['9223372036854775807ns', 9_223_372_036_854_775_807n],
    ['2562047h', 9_223_369_200_000_000_000n],
    ['1.000000000000000000001s', 1_000_000_000n],
  ];
  for (const [text, nanos] of ok) assert.equal(parseGoDuration(text), nanos, text);
  for (const bad of ['', '5', '1d', 's', '.s', '1.5', '-', '1 s', '9223372036854775808ns', '2562048h', '1e3s']) {
    assert.equal(parseGoDuration(bad), undefined, bad);
  }
});

test('whole seconds round half away from zero and saturate, as Duration.Round(time.Second)', () => {
  assert.equal(roundedSeconds(1_500_000_000n), 2n);
  assert.equal(roundedSeconds(2_500_000_000n), 3n);
  assert.equal(roundedSeconds(1_499_999_999n), 1n);
  assert.equal(roundedSeconds(-1_500_000_000n), -2n);
  assert.equal(roundedSeconds(-1_400_000_000n), -1n);
  assert.equal(roundedSeconds(9_223_372_036_854_775_807n), 9_223_372_036n);
});

test('spec.deployment and spec.manager that no Deployment takes (several, none named ca*-controller-manager) are a warning at the field, with a hint that applies them; a manager-named one takes them silently (operator component_customizer.go)', async () => {
  const release = (manager: string) =>
    localCoreRelease(
      [manager, 'acme-webhook']
        .map((name) => CORE_MANAGER_DEPLOYMENT.replace('name: capi-controller-manager', `name: ${name}`))
        .join('---\n'),
    );
  const run = async (url: string, spec: string) => {
    const dir = writeTempManifest({ 'providers.yaml': coreManifest(url).replace('  version: v0.1.0\n', `  version: v0.1.0\n${spec}`) });
    const warnings: Diagnostic[] = [];
    const result = await renderManagementCluster({ manifestPaths: [dir], onWarning: (w) => warnings.push(w) });
    return { warnings: warnings.filter((w) => w.path?.startsWith('spec.deployment') || w.path?.startsWith('spec.manager')), result };
  };
  const unapplied = await run(release('acme-controller-manager'), '  deployment: {replicas: 3}\n  manager: {verbosity: 5}\n');
  assert.deepEqual(
    unapplied.warnings.map((w) => [w.path, w.line]),
    [
      ['spec.deployment', 6],
      ['spec.manager', 7],
    ],
  );
  assert.match(unapplied.warnings[0]!.message, /none of acme-controller-manager, acme-webhook is/);
  assert.equal(
    unapplied.warnings[0]!.hint,
    'move it under spec.additionalDeployments.<name>, for the Deployment it is meant for (e.g. spec.additionalDeployments.acme-controller-manager.deployment)',
  );
  // followed: the Deployment named takes it
  const followed = await run(
    release('acme-controller-manager'),
    '  additionalDeployments:\n    acme-controller-manager:\n      deployment: {replicas: 3}\n',
  );
  assert.deepEqual(followed.warnings, []);
  assert.ok([...followed.result.files.values()].some((t) => t.includes('name: acme-controller-manager') && t.includes('replicas: 3')));
  const managed = await run(release('capa-controller-manager'), '  deployment: {replicas: 3}\n');
  assert.deepEqual(managed.warnings, []);
});

test('a spec.additionalDeployments entry the operator reads for no Deployment is a warning at its key: a name no Deployment has (the closest named), the manager-named one, or any with a single Deployment (operator component_customizer.go customizeObjectsFn)', async () => {
  const release = (...names: string[]) =>
    localCoreRelease(names.map((name) => CORE_MANAGER_DEPLOYMENT.replace('name: capi-controller-manager', `name: ${name}`)).join('---\n'));
  const run = async (url: string, spec: string) => {
    const dir = writeTempManifest({ 'providers.yaml': coreManifest(url).replace('  version: v0.1.0\n', `  version: v0.1.0\n${spec}`) });
    const warnings: Diagnostic[] = [];
    await renderManagementCluster({ manifestPaths: [dir], onWarning: (w) => warnings.push(w) });
    return warnings.filter((w) => w.path?.startsWith('spec.additionalDeployments'));
  };
  const entries = (...names: string[]) =>
    '  additionalDeployments:\n' + names.map((name) => `    ${name}:\n      deployment: {replicas: 3}\n`).join('');
  const several = release('capi-controller-manager', 'acme-webhook');
  const misspelt = await run(several, entries('acme-webhok', 'acme-webhook'));
  assert.deepEqual(
    misspelt.map((w) => [w.path, w.line]),
    [['spec.additionalDeployments.acme-webhok', 8]],
  );
  assert.match(misspelt[0]!.message, /names no Deployment of cluster-api \(acme-webhook, capi-controller-manager\)/);
  assert.match(misspelt[0]!.hint!, /acme-webhook/);
  const manager = await run(several, entries('capi-controller-manager'));
  assert.deepEqual(
    manager.map((w) => w.path),
    ['spec.additionalDeployments.capi-controller-manager'],
  );
  assert.match(manager[0]!.hint!, /spec\.deployment/);
  const single = await run(release('acme-webhook'), entries('acme-webhook'));
  assert.deepEqual(
    single.map((w) => w.path),
    ['spec.additionalDeployments.acme-webhook'],
  );
  assert.match(single[0]!.message, /one Deployment/);
});
