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
  // A run is short: TurboFan inlining the parser's and the emitter's helpers into their callers
  // made its compilations long (86 ms for one parser function) and late, on the core the run
  // shares with the garbage collector. Without inlining, a cold render of the corpus took 12% less
  // wall time and 15% less CPU (README, Performance); a warm process renders no slower. Set before
  // the commands compile, so the bin's code cache is written and read under the same flags.
  // (node:v8 loaded only here: `--help` does not need its 5 ms)
  process.getBuiltinModule('node:v8').setFlagsFromString('--no-turbo-inlining');
  return runEntry(argv);
}
