/**
 * Admission webhook call-outs (admissionregistration.k8s.io/v1): webhooks added or removed,
 * and changes to their rules, selectors, failurePolicy, matchPolicy, sideEffects or timeoutSeconds,
 * webhooks matched by name. A change that widens what the webhook intercepts, or makes its failure
 * block the request, is a warning: while the webhook is down, it rejects writes it did not before.
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

/** admissionregistration/v1 defaults: matchPolicy Equivalent, timeoutSeconds 10. */
const DEFAULTS: Record<string, string> = { matchPolicy: 'Equivalent', timeoutSeconds: '10' };

function setting(w: Record<string, unknown>, field: string): { value: string; defaulted: boolean } {
  const v = w[field];
  if (typeof v === 'string' || typeof v === 'number') return { value: String(v), defaulted: false };
  return { value: DEFAULTS[field] ?? 'unset', defaulted: field in DEFAULTS };
}

/** sideEffects Some or Unknown: the API server rejects a dry-run request the webhook matches (Argo CD's server-side diff among them). */
const DRY_RUN_REJECTED = new Set(['Some', 'Unknown']);

/** Whether the new value widens what the webhook intercepts or makes it block more (a warning). */
function settingWidens(field: string, from: string, to: string): boolean {
  if (field === 'timeoutSeconds') return Number(to) > Number(from);
  if (field === 'matchPolicy') return to === 'Equivalent';
  return DRY_RUN_REJECTED.has(to) && !DRY_RUN_REJECTED.has(from);
}

type Requirement = { key: string; operator: string; values: string[] };

/** A label selector's requirements (matchLabels as `key In [value]`), all of which must hold. */
function requirements(selector: unknown): Requirement[] {
  if (!isPlainObject(selector)) return [];
  const out: Requirement[] = [];
  if (isPlainObject(selector.matchLabels))
    for (const [key, v] of Object.entries(selector.matchLabels)) out.push({ key, operator: 'In', values: [String(v)] });
  for (const e of Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [])
    if (isPlainObject(e) && typeof e.key === 'string' && typeof e.operator === 'string')
      out.push({ key: e.key, operator: e.operator, values: strings(e.values) });
  return out;
}

/** Whether requirement `strict` holds only where `loose` holds too (`strict` at least as narrow). */
function implies(strict: Requirement, loose: Requirement): boolean {
  if (strict.key !== loose.key) return false;
  const within = (a: string[], b: string[]) => a.every((v) => b.includes(v));
  if (loose.operator === 'Exists') return strict.operator === 'Exists' || strict.operator === 'In';
  if (loose.operator === 'In') return strict.operator === 'In' && within(strict.values, loose.values);
  if (loose.operator === 'NotIn')
    return (strict.operator === 'NotIn' && within(loose.values, strict.values)) || strict.operator === 'DoesNotExist';
  return strict.operator === loose.operator;
}

/** Every object `wider` rejects, `narrower` rejects too: `narrower` matches no more than `wider`. */
function noWiderThan(narrower: Requirement[], wider: Requirement[]): boolean {
  return wider.every((w) => narrower.some((n) => implies(n, w)));
}

/** A selector change: `removed` or `widened` (a warning), `narrowed` (info), or `changed` (a warning: it may match what it did not). */
function describeSelector(field: string, before: unknown, after: unknown): { widens: boolean; text: string } {
  const [was, now] = [requirements(before), requirements(after)];
  const what = field === 'namespaceSelector' ? 'namespace' : 'object';
  if (!now.length) return { widens: true, text: `${field} removed: now matches every ${what}` };
  if (noWiderThan(now, was)) return { widens: false, text: `${field} narrowed` };
  if (noWiderThan(was, now)) return { widens: true, text: `${field} widened: now matches more ${what}s` };
  return { widens: true, text: `${field} changed: may match ${what}s it did not` };
}

const SELECTORS = ['namespaceSelector', 'objectSelector'];
const SETTINGS = ['matchPolicy', 'sideEffects', 'timeoutSeconds'];

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
    const finding = (change: WebhookFinding['change'], message: string, more: Pick<WebhookFinding, 'from' | 'to'> = {}, widens = false) =>
      findings.push({ ...base, ...(widens ? { risk: 'warning' as const } : {}), type: 'webhook', webhook: name, change, ...more, message });
    if (!old || !now) {
      // A whole configuration added or removed is an object change already; call out webhooks only within one.
      if (before && after) finding(old ? 'removed' : 'added', `${at} ${old ? 'removed' : 'added'}`);
      continue;
    }
    if (!sameValue(old.rules, now.rules)) finding('rules', `${at}: rules ${describeRules(old.rules, now.rules)}`);
    for (const field of SELECTORS) {
      if (sameValue(requirements(old[field]), requirements(now[field]))) continue;
      const { widens, text } = describeSelector(field, old[field], now[field]);
      finding(field as WebhookFinding['change'], `${at}: ${text}`, {}, widens);
    }
    if (policy(old) !== policy(now)) {
      const blocks = policy(now) === 'Fail' ? ': while the webhook is down, the requests it matches are rejected' : '';
      finding(
        'failurePolicy',
        `${at}: failurePolicy ${policy(old)} → ${policy(now)}${blocks}`,
        { from: policy(old), to: policy(now) },
        !!blocks,
      );
    }
    for (const field of SETTINGS) {
      const [from, to] = [setting(old, field), setting(now, field)];
      if (from.value === to.value) continue;
      const shown = (s: { value: string; defaulted: boolean }) => `${s.value}${s.defaulted ? ' (default)' : ''}`;
      const widens = settingWidens(field, from.value, to.value);
      finding(
        field as WebhookFinding['change'],
        `${at}: ${field} ${shown(from)} → ${shown(to)}`,
        { from: from.value, to: to.value },
        widens,
      );
    }
  }
  return findings;
}
