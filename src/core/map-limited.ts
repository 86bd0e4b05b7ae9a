/**
 * Files read a few at a time: a fleet's tree in the full layout holds tens of thousands of
 * files, and opening them all at once runs out of file descriptors (EMFILE at 200 clusters).
 */

/** Files open at once while a tree is read. */
export const OPEN_FILES = 64;

/** `map` over `items`, at most `limit` calls in flight; the results in the items' order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, map: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await map(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
