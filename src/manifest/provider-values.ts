/**
 * Checks of provider field values that the schema cannot express, made when the manifest is read
 * so that they are reported with every other input problem, at the field's line and column,
 * before anything is fetched: Go durations (the operator's metav1.Duration fields), and warnings
 * for mistakes that render without error but break the controller.
 */
import { isPlainObject } from '../core/kobject.js';
import { parseGoDuration } from '../core/go-duration.js';
import type { Finding } from './documents.js';
import type { FieldPath } from './yaml-source.js';
import { valueAt } from './fields.js';

const MANAGER_DURATIONS: readonly FieldPath[] = [
  ['syncPeriod'],
  ['gracefulShutDown'],
  ['leaderElection', 'leaseDuration'],
  ['leaderElection', 'renewDeadline'],
  ['leaderElection', 'retryPeriod'],
];

/** Each `manager` or `deployment` of the spec (its own and each additional Deployment's), by path from the spec. */
function eachOf(spec: Record<string, unknown>, field: 'manager' | 'deployment'): FieldPath[] {
  const paths: FieldPath[] = [[field]];
  const additional = spec.additionalDeployments;
  if (isPlainObject(additional)) for (const name of Object.keys(additional)) paths.push(['additionalDeployments', name, field]);
  return paths;
}

/** Durations the operator decodes with time.ParseDuration; paths relative to the spec. */
export function checkProviderDurations(spec: Record<string, unknown>): Finding[] {
  const findings: Finding[] = [];
  for (const manager of eachOf(spec, 'manager')) {
    for (const field of MANAGER_DURATIONS) {
      const path = [...manager, ...field];
      const value = valueAt(spec, path);
      if (value === undefined || value === null) continue;
      if (typeof value === 'string' && parseGoDuration(value) !== undefined) continue;
      findings.push({
        path,
        at: 'value',
        message: `invalid duration ${JSON.stringify(value)}`,
        expected: 'a Go duration: a number and a unit, e.g. "15s", "1m30s", "10m", "1h", "500ms"',
        hint: 'units are ns, us, ms, s, m, h; the operator rounds to whole seconds',
      });
    }
  }
  return findings;
}

/**
 * Likely mistakes that are valid input: `deployment.containers[].args` keys are written as they
 * are (upstream setArgs), so a key without `--` becomes an argument the controller rejects and
 * it crash-loops.
 */
export function providerWarnings(spec: Record<string, unknown>): Finding[] {
  const findings: Finding[] = [];
  for (const deployment of eachOf(spec, 'deployment')) {
    const containers = valueAt(spec, [...deployment, 'containers']);
    if (!Array.isArray(containers)) continue;
    containers.forEach((container, index) => {
      const args = isPlainObject(container) ? container.args : undefined;
      if (!isPlainObject(args)) return;
      for (const key of Object.keys(args)) {
        if (key.startsWith('-')) continue;
        findings.push({
          path: [...deployment, 'containers', index, 'args', key],
          at: 'key',
          message: `argument "${key}" has no leading "--": it is written as "${key}=…", which the controller does not parse as a flag`,
          expected: 'args keys with their dashes, as in the container command line',
          hint: `write it as --${key}`,
        });
      }
    });
  }
  return findings;
}

/** A better hint for a schema problem at a provider field, where the usual mistake is known. */
export function providerSchemaHint(path: FieldPath): { hint: string; example?: string } | undefined {
  if (path.length >= 2 && path[0] === 'spec' && path[1] === 'manifestPatches') {
    return {
      hint: 'manifestPatches is a list of strings, each a whole merge patch; write it as a block:',
      example: 'manifestPatches:\n- |\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: …',
    };
  }
  return undefined;
}
