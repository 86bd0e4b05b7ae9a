import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { Ajv } from 'ajv';
import { CRDS } from '../helpers/paths.js';
import type { KObject } from '../../src/core/kobject.js';
import { PROVIDER_KINDS } from '../../src/core/provider.js';
import { inventoryCrd, inventoryObject } from '../../src/render/inventory.js';

function upstreamCrd(): any {
  return YAML.parse(fs.readFileSync(path.join(CRDS, 'clusterctl-inventory-crd.yaml'), 'utf8'), { version: '1.1' });
}

/** Properties, types and required fields of a schema, without descriptions. */
function shape(schema: any): unknown {
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = { type: schema.type, required: [...(schema.required ?? [])].sort() };
  if (schema.properties) {
    out.properties = Object.fromEntries(
      Object.keys(schema.properties)
        .sort()
        .map((k) => [k, shape(schema.properties[k])]),
    );
  }
  if (schema.items) out.items = shape(schema.items);
  return out;
}

test('the inventory Provider is named by the manifest label in the target namespace (clusterctl components.go InventoryObject)', () => {
  assert.deepEqual(
    inventoryObject({ type: 'BootstrapProvider', name: 'kubeadm', version: 'v1.12.0', namespace: 'capi-kubeadm-bootstrap-system' }),
    {
      apiVersion: 'clusterctl.cluster.x-k8s.io/v1alpha3',
      kind: 'Provider',
      metadata: {
        name: 'bootstrap-kubeadm',
        namespace: 'capi-kubeadm-bootstrap-system',
        labels: {
          'cluster.x-k8s.io/provider': 'bootstrap-kubeadm',
          'clusterctl.cluster.x-k8s.io': '',
          'clusterctl.cluster.x-k8s.io/core': 'inventory',
        },
      },
      providerName: 'kubeadm',
      type: 'BootstrapProvider',
      version: 'v1.12.0',
    },
  );
  const core = inventoryObject({ type: 'CoreProvider', name: 'cluster-api', version: 'v1.12.0', namespace: 'capi-system' });
  assert.equal(core.metadata.name, 'cluster-api');
  assert.equal(
    inventoryObject({ type: 'ControlPlaneProvider', name: 'rke2', version: 'v0.11.0', namespace: 'x' }).metadata.name,
    'control-plane-rke2',
  );
});

test('the inventory CRD matches clusterctl config/manifest/clusterctl-api.yaml: group, names, scope, versions, columns', () => {
  const ours = inventoryCrd() as any;
  const theirs = upstreamCrd();
  assert.equal(ours.apiVersion, theirs.apiVersion);
  assert.equal(ours.kind, theirs.kind);
  assert.equal(ours.metadata.name, theirs.metadata.name);
  assert.equal(ours.spec.group, theirs.spec.group);
  assert.deepEqual(ours.spec.names, theirs.spec.names);
  assert.equal(ours.spec.scope, theirs.spec.scope);
  const versionSummary = (v: any) => ({ name: v.name, served: v.served, storage: v.storage });
  assert.deepEqual(ours.spec.versions.map(versionSummary), theirs.spec.versions.map(versionSummary));
  const columns = (v: any) => v.additionalPrinterColumns.map((c: any) => ({ name: c.name, type: c.type, jsonPath: c.jsonPath }));
  assert.deepEqual(columns(ours.spec.versions[0]), columns(theirs.spec.versions[0]));
});

test('the inventory CRD schema has the same properties, types and required fields as upstream', () => {
  const ours = (inventoryCrd() as any).spec.versions[0].schema.openAPIV3Schema;
  const theirs = upstreamCrd().spec.versions[0].schema.openAPIV3Schema;
  assert.deepEqual(shape(ours), shape(theirs));
  assert.deepEqual(Object.keys(ours.properties).sort(), [
    'apiVersion',
    'kind',
    'metadata',
    'providerName',
    'type',
    'version',
    'watchedNamespace',
  ]);
});

test('the inventory CRD carries only clusterctl.cluster.x-k8s.io/core: inventory (clusterctl cluster/inventory.go createObj)', () => {
  assert.deepEqual(inventoryCrd().metadata.labels, { 'clusterctl.cluster.x-k8s.io/core': 'inventory' });
  assert.equal(upstreamCrd().metadata.labels, undefined, 'upstream file has no labels: clusterctl adds the label when it creates the CRD');
});

test('every inventory Provider validates against the upstream CRD schema', () => {
  const schema = upstreamCrd().spec.versions[0].schema.openAPIV3Schema;
  const validate = new Ajv({ strict: false, allErrors: true }).compile({ ...schema, additionalProperties: false });
  for (const type of PROVIDER_KINDS) {
    const provider: KObject = inventoryObject({ type, name: 'example', version: 'v0.1.0', namespace: 'example-system' });
    assert.ok(validate(provider), `${type}: ${JSON.stringify(validate.errors)}`);
  }
  // the validator does reject what the schema forbids
  assert.equal(
    validate({ ...inventoryObject({ type: 'CoreProvider', name: 'cluster-api', version: 'v1', namespace: 'n' }), version: 1 }),
    false,
  );
});
