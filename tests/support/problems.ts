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
