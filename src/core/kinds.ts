/**
 * What the stages know about built-in Kubernetes kinds, in one table each: the install order,
 * which kinds are cluster-scoped, and the kinds that several rules treat alike.
 */

/** Kinds in output order. Kinds not listed follow, alphabetically. */
export const KIND_ORDER: readonly string[] = [
  'Namespace',
  'CustomResourceDefinition',
  'PriorityClass',
  'NetworkPolicy',
  'ResourceQuota',
  'LimitRange',
  'PodSecurityPolicy',
  'PodDisruptionBudget',
  'ServiceAccount',
  'Secret',
  'ConfigMap',
  'StorageClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
  'Service',
  'Deployment',
  'DaemonSet',
  'Pod',
  'ReplicationController',
  'ReplicaSet',
  'HorizontalPodAutoscaler',
  'StatefulSet',
  'Job',
  'CronJob',
  'IngressClass',
  'Ingress',
  'APIService',
  'Issuer',
  'ClusterIssuer',
  'Certificate',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
];

/**
 * Built-in cluster-scoped kinds by API group (kubectl api-resources --namespaced=false on a
 * current cluster), plus cluster-scoped kinds that provider and cert-manager manifests define.
 */
export const CLUSTER_SCOPED_KINDS: Readonly<Record<string, readonly string[]>> = {
  '': ['ComponentStatus', 'Namespace', 'Node', 'PersistentVolume'],
  'admissionregistration.k8s.io': [
    'MutatingAdmissionPolicy',
    'MutatingAdmissionPolicyBinding',
    'MutatingWebhookConfiguration',
    'ValidatingAdmissionPolicy',
    'ValidatingAdmissionPolicyBinding',
    'ValidatingWebhookConfiguration',
  ],
  'apiextensions.k8s.io': ['CustomResourceDefinition'],
  'apiregistration.k8s.io': ['APIService'],
  'authentication.k8s.io': ['SelfSubjectReview', 'TokenReview'],
  'authorization.k8s.io': ['SelfSubjectAccessReview', 'SelfSubjectRulesReview', 'SubjectAccessReview'],
  'certificates.k8s.io': ['CertificateSigningRequest', 'ClusterTrustBundle'],
  extensions: ['PodSecurityPolicy'],
  'flowcontrol.apiserver.k8s.io': ['FlowSchema', 'PriorityLevelConfiguration'],
  'internal.apiserver.k8s.io': ['StorageVersion'],
  'networking.k8s.io': ['IngressClass', 'IPAddress', 'ServiceCIDR'],
  'node.k8s.io': ['RuntimeClass'],
  policy: ['PodSecurityPolicy'],
  'rbac.authorization.k8s.io': ['ClusterRole', 'ClusterRoleBinding'],
  'resource.k8s.io': ['DeviceClass', 'ResourceSlice'],
  'scheduling.k8s.io': ['PriorityClass'],
  'storage.k8s.io': ['CSIDriver', 'CSINode', 'StorageClass', 'VolumeAttachment', 'VolumeAttributesClass'],
  'storagemigration.k8s.io': ['StorageVersionMigration'],
  // cert-manager
  'cert-manager.io': ['ClusterIssuer'],
  // Cluster API runtime extensions (core components CRD, scope: Cluster)
  'runtime.cluster.x-k8s.io': ['ExtensionConfig'],
};

/** Admission webhook configurations (admissionregistration.k8s.io): they carry caBundle and service references. */
export const WEBHOOK_CONFIGURATION_KINDS: ReadonlySet<string> = new Set(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']);

/** cert-manager's cainjector writes the CA bundle of an object annotated so, from the Certificate it names. */
export const CERT_MANAGER_INJECT_CA_FROM = 'cert-manager.io/inject-ca-from';

/** cert-manager.io kinds that issue certificates, which cainjector must see before the objects it injects into. */
export const CERT_MANAGER_ISSUING_KINDS: ReadonlySet<string> = new Set(['Issuer', 'ClusterIssuer', 'Certificate']);
