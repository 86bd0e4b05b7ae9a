/**
 * What a chart read from a directory needs and a precompiled built-in chart does not: Handlebars'
 * template compiler and ajv's schema compiler (with source-map and fast-uri, about 330 KB).
 * `loadChart` loads this module with `import()`, so a render with a built-in chart never parses them.
 */
import { createRequire } from 'node:module';
import type HandlebarsModule from 'handlebars';
import type { Ajv as AjvClass } from 'ajv';

const require = createRequire(import.meta.url);

export interface ChartCompilers {
  handlebars: typeof HandlebarsModule;
  Ajv: typeof AjvClass;
}

export const CHART_COMPILERS: ChartCompilers = {
  handlebars: require('handlebars') as typeof HandlebarsModule,
  Ajv: (require('ajv') as { Ajv: typeof AjvClass }).Ajv,
};
