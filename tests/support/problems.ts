/** Assertions on problem+json responses. */
import { strict as assert } from "node:assert";

/** Asserts the response is a problem with this status and type slug; returns its body. */
export async function expectProblem(
  response: Response,
  status: number,
  slug: string,
): Promise<Record<string, unknown>> {
  const text = await response.text();
  assert.equal(
    response.status,
    status,
    `expected ${status} ${slug}, got ${response.status}: ${text}`,
  );
  assert.match(response.headers.get("content-type") ?? "", /^application\/problem\+json/);
  const body = JSON.parse(text);
  assert.equal(body.type, `/problems/${slug}`, text);
  assert.equal(body.status, status);
  assert.equal(typeof body.title, "string");
  assert.equal(typeof body.detail, "string");
  assert.ok(!/\bat .*\.ts:\d+/.test(text), "no stack trace in a problem");
  return body;
}

/**
 * Asserts a write failed as a store outage may make it fail: 503 `store-unavailable`
 * (nothing was sent) or 503 `write-outcome-unknown` (sent, outcome unknown: with
 * Retry-After). Returns the slug.
 */
export async function expectStoreWriteFailure(response: Response): Promise<string> {
  const retryAfter = response.headers.get("retry-after");
  const text = await response.text();
  assert.equal(response.status, 503, text);
  const slug = String(JSON.parse(text).type).replace("/problems/", "");
  assert.ok(["store-unavailable", "write-outcome-unknown"].includes(slug), text);
  if (slug === "write-outcome-unknown") {
    assert.ok(Number(retryAfter) > 0, `write-outcome-unknown without Retry-After: ${text}`);
    assert.match(text, /ETag/);
  }
  return slug;
}
