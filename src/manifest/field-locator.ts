/**
 * Later stages report problems of a provider by field path (`spec.deployment.containers[0].name`);
 * this puts them at that field's line and column in the manifest instead of the object's start.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import type { ProviderObject } from './types.js';
import type { FieldPath } from './yaml-source.js';

const SEGMENT = /([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/gy;

/** The inverse of formatFieldPath; undefined for text that is not a field path. */
function parseFieldPath(text: string): FieldPath | undefined {
  const path: (string | number)[] = [];
  SEGMENT.lastIndex = 0;
  let at = 0;
  while (at < text.length) {
    if (text[at] === '.' && path.length > 0) at++;
    SEGMENT.lastIndex = at;
    const match = SEGMENT.exec(text);
    if (!match) return undefined;
    if (match[1] !== undefined) path.push(match[1]);
    else if (match[2] !== undefined) path.push(Number(match[2]));
    else path.push(JSON.parse(match[3]!) as string);
    at = SEGMENT.lastIndex;
  }
  return path;
}

/** The diagnostic at its field's position when it is about one of `providers` and the field is in the manifest. */
export function atProviderField(
  diagnostic: Diagnostic,
  providers: readonly ProviderObject[],
  objectName: (p: ProviderObject) => string,
): Diagnostic {
  if (diagnostic.path === undefined || diagnostic.object === undefined) return diagnostic;
  const provider = providers.find((p) => objectName(p) === diagnostic.object);
  const path = parseFieldPath(diagnostic.path);
  if (!provider?.fieldPosition || !path || provider.position.file !== diagnostic.file || provider.position.line !== diagnostic.line)
    return diagnostic;
  return { ...diagnostic, ...provider.fieldPosition(path) };
}
