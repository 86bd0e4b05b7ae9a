/**
 * The providers clusterctl v1.12.0 knows by name (cmd/clusterctl/client/config/providers_client.go
 * `defaults`), as data, plus the user's Config `repositories`, merged as clusterctl's
 * providersClient.List merges its config file's `providers`: a user entry with the same name and
 * type replaces the built-in one, others are added; the list is sorted by type order, then name.
 */
import { compareStrings, type Diagnostic } from '../core/diagnostics.js';
import { INSTALL_ORDER, PROVIDER_KINDS, isProviderKind, type ProviderKind } from '../core/provider.js';
import type { SourcePosition, UserRepository } from '../manifest/types.js';
import { isDns1123Subdomain } from '../core/names.js';
import { formatPosition } from '../manifest/fields.js';

interface RegistryEntry {
  kind: ProviderKind;
  name: string;
  url: string;
  /** True for clusterctl's predefined providers; false for Config `repositories` entries. */
  builtIn: boolean;
  /** Where a user entry was declared; its relative URL resolves against that file's directory. */
  declaredAt?: SourcePosition;
  /** Where a user entry's url was written, when the Config can say: a problem with what it names is told there. */
  urlAt?: SourcePosition;
  /** Plain HTTPS templates (user entries): published versions, or where they are listed. */
  versions?: string[];
  versionsUrl?: string;
  versionsUrlAt?: SourcePosition;
  allowInsecure?: boolean;
}

/** [owner/repository on GitHub, release asset] per provider; every URL is `…/releases/latest/<asset>`. */
type BuiltIn = readonly [name: string, repository: string, asset: string];

const BUILT_IN: Record<ProviderKind, readonly BuiltIn[]> = {
  CoreProvider: [['cluster-api', 'kubernetes-sigs/cluster-api', 'core-components.yaml']],
  BootstrapProvider: [
    ['kubeadm', 'kubernetes-sigs/cluster-api', 'bootstrap-components.yaml'],
    ['kubekey-k3s', 'kubesphere/kubekey', 'bootstrap-components.yaml'],
    ['talos', 'siderolabs/cluster-api-bootstrap-provider-talos', 'bootstrap-components.yaml'],
    ['microk8s', 'canonical/cluster-api-bootstrap-provider-microk8s', 'bootstrap-components.yaml'],
    ['rke2', 'rancher/cluster-api-provider-rke2', 'bootstrap-components.yaml'],
    ['k0sproject-k0smotron', 'k0sproject/k0smotron', 'bootstrap-components.yaml'],
    ['canonical-kubernetes', 'canonical/cluster-api-k8s', 'bootstrap-components.yaml'],
  ],
  ControlPlaneProvider: [
    ['kubeadm', 'kubernetes-sigs/cluster-api', 'control-plane-components.yaml'],
    ['kubekey-k3s', 'kubesphere/kubekey', 'control-plane-components.yaml'],
    ['talos', 'siderolabs/cluster-api-control-plane-provider-talos', 'control-plane-components.yaml'],
    ['microk8s', 'canonical/cluster-api-control-plane-provider-microk8s', 'control-plane-components.yaml'],
    ['nested', 'kubernetes-sigs/cluster-api-provider-nested', 'control-plane-components.yaml'],
    ['kamaji', 'clastix/cluster-api-control-plane-provider-kamaji', 'control-plane-components.yaml'],
    ['rke2', 'rancher/cluster-api-provider-rke2', 'control-plane-components.yaml'],
    ['k0sproject-k0smotron', 'k0sproject/k0smotron', 'control-plane-components.yaml'],
    ['canonical-kubernetes', 'canonical/cluster-api-k8s', 'control-plane-components.yaml'],
    ['hosted-control-plane', 'teutonet/cluster-api-provider-hosted-control-plane', 'control-plane-components.yaml'],
  ],
  InfrastructureProvider: [
    ['linode-linode', 'linode/cluster-api-provider-linode', 'infrastructure-components.yaml'],
    ['aws', 'kubernetes-sigs/cluster-api-provider-aws', 'infrastructure-components.yaml'],
    ['azure', 'kubernetes-sigs/cluster-api-provider-azure', 'infrastructure-components.yaml'],
    // Docker (CAPD) is for development only; its release asset says so.
    ['docker', 'kubernetes-sigs/cluster-api', 'infrastructure-components-development.yaml'],
    ['cloudstack', 'kubernetes-sigs/cluster-api-provider-cloudstack', 'infrastructure-components.yaml'],
    ['digitalocean', 'kubernetes-sigs/cluster-api-provider-digitalocean', 'infrastructure-components.yaml'],
    ['gcp', 'kubernetes-sigs/cluster-api-provider-gcp', 'infrastructure-components.yaml'],
    ['tinkerbell-tinkerbell', 'tinkerbell/cluster-api-provider-tinkerbell', 'infrastructure-components.yaml'],
    ['metal3', 'metal3-io/cluster-api-provider-metal3', 'infrastructure-components.yaml'],
    ['nested', 'kubernetes-sigs/cluster-api-provider-nested', 'infrastructure-components.yaml'],
    ['oci', 'oracle/cluster-api-provider-oci', 'infrastructure-components.yaml'],
    ['openstack', 'kubernetes-sigs/cluster-api-provider-openstack', 'infrastructure-components.yaml'],
    ['sidero', 'siderolabs/sidero', 'infrastructure-components.yaml'],
    ['vcd', 'vmware/cluster-api-provider-cloud-director', 'infrastructure-components.yaml'],
    ['vsphere', 'kubernetes-sigs/cluster-api-provider-vsphere', 'infrastructure-components.yaml'],
    ['maas', 'spectrocloud/cluster-api-provider-maas', 'infrastructure-components.yaml'],
    ['coxedge', 'coxedge/cluster-api-provider-coxedge', 'infrastructure-components.yaml'],
    ['byoh', 'vmware-tanzu/cluster-api-provider-bringyourownhost', 'infrastructure-components.yaml'],
    ['harvester-harvester', 'rancher-sandbox/cluster-api-provider-harvester', 'infrastructure-components.yaml'],
    ['hetzner', 'syself/cluster-api-provider-hetzner', 'infrastructure-components.yaml'],
    ['hivelocity-hivelocity', 'hivelocity/cluster-api-provider-hivelocity', 'infrastructure-components.yaml'],
    ['huawei', 'HuaweiCloudDeveloper/cluster-api-provider-huawei', 'infrastructure-components.yaml'],
    ['outscale', 'outscale/cluster-api-provider-outscale', 'infrastructure-components.yaml'],
    ['ibmcloud', 'kubernetes-sigs/cluster-api-provider-ibmcloud', 'infrastructure-components.yaml'],
    ['nutanix', 'nutanix-cloud-native/cluster-api-provider-nutanix', 'infrastructure-components.yaml'],
    ['kubekey', 'kubesphere/kubekey', 'infrastructure-components.yaml'],
    ['kubevirt', 'kubernetes-sigs/cluster-api-provider-kubevirt', 'infrastructure-components.yaml'],
    ['vcluster', 'loft-sh/cluster-api-provider-vcluster', 'infrastructure-components.yaml'],
    ['virtink', 'smartxworks/cluster-api-provider-virtink', 'infrastructure-components.yaml'],
    ['proxmox', 'ionos-cloud/cluster-api-provider-proxmox', 'infrastructure-components.yaml'],
    ['k0sproject-k0smotron', 'k0sproject/k0smotron', 'infrastructure-components.yaml'],
    ['ionoscloud-ionoscloud', 'ionos-cloud/cluster-api-provider-ionoscloud', 'infrastructure-components.yaml'],
    ['vultr-vultr', 'vultr/cluster-api-provider-vultr', 'infrastructure-components.yaml'],
    ['opennebula', 'OpenNebula/cluster-api-provider-opennebula', 'infrastructure-components.yaml'],
    ['scaleway', 'scaleway/cluster-api-provider-scaleway', 'infrastructure-components.yaml'],
    ['metal-stack', 'metal-stack/cluster-api-provider-metal-stack', 'infrastructure-components.yaml'],
  ],
  IPAMProvider: [
    ['in-cluster', 'kubernetes-sigs/cluster-api-ipam-provider-in-cluster', 'ipam-components.yaml'],
    ['metal3', 'metal3-io/ip-address-manager', 'ipam-components.yaml'],
    ['nutanix', 'nutanix-cloud-native/cluster-api-ipam-provider-nutanix', 'ipam-components.yaml'],
  ],
  RuntimeExtensionProvider: [
    ['nutanix', 'nutanix-cloud-native/cluster-api-runtime-extensions-nutanix', 'runtime-extensions-components.yaml'],
  ],
  AddonProvider: [
    ['rancher-fleet', 'rancher/cluster-api-addon-provider-fleet', 'addon-components.yaml'],
    ['helm', 'kubernetes-sigs/cluster-api-addon-provider-helm', 'addon-components.yaml'],
    ['eitco-cdk8s', 'eitco/cluster-api-addon-provider-cdk8s', 'addon-components.yaml'],
  ],
};

/** clusterctl's Provider.Less: type order (core, bootstrap, control plane, infrastructure, IPAM, runtime extension, addon), then name. */
function compareEntries(a: Pick<RegistryEntry, 'kind' | 'name'>, b: Pick<RegistryEntry, 'kind' | 'name'>): number {
  return INSTALL_ORDER[a.kind] - INSTALL_ORDER[b.kind] || compareStrings(a.name, b.name);
}

/** Every provider clusterctl v1.12.0 knows, sorted. */
export const BUILT_IN_PROVIDERS: readonly RegistryEntry[] = PROVIDER_KINDS.flatMap((kind) =>
  BUILT_IN[kind].map(([name, repository, asset]) => ({
    kind,
    name,
    url: `https://github.com/${repository}/releases/latest/${asset}`,
    builtIn: true,
  })),
).sort(compareEntries);

export class ProviderRegistry {
  readonly entries: readonly RegistryEntry[];
  private readonly byKey: ReadonlyMap<string, RegistryEntry>;

  constructor(entries: readonly RegistryEntry[]) {
    this.entries = [...entries].sort(compareEntries);
    this.byKey = new Map(this.entries.map((entry) => [keyOf(entry.kind, entry.name), entry]));
  }

  /** The entry for a provider type and name, or undefined when clusterctl would not know it. */
  lookup(kind: ProviderKind, name: string): RegistryEntry | undefined {
    return this.byKey.get(keyOf(kind, name));
  }
}

function keyOf(kind: ProviderKind, name: string): string {
  return `${kind}/${name}`;
}

const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
const BAD_PERCENT_ESCAPE = /%(?![0-9A-Fa-f]{2})/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** What clusterctl's url.Parse would refuse, in words; undefined when the URL parses. */
export function urlProblem(url: string): string | undefined {
  if (CONTROL_CHARACTER.test(url)) return 'it contains a control character';
  if (BAD_PERCENT_ESCAPE.test(url)) return 'it contains a "%" that does not start a %XX escape';
  if (url.startsWith(':')) return 'it starts with ":" (missing scheme)';
  if (SCHEME.test(url) && !url.toLowerCase().startsWith('file:') && !URL.canParse(url)) return 'it is not a valid URL';
  return undefined;
}

/**
 * clusterctl's validateProvider rules for one user entry, as messages: name non-empty, lower
 * case and a DNS-1123 subdomain; `cluster-api` if and only if CoreProvider; URL non-empty and
 * parseable; type a provider kind.
 */
function userRepositoryProblems(repository: UserRepository): { field: string; message: string; hint?: string }[] {
  const problems: { field: string; message: string; hint?: string }[] = [];
  const { name, type, url } = repository;
  if (!isProviderKind(type)) {
    problems.push({
      field: 'type',
      message: `type "${String(type)}" is not a provider kind`,
      hint: `use one of ${PROVIDER_KINDS.join(', ')}`,
    });
  }
  if (typeof name !== 'string' || name === '') {
    problems.push({ field: 'name', message: 'name is empty' });
  } else if (name !== name.toLowerCase()) {
    problems.push({ field: 'name', message: `name "${name}" must be lower case`, hint: `use "${name.toLowerCase()}"` });
  } else if (!isDns1123Subdomain(name)) {
    problems.push({
      field: 'name',
      message: `name "${name}" is not a DNS-1123 subdomain`,
      hint: 'use lower-case letters, digits, "-" and ".", starting and ending with a letter or digit',
    });
  } else if (type === 'CoreProvider' && name !== 'cluster-api') {
    problems.push({ field: 'name', message: `a CoreProvider entry must be named "cluster-api", found "${name}"` });
  } else if (name === 'cluster-api' && type !== 'CoreProvider') {
    problems.push({ field: 'type', message: `name "cluster-api" is reserved for the CoreProvider, found type ${String(type)}` });
  }
  if (typeof url !== 'string' || url === '') {
    problems.push({ field: 'url', message: 'url is empty' });
  } else if (url.includes('${')) {
    problems.push({
      field: 'url',
      message: `url "${url}" contains a \${…} variable`,
      hint: 'write the URL out in full: capi-gitops does not read environment variables, so output never depends on the machine that renders it',
    });
  } else {
    const problem = urlProblem(url);
    if (problem) problems.push({ field: 'url', message: `url "${url}" cannot be parsed: ${problem}` });
  }
  return problems;
}

/** The registry and every problem with the user's entries, for callers that report problems together. */
export function buildProviderRegistry(
  userRepositories: readonly UserRepository[] = [],
  declaredAt?: SourcePosition,
  locate?: (path: readonly (string | number)[]) => SourcePosition,
): { registry: ProviderRegistry; problems: Diagnostic[] } {
  // an entry's own line when the Config can say it (several Config documents concatenate their lists)
  const at = (index: number): Pick<Diagnostic, 'file' | 'line' | 'column' | 'object'> => {
    const position = locate?.(['repositories', index]) ?? declaredAt;
    return { file: position?.file, line: position?.line, column: position?.column, object: 'Config' };
  };
  const problems: Diagnostic[] = [];
  const entries = new Map(BUILT_IN_PROVIDERS.map((entry) => [keyOf(entry.kind, entry.name), entry]));
  const firstIndex = new Map<string, number>();

  userRepositories.forEach((repository, index) => {
    const found = userRepositoryProblems(repository);
    for (const problem of found) {
      problems.push({
        ...at(index),
        path: `repositories[${index}].${problem.field}`,
        message: problem.message,
        hint: problem.hint,
        expected: 'an entry clusterctl would accept in its providers list',
      });
    }
    if (found.length > 0) return;
    const key = keyOf(repository.type, repository.name);
    const earlier = firstIndex.get(key);
    if (earlier !== undefined) {
      const first = locate?.(['repositories', earlier]);
      problems.push({
        ...at(index),
        path: `repositories[${index}]`,
        message: `${repository.type} "${repository.name}" is already declared at ${first ? formatPosition(first) : `repositories[${earlier}]`}`,
        hint: 'keep one entry per name and type',
      });
      return;
    }
    firstIndex.set(key, index);
    const { versions, versionsUrl, allowInsecure } = repository;
    entries.set(key, {
      kind: repository.type,
      name: repository.name,
      url: repository.url,
      builtIn: false,
      declaredAt,
      ...(locate ? { urlAt: locate(['repositories', index, 'url']) } : {}),
      versions,
      versionsUrl,
      ...(locate && versionsUrl !== undefined ? { versionsUrlAt: locate(['repositories', index, 'versionsUrl']) } : {}),
      allowInsecure,
    });
  });
  return { registry: new ProviderRegistry([...entries.values()]), problems };
}
