/**
 * A one-million-triple item exports in every download format while the service process's
 * memory grows by less than 200 MB: the downloads stream, they are never built whole.
 */
import { strict as assert } from "node:assert";
import { DataFactory } from "n3";
import type { Quad } from "n3";
import { openLocalDatabase } from "../../src/local_database.ts";
import { EmbeddedTripleStore } from "../../src/store_embedded/embedded_triple_store.ts";
import { startServiceProcess } from "../support/process.ts";
import { DEMO_COLLECTION, itemQuery } from "../support/service.ts";
import { GROUP_COMMIT } from "../support/config_defaults.ts";

const TRIPLES = 1_000_000;
const LIMIT_BYTES = 200 * 1024 * 1024;
const ITEM = "https://data.example.org/id/document/huge";

function hugeGraph(): Quad[] {
  const { namedNode, literal, blankNode, quad } = DataFactory;
  const quads: Quad[] = [];
  const root = namedNode(ITEM);
  for (let i = 0; quads.length < TRIPLES; i++) {
    const part = i % 3 === 0 ? blankNode(`p${i}`) : namedNode(`${ITEM}/part/${i}`);
    quads.push(quad(root, namedNode("http://purl.org/dc/terms/hasPart"), part));
    quads.push(quad(part, namedNode("http://purl.org/dc/terms/title"), literal(`Part ${i}`, "en")));
    quads.push(
      quad(
        part,
        namedNode("http://example.org/vocab#rank"),
        literal(String(i), namedNode("http://www.w3.org/2001/XMLSchema#integer")),
      ),
    );
    quads.push(quad(part, namedNode("http://example.org/vocab#note"), literal(`note "${i}"\n`)));
  }
  return quads.slice(0, TRIPLES);
}

Deno.test({
  name: "a one-million-triple item streams in every format with bounded memory",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "rcs-huge-" });
    try {
      // Seeded through the store itself: a 1M-triple body is far past the HTTP body limit.
      const db = openLocalDatabase(dataDir);
      const store = new EmbeddedTripleStore(db, undefined, GROUP_COMMIT);
      await store.createItem({
        collection: DEMO_COLLECTION,
        uri: ITEM,
        quads: hugeGraph(),
        hash: "0".repeat(64),
      });
      // This test measures downloads alone: indexing the item is the outbox's business, and
      // building a search document of a million triples would run beside the downloads.
      db.exec("DELETE FROM index_outbox");
      await store.close();
      db.close();

      const service = await startServiceProcess({ SERVICE_DATA_DIR: dataDir });
      try {
        for (const extension of ["nt", "ttl", "n3", "rdf", "jsonld"]) {
          const warm = await fetch(`${service.url}/health`);
          await warm.body?.cancel();
          const before = service.rss();
          let peak = before;
          const sampler = setInterval(() => peak = Math.max(peak, service.rss()), 25);
          const response = await fetch(`${service.url}/api/item.${extension}?${itemQuery(ITEM)}`);
          assert.equal(response.status, 200);
          let bytes = 0;
          let lines = 0;
          for await (const chunk of response.body!) {
            bytes += chunk.byteLength;
            if (extension === "nt") { for (const byte of chunk) if (byte === 10) lines++; }
          }
          clearInterval(sampler);
          peak = Math.max(peak, service.rss());
          const growth = peak - before;
          console.log(
            `${extension}: ${(bytes / 1e6).toFixed(1)} MB streamed, RSS growth ${
              (growth / 1e6).toFixed(1)
            } MB`,
          );
          if (extension === "nt") assert.equal(lines, TRIPLES);
          assert.ok(bytes > TRIPLES * 20, `${extension} output too small: ${bytes}`);
          assert.ok(growth < LIMIT_BYTES, `${extension}: RSS grew ${growth} bytes`);
        }
      } finally {
        await service.stop();
      }
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
