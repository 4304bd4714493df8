/**
 * The item cache over HTTP on the SPARQL store: item reads are answered from memory (the
 * query endpoint, behind a counting forwarder, sees only the record look-up of each read),
 * a miss reads the item from the store and caches it, an update is visible at once, and a
 * write by another service on the same dataset is never hidden by a cached graph. On the
 * embedded store: `/ready` reports the cache's use.
 */
import { strict as assert } from "node:assert";
import { Parser } from "n3";
import {
  DEMO_COLLECTION,
  itemQuery,
  startTestService,
  storeBackends,
  type TestService,
  uniqueItemUri,
} from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";
import type { CachingTripleStore } from "../../src/store/caching_triple_store.ts";

const DCT = "http://purl.org/dc/terms/";
const C = encodeURIComponent(DEMO_COLLECTION);
const sparql = storeBackends().find((backend) => backend.name === "sparql")!;
if (sparql.skip) console.log(`item cache API suite skipped: ${sparql.skip}`);

function cacheOf(service: TestService) {
  return (service.services.deps.store as CachingTripleStore).cache;
}

async function put(service: TestService, uri: string, title: string): Promise<string> {
  const response = await service.fetch(`/api/item?collection=${C}`, {
    method: "PUT",
    headers: { "Content-Type": "text/turtle" },
    body: `<${uri}> <${DCT}title> "${title}" .`,
  });
  assert.equal(response.status, 201, await response.text());
  return response.headers.get("etag")!;
}

async function update(service: TestService, uri: string, title: string): Promise<string> {
  const response = await service.fetch(`/api/item?${itemQuery(uri)}`, {
    method: "POST",
    headers: { "Content-Type": "text/turtle" },
    body: `<${uri}> <${DCT}title> "${title}" .`,
  });
  assert.equal(response.status, 204, await response.text());
  return response.headers.get("etag")!;
}

/** GETs the item as Turtle; returns its title and ETag. */
async function readTitle(service: TestService, uri: string) {
  const response = await service.fetch(`/api/item?${itemQuery(uri)}`, {
    headers: { Accept: "text/turtle" },
  });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  const quads = new Parser({ format: "Turtle" }).parse(text);
  return { title: quads[0]?.object.value, etag: response.headers.get("etag") };
}

/** An HTTP forwarder in front of a SPARQL query endpoint that counts the queries. */
/**
 * A SPARQL query endpoint that forwards to `target` and counts the queries that name
 * `counted()` (an item URI): the service's background polls (the catalog every second, job
 * sweeps) name no item and are not counted, whenever they fall.
 */
function countingForwarder(target: string, counted: () => string) {
  let queries = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const headers = new Headers(request.headers);
    headers.delete("accept-encoding"); // the answer is passed on as it comes
    const body = request.body ? await request.text() : undefined;
    const url = new URL(request.url);
    const raw = `${url.search} ${body ?? ""}`;
    let sent = raw; // a query sent as application/sparql-query is not encoded
    try {
      sent = decodeURIComponent(raw.replaceAll("+", " "));
    } catch {
      // not form-encoded
    }
    if (counted() !== "" && (sent.includes(counted()) || raw.includes(counted()))) queries++;
    const forwarded = new URL(target);
    forwarded.search = url.search;
    return fetch(forwarded, { method: request.method, headers, body });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/query`,
    queries: () => queries,
    close: () => server.shutdown(),
  };
}

Deno.test({
  name: "[item-cache/sparql] reads come from memory, updates show at once, misses read the store",
  ignore: sparql.skip !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    let uri = "";
    const queryEndpoint = countingForwarder(sparql.env.SERVICE_SPARQL_QUERY_URL, () => uri);
    const service = await startTestService({
      env: { ...sparql.env, SERVICE_SPARQL_QUERY_URL: queryEndpoint.url },
    });
    // Queries sent for `reads`, once the index is no longer reading the item written before.
    // The outbox worker is paused meanwhile: its polls of the store's outbox are queries too.
    const queriesOf = async (reads: () => Promise<void>) => {
      const outbox = service.services.deps.indexOutbox;
      await outbox.drain();
      await outbox.stop();
      try {
        const before = queryEndpoint.queries();
        await reads();
        return queryEndpoint.queries() - before;
      } finally {
        outbox.start();
      }
    };
    try {
      uri = uniqueItemUri("cached");
      const etag = await put(service, uri, "First");
      const hitsBefore = cacheOf(service).stats().hits;
      const queries = await queriesOf(async () => {
        for (let i = 0; i < 3; i++) {
          assert.deepEqual(await readTitle(service, uri), { title: "First", etag });
        }
      });
      assert.equal(queries, 3, "one record look-up per read, the graph from memory");
      assert.equal(cacheOf(service).stats().hits, hitsBefore + 3);
      const notModified = await service.fetch(`/api/item?${itemQuery(uri)}`, {
        headers: { "If-None-Match": etag },
      });
      assert.equal(notModified.status, 304);
      await notModified.body?.cancel();

      // An update files the graph it wrote: visible at once.
      const newEtag = await update(service, uri, "Second");
      assert.notEqual(newEtag, etag);
      assert.deepEqual(await readTitle(service, uri), { title: "Second", etag: newEtag });

      // Without its cache entry the item is read from the store, then cached too.
      cacheOf(service).clear();
      const missed = await queriesOf(async () => {
        assert.deepEqual(await readTitle(service, uri), { title: "Second", etag: newEtag });
      });
      assert.equal(missed, 2, "a miss: the record look-up and the item read");
      const hit = await queriesOf(async () => {
        assert.deepEqual(await readTitle(service, uri), { title: "Second", etag: newEtag });
      });
      assert.equal(hit, 1, "a graph read from the store is cached too");

      await (await service.fetch(`/api/item?${itemQuery(uri)}`, { method: "DELETE" })).body
        ?.cancel();
      // Deleted, with its history kept: 410, never the cached graph.
      await expectProblem(
        await service.fetch(`/api/item?${itemQuery(uri)}`),
        410,
        "item-deleted",
      );
    } finally {
      await service.close();
      await queryEndpoint.close();
    }
  },
});

Deno.test({
  name: "[item-cache/sparql] a write by another service on the same dataset is seen at once",
  ignore: sparql.skip !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const first = await startTestService({ env: sparql.env });
    // The same data directory: the same graphs in Fuseki (sparql_isolation.ts).
    const second = await startTestService({
      env: sparql.env,
      dataDir: first.config.service.data.dir,
    });
    try {
      const uri = uniqueItemUri("shared");
      await put(first, uri, "Mine");
      assert.equal((await readTitle(first, uri)).title, "Mine");
      assert.equal((await readTitle(second, uri)).title, "Mine");
      const theirs = await update(second, uri, "Theirs");
      // The first service still holds "Mine" in its cache, under the old hash.
      assert.deepEqual(await readTitle(first, uri), { title: "Theirs", etag: theirs });
    } finally {
      await second.close();
      await first.close();
    }
  },
});

Deno.test({
  name: "[item-cache/embedded] /ready reports the cache's items, bytes and hit rate",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const service = await startTestService();
    try {
      const ready = async () => {
        const response = await service.fetch("/ready");
        const body = await response.json();
        assert.equal(response.status, 200, JSON.stringify(body));
        return body.checks.itemCache as { ok: boolean; detail: string };
      };
      assert.match((await ready()).detail, /^0 items, 0\.0 of 64\.0 MiB, no reads yet/);
      const uri = uniqueItemUri("ready");
      await put(service, uri, "Counted"); // a write files its graph
      await readTitle(service, uri);
      await readTitle(service, uri);
      const check = await ready();
      assert.equal(check.ok, true);
      assert.match(
        check.detail,
        /^1 items, [0-9.]+ of 64\.0 MiB, 100% hits \(2 hits, 0 misses\), 0 evictions$/,
      );
    } finally {
      await service.close();
    }
  },
});
