/**
 * Strict value lookups for chart templates. Handlebars' `strict` option checks only a value read
 * alone in a tag (`{{Values.x}}`): a path given to a helper, a block (`#if`, `#each`, `#with`), a
 * hash argument, a sub-expression or a partial is looked up without the check, so a misspelt
 * `{{quote Values.nmae}}` rendered empty. `StrictJavaScriptCompiler` makes every segment of every
 * path one call of the helper `STRICT_LOOKUP`, which the engine registers (engine.ts) and which
 * fails at the path's line and column. Built-in charts are precompiled by the same compiler
 * (scripts/build-charts.mjs), so a run still needs only the Handlebars runtime.
 *
 * A key a chart declares (values.yaml, values.schema.json) and a field the context documents
 * (`substituteFrom`, an unmanaged object's `namespace`) exists even when the map leaves it out:
 * a `null` a user gives deletes the default (Helm's coalescing), and reads as unset, not as a typo.
 */
import type HandlebarsModule from 'handlebars';
import { isValuesMap, type Values } from '../../core/values.js';
import type { ChartContext } from './types.js';

/** The lookup helper's name: a space, so no template calls it by accident (and it is listed nowhere). */
export const STRICT_LOOKUP = 'strict lookup';

/** What the compiled code tells the lookup about one path segment (`line` 1-based, `column` 0-based, as Handlebars counts). */
export interface LookupSite {
  /** The path up to and including the segment, as written (`Values.nmae`, `@root.Values.x`, `item.name`). */
  path: string;
  line?: number;
  column?: number;
  /** Handlebars' own property read (set on a helper's last argument by the runtime). */
  lookupProperty?: (parent: unknown, name: string) => unknown;
}

/** Keys a map may leave out (declared by the chart or the context), and where a Values map sits. */
export interface DeclaredKeys {
  keys: WeakMap<object, ReadonlySet<string>>;
  valuesPaths: WeakMap<object, readonly string[]>;
  /** The JSON pointer of a Values map's node in values.schema.json, when the chart has one. */
  schemaPointers: WeakMap<object, string>;
  /** A map that is an item of a values list: the JSON pointer of the list's `items` in values.schema.json, which declares its keys. */
  listItems: WeakMap<object, string>;
}

/** The JavaScriptCompiler's members this subclass uses (not in Handlebars' type declarations). */
interface CompilerInternals {
  popStack(): unknown;
  push(expr: unknown): void;
  aliasable(name: string): unknown;
  quotedString(text: string): string;
  objectLiteral(obj: Record<string, unknown>): unknown;
  source: { currentLocation?: { start?: { line: number; column: number } } };
}

type CompilerClass = new () => object;

/**
 * Handlebars' JavaScriptCompiler with every path segment looked up through `STRICT_LOOKUP`
 * (`resolvePath` serves context paths, block parameters and `@data`; the base class checks only
 * the last segment of a path read alone, and only with `container.strict`, which cannot name the path).
 */
export function strictJavaScriptCompiler(hb: typeof HandlebarsModule): CompilerClass {
  const Base = (hb as unknown as { JavaScriptCompiler: CompilerClass }).JavaScriptCompiler;
  class StrictJavaScriptCompiler extends Base {
    resolvePath(this: CompilerInternals, type: string, parts: string[], startPartIndex: number): void {
      let stack = this.popStack();
      const start = this.source.currentLocation?.start;
      const lookup = this.aliasable(`helpers[${JSON.stringify(STRICT_LOOKUP)}]`);
      const prefix = type === 'data' ? '@' : '';
      for (let i = startPartIndex; i < parts.length; i++) {
        const site = this.objectLiteral({
          path: this.quotedString(prefix + parts.slice(0, i + 1).join('.')),
          line: start?.line,
          column: start?.column,
        });
        stack = [lookup, '(', stack, ', ', this.quotedString(parts[i]!), ', ', site, ')'];
      }
      this.push(stack);
    }
  }
  // Child programs ({{#if}} bodies) are compiled by `new this.compiler()`.
  (StrictJavaScriptCompiler.prototype as { compiler?: CompilerClass }).compiler = StrictJavaScriptCompiler;
  return StrictJavaScriptCompiler;
}

/** A schema node with its local `$ref`s (`#/$defs/x`) resolved in `root`, a few at most, and its JSON pointer. */
function resolveRef(node: unknown, pointer: string, root: unknown): { node: unknown; pointer: string } {
  for (let depth = 0; depth < 8 && isValuesMap(node) && typeof node.$ref === 'string' && node.$ref.startsWith('#'); depth++) {
    pointer = node.$ref;
    let target: unknown = root;
    for (const raw of node.$ref.slice(1).split('/').slice(1)) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      target = isValuesMap(target) && Object.hasOwn(target, key) ? target[key] : undefined;
    }
    node = target;
  }
  return { node, pointer };
}

/**
 * The keys each map of the chart's context may leave out: every Values map's keys in values.yaml
 * and in values.schema.json's `properties`, and the context's optional fields.
 */
export function declaredKeys(context: ChartContext, defaults: Values, schema: Record<string, unknown> | undefined): DeclaredKeys {
  const declared: DeclaredKeys = {
    keys: new WeakMap(),
    valuesPaths: new WeakMap(),
    schemaPointers: new WeakMap(),
    listItems: new WeakMap(),
  };
  /** `path` undefined: a map inside a list, whose keys only the schema declares (values.yaml's lists are replaced, not merged). */
  const walk = (values: Values, fallback: unknown, schemaNode: unknown, path: string[] | undefined, at: string): void => {
    if (declared.keys.has(values)) return;
    if (path) declared.valuesPaths.set(values, path);
    const { node, pointer } = resolveRef(schemaNode, at, schema);
    if (isValuesMap(node)) declared.schemaPointers.set(values, pointer);
    const properties = isValuesMap(node) && isValuesMap(node.properties) ? node.properties : {};
    const defaultsMap = isValuesMap(fallback) ? fallback : {};
    declared.keys.set(values, new Set([...Object.keys(defaultsMap), ...Object.keys(properties)]));
    for (const [key, value] of Object.entries(values)) {
      const child = `${pointer}/properties/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      const childNode = Object.hasOwn(properties, key) ? properties[key] : undefined;
      if (isValuesMap(value))
        walk(value, Object.hasOwn(defaultsMap, key) ? defaultsMap[key] : undefined, childNode, path && [...path, key], child);
      else if (Array.isArray(value)) {
        // a list's maps: their keys are the schema's items' (Helm reads a key an item lacks as nil)
        const { node: list, pointer: listPointer } = resolveRef(childNode, child, schema);
        const items = isValuesMap(list) ? list.items : undefined;
        for (const item of value)
          if (isValuesMap(item)) {
            declared.listItems.set(item, `${listPointer}/items`);
            walk(item, undefined, items, undefined, `${listPointer}/items`);
          }
      }
    }
  };
  walk(context.Values, defaults, schema, [], '#');
  declared.keys.set(context.Chart, new Set(['description']));
  const selector = new Set(['group', 'kind', 'name', 'namespace']);
  for (const component of context.Components) {
    declared.keys.set(component, new Set(['substituteFrom', 'sopsEncrypted']));
    for (const entry of component.unmanaged) declared.keys.set(entry, selector);
  }
  for (const entry of context.Unmanaged) declared.keys.set(entry, selector);
  return declared;
}
