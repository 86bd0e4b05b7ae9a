import { applySetExpression } from '../../src/core/helm-set.js';
import type { Values } from '../../src/core/values.js';

/** A fresh map from one expression (strvals.Parse / ParseString), for tests of `--set` parsing. */
export function parseSetExpression(expression: string, forceString = false): Values {
  const values: Values = {};
  applySetExpression(values, expression, forceString);
  return values;
}
