import type { KObject } from '../core/kobject.js';
import type { ProviderKind } from '../core/provider.js';

/** One component of the output: a provider or cert-manager, fully rendered. */
export interface RenderedComponent {
  /** clusterctl manifest label, e.g. `bootstrap-kubeadm`, or `cert-manager`. */
  label: string;
  /** Provider kind, or `CertManager`. */
  type: ProviderKind | 'CertManager';
  /** Provider name (`kubeadm`), or `cert-manager`. */
  name: string;
  version: string;
  namespace: string;
  /** sha256 of the components artifact, for the provenance comment. */
  artifactSha256: string;
  /** Objects in output order. */
  objects: KObject[];
}

/** A value a variable takes, with where it came from. `fromSecret` values are never printed. */
export interface VariableValue {
  value: string;
  /** e.g. `Secret capi-system/aws-variables` or `Config.variables`. */
  origin: string;
  fromSecret: boolean;
  /** Declared in Config.secrets.public: plain wherever it lands, a Secret's data included. */
  declaredPublic?: boolean;
  /** Where the value was given (a Secret's key, Config.variables' entry, a --secret-file), for messages. */
  position?: { file: string; line?: number; column?: number };
}
export type VariableLookup = (name: string) => VariableValue | undefined;

/** The condition every "declare it in Config.secrets.public" hint states, so none reads as advice to publish a credential. */
export const ONLY_IF_NOT_A_CREDENTIAL = 'only if it is a setting, not a credential (a public variable is written to Git in clear text)';

/**
 * In the marked render (secrets/taint.ts): a field a transform computed from a value instead of
 * copying it (the feature-gates merge reads whether a gate is `true`, an image override parses the
 * image), with the text it read. The field holds no mark; it is tainted by the marks in `read`.
 */
export interface DerivedField {
  /** The object's kind and name (a later filter may set its namespace). */
  kind: string;
  name?: string;
  /** The field path, e.g. `spec.template.spec.containers[0].args[1]`. */
  path: string;
  /** The text the transform read, marks included. */
  read: string;
}

/** What the filters of the marked render read and record. */
export interface MarkedRender {
  /** Matches a mark. */
  pattern: RegExp;
  /** Where the filters record the fields they computed from a marked value. */
  derived: DerivedField[];
}
