/**
 * What every executable runs (main.ts, and bundle-main.ts for the bundles): a render
 * the output cache can serve is served before commander or any command module loads.
 */
import { lookupOutputCache } from './output-cache.js';
import { guardOutputStreams } from './output.js';
import { registerEnvironmentSecrets } from '../core/redact.js';

export async function runCli(argv: string[]): Promise<number> {
  // The cache is an accelerator: any problem with it means rendering as usual.
  const lookup = await lookupOutputCache(argv).catch(() => undefined);
  if (lookup?.replay) {
    guardOutputStreams();
    registerEnvironmentSecrets();
    if (await lookup.replay().catch(() => false)) return 0;
  }
  const { main } = await import('./program.js');
  return main(argv, lookup);
}
