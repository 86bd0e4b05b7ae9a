/**
 * What every executable runs (main.ts, and bundle-main.ts for the bundles): help and
 * version texts the build precomputed are printed before anything else loads; everything else
 * goes to the entry (entry.ts), loaded only then.
 */
import module from 'node:module';
import { precomputedOutput, printPrecomputed } from './precomputed-help.js';

export async function start(argv: string[]): Promise<number> {
  const text = await precomputedOutput(argv);
  if (text !== undefined) {
    printPrecomputed(text);
    return 0;
  }
  // Node 22+ can keep compiled bytecode between runs; a CLI that starts often gains from it.
  (module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  const { runCli } = await import('./entry.js');
  return runCli(argv);
}
