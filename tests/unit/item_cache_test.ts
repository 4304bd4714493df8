/**
 * The item cache on its own (LRU by bytes, lookups by hash) and the caching store around
 * the real embedded store: hits by ETag, write-through, invalidation, and no graph cached
 * under a hash it does not have.
 */
import { strict as assert } from "node:assert";
import { DataFactory, type Quad } from "n3";
import { estimateQuadBytes, ItemCache } from "../../src/store/item_cache.ts";
import { CachingTripleStore } from "../../src/store/caching_triple_store.ts";
import { EmbeddedTripleStore } from "../../src/store_embedded/embedded_triple_store.ts";
import { openLocalDatabase } from "../../src/local_database.ts";
import { canonicalHash } from "../../src/rdf/canonical_hash.ts";
import type { ItemRecord, TripleStore } from "../../src/store/triple_store.ts";
import { GROUP_COMMIT } from "../support/config_defaults.ts";

const { namedNode, literal, quad, blankNode } = DataFactory;
const COLLECTION = "https://data.example.org/collection/c";
const TITLE = namedNode("http://purl.org/dc/terms/title");

function titled(uri: string, ...titles: string[]): Quad[] {
  return titles.map((title) => quad(namedNode(uri), TITLE, literal(title)));
}

function bytesOf(uri: string, quads: Quad[]): number {
  return uri.length * 2 + quads.reduce((sum, q) => sum + estimateQuadBytes(q), 0);
}

async function collect(quads: AsyncIterable<Quad>): Promise<Quad[]> {
  const all: Quad[] = [];
  for await (const q of quads) all.push(q);
  return all;
}

/** One read of the item: the record it came with and its quads. */
async function read(store: TripleStore, uri: string, known?: ItemRecord) {
  const { record, quads } = await store.readItem(COLLECTION, uri, known);
  return { record, quads: await collect(quads) };
}

const hash = async (quads: Quad[]) => (await canonicalHash(quads)).hash;

Deno.test("item cache: a hit needs the same URI and the same hash", () => {
  const cache = new ItemCache({ maxBytes: 1_000_000 });
  const quads = titled("urn:a", "A");
  assert.equal(cache.set("urn:a", "h1", quads), true);
  assert.equal(cache.get("urn:a", "h1"), quads);
  assert.equal(cache.get("urn:a", "h2"), undefined, "another hash is another graph");
  assert.equal(cache.get("urn:b", "h1"), undefined);
  const other = titled("urn:a", "A2");
  cache.set("urn:a", "h2", other);
  assert.equal(cache.get("urn:a", "h1"), undefined, "one graph per item");
  assert.equal(cache.get("urn:a", "h2"), other);
  assert.deepEqual(
    { ...cache.stats(), bytes: 0 },
    { hits: 2, misses: 3, entries: 1, bytes: 0, evictions: 0 },
  );
  assert.equal(cache.stats().bytes, bytesOf("urn:a", other));
});

Deno.test("item cache: evicts the least recently used entries to stay under maxBytes", () => {
  const item = (n: number) => titled(`urn:item:${n}`, `title ${n}`);
  const size = bytesOf("urn:item:0", item(0));
  // Room for three entries; no item is refused for its size.
  const cache = new ItemCache({ maxBytes: size * 3 + size / 2, maxItemBytes: size * 2 });
  for (const n of [0, 1, 2]) cache.set(`urn:item:${n}`, `h${n}`, item(n));
  assert.ok(cache.get("urn:item:0", "h0"), "0 is now the most recently used");
  cache.set("urn:item:3", "h3", item(3));
  assert.equal(cache.get("urn:item:1", "h1"), undefined, "1 was the least recently used");
  for (const n of [0, 2, 3]) assert.ok(cache.get(`urn:item:${n}`, `h${n}`), `item ${n}`);
  const stats = cache.stats();
  assert.equal(stats.entries, 3);
  assert.equal(stats.evictions, 1);
  assert.ok(stats.bytes <= cache.maxBytes);
});

Deno.test("item cache: items over maxItemBytes are not cached; invalidate and clear", () => {
  const cache = new ItemCache({ maxBytes: 100_000, maxItemBytes: 2_000 });
  const large = titled("urn:large", ...Array.from({ length: 20 }, (_, i) => `t${i}`));
  assert.ok(bytesOf("urn:large", large) > 2_000);
  assert.equal(cache.set("urn:large", "h", large), false);
  assert.equal(cache.get("urn:large", "h"), undefined);
  cache.set("urn:small", "h", titled("urn:small", "s"));
  assert.equal(cache.set("urn:small", "h2", large), false, "too large: the old graph goes");
  assert.equal(cache.get("urn:small", "h"), undefined);
  cache.set("urn:a", "h", titled("urn:a", "a"));
  cache.set("urn:b", "h", titled("urn:b", "b"));
  cache.invalidate("urn:a");
  assert.equal(cache.get("urn:a", "h"), undefined);
  assert.ok(cache.get("urn:b", "h"));
  cache.clear();
  assert.equal(cache.get("urn:b", "h"), undefined);
  assert.equal(cache.stats().bytes, 0);
  assert.equal(new ItemCache({ maxBytes: 1600 }).maxItemBytes, 100, "default: a sixteenth");
});

Deno.test("item cache: bulk writes stay in a small probation segment and never flush readers' entries", () => {
  const item = (n: number) => titled(`urn:item:${n}`, `title ${n}`);
  const size = bytesOf("urn:item:0", item(0));
  // Main room for four entries; probation room for two.
  const cache = new ItemCache({
    maxBytes: size * 4 + size / 2,
    maxItemBytes: size * 2,
    maxProbationBytes: size * 2 + size / 2, // two entries (bulk URIs are a little longer)
  });
  for (const n of [0, 1]) cache.set(`urn:item:${n}`, `h${n}`, item(n));
  for (let n = 100; n < 110; n++) {
    assert.equal(cache.set(`urn:item:${n}`, `h${n}`, item(n), { probation: true }), true);
  }
  for (const n of [0, 1]) assert.ok(cache.get(`urn:item:${n}`, `h${n}`), `reader entry ${n} kept`);
  assert.equal(cache.peek("urn:item:107", "h107"), undefined, "older bulk entries evicted");
  assert.ok(cache.peek("urn:item:108", "h108"), "the newest bulk entries wait for the indexer");
  assert.ok(cache.peek("urn:item:109", "h109"));
  assert.equal(cache.stats().entries, 4);
  assert.ok(
    cache.stats().bytes <= 2 * size + cache.maxProbationBytes,
    "probation stays in its share",
  );

  // A reader's hit promotes a bulk entry: later bulk writes no longer evict it.
  assert.ok(cache.get("urn:item:108", "h108"));
  for (let n = 200; n < 204; n++) cache.set(`urn:item:${n}`, `h${n}`, item(n), { probation: true });
  assert.ok(cache.get("urn:item:108", "h108"), "promoted to the main segment");
  assert.equal(cache.peek("urn:item:109", "h109"), undefined);

  // A main write fills the room probation holds before it evicts a reader's entry.
  cache.set("urn:item:2", "h2", item(2));
  for (const n of [0, 1, 2]) assert.ok(cache.peek(`urn:item:${n}`, `h${n}`), `entry ${n}`);
  assert.ok(cache.stats().bytes <= cache.maxBytes);

  // Invalidation and clear reach both segments.
  cache.invalidate("urn:item:203");
  assert.equal(cache.peek("urn:item:203", "h203"), undefined);
  cache.clear();
  assert.deepEqual([cache.stats().entries, cache.stats().bytes], [0, 0]);
  assert.equal(new ItemCache({ maxBytes: 1600 }).maxProbationBytes, 200, "default: an eighth");
});

/** The embedded store, counting graph reads that reach it. */
function countingStore(): { store: TripleStore; reads: () => number; close: () => void } {
  const db = openLocalDatabase(":memory:");
  const inner = new EmbeddedTripleStore(db, undefined, GROUP_COMMIT);
  let reads = 0;
  const counted = new Proxy(inner, {
    get(target, property) {
      if (property === "readItem") {
        return (collection: string, uri: string, known?: ItemRecord) => {
          reads++;
          return (target as TripleStore).readItem(collection, uri, known);
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as TripleStore;
  return { store: counted, reads: () => reads, close: () => db.close() };
}

Deno.test("caching store: reads by the record's hash, writes go through, deletes invalidate", async () => {
  const { store: inner, reads, close } = countingStore();
  const cache = new ItemCache({ maxBytes: 1_000_000 });
  const store = new CachingTripleStore(inner, cache);
  try {
    const uri = "https://data.example.org/id/1";
    // Written in an order that splits the subject's triples: the cache must regroup them.
    const body = [
      quad(namedNode(uri), TITLE, literal("One")),
      quad(blankNode("b"), TITLE, literal("Inner")),
      quad(namedNode(uri), namedNode("urn:p:has"), blankNode("b")),
    ];
    const created = await store.createItem({
      collection: COLLECTION,
      uri,
      quads: body,
      hash: await hash(body),
    });
    const first = (await read(store, uri, created)).quads;
    assert.equal(reads(), 0, "a fresh write is served from the cache");
    assert.equal(await hash(first), created.hash);
    assert.deepEqual(
      first.map((q) => q.subject.value),
      [uri, uri, "b"],
      "each subject's triples are together",
    );

    const updated = titled(uri, "Two");
    const record = await store.replaceItem({
      collection: COLLECTION,
      uri,
      quads: updated,
      hash: await hash(updated),
    });
    const second = (await read(store, uri, record)).quads;
    assert.equal(reads(), 0);
    assert.equal(second[0].object.value, "Two", "an update is visible at once");

    await store.deleteItem(COLLECTION, uri);
    assert.equal(cache.stats().entries, 0);
    await assert.rejects(store.readItem(COLLECTION, uri), /not found|No item/i);
  } finally {
    await store.close();
    close();
  }
});

Deno.test("caching store: a graph read from the store is cached only under its own hash", async () => {
  const { store: inner, reads, close } = countingStore();
  const cache = new ItemCache({ maxBytes: 1_000_000 });
  const store = new CachingTripleStore(inner, cache);
  try {
    const uri = "https://data.example.org/id/2";
    const quads = titled(uri, "Stored");
    // Written behind the cache's back (as before a restart): the first read misses.
    const record = await inner.createItem({
      collection: COLLECTION,
      uri,
      quads,
      hash: await hash(quads),
    });
    await read(store, uri, record);
    assert.equal(reads(), 1);
    await read(store, uri, record);
    assert.equal(reads(), 1, "the second read is a hit");

    // A caller holding a record whose hash is not the stored graph's: the graph read is
    // served (it is what the store holds) with the store's record, and never filed under
    // the caller's hash.
    cache.clear();
    const stale = { ...record, hash: "0".repeat(64) };
    assert.equal((await read(store, uri, stale)).record.hash, record.hash);
    assert.equal((await read(store, uri, stale)).record.hash, record.hash);
    assert.equal(reads(), 3, "nothing was cached under the wrong hash");
    assert.equal(cache.get(uri, stale.hash), undefined);
    assert.ok(cache.get(uri, record.hash), "it is cached under the hash it came with");
  } finally {
    await store.close();
    close();
  }
});

Deno.test("caching store: a bulk write is kept on probation, not among the readers' graphs", async () => {
  const { store: inner, reads, close } = countingStore();
  const item = titled("urn:size", "x".repeat(20));
  const size = bytesOf("https://data.example.org/id/b0", item);
  const cache = new ItemCache({
    maxBytes: size * 8,
    maxItemBytes: size * 2,
    maxProbationBytes: size * 2,
  });
  const store = new CachingTripleStore(inner, cache);
  try {
    const reader = "https://data.example.org/id/reader";
    const readerQuads = titled(reader, "read me");
    const readerRecord = await store.createItem({
      collection: COLLECTION,
      uri: reader,
      quads: readerQuads,
      hash: await hash(readerQuads),
    });
    const bulk: ItemRecord[] = [];
    for (let n = 0; n < 20; n++) {
      const uri = `https://data.example.org/id/b${n}`;
      const quads = titled(uri, `bulk ${n}`.padEnd(20, "."));
      bulk.push(
        await store.createItem({
          collection: COLLECTION,
          uri,
          quads,
          hash: await hash(quads),
          bulk: true,
        }),
      );
    }
    await read(store, reader, readerRecord);
    assert.equal(reads(), 0, "twenty bulk writes did not flush the reader's graph");
    await read(store, bulk[19].uri, bulk[19]);
    assert.equal(reads(), 0, "the newest bulk write is still there for the indexer");
    await read(store, bulk[0].uri, bulk[0]);
    assert.equal(reads(), 1, "an old bulk write is read from the store");
  } finally {
    await store.close();
    close();
  }
});

Deno.test("caching store: a write that fails leaves no entry behind", async () => {
  const { store: inner, close } = countingStore();
  const cache = new ItemCache({ maxBytes: 1_000_000 });
  const store = new CachingTripleStore(inner, cache);
  try {
    const uri = "https://data.example.org/id/3";
    const quads = titled(uri, "Three");
    await store.createItem({ collection: COLLECTION, uri, quads, hash: await hash(quads) });
    assert.equal(cache.stats().entries, 1);
    const next = titled(uri, "Four");
    await assert.rejects(
      store.replaceItem(
        { collection: COLLECTION, uri, quads: next, hash: await hash(next) },
        { ifMatch: "f".repeat(64) },
      ),
    );
    assert.equal(cache.stats().entries, 0);
    assert.equal((await read(store, uri)).quads[0].object.value, "Three");
  } finally {
    await store.close();
    close();
  }
});
