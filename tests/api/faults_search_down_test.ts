/**
 * Fault suite, search engine down during writes (OpenSearch).
 *
 * The network to the real OpenSearch node is cut by a loopback proxy in the middle of a
 * stream of concurrent creates, updates and deletes. Every write still succeeds; `/ready`
 * shows the engine down and the outbox backlog; searches answer 503. Once the network is
 * back the backlog drains and the index holds exactly the items that exist, each once and
 * at its latest version: nothing lost, nothing duplicated, no deleted item left behind.
 *
 * (tests/api/outbox_test.ts covers writes made while the engine is already down, one at a
 * time; here the outage starts under concurrent load and in-flight bulk requests are cut.)
 */
import { strict as assert } from "node:assert";
import {
  DEMO_COLLECTION,
  itemQuery,
  startTestService,
  type TestService,
} from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";
import { LoopbackProxy } from "../support/loopback_proxy.ts";
import {
  deleteIndicesWithPrefix,
  openSearchUrl,
  reportOpenSearchSkipped,
  uniqueIndexPrefix,
} from "../support/opensearch.ts";
import { searchWord, uniqueWord, versionBody } from "../support/item_versions.ts";
import { whenReachedOrSettled } from "../support/workers.ts";

const url = openSearchUrl();
if (!url) reportOpenSearchSkipped();

const TRIPLES = 20;
const WRITERS = 8;

function itemUri(run: string, n: number): string {
  return `https://data.example.org/id/fault/${run}/doc-${n}`;
}

/** Sends one item write; returns the new ETag (unquoted), or undefined for a delete. */
async function write(
  service: TestService,
  method: "PUT" | "POST" | "DELETE",
  uri: string,
  body?: string,
): Promise<string | undefined> {
  const query = method === "PUT"
    ? `collection=${encodeURIComponent(DEMO_COLLECTION)}`
    : itemQuery(uri);
  const response = await service.fetch(`/api/item?${query}`, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/n-triples" },
    body,
  });
  const text = await response.text();
  assert.equal(response.status, method === "PUT" ? 201 : 204, `${method} ${uri}: ${text}`);
  return response.headers.get("etag")?.replaceAll('"', "");
}

interface Readiness {
  status: number;
  checks: Record<string, { ok: boolean; detail: string | number }>;
}

async function readiness(service: TestService): Promise<Readiness> {
  const response = await service.fetch("/ready");
  return { status: response.status, checks: (await response.json()).checks };
}

Deno.test({
  name: "[faults/search-down/opensearch] cut during concurrent writes: writes succeed, the " +
    "backlog drains, nothing lost or duplicated",
  ignore: url === undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const proxy = LoopbackProxy.to(url!);
    proxy.open();
    const prefix = uniqueIndexPrefix("faults-search-down");
    const service = await startTestService({
      env: {
        SERVICE_SEARCH_BACKEND: "opensearch",
        SERVICE_OPENSEARCH_URL: `http://127.0.0.1:${proxy.port}`,
        SERVICE_OPENSEARCH_INDEX_PREFIX: prefix,
      },
    });
    const outbox = service.services.deps.indexOutbox;
    const run = crypto.randomUUID();
    const word = uniqueWord();
    /** The ETag of every item that exists, as its last acknowledged write left it. */
    const current = new Map<string, string>();
    try {
      await Promise.all(Array.from({ length: 60 }, async (_, n) => {
        const uri = itemUri(run, n);
        current.set(uri, (await write(service, "PUT", uri, versionBody(uri, 0, word, TRIPLES)))!);
      }));
      await outbox.drain();
      assert.equal((await searchWord(service.url, word)).length, 60);

      // Items 0–19 are updated, 20–39 deleted, 40–59 updated twice, 60–119 created.
      const operations: (() => Promise<unknown>)[] = [];
      for (let n = 0; n < 120; n++) {
        const uri = itemUri(run, n);
        const body = (version: number) => versionBody(uri, version, word, TRIPLES);
        if (n < 20) {
          operations.push(async () =>
            current.set(uri, (await write(service, "POST", uri, body(1)))!)
          );
        } else if (n < 40) {
          operations.push(async () => {
            await write(service, "DELETE", uri);
            current.delete(uri);
          });
        } else if (n < 60) {
          operations.push(async () => {
            await write(service, "POST", uri, body(1));
            current.set(uri, (await write(service, "POST", uri, body(2)))!);
          });
        } else {
          operations.push(async () =>
            current.set(uri, (await write(service, "PUT", uri, body(0)))!)
          );
        }
      }
      // Interleave the kinds so that each is under way when the network goes.
      const order = operations.map((_, k) => operations[(k % 6) * 20 + Math.floor(k / 6)]);
      let next = 0;
      let done = 0;
      const writers = Array.from({ length: WRITERS }, async () => {
        while (next < order.length) {
          await order[next++]();
          done++;
        }
      });
      await whenReachedOrSettled(() => done >= 30, writers);
      proxy.close();
      const doneAtCut = done;
      await Promise.all(writers);
      assert.ok(doneAtCut < order.length, "writes went on after the cut");

      // Down: every write was acknowledged, the backlog is kept and reported.
      // Search down degrades this instance; it still serves its core (the store).
      const down = await readiness(service);
      assert.equal(down.status, 200);
      assert.equal(down.checks.search.ok, false);
      assert.equal(down.checks.store.ok, true);
      assert.ok(Number(down.checks.outbox.detail) > 0, `backlog: ${down.checks.outbox.detail}`);
      const search = await service.fetch(
        `/api/search?collection=${encodeURIComponent(DEMO_COLLECTION)}&q=${word}`,
      );
      await expectProblem(search, 503, "search-unavailable");
      const deadline = Date.now() + 15_000;
      while (outbox.lastError() === undefined) {
        assert.ok(Date.now() < deadline, "the outbox worker met the outage");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      console.log(
        `cut after ${doneAtCut} of ${order.length} writes; backlog ${down.checks.outbox.detail}`,
      );

      proxy.open();
      await outbox.drain(60_000);
      const hits = await searchWord(service.url, word);
      const uris = hits.map((hit) => hit.uri);
      assert.equal(new Set(uris).size, uris.length, "no item is indexed twice");
      assert.deepEqual(uris.sort(), [...current.keys()].sort());
      assert.equal(uris.length, 100);
      for (const hit of hits) {
        assert.equal(
          hit.document.hash,
          current.get(hit.uri),
          `${hit.uri} is at its latest version`,
        );
      }
      const up = await readiness(service);
      assert.equal(up.status, 200);
      assert.deepEqual(up.checks.outbox, { ok: true, detail: 0 });
    } finally {
      await service.close();
      proxy.close();
      await deleteIndicesWithPrefix(url!, prefix);
    }
  },
});
