/**
 * Kubernetes label selectors (metav1.LabelSelector) as the API machinery evaluates them
 * (apimachinery `LabelSelectorAsSelector`): matchLabels and every matchExpression must hold.
 */
import type { LabelSelector, LabelSelectorRequirement } from '../manifest/types.js';

const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A label key: `[prefix/]name`, name at most 63 characters, prefix a DNS subdomain. */
export function isValidLabelKey(key: string): boolean {
  const slash = key.indexOf('/');
  const name = slash < 0 ? key : key.slice(slash + 1);
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) return false;
  return name.length <= 63 && NAME.test(name);
}

/** A label value: empty, or at most 63 alphanumerics with `-_.` inside. */
export function isValidLabelValue(value: string): boolean {
  return value === '' || (value.length <= 63 && NAME.test(value));
}

/** What is wrong with a selector, one sentence each; empty when it is valid. */
export function selectorProblems(selector: LabelSelector): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (!isValidLabelKey(key)) problems.push(`matchLabels key "${key}" is not a valid label key`);
    if (!isValidLabelValue(value)) problems.push(`matchLabels value "${value}" of "${key}" is not a valid label value`);
  }
  (selector.matchExpressions ?? []).forEach((requirement, index) => {
    const where = `matchExpressions[${index}]`;
    if (!isValidLabelKey(requirement.key)) problems.push(`${where}: key "${requirement.key}" is not a valid label key`);
    if (!(OPERATORS as readonly string[]).includes(requirement.operator)) {
      problems.push(`${where}: operator "${requirement.operator}" is not one of ${OPERATORS.join(', ')}`);
      return;
    }
    const values = requirement.values ?? [];
    const needsValues = requirement.operator === 'In' || requirement.operator === 'NotIn';
    if (needsValues && values.length === 0) problems.push(`${where}: operator ${requirement.operator} needs at least one value`);
    if (!needsValues && values.length > 0) problems.push(`${where}: operator ${requirement.operator} takes no values`);
    for (const value of values) {
      if (!isValidLabelValue(value)) problems.push(`${where}: value "${value}" is not a valid label value`);
    }
  });
  return problems;
}

function requirementHolds(labels: Record<string, string>, requirement: LabelSelectorRequirement): boolean {
  const present = Object.hasOwn(labels, requirement.key);
  switch (requirement.operator) {
    case 'In':
      return present && (requirement.values ?? []).includes(labels[requirement.key]);
    case 'NotIn':
      return !present || !(requirement.values ?? []).includes(labels[requirement.key]);
    case 'Exists':
      return present;
    case 'DoesNotExist':
      return !present;
  }
}

/** True when the labels satisfy the selector; an empty selector matches everything. */
export function matchesSelector(labels: Record<string, string>, selector: LabelSelector): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (!Object.hasOwn(labels, key) || labels[key] !== value) return false;
  }
  return (selector.matchExpressions ?? []).every((requirement) => requirementHolds(labels, requirement));
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The selector in kubectl's `-l` syntax (`a=b,c in (x,y),!d`), requirements sorted by key. */
export function formatSelector(selector: LabelSelector): string {
  const parts: { key: string; text: string }[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) parts.push({ key, text: `${key}=${value}` });
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const list = [...values].sort(byCodeUnits).join(',');
    const text =
      operator === 'In' ? `${key} in (${list})` : operator === 'NotIn' ? `${key} notin (${list})` : operator === 'Exists' ? key : `!${key}`;
    parts.push({ key, text });
  }
  if (parts.length === 0) return '<everything>';
  return parts
    .sort((a, b) => byCodeUnits(a.key, b.key) || byCodeUnits(a.text, b.text))
    .map((part) => part.text)
    .join(',');
}
