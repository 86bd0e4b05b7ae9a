import { test } from 'node:test';
import assert from 'node:assert/strict';
import { manifestLabel } from '../../src/core/provider.js';
import path from 'node:path';
import { formatDiagnostic } from '../../src/core/diagnostics.js';

test('manifest labels follow clusterctl ManifestLabel (provider_type.go)', () => {
  assert.equal(manifestLabel('CoreProvider', 'cluster-api'), 'cluster-api');
  assert.equal(manifestLabel('BootstrapProvider', 'kubeadm'), 'bootstrap-kubeadm');
  assert.equal(manifestLabel('ControlPlaneProvider', 'kubeadm'), 'control-plane-kubeadm');
  assert.equal(manifestLabel('InfrastructureProvider', 'aws'), 'infrastructure-aws');
  assert.equal(manifestLabel('IPAMProvider', 'in-cluster'), 'ipam-in-cluster');
  assert.equal(manifestLabel('RuntimeExtensionProvider', 'nutanix'), 'runtime-extension-nutanix');
  assert.equal(manifestLabel('AddonProvider', 'helm'), 'addon-helm');
});

test('a diagnostic names file, line, column, object, field, expectation and hint', () => {
  const text = formatDiagnostic({
    file: 'm.yaml',
    line: 3,
    column: 5,
    object: 'CoreProvider/capi-system/cluster-api',
    path: 'spec.versoin',
    message: 'unknown field "versoin"',
    expected: 'a ProviderSpec field',
    hint: 'did you mean "version"?',
  });
  assert.equal(
    text,
    'm.yaml:3:5: error: CoreProvider/capi-system/cluster-api: spec.versoin: unknown field "versoin"\n  expected: a ProviderSpec field\n  hint: did you mean "version"?',
  );
});

test('a diagnostic keeps the line breaks of an example block under the hint, and escapes input newlines in every other field', () => {
  const text = formatDiagnostic({ message: 'key "a\nb"', hint: 'write it as a block:', example: 'x:\n- |\n  y' });
  assert.equal(text, 'error: key "a\\nb"\n  hint: write it as a block:\n    x:\n    - |\n      y');
});

test('a diagnostic shows a file below the working directory relative to it, and any other file as given', () => {
  const below = path.join(process.cwd(), 'management-cluster', 'capi-gitops.lock.yaml');
  assert.match(formatDiagnostic({ file: below, line: 2, message: 'm' }), /^management-cluster\/capi-gitops\.lock\.yaml:2: error: m$/);
  const elsewhere = path.join(path.parse(process.cwd()).root, 'elsewhere', 'a.yaml');
  assert.equal(path.relative(process.cwd(), elsewhere).startsWith('..'), true);
  assert.match(formatDiagnostic({ file: elsewhere, message: 'm' }), new RegExp(`^${elsewhere}: error: m$`));
  assert.match(formatDiagnostic({ file: 'built-in chart flux values', message: 'm' }), /^built-in chart flux values: error: m$/);
});
