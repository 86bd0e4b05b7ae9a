import { CapiGitopsError, type Diagnostic } from '../core/diagnostics.js';

/** What independent resolutions gave: each value (undefined where it failed) and every problem. */
interface Settled<T extends readonly unknown[]> {
  values: { [K in keyof T]: T[K] | undefined };
  problems: Diagnostic[];
}

/**
 * Awaits independent resolutions and keeps both what succeeded and every problem, where
 * `Promise.all` would report whichever failed first and hide the rest. An error that is not a
 * CapiGitopsError (a bug) is thrown as it is.
 */
export async function settleEach<T extends readonly unknown[]>(promises: { readonly [K in keyof T]: Promise<T[K]> }): Promise<Settled<T>> {
  const outcomes = await Promise.allSettled(promises as readonly Promise<unknown>[]);
  const problems: Diagnostic[] = [];
  const values = outcomes.map((outcome) => {
    if (outcome.status === 'fulfilled') return outcome.value;
    if (!(outcome.reason instanceof CapiGitopsError)) throw outcome.reason;
    problems.push(...outcome.reason.diagnostics);
    return undefined;
  });
  return { values: values as Settled<T>['values'], problems };
}
