/**
 * Deployment and manager customisation, as the cluster-api-operator applies `spec.deployment`,
 * `spec.manager` and `spec.additionalDeployments` (internal/controller/component_customizer.go:
 * customizeObjectsFn, customizeDeployment, customizeDeploymentSpec, customizeContainer,
 * customizeManagerContainer, leaderElectionArgs, setArgs).
 *
 * The one deliberate difference: where upstream ranges over a Go map (container `args`,
 * `additionalArgs`, `controller.groupKindConcurrency`) the order is random; we go through the
 * keys sorted by their UTF-8 bytes, so the output is the same on every run.
 */
import { MAX_DURATION, MIN_DURATION, SECOND, parseGoDuration } from '../core/go-duration.js';
import { DiagnosticBag, type Diagnostic } from '../core/diagnostics.js';
import { clone, describeObject, isPlainObject, type KObject } from '../core/kobject.js';
import { compareGoStrings } from '../core/order.js';
import type { ContainerSpec, DeploymentSpec, LeaderElectionConfiguration, ManagerSpec, ProviderSpec } from '../manifest/types.js';
import type { DerivedField } from './types.js';

/** The provider object a customisation comes from, for messages (`object`: `Kind/ns/name`). */
export type ProviderOrigin = Pick<Diagnostic, 'object' | 'file' | 'line' | 'column'>;

const DEPLOYMENT_KIND = 'Deployment';
const MANAGER_CONTAINER = 'manager';
/** CRD default of `spec.manager.verbosity`; the operator passes `--v` only for other values. */
const DEFAULT_VERBOSITY = 1;

type Json = Record<string, unknown>;

/** One Deployment being customised: where problems go and how to name them. */
interface Scope {
  bag: DiagnosticBag;
  origin: ProviderOrigin;
  deployment: string;
  /** In the marked render (secrets/taint.ts): where the fields computed from a value are recorded. */
  derived?: DerivedField[];
}

/** Which spec applies to one Deployment, and the field path it was written at. */
interface Customization {
  deployment?: DeploymentSpec;
  manager?: ManagerSpec;
  path: string;
}

/**
 * Applies `spec.deployment` / `spec.manager` (and `spec.additionalDeployments`) to the
 * Deployments in `objs`. Pure: changed Deployments are copies, other objects are returned as-is.
 * Throws CapiGitopsError listing every problem found. `derived`, in the marked render, receives
 * the fields computed from a value (the feature-gates merge).
 */
export function customizeDeployments(
  objs: readonly KObject[],
  spec: ProviderSpec,
  origin: ProviderOrigin = {},
  derived?: DerivedField[],
): KObject[] {
  const bag = new DiagnosticBag();
  const several = objs.filter(isDeployment).length > 1;
  const result = objs.map((obj) => {
    if (!isDeployment(obj)) return obj;
    const name = obj.metadata?.name ?? '';
    const choice = customizationFor(name, several, spec);
    if (choice === undefined || (choice.deployment === undefined && choice.manager === undefined)) return obj;
    return customizeDeployment(obj, choice, { bag, origin, deployment: name, ...(derived ? { derived } : {}) });
  });
  bag.throwIfAny();
  return result;
}

/** What a YAML value is, for messages (never the value: it may come from a Secret). */
function shapeOf(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (isPlainObject(value)) return 'a mapping';
  return value === null ? 'null' : `a ${typeof value}`;
}

/**
 * Where a Deployment's containers do not have the types the operator converts them to: it turns
 * every Deployment into an apps/v1 Deployment before customising it (component_customizer.go
 * customizeObjectsFn, scheme.Convert), which fails on a container that is no mapping, or a
 * name, image, args or command item that is no string; the customisation reads them as such.
 */
export function deploymentShapeProblems(objs: readonly KObject[]): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const report = (obj: KObject, path: string, value: unknown, expected: string) =>
    problems.push({
      object: describeObject(obj),
      path,
      message: `is ${shapeOf(value)} where the Deployment's type has ${expected}: the operator cannot convert this Deployment`,
      expected,
    });
  for (const obj of objs) {
    if (!isDeployment(obj)) continue;
    const template = (obj.spec as Json | undefined)?.template as Json | undefined;
    const podSpec = isPlainObject(template) ? template.spec : undefined;
    if (!isPlainObject(podSpec)) continue;
    for (const list of ['initContainers', 'containers'] as const) {
      const containers = podSpec[list];
      if (containers === undefined || containers === null) continue;
      const at = `spec.template.spec.${list}`;
      if (!Array.isArray(containers)) {
        report(obj, at, containers, 'a list of containers');
        continue;
      }
      containers.forEach((c: unknown, i) => {
        if (!isPlainObject(c)) return report(obj, `${at}[${i}]`, c, 'a container (a mapping)');
        for (const field of ['name', 'image'] as const)
          if (c[field] !== undefined && typeof c[field] !== 'string') report(obj, `${at}[${i}].${field}`, c[field], 'a string');
        for (const field of ['args', 'command'] as const) {
          const items = c[field];
          if (items === undefined || items === null) continue;
          if (!Array.isArray(items)) report(obj, `${at}[${i}].${field}`, items, 'a list of strings');
          else
            items.forEach((item: unknown, j) => {
              if (typeof item !== 'string') report(obj, `${at}[${i}].${field}[${j}]`, item, 'a string');
            });
        }
      });
    }
  }
  return problems;
}

function isDeployment(obj: KObject): boolean {
  return obj.kind === DEPLOYMENT_KIND;
}

/** The operator's stop-gap until CAPI has a contract for it: managers are named `ca*-controller-manager`. */
export function isProviderManagerDeploymentName(name: string): boolean {
  return name.startsWith('ca') && name.endsWith('-controller-manager');
}

/**
 * With one Deployment, it takes `spec.deployment`/`spec.manager` whatever its name. With several,
 * only manager-named ones do; the others take `additionalDeployments[name]` or are left alone.
 */
function customizationFor(name: string, several: boolean, spec: ProviderSpec): Customization | undefined {
  if (several && !isProviderManagerDeploymentName(name)) {
    const extra = spec.additionalDeployments;
    if (extra === undefined || !Object.hasOwn(extra, name)) return undefined;
    const entry = extra[name] ?? {};
    return { deployment: entry.deployment, manager: entry.manager, path: `spec.additionalDeployments.${name}` };
  }
  return { deployment: spec.deployment, manager: spec.manager, path: 'spec' };
}

/** DeploymentSpec first, then ManagerSpec, so the manager's flags win (upstream customizeDeployment). */
function customizeDeployment(obj: KObject, choice: Customization, scope: Scope): KObject {
  const copy = clone(obj);
  if (choice.deployment !== undefined) applyDeploymentSpec(copy, choice.deployment, scope, `${choice.path}.deployment`);
  if (choice.manager !== undefined) {
    const container = findManagerContainer(containersOf(copy));
    if (container === undefined) {
      report(scope, `${choice.path}.manager`, `cannot find "${MANAGER_CONTAINER}" container in Deployment "${scope.deployment}"`, {
        expected: 'a Deployment with at least one container',
        hint: 'the manager settings go to the container named "manager", or else to the first container',
      });
    } else {
      const at = `spec.template.spec.containers[${containersOf(copy).indexOf(container)}]`;
      customizeManagerContainer(container, choice.manager, scope, `${choice.path}.manager`, {
        kind: copy.kind,
        name: copy.metadata?.name,
        path: at,
      });
    }
  }
  return copy;
}

// ---- DeploymentSpec (customizeDeploymentSpec, customizeContainer) ---------------------------

function applyDeploymentSpec(d: KObject, spec: DeploymentSpec, scope: Scope, path: string): void {
  if (spec.replicas !== undefined && spec.replicas !== null) objectAt(d, ['spec']).replicas = spec.replicas;
  const pod = objectAt(d, ['spec', 'template', 'spec']);
  if (spec.affinity !== undefined && spec.affinity !== null) pod.affinity = clone(spec.affinity);
  if (spec.nodeSelector !== undefined && spec.nodeSelector !== null) setOmitEmpty(pod, 'nodeSelector', clone(spec.nodeSelector));
  if (spec.tolerations !== undefined && spec.tolerations !== null) setOmitEmpty(pod, 'tolerations', clone(spec.tolerations));
  if (spec.serviceAccountName) pod.serviceAccountName = spec.serviceAccountName;
  if (spec.imagePullSecrets !== undefined && spec.imagePullSecrets !== null) {
    setOmitEmpty(
      pod,
      'imagePullSecrets',
      spec.imagePullSecrets.map((ref) => withoutEmptyName(clone(ref))),
    );
  }
  (spec.containers ?? []).forEach((containerSpec, i) => {
    const container = containersOf(d).find((c) => c.name === containerSpec.name);
    if (container === undefined) {
      report(scope, `${path}.containers[${i}].name`, `cannot find container "${containerSpec.name}" in Deployment "${scope.deployment}"`, {
        expected: `one of: ${
          containersOf(d)
            .map((c) => String(c.name))
            .join(', ') || '(no containers)'
        }`,
        hint: 'containers are matched by name; check spelling against the provider components',
      });
      return;
    }
    applyContainerSpec(container, containerSpec);
  });
}

function applyContainerSpec(container: Json, spec: ContainerSpec): void {
  for (const name of sortedKeys(spec.args ?? {})) setArg(container, name, spec.args![name]!);
  for (const env of spec.env ?? []) {
    const list = Array.isArray(container.env) ? (container.env as Json[]) : [];
    container.env = [...withoutFirstEnv(list, env.name), envAfterRoundTrip(clone(env) as Json)];
  }
  if (spec.resources !== undefined && spec.resources !== null) container.resources = clone(spec.resources);
  if (spec.imageUrl !== undefined && spec.imageUrl !== null) setOmitEmpty(container, 'image', spec.imageUrl);
  if (spec.command !== undefined && spec.command !== null) setOmitEmpty(container, 'command', [...spec.command]);
}

/**
 * The operator copies these through Go types, whose `omitempty` drops empty strings. The CRD
 * defaults an omitted LocalObjectReference name to "", so without this `{}` would come out as
 * `{name: ""}`.
 */
function withoutEmptyName<T>(ref: T): T {
  if (isPlainObject(ref) && ref.name === '') delete ref.name;
  return ref;
}

function envAfterRoundTrip(env: Json): Json {
  if (env.value === '') delete env.value;
  const from = env.valueFrom;
  if (isPlainObject(from)) {
    withoutEmptyName(from.configMapKeyRef);
    withoutEmptyName(from.secretKeyRef);
  }
  return env;
}

/** Upstream removeEnv drops only the first variable of that name; the new one is appended. */
function withoutFirstEnv(list: Json[], name: unknown): Json[] {
  const at = list.findIndex((e) => isPlainObject(e) && e.name === name);
  return at < 0 ? list : [...list.slice(0, at), ...list.slice(at + 1)];
}

/** The container named `manager`, else the first one (upstream findManagerContainer, issue #787). */
function findManagerContainer(containers: Json[]): Json | undefined {
  return containers.find((c) => c.name === MANAGER_CONTAINER) ?? containers[0];
}

// ---- ManagerSpec (customizeManagerContainer, leaderElectionArgs) -----------------------------

/** Flags in upstream's order, so replaced-in-place and appended flags land where the operator puts them. */
function customizeManagerContainer(c: Json, m: ManagerSpec, scope: Scope, path: string, container: Omit<DerivedField, 'read'>): void {
  const groupKinds = m.controller?.groupKindConcurrency ?? {};
  for (const kind of sortedKeys(groupKinds)) setArg(c, `--${kind.toLowerCase()}-concurrency`, String(groupKinds[kind]));
  if (m.maxConcurrentReconciles) setArg(c, '--max-concurrent-reconciles', String(m.maxConcurrentReconciles));

  const stringFlags: [string, string | undefined][] = [
    ['--namespace', m.cacheNamespace],
    ['--health-addr', m.health?.healthProbeBindAddress],
    ['--metrics-bind-addr', m.metrics?.bindAddress],
    ['--diagnostics-address', m.metrics?.diagnosticsAddress],
    ['--webhook-host', m.webhook?.host],
    ['--webhook-cert-dir', m.webhook?.certDir],
    ['--profiler-address', m.profilerAddress],
  ];
  for (const [flag, value] of stringFlags) if (value) setArg(c, flag, value);

  if (m.health?.livenessEndpointName) setProbePath(c, 'livenessProbe', m.health.livenessEndpointName);
  if (m.health?.readinessEndpointName) setProbePath(c, 'readinessProbe', m.health.readinessEndpointName);

  if (m.leaderElection !== undefined && m.leaderElection !== null) {
    setLeaderElectionArgs(c, m.leaderElection, scope, `${path}.leaderElection`);
  }
  if (m.metrics?.insecureDiagnostics === true) setArg(c, '--insecure-diagnostics', 'true');
  if (m.webhook?.port !== undefined && m.webhook.port !== null) setArg(c, '--webhook-port', String(m.webhook.port));

  if (m.syncPeriod !== undefined && m.syncPeriod !== null) {
    const seconds = durationSeconds(m.syncPeriod, scope, `${path}.syncPeriod`);
    if (seconds !== undefined && seconds > 0n) setArg(c, '--sync-period', `${seconds}s`);
  }
  // Not a flag upstream, but the operator cannot even read a provider whose duration is malformed.
  if (m.gracefulShutDown !== undefined && m.gracefulShutDown !== null)
    durationSeconds(m.gracefulShutDown, scope, `${path}.gracefulShutDown`);

  const verbosity = m.verbosity ?? DEFAULT_VERBOSITY;
  if (verbosity !== DEFAULT_VERBOSITY) setArg(c, '--v', String(verbosity));

  if (m.featureGates !== undefined && m.featureGates !== null && Object.keys(m.featureGates).length > 0) {
    const read = argsOf(c).find((a) => a.startsWith('--feature-gates='));
    setArg(c, '--feature-gates', mergedFeatureGates(argsOf(c), m.featureGates));
    // the merge reads whether each gate is `true`: the arg is computed from the one it replaces
    if (read !== undefined && scope.derived) {
      const at = argsOf(c).findIndex((a) => a.startsWith('--feature-gates='));
      scope.derived.push({ ...container, path: `${container.path}.args[${at}]`, read });
    }
  }

  const extra = m.additionalArgs ?? {};
  for (const name of sortedKeys(extra)) {
    if (argsOf(c).some((a) => a.startsWith(`${name}=`))) {
      report(scope, `${path}.additionalArgs`, `arg "${name}" already exists in Deployment "${scope.deployment}"`, {
        expected: 'additionalArgs that the container does not already set',
        hint: `set it through its own field (spec.manager / deployment.containers[].args), or drop "${name}" from additionalArgs`,
      });
      continue;
    }
    setArg(c, name, extra[name]!);
  }
}

function setProbePath(c: Json, probe: 'livenessProbe' | 'readinessProbe', endpoint: string): void {
  const httpGet = isPlainObject(c[probe]) ? (c[probe] as Json).httpGet : undefined;
  if (isPlainObject(httpGet)) httpGet.path = `/${endpoint}`;
}

function setLeaderElectionArgs(c: Json, le: LeaderElectionConfiguration, scope: Scope, path: string): void {
  // Every duration is parsed (the operator decodes them all), even when leader election is off.
  const lease = durationSeconds(le.leaseDuration, scope, `${path}.leaseDuration`);
  const renew = durationSeconds(le.renewDeadline, scope, `${path}.renewDeadline`);
  const retry = durationSeconds(le.retryPeriod, scope, `${path}.retryPeriod`);
  if (typeof le.leaderElect !== 'boolean') return;
  setArg(c, '--leader-elect', String(le.leaderElect));
  if (!le.leaderElect) return;
  if (le.resourceName && le.resourceNamespace) setArg(c, '--leader-election-id', `${le.resourceNamespace}/${le.resourceName}`);
  if (lease !== undefined && lease > 0n) setArg(c, '--leader-elect-lease-duration', `${lease}s`);
  if (renew !== undefined && renew > 0n) setArg(c, '--leader-elect-renew-deadline', `${renew}s`);
  if (retry !== undefined && retry > 0n) setArg(c, '--leader-elect-retry-period', `${retry}s`);
}

/**
 * Gates already in the first `--feature-gates=` arg are kept, the user's win, and the list is
 * sorted as `Name=bool` strings (upstream parseFeatureGates + sort.Strings). An existing value
 * counts as enabled only when it is exactly `true`.
 */
export function mergedFeatureGates(args: readonly string[], userGates: Record<string, boolean>): string {
  const gates = new Map<string, boolean>();
  const existing = args.find((a) => a.startsWith('--feature-gates='));
  if (existing !== undefined) {
    for (const gate of existing.slice('--feature-gates='.length).split(',')) {
      const eq = gate.indexOf('=');
      if (eq >= 0) gates.set(gate.slice(0, eq), gate.slice(eq + 1) === 'true');
    }
  }
  for (const [name, value] of Object.entries(userGates)) gates.set(name, value);
  return [...gates]
    .map(([name, value]) => `${name}=${value}`)
    .sort(compareGoStrings)
    .join(',');
}

// ---- args (setArgs) -------------------------------------------------------------------------

function argsOf(c: Json): string[] {
  return Array.isArray(c.args) ? (c.args as string[]) : [];
}

/** Replaces the first `name=…` arg in place, else appends `name=value` (upstream setArgs). */
function setArg(c: Json, name: string, value: string): void {
  c.args = setArgs(argsOf(c), name, value);
}

export function setArgs(args: readonly string[], name: string, value: string): string[] {
  const flag = `${name}=${value}`;
  const at = args.findIndex((a) => a.startsWith(`${name}=`));
  return at < 0 ? [...args, flag] : [...args.slice(0, at), flag, ...args.slice(at + 1)];
}

// ---- Go durations (metav1.Duration → time.ParseDuration, Duration.Round(time.Second)) -------

/** `int(d.Round(time.Second).Seconds())`: halves round away from zero, saturating like Go. */
export function roundedSeconds(nanos: bigint): bigint {
  let remainder = nanos % SECOND;
  let rounded: bigint;
  if (nanos < 0n) {
    remainder = -remainder;
    rounded = remainder + remainder < SECOND ? nanos + remainder : nanos - SECOND + remainder;
    if (rounded < MIN_DURATION) rounded = MIN_DURATION;
  } else {
    rounded = remainder + remainder < SECOND ? nanos - remainder : nanos + SECOND - remainder;
    if (rounded > MAX_DURATION) rounded = MAX_DURATION;
  }
  return rounded / SECOND;
}

function durationSeconds(text: unknown, scope: Scope, path: string): bigint | undefined {
  const nanos = typeof text === 'string' ? parseGoDuration(text) : undefined;
  if (nanos === undefined) {
    report(scope, path, `invalid duration ${JSON.stringify(text ?? null)} for Deployment "${scope.deployment}"`, {
      expected: 'a Go duration: a number and a unit, e.g. "15s", "1m30s", "1h", "500ms"',
      hint: 'units are ns, us, ms, s, m, h; the operator rounds to whole seconds',
    });
    return undefined;
  }
  return roundedSeconds(nanos);
}

// ---- small helpers --------------------------------------------------------------------------

function containersOf(d: KObject): Json[] {
  const spec = isPlainObject(d.spec) ? d.spec : {};
  const template = isPlainObject(spec.template) ? spec.template : {};
  const pod = isPlainObject(template.spec) ? template.spec : {};
  return Array.isArray(pod.containers) ? (pod.containers as unknown[]).filter(isPlainObject) : [];
}

/** The object at `path` inside our own copy, created where missing (Go's typed zero values). */
function objectAt(root: Json, path: string[]): Json {
  let at = root;
  for (const key of path) {
    if (!isPlainObject(at[key])) at[key] = {};
    at = at[key] as Json;
  }
  return at;
}

/** The operator round-trips through typed structs, where `omitempty` drops "" / [] / {}. */
function setOmitEmpty(target: Json, key: string, value: unknown): void {
  const empty = value === '' || (Array.isArray(value) && value.length === 0) || (isPlainObject(value) && Object.keys(value).length === 0);
  if (empty) delete target[key];
  else target[key] = value;
}

function sortedKeys(map: Record<string, unknown>): string[] {
  return Object.keys(map).sort(compareGoStrings);
}

function report(scope: Scope, path: string, message: string, more: Pick<Diagnostic, 'expected' | 'hint'>): void {
  scope.bag.add({ ...scope.origin, path, message, ...more });
}
