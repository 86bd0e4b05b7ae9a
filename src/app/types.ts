/** The types that flow through app/: what a command asks for, what resolution found, what a render made. */
import type { Diagnostic } from '../core/diagnostics.js';
import type { FleetLayoutName, Manifest, SecretStrategy } from '../manifest/types.js';
import type { SourceOptions } from '../sources/request.js';
import type { ResolvedCertManager, ResolvedProvider } from '../resolve/resolve.js';
import type { ResolvedOperatorRelease } from '../resolve/operator-release.js';
import type { LockOutcome } from '../resolve/lock/session.js';
import type { RenderedComponent, VariableValue } from '../render/types.js';
import type { GivenVariables } from '../render/variable-advice.js';
import type { SecretNeedles, SopsEncryptions } from '../secrets/index.js';
import type { SetExpression } from '../core/helm-set.js';
import type { LayoutName } from '../layout/index.js';

export interface RenderOptions {
  /** `-f` values: files or directories. */
  manifestPaths: string[];
  /** Opt in to writing values that came from Secrets into the output. */
  allowSecretValues?: boolean;
  /** Network, cache and offline settings for the source modules. */
  sources?: SourceOptions;
  /** Fail instead of changing the lockfile (CI). */
  frozen?: boolean;
  /** Versions to move to, by componentKey (`capi-gitops update`). */
  versionOverrides?: ReadonlyMap<string, string>;
  /** `--layout`; default Config.output.layout, else kustomize. */
  layout?: LayoutName;
  /** `--values` files, in order. */
  valuesFiles?: string[];
  /** `--set` and `--set-string`, in command-line order. */
  set?: SetExpression[];
  /** The output directory (its place in its Git repository is the wiring's default path). */
  outputDir?: string;
  /** The command that regenerates the output, for its README (no absolute paths). */
  command?: string;
  /** The same with the secret sources (-f files of Secrets, --secret-file, --env-secret): inline and sops need the values. */
  commandWithSecrets?: string;
  /** Where this render's tree sits below outputDir (a fleet cluster's `clusters/<name>`). */
  outputSubdirectory?: string;
  /** The fleet cluster this render is of: its hints name no single-cluster command. */
  fleetCluster?: string;
  /** A fleet's: the digest its lock agrees on for each image (agreedImageDigests), which a cluster without its own takes. */
  fleetImageDigests?: ReadonlyMap<string, string>;
  /**
   * A fleet cluster's: where its own entry (`clusters[0]`, `clusters[0].unsupportedOverrides`),
   * not the shared Config, set a Config gitops path.
   */
  clusterGitopsEntry?: (configPath: readonly string[]) => string | undefined;
  /** A fleet cluster's: the Release whose entry set a provider's spec.version (`Kind/namespace/name`), for hints. */
  versionRelease?: (provider: string) => string | undefined;
  /**
   * A fleet cluster's: the layer that set a provider's spec.version (`Kind/namespace/name`), or
   * certManager.version (`certManager`): `shared manifest`, `release <name>`, `overlay`,
   * `unsupportedOverrides`, for hints that say where to set it.
   */
  versionLayer?: (provider: string) => string | undefined;
  /**
   * A fleet cluster's: a Release of the fleet on the way from `from` for a provider (at most 3
   * minors above it), for the hint of a move that skips more.
   */
  stepRelease?: (provider: string, from: string) => { name: string; version: string } | undefined;
  /** `--secrets`; default Config.secrets.strategy, else refuse (inline with --allow-secret-values alone). */
  secretsStrategy?: SecretStrategy;
  /** `--secret-file` and `--env-secret`: secret values kept out of Git. */
  secretFiles?: string[];
  envSecrets?: string[];
  /** Called with every form of every secret value as soon as they are known (GitHub Actions masks). */
  onSecretValues?: (needles: SecretNeedles) => void;
  /**
   * A fleet's search of a cluster's final files for the other clusters' secret values (secrets/gate.ts
   * FleetSecrets), told with the cluster's own gate's problems: one refused file name does not hide them.
   */
  otherClustersLeaks?: (files: ReadonlyMap<string, string>) => Diagnostic[];
  /**
   * `check` and `diff`: under a strategy that keeps secret values out of the output (refuse,
   * external-secrets, flux-substitute), a value that lands in a Secret's data, and a configSecret
   * Secret, may be missing: the output does not depend on them.
   */
  secretValuesOptional?: boolean;
  /**
   * `check`: the `--env-secret` names the output README's command records. With
   * `secretValuesOptional`, those not set are secrets not at hand, as `--env-secret` would give them.
   */
  recordedEnvSecrets?: string[];
  /**
   * `check`: the variables the committed output leaves for the strategy (`{{ .NAME }}`, `${NAME}`).
   * With `secretValuesOptional`, a provider whose configSecret is absent (or every provider, with
   * `secretFilesNotGiven`) takes them as secrets not at hand. Read only when a source is absent:
   * it reads every file of the output.
   */
  recordedSecretVariables?: () => Promise<readonly string[]>;
  /** `check`, `diff`: the README's command has --secret-file and this run none: every provider misses those values. */
  secretFilesNotGiven?: boolean;
  /**
   * `diff --base`: the sops files one side's render encrypted, which the other side's takes as
   * written before, so two renders of the same Secret compare equal (secrets/index.ts encryptFiles).
   */
  sopsEncryptions?: SopsEncryptions;
  /** Told each likely mistake in valid input (manifest and variables) as soon as it is found. */
  onWarning?: (warning: Diagnostic) => void;
  /** A fleet's cluster: the variables given and the names used, handed on instead of warned about (the fleet judges them). */
  onGivenVariables?: (given: GivenVariables[]) => void;
  /**
   * Resolve what can be resolved and hand the problems on (Resolution.problems) instead of
   * throwing them, so the render reports them with its own: every problem in one run.
   */
  collectAll?: boolean;
  /** `lock --accept-digest`: providers whose re-tagged files are accepted with their new digests. */
  acceptDigests?: readonly string[];
  /** Manifest texts to read instead of the files' (absolute path → text): `update` resolves its edits before writing them. */
  manifestTexts?: ReadonlyMap<string, string>;
  /** `--pin-images` (or Config pinImages): every container image written with its registry digest, locked. */
  pinImages?: boolean;
  /** `-n, --namespace`: the namespace of objects that name none (manifest/load.ts LoadOptions). */
  namespace?: string;
  /** `--cluster`: render and write only these clusters of a fleet (all when empty). */
  clusters?: string[];
  /** `--fleet-layout`; default Config output.fleetLayout, else shared. */
  fleetLayout?: FleetLayoutName;
}

/** What resolution found, and the lock that records it. */
export interface Resolution {
  manifest: Manifest;
  providers: ResolvedProvider[];
  certManager: ResolvedCertManager | null;
  /** The lockfile's path (beside the first manifest), the lock to write and what changed. */
  lockFile: string;
  lock: LockOutcome;
  /** The source options in effect (Config.github merged in). */
  sources: SourceOptions;
  /** The cluster-api-operator release, when the run draws the operator layout. */
  operator?: ResolvedOperatorRelease;
  /** With collectAll: what did not resolve (the lock above is then not to be written). */
  problems?: Diagnostic[];
}

/** One provider's variables for `render --list-variables`. */
export interface ProviderVariables {
  label: string;
  namespace: string;
  version: string;
  variables: { name: string; default?: string; value?: VariableValue }[];
}

export interface RenderResult extends Resolution {
  components: RenderedComponent[];
  /** Relative path → file content, ready for writeOutput. */
  files: Map<string, string>;
  layout: LayoutName;
  /** Files that hold secret values (`--secrets inline`), as the output README lists them. */
  secretFiles?: string[];
  /** Things the user must hear on every run (unmanaged objects). */
  warnings: string[];
  /** check and diff: the configSecrets rendered without (render needs them), when there are any. */
  secretsNotGiven?: SecretNotGiven[];
}

/**
 * A configSecret Secret that check or diff rendered without, as the strategy keeps its values out
 * of the output; render needs it, and a public key it holds shapes the output.
 */
export interface SecretNotGiven {
  /** `namespace/name`. */
  secret: string;
  /** The providers that name it; the position is the first one's spec.configSecret. */
  objects: string[];
  file?: string;
  line?: number;
  column?: number;
  /**
   * Keys declared public that those providers use and no other input gives: the render took
   * their defaults (a placeholder for one without).
   */
  publicKeys: string[];
}
