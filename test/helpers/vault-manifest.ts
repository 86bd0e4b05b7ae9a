/**
 * The secrets tests' management cluster: the example core provider, and a CAPA-style
 * infrastructure provider (test/fixtures/secrets) whose configSecret's
 * VAULT_B64ENCODED_CREDENTIALS its components put into a Secret, EXP_MACHINE_POOL into an argument.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeTempManifest } from './corpus-manifest.js';
import { FIXTURES, PROJECT_ROOT } from './paths.js';
import { SUITE_SECRETS } from './secret-scan.js';

export const VAULT_CREDENTIALS = SUITE_SECRETS.vaultCredentials;
export const VAULT_B64 = Buffer.from(VAULT_CREDENTIALS).toString('base64');

const fileUrl = (...parts: string[]) => pathToFileURL(path.join(...parts)).href;

export interface VaultManifest {
  /** Lines of the Config document after `certManager: {enabled: false}`. */
  config?: string;
  /** Extra spec of the vault provider. */
  spec?: string;
  /** Documents after the Config. */
  extraDocs?: string;
  /** The configSecret's stringData; default: the credentials and the flag. */
  data?: Record<string, string>;
}

/** Writes the manifest to a new directory and returns it. */
export function vaultManifest(setup: VaultManifest = {}): string {
  const data = setup.data ?? { VAULT_B64ENCODED_CREDENTIALS: VAULT_B64, EXP_MACHINE_POOL: 'true' };
  const providers = `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
  namespace: capi-system
spec:
  version: v0.2.0
  fetchConfig:
    url: ${fileUrl(PROJECT_ROOT, 'examples', 'repository', 'cluster-api', 'latest', 'core-components.yaml')}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata:
  name: vault
  namespace: capvault-system
spec:
  version: v0.1.0
  configSecret:
    name: vault-variables
  fetchConfig:
    url: ${fileUrl(FIXTURES, 'secrets', 'infrastructure-vault', 'latest', 'infrastructure-components.yaml')}
${setup.spec ?? ''}---
apiVersion: v1
kind: Secret
metadata:
  name: vault-variables
  namespace: capvault-system
stringData:
${Object.entries(data)
  .map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`)
  .join('\n')}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager:
  enabled: false
${setup.config ?? ''}
${setup.extraDocs ?? ''}`;
  return writeTempManifest({ 'management-cluster.yaml': providers });
}
