import { CapiGitopsError, type Diagnostic } from '../model/diagnostics.js';

/**
 * Awaits two independent resolutions and reports the problems of both in one error, where
 * `Promise.all` would report whichever failed first and hide the other.
 */
export async function settleAll<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const outcomes = await Promise.allSettled([a, b]);
  const problems: Diagnostic[] = [];
  for (const outcome of outcomes) {
    if (outcome.status === 'fulfilled') continue;
    if (!(outcome.reason instanceof CapiGitopsError)) throw outcome.reason;
    problems.push(...outcome.reason.diagnostics);
  }
  if (problems.length > 0) throw new CapiGitopsError(problems);
  return [(outcomes[0] as PromiseFulfilledResult<A>).value, (outcomes[1] as PromiseFulfilledResult<B>).value];
}
