/** Waiting on concurrent test clients without hanging when one of them fails. */

/**
 * Resolves once `reached()` holds, or once every worker has settled (one that threw would
 * otherwise leave the condition unreachable and the test hanging). Await the workers
 * afterwards to see their errors.
 */
export async function whenReachedOrSettled(
  reached: () => boolean,
  workers: Promise<unknown>[],
): Promise<void> {
  let settled = false;
  Promise.allSettled(workers).then(() => settled = true);
  while (!reached() && !settled) await new Promise((resolve) => setTimeout(resolve, 2));
}
