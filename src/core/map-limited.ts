/**
 * Work over many files, a few at a time: a fleet's tree in the full layout holds tens of thousands
 * of files, and opening them all at once runs out of file descriptors (EMFILE at 200 clusters).
 */

/** Files open at once while a tree is read. */
export const OPEN_FILES = 64;

/**
 * `map` over `items`, at most `limit` calls in flight; the results in the items' order. After a
 * failure no item starts, and every call in flight has ended before the first failure is thrown
 * (a caller that cleans up after it finds nothing still writing). `beforeEach` runs before each
 * item starts (a signal's check).
 */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  map: (item: T) => Promise<R>,
  beforeEach?: () => void,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < items.length && !failed) {
      const i = next++;
      try {
        beforeEach?.();
        results[i] = await map(items[i]!);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const failure = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) throw failure.reason;
  return results;
}
