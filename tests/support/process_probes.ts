/**
 * Probes of a service process for the fault suites (tests/support/process.ts starts it):
 * JSON reads, search totals, waiting for the index outbox to drain and for search to see
 * what the store holds.
 */
import { strict as assert } from "node:assert";

/** GET `url` as JSON, with the status. */
export async function getJson(
  url: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

/** How many items of `collection` (URL-encoded) a full-text search for `word` finds. */
export async function searchTotal(
  baseUrl: string,
  collection: string,
  word: string,
): Promise<number> {
  const { status, body } = await getJson(
    `${baseUrl}/api/search?collection=${collection}&q=${word}&size=0`,
  );
  assert.equal(status, 200, JSON.stringify(body));
  return body.total as number;
}

/** Waits until a search for `word` finds `expected` items (the engine refreshes lazily). */
export async function searchFinds(
  baseUrl: string,
  collection: string,
  word: string,
  expected: number,
): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (await searchTotal(baseUrl, collection, word) !== expected) {
    assert.ok(Date.now() < deadline, `search never found ${expected} items`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits until the index outbox is empty. */
export async function outboxDrained(baseUrl: string, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const { body } = await getJson(`${baseUrl}/ready`);
    const checks = body.checks as Record<string, { detail: unknown }>;
    if (checks.outbox.detail === 0) return;
    assert.ok(Date.now() < deadline, `outbox still holds ${checks.outbox.detail} entries`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
