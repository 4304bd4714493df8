/**
 * Issue 40: an item's ETag is the hash of the triples a read serves, whatever the store does
 * to literal forms. Items with typed literals in non-canonical forms (integers, decimals,
 * doubles, floats, booleans, date-times) are PUT; then, on a warm cache (a second GET, served
 * by the item cache) and cold (a new service on the same store): the ETag of PUT, the ETag of
 * GET, `POST /api/item/hash` of the body GET served and the hash of the item as the export
 * (the batch read) gives it all agree, and a conditional write with the ETag PUT answered
 * applies. On Virtuoso, which stores such literals as values and writes a boolean `"1"` in
 * JSON results but `"true"` in N-Triples, this failed for every item with a boolean; on the
 * stores that keep forms (Fuseki's in-memory dataset, the embedded store) it holds trivially.
 */
import { strict as assert } from "node:assert";
import { DataFactory, Parser, type Quad, Writer } from "n3";
import type { CachingTripleStore } from "../../src/store/caching_triple_store.ts";
import {
  DEMO_COLLECTION,
  itemQuery,
  startTestService,
  storeBackends,
  type TestService,
  uniqueItemUri,
} from "../support/service.ts";

const C = encodeURIComponent(DEMO_COLLECTION);
const XSD = "http://www.w3.org/2001/XMLSchema#";
const typed = (lexical: string, type: string) => `"${lexical}"^^<${XSD}${type}>`;

/** Literals in forms that are not their datatype's canonical one, a few per item. */
const FORMS = [
  [typed("010", "integer"), typed("1.0E0", "double"), typed("1", "boolean")], // the report's
  [typed("+5", "integer"), typed("-0", "integer"), typed("0", "boolean")],
  [typed("1.50", "decimal"), typed("-.5", "decimal"), typed("01.000", "decimal")],
  [typed("1e3", "double"), typed("1.5E1", "float"), typed("123456789.123", "double")],
  [typed("2024-01-01T10:00:00.000Z", "dateTime"), typed("2024-01-01T12:00:00+02:00", "dateTime")],
  [typed("007", "long"), typed("false", "boolean"), typed("true", "boolean")],
  [typed("0042", "int"), typed("2024-02-29T00:00:00.500Z", "dateTime"), typed("1", "boolean")],
  // Canonical forms and strings: kept by every store, the ETag is the body's own hash.
  [typed("42", "integer"), typed("true", "boolean"), `"plain"`, `"chat"@fr`],
];

/** The item's N-Triples: the forms on the item and on a blank node it points to. */
function body(uri: string, forms: string[]): string {
  return forms.map((form, n) => `<${uri}> <urn:p${n}> ${form} .`).join("\n") +
    `\n<${uri}> <urn:part> _:part .\n_:part <urn:v> ${forms[0]} .\n`;
}

function send(service: TestService, uri: string, init: RequestInit): Promise<Response> {
  return service.fetch(`/api/item?${itemQuery(uri)}`, init);
}

/** PUT creates, POST replaces. */
function write(
  service: TestService,
  method: "PUT" | "POST",
  uri: string,
  text: string,
  headers = {},
) {
  return send(service, uri, {
    method,
    headers: { "Content-Type": "application/n-triples", ...headers },
    body: text,
  });
}

function etagOf(response: Response): string {
  const etag = response.headers.get("etag");
  assert.ok(etag, `no ETag (status ${response.status})`);
  return etag.replaceAll('"', "");
}

/** The hash the service computes for `text` (what a client checks a body against). */
async function hashOf(service: TestService, text: string): Promise<string> {
  const response = await service.fetch(`/api/item/hash?collection=${C}`, {
    method: "POST",
    headers: { "Content-Type": "application/n-triples" },
    body: text,
  });
  const answer = await response.json();
  assert.equal(response.status, 200, JSON.stringify(answer));
  return answer.hash;
}

/** GET: the ETag, and the hash of the body served. */
async function read(service: TestService, uri: string) {
  const response = await service.fetch(`/api/item.nt?${itemQuery(uri)}`);
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return { etag: etagOf(response), text, hashed: await hashOf(service, text) };
}

/** Each item's hash as the export (the batch read) serves it. */
async function exported(service: TestService): Promise<Map<string, string>> {
  const response = await service.fetch(`/api/admin/export?collection=${C}`, {
    headers: { Accept: "application/n-quads" },
  });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  const byItem = new Map<string, Quad[]>();
  for (
    const { subject, predicate, object, graph } of new Parser({ format: "N-Quads" }).parse(text)
  ) {
    const triples = byItem.get(graph.value) ?? [];
    byItem.set(graph.value, [...triples, DataFactory.quad(subject, predicate, object)]);
  }
  const hashes = new Map<string, string>();
  for (const [item, quads] of byItem) {
    hashes.set(
      item,
      await hashOf(service, new Writer({ format: "N-Triples" }).quadsToString(quads)),
    );
  }
  return hashes;
}

function cacheHits(service: TestService): number {
  return (service.services.deps.store as CachingTripleStore).cache.stats().hits;
}

for (const backend of storeBackends({ allStores: true })) {
  Deno.test({
    name: `[literal forms/${backend.name}] ETags hash what reads serve, warm and cold`,
    ignore: backend.skip !== undefined,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const dataDir = await Deno.makeTempDir({ prefix: "rcs-literal-forms-" });
      const items = FORMS.map((forms) => ({ uri: uniqueItemUri("forms"), forms, etag: "" }));
      let service = await startTestService({ env: backend.env, dataDir });
      try {
        for (const item of items) {
          const created = await write(service, "PUT", item.uri, body(item.uri, item.forms));
          assert.equal(created.status, 201, await created.text());
          item.etag = etagOf(created);
          const first = await read(service, item.uri);
          assert.equal(first.etag, item.etag, `GET's ETag is PUT's: ${item.forms}`);
          assert.equal(first.hashed, item.etag, `the body served hashes to it:\n${first.text}`);
          const hits = cacheHits(service);
          const warm = await read(service, item.uri);
          assert.ok(cacheHits(service) > hits, "the second read is the item cache's");
          assert.deepEqual(warm, first);
        }
        // A store that keeps forms stores the body as sent: its ETag is the body's hash.
        const canonical = items.at(-1)!;
        assert.equal(canonical.etag, await hashOf(service, body(canonical.uri, canonical.forms)));
        const batch = await exported(service);
        for (const item of items) assert.equal(batch.get(item.uri), item.etag, "as exported");
      } finally {
        await service.close();
      }

      // Cold: a new service, an empty cache, the same store.
      service = await startTestService({ env: backend.env, dataDir });
      try {
        for (const item of items) {
          const cold = await read(service, item.uri);
          assert.equal(cold.etag, item.etag, `after a restart: ${item.forms}`);
          assert.equal(cold.hashed, item.etag, `after a restart:\n${cold.text}`);
        }
        const batch = await exported(service);
        for (const item of items) assert.equal(batch.get(item.uri), item.etag, "as exported");

        // Conditional requests with the ETag PUT answered: a stale one fails, it applies.
        const [first, second] = items;
        const stale = await write(service, "POST", first.uri, body(first.uri, first.forms), {
          "If-Match": `"${"0".repeat(64)}"`,
        });
        assert.equal(stale.status, 412, await stale.text());
        const replaced = await write(service, "POST", first.uri, body(first.uri, second.forms), {
          "If-Match": `"${first.etag}"`,
        });
        assert.equal(replaced.status, 204, await replaced.text());
        const after = await read(service, first.uri);
        assert.equal(after.etag, etagOf(replaced));
        assert.equal(after.hashed, after.etag);
        for (const item of items) {
          const etag = item === first ? after.etag : item.etag;
          const deleted = await send(service, item.uri, {
            method: "DELETE",
            headers: { "If-Match": `"${etag}"` },
          });
          assert.equal(deleted.status, 204, await deleted.text());
        }
      } finally {
        await service.close();
        await Deno.remove(dataDir, { recursive: true }).catch(() => {});
      }
    },
  });
}
