/**
 * The index outbox on the SPARQL store (each real store: `[fuseki] …`, `[virtuoso] …`)
 * indexes an item from the graph this instance wrote when the claim shows that version is
 * still the item's current one, and reads the item back otherwise (another instance changed
 * it since): the document is always the store's current state, and a write of this instance
 * costs no read-back.
 */
import { strict as assert } from "node:assert";
import { DataFactory, type Quad } from "n3";
import type { SparqlTripleStore } from "../../src/store_sparql/sparql_triple_store.ts";
import { CachingTripleStore } from "../../src/store/caching_triple_store.ts";
import { ItemCache } from "../../src/store/item_cache.ts";
import type { ItemRecord } from "../../src/store/triple_store.ts";
import { canonicalHash } from "../../src/rdf/canonical_hash.ts";
import { type IndexedCollection, readItemDocuments } from "../../src/indexing/index_item.ts";
import type { CollectionIndexRef } from "../../src/search/search_engine.ts";
import {
  dropGraphsStartingWith,
  openCheckedStore,
  sparqlStoreTests,
} from "../support/sparql_stores.ts";

const { namedNode, literal, quad } = DataFactory;

const COLLECTION = "https://data.example.org/collection/outbox-from-write";
const INDEXED: IndexedCollection = {
  uri: COLLECTION,
  workspace: "https://data.example.org/workspace/outbox-from-write",
  ref: { indexName: "unused" } as unknown as CollectionIndexRef,
  fields: [],
  linkableCollections: [COLLECTION],
  linkHits: new Map(),
};

async function itemWrite(uri: string, title: string) {
  const quads: Quad[] = [
    quad(namedNode(uri), namedNode("http://purl.org/dc/terms/title"), literal(title)),
  ];
  return { collection: COLLECTION, uri, quads, hash: (await canonicalHash(quads)).hash };
}

sparqlStoreTests(
  "SPARQL outbox: indexes this instance's write from memory while current, else reads back",
  async (endpoints) => {
    const run = crypto.randomUUID();
    const config = {
      metadataGraph: `urn:rcs-test:outbox-from-write:${run}:meta`,
      graphTemplate: `urn:rcs-test:outbox-from-write:${run}:{item}`,
    };
    const inner = await openCheckedStore(endpoints, config);
    let readBacks = 0;
    const counting = new Proxy(inner, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (property !== "readItemGraphs") {
          return typeof value === "function" ? value.bind(target) : value;
        }
        return (...args: Parameters<SparqlTripleStore["readItemGraphs"]>) => {
          readBacks++;
          return target.readItemGraphs(...args);
        };
      },
    });
    const store = new CachingTripleStore(counting, new ItemCache({ maxBytes: 1 << 20 }));
    const otherInstance = await openCheckedStore(endpoints, config);
    const uri = `https://data.example.org/id/outbox-from-write/${run}`;
    const indexClaimed = async () => {
      const claim = await store.outbox.claim(10, 60_000);
      const current = new Map<string, ItemRecord>();
      for (const entry of claim.entries) if (entry.current) current.set(entry.uri, entry.current);
      const [document] = await readItemDocuments(store, INDEXED, [uri], current);
      await store.outbox.complete(claim.entries.map((entry) => entry.id));
      return { claim, document };
    };
    try {
      const written = await store.createItem(await itemWrite(uri, "first"));
      const first = await indexClaimed();
      assert.equal(first.claim.entries[0].current?.hash, written.hash);
      assert.equal(readBacks, 0, "the write just made is indexed without reading it back");
      assert.equal(first.document.outcome, "document");
      assert.match(JSON.stringify(first.document), /first/);

      // Another instance replaces the item: this instance's cached version is no longer
      // current, so the item is read back.
      const changed = await otherInstance.replaceItem(await itemWrite(uri, "second"));
      const second = await indexClaimed();
      assert.equal(second.claim.entries[0].current?.hash, changed.hash);
      assert.equal(readBacks, 1);
      assert.match(JSON.stringify(second.document), /second/);
      assert.doesNotMatch(JSON.stringify(second.document), /first/);

      // Deleted by the other instance: the claim finds no record, and the read says gone.
      await otherInstance.deleteItem(COLLECTION, uri);
      const third = await indexClaimed();
      assert.equal(third.claim.entries[0].current, undefined);
      assert.equal(third.document.outcome, "gone");
    } finally {
      await dropGraphsStartingWith(endpoints, `urn:rcs-test:outbox-from-write:${run}:`);
      await store.close();
      await otherInstance.close();
    }
  },
);
