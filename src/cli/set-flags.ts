/**
 * The chart-value flags in Helm's order (pkg/cli/values/options.go MergeValues: values files,
 * then every --set-json, --set, --set-string, and last --set-literal), for render, check, diff
 * and `import helm-values`.
 */
import type { SetExpression } from '../core/helm-set.js';

export interface SetFlags {
  set?: string[];
  setString?: string[];
  setJson?: string[];
  setLiteral?: string[];
}

export function setExpressions(flags: SetFlags): SetExpression[] {
  return [
    ...(flags.setJson ?? []).map((expression) => ({ expression, forceString: false, kind: 'json' as const })),
    ...(flags.set ?? []).map((expression) => ({ expression, forceString: false })),
    ...(flags.setString ?? []).map((expression) => ({ expression, forceString: true })),
    ...(flags.setLiteral ?? []).map((expression) => ({ expression, forceString: true, kind: 'literal' as const })),
  ];
}

/** The flags as words of a command line, in the order they apply. */
export function setFlagWords(flags: SetFlags): string[] {
  return setExpressions(flags).flatMap((set) => [
    set.kind ? `--set-${set.kind}` : set.forceString ? '--set-string' : '--set',
    set.expression,
  ]);
}
