/**
 * The copy a hint gives for an image a mirror lacks or serves otherwise: commands that run as
 * written. skopeo (containers/image docker_transport.go) refuses a reference with both a tag and
 * a digest, and reaches a registry over HTTPS unless told otherwise; crane (go-containerregistry
 * name.Registry.Scheme) speaks plain HTTP to a loopback registry by itself.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { imageCopyCommands } from '../../src/sources/oci/image-copy.js';

const DIGEST = `sha256:${'a'.repeat(64)}`;

test('a tag to a loopback mirror: every architecture, plain HTTP told to skopeo for the mirror only', () => {
  assert.equal(
    imageCopyCommands('registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0', '127.0.0.1:5000/capi/cluster-api-controller:v1.12.0'),
    '`skopeo copy --all --dest-tls-verify=false docker://registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0 ' +
      'docker://127.0.0.1:5000/capi/cluster-api-controller:v1.12.0` or ' +
      '`crane copy registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0 127.0.0.1:5000/capi/cluster-api-controller:v1.12.0`',
  );
});

test('a source with a tag and a digest is copied by its digest alone, which skopeo keeps when told; an HTTPS mirror needs no TLS flag', () => {
  assert.equal(
    imageCopyCommands(
      `quay.io/jetstack/cert-manager-controller:v1.19.1@${DIGEST}`,
      'mirror.example.com/capi/cert-manager-controller:v1.19.1',
    ),
    `\`skopeo copy --all --preserve-digests docker://quay.io/jetstack/cert-manager-controller@${DIGEST} ` +
      'docker://mirror.example.com/capi/cert-manager-controller:v1.19.1` or ' +
      `\`crane copy quay.io/jetstack/cert-manager-controller@${DIGEST} mirror.example.com/capi/cert-manager-controller:v1.19.1\``,
  );
});

test('from one loopback registry to another (a mirror moved): plain HTTP told for both ends', () => {
  assert.match(
    imageCopyCommands(`localhost:5000/old/capi-init@${DIGEST}`, '[::1]:5001/new/capi-init:v1.0.0'),
    /^`skopeo copy --all --preserve-digests --src-tls-verify=false --dest-tls-verify=false docker:\/\/localhost:5000\/old\/capi-init@sha256:a{64} docker:\/\/\[::1\]:5001\/new\/capi-init:v1\.0\.0`/,
  );
});
