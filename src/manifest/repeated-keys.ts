/**
 * A key a values document gives twice in one map, which Helm reads as the last one: Helm reads a
 * values file with sigs.k8s.io/yaml's Unmarshal over go-yaml v2, whose decoder (decode.go
 * setMapIndex, not strict) sets each key in turn (helm pkg/chart/common/values.go ReadValues; Flux's
 * helm-controller and Argo CD hand values to the same). documentValue keeps the last too; these
 * warnings say so at the repeat.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import { formatFieldPath } from './fields.js';
import { positionAt, repeatedKeys, type SourceDocument } from './yaml-source.js';

/**
 * One warning per repeated key, at the repeat; `field`: the string field the document was held
 * in (an Argo CD `helm.values`), whose own lines have no position: the warning is at the field and
 * names the lines of the value.
 */
export function repeatedKeyWarnings(
  source: SourceDocument,
  field?: Pick<Diagnostic, 'file' | 'line' | 'column' | 'object' | 'path'>,
): Diagnostic[] {
  return repeatedKeys(source).map(({ path, first, again }) => {
    const firstLine = positionAt(source, first).line;
    const expected = 'each key once in its map';
    if (!field)
      return {
        ...positionAt(source, again),
        path: formatFieldPath(path),
        message: `given again in its map (first at line ${firstLine}): Helm reads the last one, this one, and so does capi-gitops`,
        expected,
        hint: `keep the value you mean: delete line ${firstLine}'s entry to keep this one, or this one to keep line ${firstLine}'s`,
      };
    const againLine = positionAt(source, again).line;
    return {
      ...field,
      message: `line ${againLine} of the value gives ${formatFieldPath(path)} again (first at line ${firstLine}): Helm reads the last one, and so does capi-gitops`,
      expected,
      hint: `keep the value you mean: delete line ${firstLine} or line ${againLine} of the value (with the lines below it that belong to it)`,
    };
  });
}
