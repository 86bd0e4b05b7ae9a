/**
 * The semantic diff on real corpus objects with one field changed, and its output forms.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { parseArtifact } from '../../src/yaml/parse.js';
import { emitYamlDocument } from '../../src/yaml/emit.js';
import { clone, type KObject } from '../../src/core/kobject.js';
import { reviewChanges } from '../../src/review/review.js';
import type { CapiGitopsError } from '../../src/core/diagnostics.js';
import type { CheckedFile } from '../../src/review/check.js';
import { changedPaths } from '../../src/review/field-paths.js';
import { formatMarkdown, GITHUB_COMMENT_LIMIT } from '../../src/review/format-markdown.js';
import { formatText } from '../../src/review/format-text.js';
import { withValuesHidden } from '../../src/review/secret-files.js';
import { checkAnnotations, escapeProperty, reviewAnnotations, diagnosticAnnotations } from '../../src/review/github-actions.js';
import { escapeData } from '../../src/core/workflow-commands.js';
import type { CrdFinding, Finding, RbacFinding, ReviewReport } from '../../src/review/types.js';
import { CORPUS_REPOSITORY, PROJECT_ROOT } from '../helpers/paths.js';

const core = parseArtifact(readFileSync(path.join(CORPUS_REPOSITORY, 'cluster-api', 'v1.12.0', 'core-components.yaml'), 'utf8'), {
  source: 'core-components.yaml',
});

function corpusObject(kind: string, name: string): KObject {
  const found = core.find((o) => o.kind === kind && o.metadata.name === name);
  assert.ok(found, `${kind}/${name} is in the corpus`);
  return clone(found);
}

function tree(objects: KObject[], dir = '01-cluster-api'): Map<string, string> {
  return new Map(objects.map((o) => [`${dir}/${o.kind.toLowerCase()}-${o.metadata.name}.yaml`, emitYamlDocument(o)]));
}

function review(before: KObject[], after: KObject[]): ReviewReport {
  return reviewChanges({ label: 'before', files: tree(before) }, { label: 'after', files: tree(after) });
}

function only<T extends Finding['type']>(report: ReviewReport, type: T): Extract<Finding, { type: T }>[] {
  return report.findings.filter((f): f is Extract<Finding, { type: T }> => f.type === type);
}

const diffSchema = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'schema', 'capi-gitops-diff.schema.json'), 'utf8'));
const validateJson = new Ajv.default({ allErrors: true, strict: true }).compile(diffSchema);

function assertValidJson(report: ReviewReport): void {
  const ok = validateJson(JSON.parse(JSON.stringify(report)));
  assert.ok(ok, JSON.stringify(validateJson.errors, null, 2));
}

test('RBAC widened: the corpus capi-manager-role with one verb added is a warning naming the new permission', () => {
  const before = corpusObject('ClusterRole', 'capi-manager-role');
  const after = clone(before);
  const rules = after.rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[];
  const secrets = rules.find((r) => r.resources.includes('secrets'));
  assert.ok(secrets && !secrets.verbs.includes('escalate'));
  secrets.verbs = [...secrets.verbs, 'escalate'];
  const report = review([before], [after]);
  const rbac = only(report, 'rbac');
  assert.equal(rbac.length, 1);
  const f = rbac[0] as RbacFinding;
  assert.equal(f.direction, 'widened');
  assert.equal(f.risk, 'warning');
  assert.equal(f.wildcard, false);
  assert.deepEqual(
    f.permissions,
    secrets.apiGroups.map((g) => ({ apiGroup: g, resource: 'secrets', verb: 'escalate' })),
  );
  assert.equal(report.summary.risk, 'warning');
  assertValidJson(report);
});

test('RBAC widened by a wildcard, and narrowed when a rule is dropped (corpus capi-manager-role)', () => {
  const before = corpusObject('ClusterRole', 'capi-manager-role');
  const wider = clone(before);
  (wider.rules as unknown[]).push({ apiGroups: ['*'], resources: ['*'], verbs: ['*'] });
  const widened = only(review([before], [wider]), 'rbac');
  assert.equal(widened.length, 1);
  assert.equal(widened[0]!.wildcard, true);
  assert.match(widened[0]!.message, /RBAC widened \(wildcard\)/);

  const narrower = clone(before);
  const dropped = (narrower.rules as unknown[]).shift() as { resources: string[] };
  const narrowed = only(review([before], [narrower]), 'rbac');
  assert.equal(narrowed.length, 1);
  assert.equal(narrowed[0]!.direction, 'narrowed');
  assert.equal(narrowed[0]!.risk, 'info');
  assert.ok(narrowed[0]!.permissions.some((p) => dropped.resources.includes(p.resource)));
});

test('RBAC rules regrouped without a change in permissions are no finding', () => {
  const before = corpusObject('ClusterRole', 'capi-manager-role');
  const after = clone(before);
  (after.rules as unknown[]).reverse();
  assert.deepEqual(only(review([before], [after]), 'rbac'), []);
});

test('CRD storage flip: the corpus clusters.cluster.x-k8s.io with storage moved to v1beta1 is a warning', () => {
  const before = corpusObject('CustomResourceDefinition', 'clusters.cluster.x-k8s.io');
  const after = clone(before);
  const versions = (after.spec as { versions: { name: string; storage: boolean }[] }).versions;
  const storedBefore = versions.find((v) => v.storage)!;
  assert.equal(storedBefore.name, 'v1beta2');
  storedBefore.storage = false;
  versions.find((v) => v.name === 'v1beta1')!.storage = true;
  const report = review([before], [after]);
  const crd = only(report, 'crd');
  assert.equal(crd.length, 1);
  const f = crd[0] as CrdFinding;
  assert.equal(f.risk, 'warning');
  assert.deepEqual(f.storage, [
    { version: 'v1beta1', from: false, to: true },
    { version: 'v1beta2', from: true, to: false },
  ]);
  assert.deepEqual([f.versionsAdded, f.versionsRemoved, f.served, f.schema], [[], [], [], []]);
  assert.match(formatMarkdown(report), /storage version flipped/);
  assertValidJson(report);
});

test('CRD conversion None → Webhook: corpus ipaddresses.ipam v1.10.4 → v1.12.0 names the conversion Service and CA, a warning; a CRD that drops its webhook is info (apiextensions.k8s.io/v1 CustomResourceConversion)', () => {
  const old = parseArtifact(readFileSync(path.join(CORPUS_REPOSITORY, 'cluster-api', 'v1.10.4', 'core-components.yaml'), 'utf8'), {
    source: 'core-components.yaml',
  }).find((o) => o.kind === 'CustomResourceDefinition' && o.metadata.name === 'ipaddresses.ipam.cluster.x-k8s.io')!;
  const now = corpusObject('CustomResourceDefinition', 'ipaddresses.ipam.cluster.x-k8s.io');
  assert.equal((old.spec as { conversion?: unknown }).conversion, undefined);
  const report = review([old], [now]);
  const [f] = only(report, 'crd');
  assert.deepEqual(f?.conversion, {
    from: 'None',
    to: 'Webhook',
    service: 'capi-system/capi-webhook-service',
    caFrom: 'capi-system/capi-serving-cert',
  });
  assert.match(
    f!.message,
    /; conversion None → Webhook \(service capi-system\/capi-webhook-service, CA from capi-system\/capi-serving-cert\)$/,
  );
  assert.equal(f!.risk, 'warning');
  assert.match(formatMarkdown(report), /conversion webhook needed/);
  assertValidJson(report);

  // the conversion alone: without the version changes that come with it
  const converted = clone(old);
  (converted.spec as Record<string, unknown>).conversion = (now.spec as Record<string, unknown>).conversion;
  const [gained] = only(review([old], [converted]), 'crd');
  assert.equal(gained?.risk, 'warning');
  assert.equal(gained?.message, 'ipaddresses.ipam.cluster.x-k8s.io: conversion None → Webhook (service capi-system/capi-webhook-service)');
  const [dropped] = only(review([converted], [old]), 'crd');
  assert.deepEqual([dropped?.risk, dropped?.conversion], ['info', { from: 'Webhook', to: 'None' }]);
});

test('CRD version removed and schema property removed are warnings; schema text is folded to a per-version summary', () => {
  const before = corpusObject('CustomResourceDefinition', 'machines.cluster.x-k8s.io');
  const after = clone(before);
  const spec = after.spec as {
    versions: { name: string; schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } } }[];
  };
  spec.versions = spec.versions.filter((v) => v.name !== 'v1beta1');
  const v1beta2 = spec.versions.find((v) => v.name === 'v1beta2')!;
  assert.ok('providerID' in v1beta2.schema.openAPIV3Schema.properties.spec.properties);
  delete v1beta2.schema.openAPIV3Schema.properties.spec.properties.providerID;
  const report = review([before], [after]);
  const f = only(report, 'crd')[0]!;
  assert.deepEqual(f.versionsRemoved, ['v1beta1']);
  assert.deepEqual(f.schema, [{ version: 'v1beta2', propertiesAdded: 0, propertiesRemoved: ['spec.providerID'] }]);
  const change = report.components[0]!.kinds[0]!.objects[0]!;
  assert.ok(change.schemaPathsFolded! >= 1);
  assert.ok(
    change.paths.every((p) => !p.includes('.schema.')),
    change.paths.join('\n'),
  );
  const markdown = formatMarkdown(report);
  assert.ok(!markdown.includes('openAPIV3Schema'), 'no schema text in the markdown');
  assert.match(markdown, /CRD version removed/);
});

test('Deployment: image, flags, replicas and resources are typed call-outs (corpus capi-controller-manager)', () => {
  const before = corpusObject('Deployment', 'capi-controller-manager');
  const after = clone(before);
  const spec = after.spec as {
    replicas?: number;
    template: {
      spec: { containers: { name: string; image: string; args: string[]; resources?: Record<string, Record<string, string>> }[] };
    };
  };
  const manager = spec.template.spec.containers.find((c) => c.name === 'manager')!;
  manager.image = 'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.1';
  manager.args = [...manager.args.filter((a) => !a.startsWith('--leader-elect')), '--bind-addr=:9999'];
  spec.replicas = 3;
  manager.resources = { limits: { memory: '1Gi' } };
  const report = review([before], [after]);
  assert.deepEqual(
    only(report, 'image').map((f) => [f.container, f.to]),
    [['manager', 'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.1']],
  );
  const flags = only(report, 'flags')[0]!;
  assert.deepEqual(flags.added, ['--bind-addr']);
  assert.deepEqual(flags.removed, ['--leader-elect']);
  assert.deepEqual(
    only(report, 'replicas').map((f) => [f.from, f.to]),
    [[1, 3]],
  );
  assert.deepEqual(only(report, 'resources')[0]!.changes, [{ path: 'limits.memory', from: null, to: '1Gi' }]);
  assertValidJson(report);
});

test('a pinned image whose tag serves new content is its own warning, "same tag, new content"; a first pin or a new tag stays an image change (corpus capi-controller-manager)', () => {
  const tag = 'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0';
  const [d1, d2] = [`sha256:${'1'.repeat(64)}`, `sha256:${'2'.repeat(64)}`];
  const withImage = (image: string) => {
    const deployment = corpusObject('Deployment', 'capi-controller-manager');
    const spec = deployment.spec as { template: { spec: { containers: { name: string; image: string }[] } } };
    spec.template.spec.containers.find((c) => c.name === 'manager')!.image = image;
    return deployment;
  };
  const moved = review([withImage(`${tag}@${d1}`)], [withImage(`${tag}@${d2}`)]);
  assert.deepEqual(
    only(moved, 'image-content').map((f) => [f.risk, f.container, f.image, f.from, f.to]),
    [['warning', 'manager', tag, d1, d2]],
  );
  assert.equal(only(moved, 'image').length, 0);
  assert.match(
    only(moved, 'image-content')[0]!.message,
    /container manager: image .*:v1\.12\.0: same tag, new content \(sha256:1{64} → sha256:2{64}\)/,
  );
  assert.match(formatMarkdown(moved), /same tag, new content/);
  assertValidJson(moved);
  for (const [from, to] of [
    [tag, `${tag}@${d1}`],
    [`${tag}@${d1}`, `registry.k8s.io/cluster-api/cluster-api-controller:v1.12.1@${d2}`],
  ])
    assert.deepEqual(
      review([withImage(from!)], [withImage(to!)]).findings.map((f) => f.type),
      ['image'],
    );
});

test('a pinned image moved to another mirror that serves other content for the same name and tag is the "same tag, new content" warning too, naming both references; the same digest from another mirror is an image change (corpus capi-controller-manager)', () => {
  const [from, to] = ['mirror-a.example/capi/cluster-api-controller:v1.12.0', 'mirror-b.example/team/cluster-api-controller:v1.12.0'];
  const [d1, d2] = [`sha256:${'1'.repeat(64)}`, `sha256:${'2'.repeat(64)}`];
  const withImage = (image: string) => {
    const deployment = corpusObject('Deployment', 'capi-controller-manager');
    const spec = deployment.spec as { template: { spec: { containers: { name: string; image: string }[] } } };
    spec.template.spec.containers.find((c) => c.name === 'manager')!.image = image;
    return deployment;
  };
  const moved = review([withImage(`${from}@${d1}`)], [withImage(`${to}@${d2}`)]);
  assert.deepEqual(
    only(moved, 'image-content').map((f) => [f.risk, f.container, f.image, f.toImage, f.from, f.to]),
    [['warning', 'manager', from, to, d1, d2]],
  );
  assert.equal(only(moved, 'image').length, 0);
  assert.match(
    only(moved, 'image-content')[0]!.message,
    /image mirror-a\.example\/capi\/cluster-api-controller:v1\.12\.0 → mirror-b\.example\/team\/cluster-api-controller:v1\.12\.0: same image and tag from another registry or repository, new content \(sha256:1{64} → sha256:2{64}\)/,
  );
  assertValidJson(moved);
  assert.deepEqual(
    review([withImage(`${from}@${d1}`)], [withImage(`${to}@${d1}`)]).findings.map((f) => f.type),
    ['image'],
  );
});

test('webhooks: failurePolicy and rules changes, and a namespace move (corpus objects)', () => {
  const hooks = corpusObject('ValidatingWebhookConfiguration', 'capi-validating-webhook-configuration');
  const after = clone(hooks);
  const first = (after.webhooks as { name: string; failurePolicy: string; rules: { operations: string[] }[] }[])[0]!;
  first.failurePolicy = 'Ignore';
  first.rules[0]!.operations = [...first.rules[0]!.operations, 'CONNECT'];
  const service = corpusObject('Service', 'capi-webhook-service');
  const moved = clone(service);
  moved.metadata.namespace = 'capi-elsewhere';
  const report = review([hooks, service], [after, moved]);
  const webhook = only(report, 'webhook');
  assert.deepEqual(webhook.map((f) => f.change).sort(), ['failurePolicy', 'rules']);
  assert.equal(webhook.find((f) => f.change === 'failurePolicy')!.to, 'Ignore');
  assert.match(webhook.find((f) => f.change === 'rules')!.message, /operations \+CONNECT/);
  const move = only(report, 'namespace-move');
  assert.deepEqual(
    move.map((f) => [f.from, f.to]),
    [['capi-system', 'capi-elsewhere']],
  );
  assert.equal(report.summary.changed, 2, 'a moved object is one changed object, not added + removed');
  assertValidJson(report);
});

test('webhook namespaceSelector, objectSelector, failurePolicy, matchPolicy, sideEffects and timeoutSeconds: widening or blocking is a warning, the reverse info (admissionregistration/v1 ValidatingWebhook defaults: failurePolicy Fail, matchPolicy Equivalent, timeoutSeconds 10; corpus capi-validating-webhook-configuration)', () => {
  type Hook = Record<string, unknown> & { name: string };
  const strict = corpusObject('ValidatingWebhookConfiguration', 'capi-validating-webhook-configuration');
  const hook = (o: KObject) => (o.webhooks as Hook[])[0]!;
  Object.assign(hook(strict), {
    failurePolicy: 'Ignore',
    matchPolicy: 'Exact',
    sideEffects: 'None',
    timeoutSeconds: 5,
    namespaceSelector: { matchLabels: { capi: 'enabled' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }] },
    objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] },
  });
  const wide = clone(strict);
  const w = hook(wide);
  for (const key of ['matchPolicy', 'timeoutSeconds', 'objectSelector']) delete w[key];
  Object.assign(w, {
    failurePolicy: 'Fail',
    sideEffects: 'Unknown',
    namespaceSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] },
  });
  const name = hook(strict).name;
  const changes = (report: ReviewReport) =>
    only(report, 'webhook')
      .map((f) => [f.change, f.risk, f.webhook])
      .sort((a, b) => a[0]!.localeCompare(b[0]!));
  const all = ['failurePolicy', 'matchPolicy', 'namespaceSelector', 'objectSelector', 'sideEffects', 'timeoutSeconds'];
  const widened = review([strict], [wide]);
  assert.deepEqual(
    changes(widened),
    all.map((c) => [c, 'warning', name]),
  );
  const byChange = new Map(only(widened, 'webhook').map((f) => [f.change, f]));
  assert.match(byChange.get('timeoutSeconds')!.message, /timeoutSeconds 5 → 10 \(default\)/);
  assert.match(byChange.get('objectSelector')!.message, /objectSelector removed: now matches every object/);
  assert.match(byChange.get('namespaceSelector')!.message, /namespaceSelector widened/);
  assert.match(byChange.get('failurePolicy')!.message, /Ignore → Fail/);
  assert.equal(widened.summary.risk, 'warning');
  assertValidJson(widened);
  const narrowed = review([wide], [strict]);
  assert.deepEqual(
    changes(narrowed),
    all.map((c) => [c, 'info', name]),
  );
  assertValidJson(narrowed);
  // a selector on another label is not narrower: it may match namespaces the old one did not
  const moved = clone(strict);
  hook(moved).namespaceSelector = { matchLabels: { other: 'yes' } };
  assert.deepEqual(changes(review([strict], [moved])), [['namespaceSelector', 'warning', name]]);
});

test('a Secret replaced by an ExternalSecret of the same name (a --secrets strategy switch) is a warning: the sync prunes the Secret while external-secrets takes it over, and how to keep it (external-secrets docs/guides/ownership-deletion-policy.md: Owner adopts a Secret with no ownerReference, Merge and None never create one; argoproj/gitops-engine pkg/cache/cluster.go GetManagedLiveObjs prunes only objects without ownerReferences)', () => {
  const secret: KObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'capvault-manager-bootstrap-credentials', namespace: 'capvault-system' },
    type: 'Opaque',
    data: { credentials: Buffer.from('not-a-real-credential').toString('base64') },
  };
  const externalSecret = (target: Record<string, unknown>): KObject => ({
    apiVersion: 'external-secrets.io/v1',
    kind: 'ExternalSecret',
    metadata: { name: 'capvault-manager-bootstrap-credentials', namespace: 'capvault-system' },
    spec: { secretStoreRef: { kind: 'ClusterSecretStore', name: 'vault' }, target, data: [] },
  });
  const owner = review([secret], [externalSecret({ name: 'capvault-manager-bootstrap-credentials', creationPolicy: 'Owner' })]);
  const [f] = only(owner, 'secret-replaced');
  assert.ok(f, JSON.stringify(owner.findings));
  assert.equal(f.risk, 'warning');
  assert.equal(f.object, 'Secret/capvault-system/capvault-manager-bootstrap-credentials');
  assert.equal(f.creationPolicy, 'Owner');
  assert.match(f.message, /replaced by ExternalSecret capvault-system\/capvault-manager-bootstrap-credentials/);
  assert.match(f.message, /prune/);
  assert.match(f.message, /kustomize\.toolkit\.fluxcd\.io\/prune=disabled/);
  assert.match(f.message, /argocd\.argoproj\.io\/sync-options=Prune=false/);
  assert.doesNotMatch(JSON.stringify(owner), /bm90LWEtcmVhbC1jcmVkZW50aWFs|not-a-real-credential/);
  assertValidJson(owner);
  assert.match(formatMarkdown(owner), /Secret replaced by ExternalSecret/);
  // no target name: the ExternalSecret's own name; no creationPolicy: Owner
  assert.equal(only(review([secret], [externalSecret({})]), 'secret-replaced')[0]?.creationPolicy, 'Owner');
  // Merge never creates the Secret: once pruned it stays gone
  const [merge] = only(review([secret], [externalSecret({ creationPolicy: 'Merge' })]), 'secret-replaced');
  assert.match(merge?.message ?? '', /never creates it/);
  // an ExternalSecret that fills another Secret replaces nothing
  assert.deepEqual(only(review([secret], [externalSecret({ name: 'other' })]), 'secret-replaced'), []);
  // the ExternalSecret was there already: the Secret goes alone
  const both = review([secret, externalSecret({ name: 'other' })], [externalSecret({ name: 'other' })]);
  assert.deepEqual(only(both, 'secret-replaced'), []);
});

test('a Secret replaced by an ExternalSecret of another name whose spec.target.name is that Secret is the same warning, its wait naming the ExternalSecret (external-secrets apis/externalsecrets/v1 ExternalSecretTarget.Name: the Secret it fills)', () => {
  const secret: KObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'capvault-creds', namespace: 'capvault-system' },
    type: 'Opaque',
  };
  const externalSecret = (name: string, namespace: string, target: Record<string, unknown>): KObject => ({
    apiVersion: 'external-secrets.io/v1',
    kind: 'ExternalSecret',
    metadata: { name, namespace },
    spec: { secretStoreRef: { kind: 'ClusterSecretStore', name: 'vault' }, target, data: [] },
  });
  const renamed = externalSecret('capvault-creds-es', 'capvault-system', { name: 'capvault-creds' });
  const report = review([secret], [renamed]);
  const [f] = only(report, 'secret-replaced');
  assert.ok(f, JSON.stringify(report.findings));
  assert.equal(f.risk, 'warning');
  assert.equal(f.externalSecret, 'ExternalSecret/capvault-system/capvault-creds-es');
  assert.equal(f.creationPolicy, 'Owner');
  assert.match(f.message, /replaced by ExternalSecret capvault-system\/capvault-creds-es/);
  assert.match(f.message, /annotate secret capvault-creds /);
  assert.match(f.message, /kubectl -n capvault-system wait externalsecret\/capvault-creds-es --for=condition=Ready/);
  assertValidJson(report);
  // one in another namespace, or one that fills another Secret, replaces nothing
  const elsewhere = externalSecret('capvault-creds-es', 'other-system', { name: 'capvault-creds' });
  assert.deepEqual(only(review([secret], [elsewhere]), 'secret-replaced'), []);
  const another = externalSecret('capvault-creds-es', 'capvault-system', { name: 'something-else' });
  assert.deepEqual(only(review([secret], [another]), 'secret-replaced'), []);
  // the ExternalSecret was there already: the Secret goes alone
  assert.deepEqual(only(review([secret, renamed], [renamed]), 'secret-replaced'), []);
});

test("a provider moved to another namespace: its Deployment's move is a warning with the safe way (old and new managers both run during the sync, leases in different namespaces); other objects' moves stay info", () => {
  const deployment = corpusObject('Deployment', 'capi-controller-manager');
  const service = corpusObject('Service', 'capi-webhook-service');
  const [movedDeployment, movedService] = [clone(deployment), clone(service)];
  movedDeployment.metadata.namespace = 'capi-core';
  movedService.metadata.namespace = 'capi-core';
  const report = review([deployment, service], [movedDeployment, movedService]);
  const moves = only(report, 'namespace-move');
  assert.deepEqual(
    moves.map((f) => [f.object, f.risk]),
    [
      ['Deployment/capi-core/capi-controller-manager', 'warning'],
      ['Service/capi-core/capi-webhook-service', 'info'],
    ],
  );
  assert.match(moves[0]!.message, /both run/);
  assert.match(moves[0]!.message, /kubectl -n capi-system scale deployment capi-controller-manager --replicas=0/);
  assertValidJson(report);
});

test('a StatefulSet or DaemonSet moved to another namespace is a warning as a Deployment is (both run during the sync), with the way to stop the old one (a DaemonSet has no replicas to scale)', () => {
  const workload = (kind: string, name: string): KObject => ({
    apiVersion: 'apps/v1',
    kind,
    metadata: { name, namespace: 'capex-system' },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'registry.example/c:v1' }] } },
    },
  });
  const [daemonSet, statefulSet] = [workload('DaemonSet', 'capex-agent'), workload('StatefulSet', 'capex-store')];
  const [movedDaemonSet, movedStatefulSet] = [clone(daemonSet), clone(statefulSet)];
  movedDaemonSet.metadata.namespace = 'capex-infra';
  movedStatefulSet.metadata.namespace = 'capex-infra';
  const report = review([daemonSet, statefulSet], [movedDaemonSet, movedStatefulSet]);
  const moves = only(report, 'namespace-move');
  assert.deepEqual(
    moves.map((f) => [f.object, f.risk]),
    [
      ['DaemonSet/capex-infra/capex-agent', 'warning'],
      ['StatefulSet/capex-infra/capex-store', 'warning'],
    ],
  );
  assert.match(moves[0]!.message, /old and new DaemonSets both run/);
  assert.match(moves[0]!.message, /kubectl -n capex-system delete daemonset capex-agent/);
  assert.doesNotMatch(moves[0]!.message, /--replicas/);
  assert.match(moves[1]!.message, /old and new StatefulSets both run/);
  assert.match(moves[1]!.message, /kubectl -n capex-system scale statefulset capex-store --replicas=0/);
  assert.match(formatMarkdown(report), /workload moved to another namespace/);
  assertValidJson(report);
});

test('versions: upgrades are info, downgrades warnings, read from the provenance comment (cert-manager too)', () => {
  const kustomization = (label: string, version: string) =>
    `# Generated by capi-gitops from ${label} ${version} (sha256:${'a'.repeat(64)}). Do not edit.\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n`;
  const side = (cm: string, capi: string) =>
    new Map([
      ['00-cert-manager/kustomization.yaml', kustomization('cert-manager', cm)],
      ['01-cluster-api/kustomization.yaml', kustomization('cluster-api', capi)],
    ]);
  const report = reviewChanges({ label: 'a', files: side('v1.13.0', 'v1.12.0') }, { label: 'b', files: side('v1.14.1', 'v1.10.4') });
  assert.deepEqual(
    only(report, 'version').map((f) => [f.component, f.direction, f.risk]),
    [
      ['00-cert-manager', 'upgrade', 'info'],
      ['01-cluster-api', 'downgrade', 'warning'],
    ],
  );
  assert.match(formatMarkdown(report), /\| `cluster-api` \| v1\.12\.0 → v1\.10\.4 \|/);
});

test('versions: core or kubeadm upgraded more than 3 minors at once is a warning the reviewer sees, other providers and 3 minors are info (clusterctl cmd/clusterctl/client/cluster/upgrader.go doUpgrade)', () => {
  const kustomization = (label: string, version: string) =>
    `# Generated by capi-gitops from ${label} ${version} (sha256:${'a'.repeat(64)}). Do not edit.\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n`;
  const side = (versions: Record<string, string>) =>
    new Map(Object.entries(versions).map(([dir, version]) => [`${dir}/kustomization.yaml`, kustomization(dir.slice(3), version)]));
  const report = reviewChanges(
    {
      label: 'a',
      files: side({
        '01-cluster-api': 'v1.7.7',
        '02-bootstrap-kubeadm': 'v1.10.4',
        '03-control-plane-kubeadm': 'v1.7.7',
        '04-infrastructure-aws': 'v2.1.0',
      }),
    },
    {
      label: 'b',
      files: side({
        '01-cluster-api': 'v1.12.0',
        '02-bootstrap-kubeadm': 'v1.14.0',
        '03-control-plane-kubeadm': 'v1.10.4',
        '04-infrastructure-aws': 'v2.9.0',
      }),
    },
  );
  assert.deepEqual(
    only(report, 'version').map((f) => [f.component, f.direction, f.risk, f.message]),
    [
      [
        '01-cluster-api',
        'upgrade',
        'warning',
        'cluster-api upgraded v1.7.7 → v1.12.0, which skips more than 3 minor versions: Cluster API supports at most 3 per upgrade',
      ],
      [
        '02-bootstrap-kubeadm',
        'upgrade',
        'warning',
        'bootstrap-kubeadm upgraded v1.10.4 → v1.14.0, which skips more than 3 minor versions: clusterctl refuses such an upgrade (upgrader.go doUpgrade)',
      ],
      ['03-control-plane-kubeadm', 'upgrade', 'info', 'control-plane-kubeadm upgraded v1.7.7 → v1.10.4'],
      ['04-infrastructure-aws', 'upgrade', 'info', 'infrastructure-aws upgraded v2.1.0 → v2.9.0'],
    ],
  );
  assertValidJson(report);
  assert.match(formatMarkdown(report), /\*\*Risk:\*\* ⚠️ 2 risky changes: 2 upgrade skipping minor versions/);
});

test('CRD: an API version no longer served is a warning, as a removed one (apiextensions.k8s.io/v1 CustomResourceDefinitionVersion served: the API server stops serving it); served again is info', () => {
  const before = corpusObject('CustomResourceDefinition', 'clusters.cluster.x-k8s.io');
  const after = clone(before);
  const versions = (after.spec as { versions: { name: string; served: boolean }[] }).versions;
  const v1beta1 = versions.find((v) => v.name === 'v1beta1');
  assert.ok(v1beta1?.served);
  v1beta1.served = false;
  const unserved = only(review([before], [after]), 'crd');
  assert.deepEqual(
    unserved.map((f) => [f.risk, f.served, f.message]),
    [['warning', [{ version: 'v1beta1', from: true, to: false }], 'clusters.cluster.x-k8s.io: v1beta1 served true → false']],
  );
  assert.match(formatMarkdown(review([before], [after])), /\*\*Risk:\*\* ⚠️ 1 risky change: 1 CRD version no longer served/);
  const servedAgain = only(review([after], [before]), 'crd');
  assert.deepEqual(
    servedAgain.map((f) => f.risk),
    ['info'],
  );
});

test('field paths: named lists matched by name, subtrees one path, equal values none', () => {
  const a = {
    spec: {
      containers: [
        { name: 'a', image: 'x' },
        { name: 'b', image: 'y' },
      ],
      list: [1, 2],
    },
  };
  const b = {
    spec: {
      containers: [
        { name: 'b', image: 'y' },
        { name: 'a', image: 'z' },
      ],
      list: [1, 3],
      extra: { deep: { x: 1 } },
    },
  };
  assert.deepEqual(changedPaths(a, b), ['spec.containers[name=a].image', 'spec.extra', 'spec.list']);
  assert.deepEqual(changedPaths(a, structuredClone(a)), []);
});

test('markdown for a 100-object change stays under 65,536 characters, with a note saying how to see the rest', () => {
  const deployment = corpusObject('Deployment', 'capi-controller-manager');
  const before: KObject[] = [];
  const after: KObject[] = [];
  for (let i = 0; i < 100; i++) {
    const base = clone(deployment);
    base.metadata.name = `copy-${i}-${'n'.repeat(200)}`;
    before.push(base);
    const changed = clone(base);
    const manager = (changed.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0]!;
    manager.image = `registry.example.com/${'long/'.repeat(10)}controller:v9.${i}`;
    // Many changed fields per object, so the details alone would be far beyond the limit.
    for (let j = 0; j < 100; j++)
      changed.metadata.annotations = { ...changed.metadata.annotations, [`example.com/annotation-${j}-${'z'.repeat(80)}`]: String(j) };
    after.push(changed);
  }
  const report = review(before, after);
  assert.equal(report.summary.changed, 100);
  const markdown = formatMarkdown(report, { fullCommand: 'capi-gitops diff -f m -o out --format text' });
  assert.ok(markdown.length < GITHUB_COMMENT_LIMIT, `${markdown.length} characters`);
  assert.ok(markdown.includes("Cut to stay under GitHub's 65,536-character limit"), 'the note says the text was cut');
  assert.ok(markdown.includes('Run `capi-gitops diff -f m -o out --format text` to see everything'), 'the note says how to see the rest');
  assert.equal(
    (markdown.match(/<details>/g) ?? []).length,
    (markdown.match(/<\/details>/g) ?? []).length,
    'every details section is closed',
  );
  assert.ok(markdown.includes('| **total** | | 0 | 0 | 100 |'), 'the summary table is never cut');
  assert.equal(only(report, 'image').length, 100);
});

test('markdown cut to the comment limit never ends on a section or a kind heading with no object under it', () => {
  const configMap = (name: string, value: string): KObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'capi-system' },
    data: { value },
  });
  // many components of one changed object each; the name's length moves where the limit falls
  for (let pad = 0; pad < 60; pad++) {
    const before = new Map<string, string>();
    const after = new Map<string, string>();
    for (let i = 0; i < 200; i++) {
      const name = `settings-${i}-${'n'.repeat(200 + pad)}`;
      const file = `${String(i).padStart(3, '0')}-component/configmap-${name}.yaml`;
      before.set(file, emitYamlDocument(configMap(name, 'a')));
      after.set(file, emitYamlDocument(configMap(name, 'b')));
    }
    const markdown = formatMarkdown(reviewChanges({ label: 'before', files: before }, { label: 'after', files: after }));
    assert.ok(markdown.includes('Cut to stay under'), `cut at ${pad}`);
    for (const section of markdown.split('<details>').slice(1)) {
      const body = section.slice(0, section.indexOf('</details>'));
      assert.match(body, /^- /m, `a section with no object (pad ${pad}):\n${body}`);
      assert.doesNotMatch(body, /\*\*[A-Za-z]+\*\*[^\n]*\n+$/, `a kind heading with no object (pad ${pad})`);
    }
  }
});

test('text: plain without colour, ANSI colours only when asked', () => {
  const before = corpusObject('Deployment', 'capi-controller-manager');
  const after = clone(before);
  (after.spec as { replicas: number }).replicas = 2;
  const report = review([before], [after]);
  assert.ok(!formatText(report).includes('\x1b['));
  assert.match(formatText(report), /~ capi-system\/capi-controller-manager\n {8}spec\.replicas/);
  assert.ok(formatText(report, { colour: true }).includes('\x1b[33m'));
});

test('GitHub annotations: escaped like actions/toolkit core/src/command.ts, pointing at the output file', () => {
  assert.equal(escapeData('50%\nnext'), '50%25%0Anext');
  assert.equal(escapeProperty('a:b,c'), 'a%3Ab%2Cc');
  const before = corpusObject('ClusterRole', 'capi-manager-role');
  const after = clone(before);
  (after.rules as unknown[]).push({ apiGroups: [''], resources: ['nodes'], verbs: ['delete'] });
  const lines = reviewAnnotations(review([before], [after]), 'clusters/mgmt');
  assert.deepEqual(lines, [
    '::warning file=clusters/mgmt/01-cluster-api/clusterrole-capi-manager-role.yaml,title=capi-gitops%3A rbac::ClusterRole/capi-manager-role: RBAC widened: delete nodes',
  ]);
  const file = path
    .relative(process.cwd(), path.join(PROJECT_ROOT, 'examples', 'management-cluster', 'providers.yaml'))
    .split(path.sep)
    .join('/');
  assert.deepEqual(diagnosticAnnotations([{ file, line: 3, column: 5, path: 'spec.version', message: 'bad, really' }]), [
    `::error file=${file},line=3,col=5,title=capi-gitops::spec.version: bad, really`,
  ]);
});

test('GitHub annotations point only at a file of the work tree: a file of the --base commit (<ref>:<path>) or a directory is named in the message instead, so the annotation is not placed on a file that is not there', () => {
  const directory = path.relative(process.cwd(), path.join(PROJECT_ROOT, 'examples', 'management-cluster'));
  assert.deepEqual(
    diagnosticAnnotations([
      { file: 'origin/main:m/providers.yaml', line: 32, column: 30, path: 'spec.version', message: 'bad' },
      { file: directory, message: '--base needs the manifest in a Git repository', hint: 'run it inside one' },
    ]),
    [
      '::error title=capi-gitops::origin/main:m/providers.yaml:32:30: spec.version: bad',
      `::error title=capi-gitops::${directory}: --base needs the manifest in a Git repository (hint: run it inside one)`,
    ],
  );
});

test('a fleet: each cluster keeps its own copy of an object, and a change is grouped under its cluster and component', () => {
  const before = corpusObject('Deployment', 'capi-controller-manager');
  const after = clone(before);
  (after.spec as { replicas?: number }).replicas = 2;
  const fleet = (eu: KObject, us: KObject) =>
    new Map([...tree([eu], 'clusters/eu-1/01-cluster-api'), ...tree([us], 'clusters/us-1/01-cluster-api')]);
  const report = reviewChanges({ label: 'before', files: fleet(before, before) }, { label: 'after', files: fleet(after, before) });
  assert.deepEqual(
    report.components.map((c) => [c.directory, c.changed]),
    [['clusters/eu-1/01-cluster-api', 1]],
  );
  assert.deepEqual(
    only(report, 'replicas').map((f) => [f.component, f.from, f.to]),
    [['clusters/eu-1/01-cluster-api', 1, 2]],
  );
  assertValidJson(report);
});

test("a fleet in markdown and text: each component row, section and call-out names its cluster, so two clusters' changes are told apart", () => {
  const before = corpusObject('Deployment', 'capi-controller-manager');
  const eu = clone(before);
  (eu.spec as { replicas?: number }).replicas = 2;
  const us = clone(before);
  (us.spec as { replicas?: number }).replicas = 3;
  const provenance = `# Generated by capi-gitops from cluster-api v1.12.0 (sha256:${'a'.repeat(64)}). Do not edit.\nkind: Kustomization\n`;
  const fleet = (a: KObject, b: KObject) =>
    new Map([
      ...tree([a], 'clusters/eu-1/01-cluster-api'),
      ...tree([b], 'clusters/us-1/01-cluster-api'),
      ['clusters/eu-1/01-cluster-api/kustomization.yaml', provenance],
      ['clusters/us-1/01-cluster-api/kustomization.yaml', provenance],
    ]);
  const report = reviewChanges({ label: 'before', files: fleet(before, before) }, { label: 'after', files: fleet(eu, us) });
  const markdown = formatMarkdown(report);
  assert.match(markdown, /\| `cluster-api` \(cluster eu-1\) \| v1\.12\.0 \| 0 \| 0 \| 1 \|/);
  assert.match(markdown, /\| `cluster-api` \(cluster us-1\) \| v1\.12\.0 \| 0 \| 0 \| 1 \|/);
  assert.match(markdown, /<summary><code>cluster-api<\/code> \(cluster us-1\) v1\.12\.0:/);
  assert.match(markdown, /- \*\*replicas\*\* \(cluster eu-1\) .*1 → 2/);
  assert.match(markdown, /- \*\*replicas\*\* \(cluster us-1\) .*1 → 3/);
  assert.match(formatText(report), /replicas +\(cluster us-1\) .*1 → 3/);
  // one cluster's output: no cluster to name
  assert.doesNotMatch(formatMarkdown(review([before], [eu])), /\(cluster/);
});

test('an output file made invalid by hand: every side read from a directory names the file there, with a fix that works (not "check the indentation")', () => {
  const deployment = corpusObject('Deployment', 'capi-controller-manager');
  const broken = new Map(tree([deployment]));
  const file = '01-cluster-api/deployment-capi-controller-manager.yaml';
  broken.set(file, `${broken.get(file)}foo: [unclosed\n`);
  assert.throws(
    () => reviewChanges({ label: 'before', files: broken, directory: 'out' }, { label: 'after', files: broken, directory: 'other' }),
    (error: CapiGitopsError) => {
      assert.deepEqual(error.diagnostics.map((d) => d.file).sort(), [`other/${file}`, `out/${file}`]);
      assert.match(
        error.diagnostics.find((d) => d.file?.startsWith('out/'))!.hint ?? '',
        /render again to rewrite it, or restore the committed one \(git checkout -- out\/01-cluster-api\//,
      );
      return true;
    },
  );
});

test('markdown: a component without a version (the wiring) has no space before the colon of its section heading', () => {
  const before = corpusObject('Deployment', 'capi-controller-manager');
  const after = clone(before);
  (after.spec as { replicas?: number }).replicas = 2;
  const side = (o: KObject) => tree([o], 'clusters/eu-1/argocd');
  const markdown = formatMarkdown(reviewChanges({ label: 'before', files: side(before) }, { label: 'after', files: side(after) }));
  assert.match(markdown, /<summary><code>clusters\/eu-1\/argocd<\/code> \(cluster eu-1\): 0 added, 0 removed, 1 changed<\/summary>/);
  assert.doesNotMatch(markdown, / : \d+ added/);
});

test('a CRD gone from the output is called out as removed and left in the cluster, with how to delete it, not as "versions removed" (cluster-api cmd/clusterctl/client/cluster/upgrader.go doUpgrade keeps CRDs: IncludeCRDs false)', () => {
  const crd = corpusObject('CustomResourceDefinition', 'machinedrainrules.cluster.x-k8s.io');
  const deployment = corpusObject('Deployment', 'capi-controller-manager');
  const report = review([crd, deployment], [deployment]);
  const [f] = only(report, 'crd');
  assert.equal(f?.risk, 'warning');
  assert.deepEqual(f?.versionsRemoved, ['v1beta1', 'v1beta2']);
  // counted as what it is, once: not also as a version removed
  for (const text of [formatText(report), formatMarkdown(report)]) {
    assert.match(text, /1 risky change: 1 CRD removed \(never pruned\)/);
    assert.doesNotMatch(text, /CRD version removed/);
  }
  assert.equal(
    f?.message,
    'machinedrainrules.cluster.x-k8s.io: CRD removed from the output: a CRD is never pruned, so it and its objects stay in the cluster; ' +
      'once none of its objects is left, delete it by hand: kubectl delete customresourcedefinition machinedrainrules.cluster.x-k8s.io',
  );
  assertValidJson(report);
});

test('markdown: a flag value with @mentions and #references cannot ping anyone or link an issue from the pull-request comment (the @&#8203; of Renovate pull-request bodies)', () => {
  const before = corpusObject('Deployment', 'capi-controller-manager');
  const after = clone(before);
  const manager = (after.spec as { template: { spec: { containers: { name: string; args: string[] }[] } } }).template.spec.containers.find(
    (c) => c.name === 'manager',
  )!;
  manager.args = [...manager.args, '--note=ping @octocat and @org/team about #123 and owner/repo#7 `x` <b>|</b>'];
  const markdown = formatMarkdown(review([before], [after]));
  const line = markdown.split('\n').find((l) => l.includes('--note='));
  assert.ok(line, markdown);
  // GitHub links a mention or a reference in text (entities decoded), never with a zero-width space after @ or #
  assert.doesNotMatch(line, /@[A-Za-z0-9]/, line);
  assert.doesNotMatch(line, /(?<!&)#[0-9]/, line);
  assert.match(line, /@&#8203;octocat/);
  assert.match(line, /#&#8203;123/);
  assert.doesNotMatch(line, /[`<>|]/, line);
});

test('markdown: a summary table of thousands of components is cut too, so the comment stays under the 65,536-character limit GitHub refuses a longer one at', () => {
  const configMap = (name: string, value: string): KObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'capi-system' },
    data: { value },
  });
  const before = new Map<string, string>();
  const after = new Map<string, string>();
  for (let i = 0; i < 2000; i++) {
    const file = `${String(i).padStart(4, '0')}-component-${i}/configmap-settings-${i}.yaml`;
    before.set(file, emitYamlDocument(configMap(`settings-${i}`, 'a')));
    after.set(file, emitYamlDocument(configMap(`settings-${i}`, 'b')));
  }
  const markdown = formatMarkdown(reviewChanges({ label: 'before', files: before }, { label: 'after', files: after }));
  assert.ok(markdown.length < GITHUB_COMMENT_LIMIT, `${markdown.length} characters`);
  assert.ok(markdown.includes('| **total** | | 0 | 0 | 2000 |'), 'the total row stays');
  assert.match(markdown, /Cut to stay under GitHub's 65,536-character limit:\*\* \d+ components' rows/);
  assert.match(markdown, /^\| … \d+ more components \| \| \| \| \|$/m);
  // the table is whole markdown: every row has five cells
  const table = markdown.split('\n').filter((l) => l.startsWith('|'));
  assert.ok(
    table.every((l) => l.replace(/\\\|/g, '').split('|').length === 7),
    table.slice(-3).join('\n'),
  );
});

test('a CRD version removed names what the API server needs first: status.storedVersions without it (cluster-api cmd/clusterctl/client/cluster/crd_migration.go migrates the objects; Argo CD and Flux do not)', () => {
  const before = corpusObject('CustomResourceDefinition', 'machines.cluster.x-k8s.io');
  const after = clone(before);
  const spec = after.spec as { versions: { name: string }[] };
  spec.versions = spec.versions.filter((v) => v.name !== 'v1alpha3');
  const [f] = only(review([before], [after]), 'crd');
  assert.deepEqual(f?.versionsRemoved, ['v1alpha3']);
  assert.equal(f?.risk, 'warning');
  assert.equal(
    f?.message,
    'machines.cluster.x-k8s.io: versions removed: v1alpha3; the API server refuses this CRD while its status.storedVersions lists v1alpha3 ' +
      '(an earlier storage version): store every object at v1beta2 and drop v1alpha3 from it first, as clusterctl upgrade does ' +
      '(kubectl get machines.cluster.x-k8s.io -A -o json | kubectl replace -f -, then kubectl patch customresourcedefinition machines.cluster.x-k8s.io ' +
      '--subresource=status --type=merge -p \'{"status":{"storedVersions":["v1beta2"]}}\')',
  );
});

test('a CRD losing its storage version in one step is told as what clusterctl refuses (crd_migration.go: the new CRD does not contain the storage version of the current CRD)', () => {
  const before = corpusObject('CustomResourceDefinition', 'machines.cluster.x-k8s.io');
  const spec = before.spec as { versions: { name: string; storage: boolean }[] };
  // the v1.10 form: v1beta1 stored, no v1beta2 yet
  spec.versions = spec.versions.filter((v) => v.name !== 'v1beta2').map((v) => ({ ...v, storage: v.name === 'v1beta1' }));
  const after = corpusObject('CustomResourceDefinition', 'machines.cluster.x-k8s.io');
  (after.spec as { versions: { name: string }[] }).versions = (after.spec as { versions: { name: string }[] }).versions.filter(
    (v) => v.name !== 'v1beta1',
  );
  const [f] = only(review([before], [after]), 'crd');
  assert.deepEqual(f?.versionsRemoved, ['v1beta1']);
  assert.match(
    f?.message ?? '',
    /v1beta1, its storage version until now, is removed: the API server refuses this CRD while its objects are stored at v1beta1, and clusterctl upgrade refuses it too: roll out a release that serves v1beta1 and stores v1beta2 first$/,
  );
});

test('a CRD removed with the Service of its conversion webhook says its objects cannot be converted any more (cluster-api v1.12.0 core-components.yaml: spec.conversion.webhook.clientConfig.service)', () => {
  const crd = corpusObject('CustomResourceDefinition', 'machines.cluster.x-k8s.io');
  const service = corpusObject('Service', 'capi-webhook-service');
  const deployment = corpusObject('Deployment', 'capi-controller-manager');
  const [gone] = only(review([crd, service, deployment], [deployment]), 'crd');
  assert.match(
    gone?.message ?? '',
    /; its conversion webhook, Service capi-system\/capi-webhook-service, is removed too: until the CRD is deleted, its objects cannot be read at any version but the one they are stored at$/,
  );
  // the Service still there: nothing more to say
  const [kept] = only(review([crd, service, deployment], [service, deployment]), 'crd');
  assert.doesNotMatch(kept?.message ?? '', /conversion webhook/);
});

test('webhook rules merged into one that covers more (operation × group × version × resource) are told as the coverage they gain, not as regrouped (corpus capi-validating-webhook-configuration)', () => {
  const before = corpusObject('ValidatingWebhookConfiguration', 'capi-validating-webhook-configuration');
  const webhook = (before.webhooks as { name: string; rules: unknown[] }[]).find((w) => w.name === 'validation.machine.cluster.x-k8s.io')!;
  const rule = (operations: string[], resources: string[]) => ({
    apiGroups: ['cluster.x-k8s.io'],
    apiVersions: ['v1beta2'],
    operations,
    resources,
  });
  webhook.rules = [rule(['CREATE'], ['machines']), rule(['UPDATE'], ['machinesets'])];
  const after = clone(before);
  (after.webhooks as { name: string; rules: unknown[] }[]).find((w) => w.name === webhook.name)!.rules = [
    rule(['CREATE', 'UPDATE'], ['machines', 'machinesets']),
  ];
  const [f] = only(review([before], [after]), 'webhook');
  assert.equal(f?.change, 'rules');
  assert.doesNotMatch(f?.message ?? '', /regrouped/);
  assert.match(
    f?.message ?? '',
    /: rules now also match CREATE cluster\.x-k8s\.io\/v1beta2\/machinesets, UPDATE cluster\.x-k8s\.io\/v1beta2\/machines$/,
  );
  // the same coverage in other rules is still a regrouping
  (after.webhooks as { name: string; rules: unknown[] }[]).find((w) => w.name === webhook.name)!.rules = [
    rule(['UPDATE'], ['machinesets']),
    rule(['CREATE'], ['machines']),
  ];
  assert.match(only(review([before], [after]), 'webhook')[0]?.message ?? '', /regrouped/);
});

test('markdown: a version read from an edited provenance comment (diff --from/--to) is text in the summary table, no markup or mention', () => {
  const kustomization = (version: string) =>
    `# Generated by capi-gitops from cluster-api ${version} (sha256:${'a'.repeat(64)}). Do not edit.\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n`;
  const side = (version: string) => new Map([['01-cluster-api/kustomization.yaml', kustomization(version)]]);
  const markdown = formatMarkdown(
    reviewChanges({ label: 'a', files: side('v1.10.4') }, { label: 'b', files: side('v1.12.0<!--@octocat#1') }),
  );
  const row = markdown.split('\n').find((l) => l.startsWith('| `cluster-api`'));
  assert.ok(row, markdown);
  assert.doesNotMatch(row, /<|@[a-z]|(?<!&)#[0-9]/, row);
  assert.match(row, /v1\.10\.4 → v1\.12\.0&#60;!--@&#8203;octocat#&#8203;1/);
});

test('annotations: beyond the 10 warnings GitHub shows a step, the most telling come first and the last one says how many more there are (actions/toolkit docs/problem-matchers.md: 10 warning annotations per step)', () => {
  const kustomization = (version: string) =>
    `# Generated by capi-gitops from cluster-api ${version} (sha256:${'a'.repeat(64)}). Do not edit.\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n`;
  const crds = core.filter((o) => o.kind === 'CustomResourceDefinition').map(clone);
  const flipped = crds.map(clone);
  for (const crd of flipped) {
    const versions = (crd.spec as { versions: { name: string; storage: boolean }[] }).versions;
    if (versions.some((v) => v.name === 'v1beta1') && versions.some((v) => v.name === 'v1beta2'))
      for (const v of versions) if (v.name === 'v1beta1' || v.name === 'v1beta2') v.storage = !v.storage;
  }
  const side = (objects: KObject[], version: string) =>
    new Map([...tree(objects), ['01-cluster-api/kustomization.yaml', kustomization(version)]]);
  const report = reviewChanges({ label: 'a', files: side(crds, 'v1.7.7') }, { label: 'b', files: side(flipped, 'v1.12.0') });
  const warnings = report.findings.filter((f) => f.risk === 'warning');
  assert.ok(warnings.length > 10, `${warnings.length} warnings`);
  const lines = reviewAnnotations(report, 'out');
  assert.equal(lines.length, 10);
  // the version skip, found after the CRDs, is not among the ones GitHub drops
  assert.match(lines[0]!, /title=capi-gitops%3A version::cluster-api upgraded v1\.7\.7 → v1\.12\.0/);
  assert.equal(
    lines[9],
    `::warning title=capi-gitops%3A ${warnings.length - 9} more::${warnings.length - 9} more risky changes not annotated ` +
      `(GitHub shows 10 warning annotations a step): ${warnings.length - 9} crd; the step summary and the diff's output list every one`,
  );
});

test('check annotations: beyond the 10 errors GitHub shows a step, a file edited by hand comes first and the last one says how many more are out of date (actions/toolkit docs/problem-matchers.md)', () => {
  const problems: CheckedFile[] = Array.from({ length: 14 }, (_, i) => ({
    path: `01-cluster-api/file-${String(i).padStart(2, '0')}.yaml`,
    status: 'changed',
    reason: 'differs from what the manifest renders; render would rewrite it',
  }));
  problems.push({ path: 'zz/hand.yaml', status: 'edited', reason: 'edited by hand since the last render' });
  const lines = checkAnnotations({ directory: path.resolve('out'), unchanged: 0, problems });
  assert.equal(lines.length, 10);
  assert.match(lines[0]!, /title=capi-gitops check%3A edited::zz\/hand\.yaml/);
  assert.equal(
    lines[9],
    '::error title=capi-gitops check%3A 6 more::6 more files out of date not annotated (GitHub shows 10 error annotations a step): 6 changed; the log above lists every one',
  );
});

test('a workload removed from a file of secret values says its image is gone, not "changed" (values hidden, as kubectl diff masks a Secret)', () => {
  const image: Finding = {
    risk: 'info',
    type: 'image',
    component: '01-cluster-api',
    file: '01-cluster-api/deployment-tokenuser.yaml',
    object: 'Deployment/capi-system/tokenuser',
    container: 'c',
    from: 'example.com/img:s3cr3t',
    to: null,
    message: 'Deployment/capi-system/tokenuser container c: image example.com/img:s3cr3t → (none)',
  };
  const hidden = withValuesHidden(image, '01-cluster-api/deployment-tokenuser.yaml');
  assert.equal(
    hidden.message,
    'Deployment/capi-system/tokenuser container c: image (hidden) → (none) (values hidden: 01-cluster-api/deployment-tokenuser.yaml holds secret values)',
  );
  assert.doesNotMatch(JSON.stringify(hidden), /s3cr3t/);
});

test('markdown: one call-out with a huge flag value is shortened, not cut with every call-out after it (GitHub comment limit)', () => {
  const deployment = corpusObject('Deployment', 'capi-controller-manager');
  const after = clone(deployment);
  const manager = (after.spec as { template: { spec: { containers: { name: string; args: string[] }[] } } }).template.spec.containers.find(
    (c) => c.name === 'manager',
  )!;
  manager.args = [...manager.args, `--huge=${'`<'.repeat(40_000)}`];
  const role = corpusObject('ClusterRole', 'capi-manager-role');
  const wider = clone(role);
  (wider.rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[]).push({
    apiGroups: [''],
    resources: ['pods'],
    verbs: ['delete'],
  });
  const markdown = formatMarkdown(review([deployment, role], [after, wider]));
  assert.ok(markdown.length < GITHUB_COMMENT_LIMIT, `${markdown.length} characters`);
  const flags = markdown.split('\n').find((l) => l.startsWith('- **flags**'));
  assert.ok(flags, 'the flags call-out is there');
  // 2,000 characters, each escaped as an entity at most
  assert.ok(flags.length < 13_000, `${flags.length} characters`);
  assert.match(flags, /&#96;&#60; … \(\d+ more characters; the full command prints them\)$/);
  assert.match(markdown, /⚠️ \*\*rbac\*\* ClusterRole\/capi-manager-role: RBAC widened: delete pods/);
});

test('a CRD whose conversion webhook moves to another Service (a provider moved to another namespace) is a warning, as a webhook newly needed is (corpus clusters.cluster.x-k8s.io spec.conversion.webhook.clientConfig.service)', () => {
  const before = corpusObject('CustomResourceDefinition', 'clusters.cluster.x-k8s.io');
  const after = clone(before);
  const service = (after.spec as { conversion: { webhook: { clientConfig: { service: { namespace: string } } } } }).conversion.webhook
    .clientConfig.service;
  service.namespace = 'capi-core';
  after.metadata.annotations = { ...after.metadata.annotations, 'cert-manager.io/inject-ca-from': 'capi-core/capi-serving-cert' };
  const report = review([before], [after]);
  const [f] = only(report, 'crd');
  assert.equal(f?.risk, 'warning');
  assert.deepEqual(f?.conversion, {
    from: 'Webhook',
    to: 'Webhook',
    service: 'capi-core/capi-webhook-service',
    caFrom: 'capi-core/capi-serving-cert',
  });
  assert.equal(
    f?.message,
    'clusters.cluster.x-k8s.io: conversion webhook moves from service capi-system/capi-webhook-service to capi-core/capi-webhook-service (CA from capi-core/capi-serving-cert)',
  );
  assert.match(formatMarkdown(report), /1 risky change: 1 conversion webhook moved/);
  assertValidJson(report);
});
