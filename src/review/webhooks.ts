/**
 * Admission webhook call-outs (admissionregistration.k8s.io/v1): webhooks added or removed,
 * and changes to their rules or failurePolicy, webhooks matched by name.
 */
import { compareStrings } from '../core/diagnostics.js';
import { isPlainObject, type KObject } from '../core/kobject.js';
import { sameValue } from './field-paths.js';
import type { WebhookFinding } from './types.js';

type Base = { risk: 'info'; component: string; file: string; object: string };

function webhooksOf(obj: KObject | undefined): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const w of Array.isArray(obj?.webhooks) ? obj.webhooks : []) if (isPlainObject(w) && typeof w.name === 'string') out.set(w.name, w);
  return out;
}

/** Go's default failurePolicy for admissionregistration/v1 is Fail. */
function policy(w: Record<string, unknown>): string {
  return typeof w.failurePolicy === 'string' ? w.failurePolicy : 'Fail';
}

const RULE_FIELDS = ['operations', 'apiGroups', 'apiVersions', 'resources', 'scope'];

/** Values of each rule field across all rules, for a compact `apiVersions +v1beta2` summary. */
function ruleValues(rules: unknown): Map<string, Set<string>> {
  const out = new Map(RULE_FIELDS.map((f) => [f, new Set<string>()]));
  for (const rule of Array.isArray(rules) ? rules : []) {
    if (!isPlainObject(rule)) continue;
    for (const field of RULE_FIELDS) for (const v of [rule[field]].flat()) if (typeof v === 'string') out.get(field)!.add(v);
  }
  return out;
}

const strings = (v: unknown): string[] => [v].flat().filter((x): x is string => typeof x === 'string');

/**
 * What the rules match, one `CREATE group/version/resource` per combination: the values of each
 * field alone can stay the same while rules merged into one match more, as RBAC's regrouping.
 */
function ruleCoverage(rules: unknown): Set<string> {
  const out = new Set<string>();
  for (const rule of Array.isArray(rules) ? rules : []) {
    if (!isPlainObject(rule)) continue;
    const scope = typeof rule.scope === 'string' && rule.scope !== '*' ? ` (scope ${rule.scope})` : '';
    for (const op of strings(rule.operations))
      for (const group of strings(rule.apiGroups))
        for (const version of strings(rule.apiVersions))
          for (const resource of strings(rule.resources)) out.add(`${op} ${group ? group + '/' : ''}${version}/${resource}${scope}`);
  }
  return out;
}

const COVERAGE_SHOWN = 6;

function listed(items: string[]): string {
  const shown = items.slice(0, COVERAGE_SHOWN).join(', ');
  return items.length > COVERAGE_SHOWN ? `${shown}, … (${items.length} in all)` : shown;
}

function describeRules(before: unknown, after: unknown): string {
  const [a, b] = [ruleValues(before), ruleValues(after)];
  const parts: string[] = [];
  for (const field of RULE_FIELDS) {
    const added = [...b.get(field)!].filter((v) => !a.get(field)!.has(v)).sort(compareStrings);
    const removed = [...a.get(field)!].filter((v) => !b.get(field)!.has(v)).sort(compareStrings);
    if (added.length || removed.length) parts.push(`${field} ${[...added.map((v) => '+' + v), ...removed.map((v) => '−' + v)].join(' ')}`);
  }
  if (parts.length) return parts.join('; ');
  const [was, now] = [ruleCoverage(before), ruleCoverage(after)];
  const gained = [...now].filter((c) => !was.has(c)).sort(compareStrings);
  const lost = [...was].filter((c) => !now.has(c)).sort(compareStrings);
  if (gained.length) parts.push(`now also match ${listed(gained)}`);
  if (lost.length) parts.push(`no longer match ${listed(lost)}`);
  return parts.length ? parts.join('; ') : 'regrouped (same operations, groups, versions and resources)';
}

export function webhookFindings(before: KObject | undefined, after: KObject | undefined, base: Base): WebhookFinding[] {
  const a = webhooksOf(before);
  const b = webhooksOf(after);
  const findings: WebhookFinding[] = [];
  for (const name of [...new Set([...a.keys(), ...b.keys()])].sort(compareStrings)) {
    const old = a.get(name);
    const now = b.get(name);
    const at = `${base.object} webhook ${name}`;
    const finding = (change: WebhookFinding['change'], message: string, more: Pick<WebhookFinding, 'from' | 'to'> = {}) =>
      findings.push({ ...base, type: 'webhook', webhook: name, change, ...more, message });
    if (!old || !now) {
      // A whole configuration added or removed is an object change already; call out webhooks only within one.
      if (before && after) finding(old ? 'removed' : 'added', `${at} ${old ? 'removed' : 'added'}`);
      continue;
    }
    if (!sameValue(old.rules, now.rules)) finding('rules', `${at}: rules ${describeRules(old.rules, now.rules)}`);
    if (policy(old) !== policy(now))
      finding('failurePolicy', `${at}: failurePolicy ${policy(old)} → ${policy(now)}`, { from: policy(old), to: policy(now) });
  }
  return findings;
}
