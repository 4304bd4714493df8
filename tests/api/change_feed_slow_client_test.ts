/**
 * A slow Server-Sent Events client holds no memory in the service (issue 42: "a slow SSE
 * client does not grow the service's memory past a bound (measured)"). The stream is pulled
 * (src/routes/changes.ts): a page of changes is read only once the socket took the one
 * before, so a client that stops reading falls behind by cursor, not by buffer, and when it
 * reads again it gets every change, in order.
 *
 * 60,000 changes of items with long IRIs (about 45 MB of events) wait in the feed; a client asks for the stream and
 * reads nothing for 6 s while the service's RSS is sampled: after a fixed first cost (socket
 * buffers filled, a page read) it must not grow at all, and never near what waits. Then it
 * reads the whole stream.
 */
import { strict as assert } from "node:assert";
import { DataFactory } from "n3";
import { openLocalDatabase } from "../../src/local_database.ts";
import { EmbeddedTripleStore } from "../../src/store_embedded/embedded_triple_store.ts";
import { startServiceProcess } from "../support/process.ts";
import { DEMO_COLLECTION } from "../support/service.ts";
import { GROUP_COMMIT } from "../support/config_defaults.ts";

const { namedNode, literal, quad } = DataFactory;
const CHANGES = 60_000;
/**
 * What a stalled stream may take at all: measured 18 MB whether 7.6, 25 or 51 MB of events
 * waited (a fixed cost: socket buffers, the first pages); a stream that buffered what waits
 * would take all of it.
 */
const LIMIT_BYTES = 32 * 1024 * 1024;
const ITEMS = 1000;
/** Long item IRIs make long events: the backlog is large without seeding more writes. */
const ITEM_BASE = `https://data.example.org/id/feed-slow/${"long-name-".repeat(50)}/`;
const SETTLE_MS = 1000;
const STALL_MS = 5000;
/** What the process may grow by while the stream stays stalled, after the first second. */
const STALLED_LIMIT_BYTES = 4 * 1024 * 1024;

Deno.test({
  name:
    "change feed: a client that stops reading the event stream holds no memory, then gets every change in order",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "rcs-feed-slow-" });
    try {
      // Seeded through the store itself (writes of a few items, again and again): each is
      // a change of the feed; the outbox is cleared, indexing is not measured here.
      const db = openLocalDatabase(dataDir);
      const store = new EmbeddedTripleStore(db, `${dataDir}/rdf-content-service.db`, GROUP_COMMIT);
      for (let round = 0; round < CHANGES / ITEMS; round++) {
        await Promise.all(Array.from({ length: ITEMS }, (_, i) => {
          const uri = `${ITEM_BASE}${i}`;
          const quads = [quad(namedNode(uri), namedNode("urn:p"), literal(`v${round}`))];
          const write = { collection: DEMO_COLLECTION, uri, quads, hash: `h${round}-${i}` };
          return round === 0 ? store.createItem(write) : store.replaceItem(write);
        }));
      }
      db.exec("DELETE FROM index_outbox");
      await store.close();
      db.close();

      const service = await startServiceProcess({ SERVICE_DATA_DIR: dataDir });
      try {
        // The route warmed up (its code compiled, the feed's first page read) before measuring.
        const warm = await fetch(
          `${service.url}/api/changes?collection=${encodeURIComponent(DEMO_COLLECTION)}&limit=1000`,
        );
        assert.equal(warm.status, 200);
        await warm.body?.cancel();
        const before = service.rss();
        // A client that asks and then reads nothing: raw TCP, so no library reads ahead.
        const { hostname, port } = new URL(service.url);
        const connection = await Deno.connect({ hostname, port: Number(port) });
        const request = `GET /api/changes?collection=${encodeURIComponent(DEMO_COLLECTION)}` +
          ` HTTP/1.1\r\nHost: ${hostname}\r\nAccept: text/event-stream\r\n\r\n`;
        await connection.write(new TextEncoder().encode(request));
        let peak = before;
        const sampler = setInterval(() => peak = Math.max(peak, service.rss()), 25);
        // What the first second takes (socket buffers fill, a page is read) is a fixed cost;
        // after it, a stalled stream must not grow at all.
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        const settled = Math.max(peak, service.rss());
        await new Promise((resolve) => setTimeout(resolve, STALL_MS));
        clearInterval(sampler);
        const growth = Math.max(peak, service.rss()) - before;
        const whileStalled = Math.max(peak, service.rss()) - settled;

        // Now it reads: every change, in order, ids increasing.
        let text = "";
        let ids = 0;
        let eventBytes = 0;
        let lastId = "";
        let ordered = true;
        const decoder = new TextDecoder();
        const buffer = new Uint8Array(1 << 16);
        const deadline = Date.now() + 120_000;
        while (ids < CHANGES && Date.now() < deadline) {
          const read = await connection.read(buffer);
          if (read === null) break;
          eventBytes += read;
          text += decoder.decode(buffer.subarray(0, read), { stream: true });
          const end = text.lastIndexOf("\n");
          for (const line of text.slice(0, end + 1).split("\n")) {
            if (!line.startsWith("id: ")) continue;
            const id = line.slice(4);
            // Cursors are opaque; the feed's are fixed-width or numeric: compare both ways.
            if (
              lastId && !(id.length > lastId.length || (id.length === lastId.length && id > lastId))
            ) {
              ordered = false;
            }
            lastId = id;
            ids++;
          }
          text = text.slice(end + 1);
        }
        connection.close();
        const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
        console.log(
          `${CHANGES} changes waiting (${mb(eventBytes)} of events): a stalled stream grew the ` +
            `service by ${mb(growth)} in its first ${SETTLE_MS} ms, then by ${
              mb(whileStalled)
            } in ${STALL_MS} ms; then read ${ids} events`,
        );
        assert.ok(
          whileStalled < STALLED_LIMIT_BYTES,
          `the service grew by ${whileStalled} bytes while the stream stayed stalled`,
        );
        assert.ok(eventBytes > 2 * LIMIT_BYTES / 1.5, `only ${eventBytes} bytes of events`);
        assert.ok(growth < LIMIT_BYTES, `a stalled stream took ${growth} bytes`);
        assert.equal(ids, CHANGES, "every change arrives once the client reads");
        assert.ok(ordered, "the events' ids increase");
      } finally {
        await service.stop();
      }
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
