/**
 * What every executable runs (main.ts, bundle-main.ts and bin-main.ts): help and version texts
 * the build precomputed are printed before anything else loads; everything else goes to the
 * entry (entry.ts), loaded only then, by `runEntry`.
 */
import module from 'node:module';
import { precomputedOutput, printPrecomputed } from './precomputed-help.js';

/** The entry's `runCli`: imported as a module (main.ts, bundle-main.ts) or run as the bin runs it (bin-main.ts). */
export type EntryRunner = (argv: string[]) => Promise<number>;

export async function start(argv: string[], runEntry: EntryRunner): Promise<number> {
  const text = await precomputedOutput(argv);
  if (text !== undefined) {
    printPrecomputed(text);
    return 0;
  }
  // Node 22+ can keep compiled bytecode between runs; a CLI that starts often gains from it.
  (module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  return runEntry(argv);
}
