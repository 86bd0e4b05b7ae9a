import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyManifestPatches, applyPatches, applyProviderPatches, mergePatchLikeGo, parseGoYaml } from '../../src/render/patches.js';
import { matchesLabelSelector, parseLabelSelector } from '../../src/core/label-selector.js';
import type { KObject } from '../../src/core/kobject.js';
import { rejection, throwsDiagnostics } from '../helpers/assertions.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { render } from '../../src/app/render.js';
import { writeTempManifest } from '../helpers/corpus-manifest.js';
import { CORE_MANAGER_DEPLOYMENT, localCoreRelease } from '../helpers/local-release.js';
import { readTree } from '../helpers/tree.js';
import { renderManagementCluster } from '../../src/app/cluster.js';
import type { Diagnostic } from '../../src/core/diagnostics.js';

type Json = Record<string, any>;

const MANIFEST = 'operator internal/patch/patch.go ApplyPatches';
const GENERIC = 'operator internal/patch/patch.go ApplyGenericPatches';

function binding(): KObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'manager-rolebinding', labels: { tier: 'control' } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'manager-role' },
    subjects: [{ kind: 'ServiceAccount', name: 'manager', namespace: 'capi-system' }],
  };
}

function service(name: string, namespace = 'capi-system', labels: Record<string, string> = { tier: 'web' }): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, labels },
    spec: { ports: [{ port: 443, targetPort: 'webhook-server' }], selector: { tier: 'web' } },
  };
}

function deployment(): KObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'capi-controller-manager',
      namespace: 'capi-system',
      labels: { 'cluster.x-k8s.io/provider': 'cluster-api', release: '3' },
    },
    spec: { replicas: 1, template: { spec: { containers: [{ name: 'manager', image: 'm:1', args: ['--a'] }] } } },
  };
}

function objects(): KObject[] {
  return [binding(), service('webhook-service'), service('metrics-service', 'other-ns', { tier: 'metrics' }), deployment()];
}

// ---- spec.manifestPatches -------------------------------------------------------------------

test(`manifest patches merge into every object of their kind, in order (${MANIFEST}, resource.go matches)`, () => {
  const out = applyManifestPatches(objects(), [
    'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nsubjects:\n- kind: ServiceAccount\n  name: manager\n  namespace: capi-system\n- kind: ServiceAccount\n  name: extra\n  namespace: tools\n',
    '---\napiVersion: v1\nkind: Service\nmetadata:\n  labels:\n    patched: "yes"\n',
    'apiVersion: v1\nkind: Service\nspec:\n  selector:\n',
    'apiVersion: v1\nkind: Service\nspec:\n  selector:\n    app: new\n',
  ]) as Json[];
  assert.deepEqual(
    out[0]!.subjects.map((s: Json) => s.name),
    ['manager', 'extra'],
  );
  for (const svc of [out[1]!, out[2]!]) {
    assert.equal(svc.metadata.labels.patched, 'yes');
    assert.deepEqual(svc.spec.selector, { app: 'new' });
  }
  assert.deepEqual(out[3], deployment());
});

test(`a manifest patch without apiVersion matches nothing (${MANIFEST}, resource.go matches)`, () => {
  const input = objects();
  const out = applyManifestPatches(input, ['kind: Service\nmetadata:\n  labels:\n    patched: "yes"\n']);
  assert.deepEqual(out, objects());
  assert.equal(out[1], input[1], 'unmatched objects are returned as they are');
});

test(`a manifest patch's apiVersion value is not compared: one that differs still matches, and as the merge would write it onto the object (an API the server does not serve), it is an error at the patch (${MANIFEST}, resource.go matches)`, () => {
  const origin = { file: 'providers.yaml', line: 12, column: 5, object: 'CoreProvider/capi-system/cluster-api' };
  const error = throwsDiagnostics(() =>
    applyManifestPatches([deployment()], ['apiVersion: extensions/v1beta1\nkind: Deployment\nspec:\n  replicas: 2\n'], origin),
  );
  assert.equal(error.diagnostics.length, 1);
  const [problem] = error.diagnostics;
  assert.equal(problem!.path, 'spec.manifestPatches[0]');
  assert.equal(problem!.line, 12);
  assert.match(
    problem!.message,
    /^sets apiVersion extensions\/v1beta1 on Deployment\/capi-system\/capi-controller-manager, which is apps\/v1: the operator matches a manifest patch by kind and name, not apiVersion/,
  );
  assert.equal(problem!.hint, 'write apiVersion: apps/v1 in the patch');
  // followed: the patch with the object's own apiVersion applies
  const out = applyManifestPatches([deployment()], ['apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: 2\n']) as Json[];
  assert.equal(out[0]!.spec.replicas, 2);
  assert.equal(out[0]!.apiVersion, 'apps/v1');
});

test(`metadata.name must match; metadata.namespace never excludes an object (${MANIFEST}, resource.go matches)`, () => {
  const out = applyManifestPatches(objects(), [
    'apiVersion: v1\nkind: Service\nmetadata:\n  name: metrics-service\n  namespace: capi-system\nspec:\n  ports:\n  - port: 7777\n',
  ]) as Json[];
  assert.equal(out[1]!.spec.ports[0].port, 443);
  assert.deepEqual(out[2]!.spec.ports, [{ port: 7777 }]);
  assert.equal(out[2]!.metadata.namespace, 'capi-system', 'the merge also writes the patch namespace');
});

test(`manifest patches match the object as it was before any patch (${MANIFEST}, resource.go matchInfo)`, () => {
  const out = applyManifestPatches(
    [service('old')],
    [
      'apiVersion: v1\nkind: Service\nmetadata:\n  name: old\n  labels:\n    step: one\n',
      'apiVersion: v1\nkind: Service\nmetadata:\n  name: new\n',
      'apiVersion: v1\nkind: Service\nmetadata:\n  name: old\n  labels:\n    step: three\n',
    ],
  ) as Json[];
  assert.equal(out[0]!.metadata.name, 'old');
  assert.equal(out[0]!.metadata.labels.step, 'three');
});

test(`a manifest patch's keys are read case-insensitively like encoding/json (${MANIFEST}, matchinfo.go parseYAMLMatchInfo)`, () => {
  const out = applyManifestPatches([service('a')], ['APIVersion: v1\nKind: Service\nspec:\n  type: NodePort\n']) as Json[];
  assert.equal(out[0]!.spec.type, 'NodePort');
});

test(`an empty manifest patch matches nothing; bad YAML or a non-mapping patch is an error naming its index (${MANIFEST}, mergepatch.go parseMergePatches)`, () => {
  assert.deepEqual(applyManifestPatches(objects(), ['', '# only a comment\n']), objects());
  const err = throwsDiagnostics(() =>
    applyManifestPatches(objects(), ['kind: [unclosed', '- a\n- b\n', 'apiVersion: v1\nkind: 5\n'], {
      object: 'CoreProvider/capi-system/cluster-api',
    }),
  );
  assert.deepEqual(err.diagnostics.map((d) => d.path).sort(), [
    'spec.manifestPatches[0]',
    'spec.manifestPatches[1]',
    'spec.manifestPatches[2]',
  ]);
  assert.ok(err.diagnostics.every((d) => d.object === 'CoreProvider/capi-system/cluster-api' && d.hint));
  assert.match(err.message, /manifestPatches\[2\]: `kind` is not a string/);
});

test('manifest patches are pure: inputs and patch values are not shared or modified', () => {
  const input = objects();
  const out = applyManifestPatches(input, ['apiVersion: v1\nkind: Service\nspec:\n  extra:\n    list: [1, 2]\n']) as Json[];
  assert.deepEqual(input, objects());
  out[1]!.spec.extra.list.push(3);
  assert.deepEqual(out[2]!.spec.extra.list, [1, 2]);
});

// ---- merge patches as evanphx/json-patch does them ------------------------------------------

test('merge patches drop nulls inside new array items, as evanphx/json-patch v5 MergePatch (operator mergepatch.go)', () => {
  const target = { kind: 'X', spec: { containers: [{ name: 'a' }], obj: { k: 1 } } };
  const patched = mergePatchLikeGo(target, {
    spec: { containers: [{ name: 'b', image: null, env: [{ name: 'E', value: null }] }], added: { x: null, y: [{ z: null }, null] } },
  });
  assert.deepEqual(patched, {
    kind: 'X',
    spec: { containers: [{ name: 'b', env: [{ name: 'E' }] }], obj: { k: 1 }, added: { y: [{}, null] } },
  });
  // …but an array replacing an object is taken as it is.
  assert.deepEqual(mergePatchLikeGo(target, { spec: { obj: [{ a: null }] } }), {
    kind: 'X',
    spec: { containers: [{ name: 'a' }], obj: [{ a: null }] },
  });
  assert.deepEqual(mergePatchLikeGo(target, { spec: null }), { kind: 'X' });
  assert.deepEqual(target, { kind: 'X', spec: { containers: [{ name: 'a' }], obj: { k: 1 } } });
});

test('patch YAML is read as go-yaml v2 does: YAML 1.1 booleans and octals, timestamps and 1:20 stay strings, first document only', () => {
  assert.deepEqual(parseGoYaml('a: on\nb: 0777\nc: 2024-01-02\nd: 1:20\ne: ~\nf: y\n---\nignored: true\n'), {
    a: true,
    b: 511,
    c: '2024-01-02',
    d: '1:20',
    e: null,
    f: true,
  });
  assert.equal(parseGoYaml(''), null);
  assert.deepEqual(parseGoYaml('a: 1\na: 2\n'), { a: 2 });
  assert.throws(() => parseGoYaml('a: 1\nb: {'), /line 2, column \d+/);
});

// ---- spec.patches: target selectors ---------------------------------------------------------

function names(objs: KObject[], changed: KObject[]): string[] {
  return changed.filter((o, i) => JSON.stringify(o) !== JSON.stringify(objs[i])).map((o) => o.metadata.name!);
}

function patchedNames(target: Json | undefined, patch = 'metadata:\n  annotations:\n    patched: "true"\n'): string[] {
  const input = objects();
  return names(input, applyPatches(input, [{ patch, target }]));
}

test(`no target selects every object (${GENERIC}, matchinfo.go matchSelector)`, () => {
  assert.deepEqual(patchedNames(undefined), ['manager-rolebinding', 'webhook-service', 'metrics-service', 'capi-controller-manager']);
  assert.deepEqual(patchedNames({}), ['manager-rolebinding', 'webhook-service', 'metrics-service', 'capi-controller-manager']);
});

test(`target.group and target.version match the apiVersion's parts; "" is the core group (${GENERIC}, matchinfo.go matchSelector)`, () => {
  assert.deepEqual(patchedNames({ group: 'rbac.authorization.k8s.io' }), ['manager-rolebinding']);
  assert.deepEqual(patchedNames({ group: 'apps', version: 'v1' }), ['capi-controller-manager']);
  assert.deepEqual(patchedNames({ version: 'v1' }), [
    'manager-rolebinding',
    'webhook-service',
    'metrics-service',
    'capi-controller-manager',
  ]);
  assert.deepEqual(patchedNames({ group: 'apps', version: 'v1beta1' }), []);
});

test(`an apiVersion with more than one "/" has no group, version or kind to match (${GENERIC}, Unstructured.GroupVersionKind)`, () => {
  const odd: KObject = { apiVersion: 'a/b/c', kind: 'Widget', metadata: { name: 'w' } };
  assert.deepEqual(applyPatches([odd], [{ patch: 'spec: {}', target: { kind: 'Widget' } }]), [odd]);
  assert.deepEqual((applyPatches([odd], [{ patch: 'spec: {}', target: { name: 'w' } }])[0] as Json).spec, {});
});

test(`target.kind is exact and case-sensitive (${GENERIC}, matchinfo.go matchSelector)`, () => {
  assert.deepEqual(patchedNames({ kind: 'Service' }), ['webhook-service', 'metrics-service']);
  assert.deepEqual(patchedNames({ kind: 'service' }), []);
});

test(`target.name and target.namespace are exact strings, not regular expressions as in kustomize (${GENERIC}, matchinfo.go matchSelector)`, () => {
  assert.deepEqual(patchedNames({ name: 'metrics-service' }), ['metrics-service']);
  assert.deepEqual(patchedNames({ name: '.*-service' }), []);
  assert.deepEqual(patchedNames({ namespace: 'capi-system' }), ['webhook-service', 'capi-controller-manager']);
  assert.deepEqual(patchedNames({ kind: 'Service', namespace: 'capi-.*' }), []);
});

test(`target.labelSelector uses Kubernetes selector syntax (${GENERIC}, apimachinery labels.Parse)`, () => {
  assert.deepEqual(patchedNames({ labelSelector: 'tier=web' }), ['webhook-service']);
  assert.deepEqual(patchedNames({ labelSelector: 'tier==web' }), ['webhook-service']);
  assert.deepEqual(patchedNames({ labelSelector: 'tier!=web' }), ['manager-rolebinding', 'metrics-service', 'capi-controller-manager']);
  assert.deepEqual(patchedNames({ labelSelector: 'tier in (web, metrics)' }), ['webhook-service', 'metrics-service']);
  assert.deepEqual(patchedNames({ labelSelector: 'tier notin (web,metrics)' }), ['manager-rolebinding', 'capi-controller-manager']);
  assert.deepEqual(patchedNames({ labelSelector: 'tier' }), ['manager-rolebinding', 'webhook-service', 'metrics-service']);
  assert.deepEqual(patchedNames({ labelSelector: '!tier' }), ['capi-controller-manager']);
  assert.deepEqual(patchedNames({ labelSelector: 'release>2' }), ['capi-controller-manager']);
  assert.deepEqual(patchedNames({ labelSelector: 'release<3' }), []);
  assert.deepEqual(patchedNames({ labelSelector: 'cluster.x-k8s.io/provider=cluster-api,!tier' }), ['capi-controller-manager']);
  assert.deepEqual(patchedNames({ kind: 'Service', labelSelector: 'tier' }), ['webhook-service', 'metrics-service']);
});

test('label selector parsing follows apimachinery labels.Parse, errors included', () => {
  assert.deepEqual(parseLabelSelector(' a = b , !c,d in (x,,y), e notin (), in in (notin) '), [
    { key: 'a', operator: '=', values: ['b'] },
    { key: 'c', operator: '!', values: [] },
    { key: 'd', operator: 'in', values: ['x', '', 'y'] },
    { key: 'e', operator: 'notin', values: [''] },
    { key: 'in', operator: 'in', values: ['notin'] },
  ]);
  assert.deepEqual(parseLabelSelector('a='), [{ key: 'a', operator: '=', values: [''] }]);
  assert.deepEqual(parseLabelSelector(''), []);
  for (const bad of ['a b', 'a=(b', ',a', 'a,', 'a in b', 'x>abc', '!a=b', 'a=b=c', 'Bad_Prefix/x=1', 'a/b/c', 'a=-x', 'a>=1']) {
    assert.throws(() => parseLabelSelector(bad), Error, bad);
  }
  assert.equal(matchesLabelSelector(parseLabelSelector('a in (x,y),b!=z'), { a: 'y' }), true);
  assert.equal(matchesLabelSelector(parseLabelSelector('a in (x,y),b!=z'), { a: 'y', b: 'z' }), false);
  assert.equal(matchesLabelSelector(parseLabelSelector('n>5'), { n: 'not-a-number' }), false);
});

test(`a bad label selector is an error naming the patch and the field (${GENERIC})`, () => {
  const err = throwsDiagnostics(() => applyPatches(objects(), [{ patch: 'metadata: {}', target: { labelSelector: 'tier in web' } }]));
  assert.equal(err.diagnostics[0]!.path, 'spec.patches[0].target.labelSelector');
  assert.match(err.message, /patches\[0\]: cannot parse label selector "tier in web"/);
});

// ---- spec.patches: bodies -------------------------------------------------------------------

test(`a mapping body is a merge patch on the selected objects (${GENERIC}, inferAndApplyPatchType, mergepatch.go)`, () => {
  const out = applyPatches(objects(), [
    { patch: 'spec:\n  selector:\n', target: { kind: 'Service' } },
    { patch: 'spec:\n  selector:\n    app: new\n', target: { kind: 'Service' } },
    {
      patch: 'spec:\n  ports:\n  - port: 7777\n    targetPort: webhook-server\n',
      target: { kind: 'Service', name: 'metrics-service', namespace: 'other-ns' },
    },
  ]) as Json[];
  assert.deepEqual(out[1]!.spec, { ports: [{ port: 443, targetPort: 'webhook-server' }], selector: { app: 'new' } });
  assert.deepEqual(out[2]!.spec, { ports: [{ port: 7777, targetPort: 'webhook-server' }], selector: { app: 'new' } });
});

test(`a list body is an RFC 6902 JSON patch (${GENERIC}, inferAndApplyPatchType, rfc6902.go)`, () => {
  const out = applyPatches(objects(), [
    {
      patch: '- op: add\n  path: /subjects/-\n  value:\n    kind: ServiceAccount\n    name: extra\n    namespace: tools\n',
      target: { group: 'rbac.authorization.k8s.io', kind: 'ClusterRoleBinding' },
    },
    {
      patch:
        '- op: add\n  path: /metadata/labels/patched\n  value: "yes"\n- op: remove\n  path: /spec/selector\n- op: add\n  path: /spec/selector\n  value: {app: new}\n',
      target: { kind: 'Service' },
    },
    {
      patch:
        '[{"op": "replace", "path": "/spec/ports/0/port", "value": 7777}, {"op": "copy", "from": "/spec/ports/0", "path": "/spec/ports/-"}, {"op": "move", "from": "/metadata/labels/tier", "path": "/metadata/labels/role"}]',
      target: { name: 'metrics-service' },
    },
  ]) as Json[];
  assert.deepEqual(
    out[0]!.subjects.map((s: Json) => s.name),
    ['manager', 'extra'],
  );
  assert.deepEqual(out[1]!.metadata.labels, { tier: 'web', patched: 'yes' });
  assert.deepEqual(out[1]!.spec.selector, { app: 'new' });
  assert.deepEqual(out[2]!.spec.ports, [
    { port: 7777, targetPort: 'webhook-server' },
    { port: 7777, targetPort: 'webhook-server' },
  ]);
  assert.deepEqual(out[2]!.metadata.labels, { patched: 'yes', role: 'metrics' });
});

test(`RFC 6902 paths take negative and Go-style array indices like evanphx/json-patch v5 (${GENERIC}, rfc6902.go)`, () => {
  const out = applyPatches(
    [deployment()],
    [
      {
        patch:
          '- op: add\n  path: /spec/template/spec/containers/-1/args/-1\n  value: --b\n' +
          '- op: add\n  path: /spec/template/spec/containers/0/args/0\n  value: --first\n' +
          '- op: replace\n  path: /spec/template/spec/containers/+0/image\n  value: m:2\n' +
          '- op: remove\n  path: /spec/template/spec/containers/-1/args/-2\n',
      },
    ],
  ) as Json[];
  const manager = out[0]!.spec.template.spec.containers[0];
  assert.deepEqual(manager.args, ['--first', '--b']);
  assert.equal(manager.image, 'm:2');
});

test(`an RFC 6902 "test" of a missing key against null passes, as in evanphx/json-patch v5 (${GENERIC}, rfc6902.go)`, () => {
  const out = applyPatches(
    [service('a')],
    [{ patch: '- op: test\n  path: /spec/type\n  value: null\n- op: add\n  path: /spec/type\n  value: ClusterIP\n' }],
  ) as Json[];
  assert.equal(out[0]!.spec.type, 'ClusterIP');
});

test(`a failing operation is an error naming the patch index, its target and the object; nothing is half-applied (${GENERIC})`, () => {
  const err = throwsDiagnostics(() =>
    applyPatches(
      objects(),
      [
        {
          patch: '- op: add\n  path: /metadata/labels/ok\n  value: "1"\n- op: replace\n  path: /spec/missing\n  value: 1\n',
          target: { kind: 'Service', name: 'webhook-service' },
        },
        { patch: '- op: test\n  path: /spec/replicas\n  value: 2\n', target: { kind: 'Deployment' } },
      ],
      { object: 'CoreProvider/capi-system/cluster-api' },
    ),
  );
  assert.equal(err.diagnostics.length, 2);
  assert.match(err.message, /patches\[0\] \(target kind=Service name=webhook-service\) failed on Service\/capi-system\/webhook-service/);
  assert.match(err.message, /patches\[1\] \(target kind=Deployment\) failed on Deployment\/capi-system\/capi-controller-manager/);
  assert.ok(
    err.diagnostics.every((d) => d.object === 'CoreProvider/capi-system/cluster-api' && /spec\.patches\[\d\]\.patch/.test(d.path ?? '')),
  );
});

test(`a failing operation's error names the operation but never prints the object (it may hold secret values) (${GENERIC})`, () => {
  const secret: KObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'creds', namespace: 'capi-system' },
    stringData: { token: 's3cr3t-value' },
  };
  const err = throwsDiagnostics(() =>
    applyPatches([secret], [{ patch: '- op: replace\n  path: /stringData/missing\n  value: x\n', target: { kind: 'Secret' } }]),
  );
  assert.match(err.message, /operation 0 \(replace "\/stringData\/missing"\)/);
  assert.doesNotMatch(err.message, /s3cr3t-value/);
});

test(`invalid operations are errors: unknown op, move/copy without from, a path without "/" (${GENERIC}, json-patch DecodePatch)`, () => {
  for (const body of [
    '- op: upsert\n  path: /a\n',
    '- op: move\n  path: /a\n',
    '- op: add\n  path: spec/replicas\n  value: 1\n',
    '- path: /a\n',
    '- just-a-string\n',
  ]) {
    throwsDiagnostics(() => applyPatches([deployment()], [{ patch: body }]));
  }
});

test(`an empty body, a scalar body or a patch that removes kind fails on the objects it selects (${GENERIC}, inferAndApplyPatchType)`, () => {
  for (const patch of ['', '[]', '42', 'kind: null\n', '- op: remove\n  path: /kind\n']) {
    const err = throwsDiagnostics(() => applyPatches([deployment()], [{ patch }]));
    assert.equal(err.diagnostics.length, 1, patch);
  }
});

test(`a patch that selects nothing does nothing, even one that would fail (${GENERIC}, matchinfo.go matchSelector)`, () => {
  const input = objects();
  const out = applyPatches(input, [
    { patch: '', target: { kind: 'ConfigMap' } },
    { patch: '- op: remove\n  path: /nope\n', target: { name: 'absent' } },
  ]);
  assert.deepEqual(out, objects());
  assert.ok(out.every((o, i) => o === input[i]));
});

test(`patches apply in order, each to the previous result (${GENERIC})`, () => {
  const out = applyPatches(
    [service('a')],
    [
      { patch: 'metadata:\n  labels:\n    stage: one\n' },
      {
        patch: '- op: test\n  path: /metadata/labels/stage\n  value: one\n- op: replace\n  path: /metadata/labels/stage\n  value: two\n',
        target: { labelSelector: 'stage=one' },
      },
    ],
  ) as Json[];
  assert.equal(out[0]!.metadata.labels.stage, 'two');
});

test(`bad patch YAML is an error naming the patch index and target (${GENERIC})`, () => {
  const err = throwsDiagnostics(() => applyPatches(objects(), [{ patch: 'spec: {', target: { kind: 'Service' } }]));
  assert.equal(err.diagnostics[0]!.path, 'spec.patches[0].patch');
  assert.match(err.message, /patches\[0\] \(target kind=Service\) is not valid YAML/);
});

test('generic patches are pure: inputs are not modified and values are not shared between objects', () => {
  const input = objects();
  const out = applyPatches(input, [
    { patch: '- op: add\n  path: /metadata/annotations\n  value: {a: "1"}\n', target: { kind: 'Service' } },
  ]) as Json[];
  assert.deepEqual(input, objects());
  out[1]!.metadata.annotations.a = 'changed';
  assert.equal(out[2]!.metadata.annotations.a, '1');
});

// ---- choosing between them ------------------------------------------------------------------

test('patches and manifestPatches together are an error; with neither the objects pass through (operator component_patches.go applyPatches)', () => {
  const err = throwsDiagnostics(() =>
    applyProviderPatches(
      objects(),
      { patches: [{ patch: 'metadata: {}' }], manifestPatches: ['apiVersion: v1\nkind: Service\n'] },
      { object: 'CoreProvider/capi-system/cluster-api' },
    ),
  );
  assert.equal(err.diagnostics[0]!.path, 'spec.patches');
  assert.deepEqual(applyProviderPatches(objects(), {}), objects());
  const viaManifest = applyProviderPatches(objects(), {
    manifestPatches: ['apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: 2\n'],
  }) as Json[];
  assert.equal(viaManifest[3]!.spec.replicas, 2);
  const viaPatches = applyProviderPatches(objects(), {
    patches: [{ patch: 'spec:\n  replicas: 3\n', target: { kind: 'Deployment' } }],
  }) as Json[];
  assert.equal(viaPatches[3]!.spec.replicas, 3);
});

test(`a patch that leaves a container without an image is an error at that patch, once, as the API server refuses the Deployment the operator would apply (${MANIFEST}, mergepatch.go: RFC 7386 replaces the containers list)`, () => {
  const origin = { object: 'CoreProvider/capi-system/cluster-api', file: 'providers.yaml', line: 3, column: 1 };
  const resources = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: capi-controller-manager
spec:
  template:
    spec:
      containers:
      - name: manager
        resources: {limits: {memory: 1Gi}}
`;
  const replicas = 'apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: 2\n';
  const err = throwsDiagnostics(() => applyProviderPatches([deployment()], { manifestPatches: [resources, replicas] }, origin));
  assert.equal(err.diagnostics.length, 1);
  const d = err.diagnostics[0]!;
  assert.deepEqual(
    [d.file, d.line, d.object, d.path],
    ['providers.yaml', 3, 'CoreProvider/capi-system/cluster-api', 'spec.manifestPatches[0]'],
  );
  assert.match(
    d.message,
    /leaves the container at spec\.template\.spec\.containers\[0\] of Deployment\/capi-system\/capi-controller-manager without an image/,
  );
  assert.match(d.message, /replaces a list whole/);
  assert.match(d.hint!, /spec\.deployment\.containers\[\]/);

  // the same through spec.patches, a merge body and an RFC 6902 one
  const generic = throwsDiagnostics(() =>
    applyProviderPatches(
      [deployment()],
      { patches: [{ target: { kind: 'Deployment' }, patch: '- op: remove\n  path: /spec/template/spec/containers/0/image\n' }] },
      origin,
    ),
  );
  assert.equal(generic.diagnostics[0]!.path, 'spec.patches[0].patch');
  assert.doesNotMatch(generic.diagnostics[0]!.message, /replaces a list whole/);

  // a patch that keeps the image, or writes the whole container, passes
  const whole = resources.replace('      - name: manager\n', '      - name: manager\n        image: m:1\n');
  const [patched] = applyProviderPatches([deployment()], { manifestPatches: [whole] }, origin) as Json[];
  assert.deepEqual(patched!.spec.template.spec.containers, [{ name: 'manager', image: 'm:1', resources: { limits: { memory: '1Gi' } } }]);
});

test(`the Namespace takes no patch, neither an untargeted one nor one aimed at it, and a patch that would fail on it does not: the operator drops it before patching (operator component_customizer.go customizeObjectsFn, phase_fetch.go: applyPatches after it)`, () => {
  const namespace: KObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'capi-system', labels: { tier: 'ns' } } };
  const objs = () => [structuredClone(namespace), service('capi-webhook-service')];
  const untargeted = applyProviderPatches(objs(), { patches: [{ patch: 'metadata:\n  labels:\n    team: platform\n' }] }) as Json[];
  assert.deepEqual(untargeted[0], namespace);
  assert.equal(untargeted[1]!.metadata.labels.team, 'platform');
  const aimed = applyProviderPatches(objs(), {
    patches: [
      {
        target: { kind: 'Namespace' },
        patch: '- {op: add, path: /metadata/labels/pod-security.kubernetes.io~1enforce, value: privileged}\n',
      },
    ],
  });
  assert.deepEqual(aimed[0], namespace);
  // fails on the Namespace (it has no spec), not on the Service
  const failing = applyProviderPatches(objs(), {
    patches: [{ patch: '- {op: replace, path: /spec/selector, value: {a: b}}\n' }],
  }) as Json[];
  assert.deepEqual(failing[0], namespace);
  assert.deepEqual(failing[1]!.spec.selector, { a: 'b' });
  const manifest = applyProviderPatches(objs(), {
    manifestPatches: ['apiVersion: v1\nkind: Namespace\nmetadata:\n  labels:\n    team: platform\n'],
  });
  assert.deepEqual(manifest[0], namespace);
});

test(`a patch aimed at the Namespace is a warning at that patch, naming the Namespace document that sets its labels instead (operator component_customizer.go customizeObjectsFn drops the Namespace before patching)`, async () => {
  const url = localCoreRelease(`apiVersion: v1\nkind: Namespace\nmetadata: {name: capi-system}\n---\n${CORE_MANAGER_DEPLOYMENT}`);
  const patches =
    '  patches:\n  - target: {kind: Namespace}\n    patch: |\n      metadata: {labels: {team: platform}}\n' +
    '  - target: {kind: Deployment}\n    patch: |\n      metadata: {labels: {team: platform}}\n';
  const manifestPatches =
    '  manifestPatches:\n  - |\n    apiVersion: v1\n    kind: Namespace\n    metadata: {labels: {team: platform}}\n' +
    '  - |\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata: {labels: {team: platform}}\n';
  for (const [body, field, line] of [
    [patches, 'spec.patches[0].target.kind', 8],
    [manifestPatches, 'spec.manifestPatches[0]', 8],
  ] as const) {
    const dir = writeTempManifest({ 'providers.yaml': patchedSecretManifest(url, body) });
    const warnings: Diagnostic[] = [];
    const result = await renderManagementCluster({ manifestPaths: [dir], onWarning: (w) => warnings.push(w) });
    assert.doesNotMatch(
      [...result.files.values()].find((t) => t.includes('kind: Namespace'))!,
      /team/,
    );
    const told = warnings.filter((w) => w.path?.startsWith('spec.'));
    assert.deepEqual(
      told.map((w) => [w.path, w.file, w.line]),
      [[field, path.join(dir, 'providers.yaml'), line]],
      JSON.stringify(warnings),
    );
    assert.match(told[0]!.message, /reaches no object: the operator drops the Namespace from the components before it applies patches/);
    assert.match(told[0]!.hint!, /a v1 Namespace document named capi-system/);
  }
});

// ---- a value a patch writes into a Secret's data --------------------------------------------

const SECRET_RELEASE = `apiVersion: v1
kind: Namespace
metadata: {name: capi-system}
---
apiVersion: v1
kind: Secret
metadata: {name: manager-bootstrap-credentials, namespace: capi-system}
type: Opaque
data:
  credentials: \${B64_CREDENTIALS}
  region: ZXUtd2VzdC0x
---
${CORE_MANAGER_DEPLOYMENT}`;

function patchedSecretManifest(url: string, patches: string, config = ''): string {
  return `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec:
  version: v0.1.0
  fetchConfig: {url: "${url}"}
${patches}---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
${config}`;
}

test(`a value a patch writes into a Secret's data as it is is refused at the patch field, never quoted; the artifact's own values and a key the patch leaves pass; --secrets inline --allow-secret-values writes it with a warning; the hint (the release's variable, --secret-file) hands it to the strategy (${MANIFEST}, operator component_patches.go: patches apply after substitution)`, async () => {
  const credential = 'c2VjcmV0LWtleS1QYXRjaExpdGVyYWwwMTIzNDU2Nzg5';
  const url = localCoreRelease(SECRET_RELEASE);
  const dir = writeTempManifest({});
  const file = path.join(dir, 'providers.yaml');
  const out = path.join(dir, 'out');
  const secretFile = path.join(dir, '..', 'credentials.env');
  writeFileSync(secretFile, `B64_CREDENTIALS=${credential}\n`);
  // the release's variable given a value of its own, which the patch then replaces
  const otherFile = path.join(dir, '..', 'other.env');
  writeFileSync(otherFile, 'B64_CREDENTIALS=b3RoZXItdmFsdWU=\n');
  const manifestPatch = `  manifestPatches:\n  - |\n    apiVersion: v1\n    kind: Secret\n    metadata: {name: manager-bootstrap-credentials}\n    data:\n      credentials: ${credential}\n`;
  const targeted = `  patches:\n  - target: {kind: Secret, name: manager-bootstrap-credentials}\n    patch: |\n      - {op: add, path: /stringData, value: {token: ${credential}}}\n`;
  for (const [patches, field, key] of [
    [manifestPatch, 'spec.manifestPatches', 'data.credentials'],
    [targeted, 'spec.patches', 'stringData.token'],
  ] as const) {
    writeFileSync(file, patchedSecretManifest(url, patches));
    const refused = await rejection(render({ manifestPaths: [file], secretFiles: [otherFile] }, out));
    // in the same run, what the default strategy refuses too: the release's variable where the patch leaves it in data
    const [problem, ...others] = refused.diagnostics
      .filter((d) => d.path === field)
      .concat(refused.diagnostics.filter((d) => d.path !== field));
    assert.equal(problem!.path, field, JSON.stringify(refused.diagnostics));
    for (const other of others) assert.match(other.message, /would receive the secret value of B64_CREDENTIALS/, refused.message);
    assert.equal(problem!.file, file);
    assert.match(
      problem!.message,
      new RegExp(`write values into Secret/capi-system/manager-bootstrap-credentials \\(${key.replace('.', '\\.')}\\) as they are`),
    );
    assert.ok(!JSON.stringify(refused.diagnostics).includes(credential));
    assert.equal(existsSync(out), false);
  }

  // accepted in Git when asked for, and the file is named in the warning
  writeFileSync(file, patchedSecretManifest(url, manifestPatch));
  const accepted = await render(
    { manifestPaths: [file], secretFiles: [otherFile], secretsStrategy: 'inline', allowSecretValues: true },
    out,
  );
  assert.match(readFileSync(path.join(out, '01-cluster-api', 'secret-manager-bootstrap-credentials.yaml'), 'utf8'), new RegExp(credential));
  assert.ok(
    accepted.warnings.some((w) => /^--secrets inline: .*01-cluster-api\/secret-manager-bootstrap-credentials\.yaml/.test(w)),
    accepted.warnings.join('\n'),
  );

  // the hint, followed: no value in the patch, the release's variable given outside Git
  const store = 'secrets:\n  externalSecrets:\n    secretStoreRef: {name: vault}\n';
  const relabel = `  manifestPatches:\n  - |\n    apiVersion: v1\n    kind: Secret\n    metadata: {name: manager-bootstrap-credentials, labels: {team: platform}}\n`;
  writeFileSync(file, patchedSecretManifest(url, relabel, store));
  await render({ manifestPaths: [file], secretFiles: [secretFile], secretsStrategy: 'external-secrets' }, out);
  const tree = readTree(out);
  assert.match(tree.get('01-cluster-api/externalsecret-manager-bootstrap-credentials.yaml') ?? '', /kind: ExternalSecret/);
  for (const [name, text] of tree) assert.ok(!text.includes(credential), name);
});

test(`an RFC 6902 move or copy that renames a Secret key writes no value: the moved value keeps its variable, so external-secrets and flux-substitute place it under the new key (${MANIFEST}, RFC 6902 4.4 move, 4.5 copy)`, async () => {
  const credential = 'c2VjcmV0LWtleS1QYXRjaE1vdmUwMTIzNDU2Nzg5';
  const url = localCoreRelease(SECRET_RELEASE);
  const dir = writeTempManifest({});
  const file = path.join(dir, 'providers.yaml');
  const secretFile = path.join(dir, '..', 'credentials.env');
  writeFileSync(secretFile, `B64_CREDENTIALS=${credential}\n`);
  const patches = (op: string) =>
    `  patches:\n  - target: {version: v1, kind: Secret, name: manager-bootstrap-credentials}\n    patch: |\n      [{"op": "${op}", "from": "/data/credentials", "path": "/data/aws-credentials"}]\n`;
  const store = 'secrets:\n  externalSecrets:\n    secretStoreRef: {name: vault}\n';
  for (const op of ['move', 'copy']) {
    writeFileSync(file, patchedSecretManifest(url, patches(op), store));
    const out = path.join(dir, `out-${op}`);
    await render({ manifestPaths: [file], secretFiles: [secretFile], secretsStrategy: 'external-secrets' }, out);
    const external = readTree(out);
    const template = external.get('01-cluster-api/externalsecret-manager-bootstrap-credentials.yaml') ?? '';
    assert.match(
      template,
      /aws-credentials: '\{\{ \.B64_CREDENTIALS \| b64dec \}\}'|aws-credentials: "\{\{ \.B64_CREDENTIALS \| b64dec \}\}"/,
      template,
    );
    assert.equal(/^ {8}credentials:/m.test(template), op === 'copy', template);
    for (const [name, text] of external) assert.ok(!text.includes(credential), name);
  }
  writeFileSync(file, patchedSecretManifest(url, patches('move'), 'output: {layout: flux}\ngitops: {path: clusters/mgmt}\n'));
  const out = path.join(dir, 'out-flux');
  await render({ manifestPaths: [file], secretFiles: [secretFile], secretsStrategy: 'flux-substitute' }, out);
  const secret = readTree(out).get('01-cluster-api/secret-manager-bootstrap-credentials.yaml') ?? '';
  assert.match(secret, /^ {2}aws-credentials: \$\{B64_CREDENTIALS\}$/m, secret);
  assert.doesNotMatch(secret, /^ {2}credentials:/m, secret);
});
