/**
 * `selectPages` (keyset pages of a SPARQL listing) against scripted answers: a key listed twice
 * in a row (a row read in both states of a rewrite at "read committed", as Virtuoso does) is
 * listed once; keys that go backwards are still a malformed answer, never a loop.
 */
import { strict as assert } from "node:assert";
import { selectPages } from "../../src/sparql_protocol/bounded_queries.ts";
import type { SparqlHttpClient } from "../../src/sparql_protocol/client.ts";
import { isProblem } from "../../src/errors/domain_error.ts";

/** A client answering each query with the next of `pages` (lists of ?item IRIs). */
function scripted(pages: string[][]): SparqlHttpClient {
  let next = 0;
  return {
    config: { queryUrl: "http://store.invalid/query", timeoutMs: 1000 },
    query: () => {
      const page = pages[next++] ?? [];
      const body = JSON.stringify({
        head: { vars: ["item"] },
        results: { bindings: page.map((value) => ({ item: { type: "uri", value } })) },
      });
      return Promise.resolve(
        new Response(body, { headers: { "content-type": "application/sparql-results+json" } }),
      );
    },
  } as unknown as SparqlHttpClient;
}

async function listed(pages: string[][]): Promise<string[]> {
  const keys: string[] = [];
  const rows = selectPages(
    scripted(pages),
    "item",
    ({ filter, modifiers }) => `SELECT ?item WHERE { ?item ?p ?o ${filter} } ${modifiers}`,
  );
  for await (const row of rows) keys.push(row.get("item")!.value);
  return keys;
}

Deno.test("a key listed twice in a row is listed once", async () => {
  assert.deepEqual(await listed([["urn:a", "urn:b", "urn:b", "urn:c"]]), [
    "urn:a",
    "urn:b",
    "urn:c",
  ]);
});

Deno.test("keys that go backwards are a malformed answer", async () => {
  await assert.rejects(
    listed([["urn:a", "urn:c", "urn:b"]]),
    (error) => isProblem(error, "store-error") && /not in key order at urn:b/.test(String(error)),
  );
});
