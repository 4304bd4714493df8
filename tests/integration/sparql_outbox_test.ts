/**
 * The SPARQL store's index outbox against each real store (`[fuseki] …`, `[virtuoso] …`:
 * tests/support/sparql_stores.ts): an entry is written in the same update as its item
 * write, so it exists exactly when the write was applied; claims lease entries per item, so
 * two instances never apply the same item at once, and a lease that ends frees the entries
 * of an instance that died.
 */
import { strict as assert } from "node:assert";
import { DataFactory } from "n3";
import type { SparqlTripleStore } from "../../src/store_sparql/sparql_triple_store.ts";
import {
  openCheckedStore,
  sparqlStoreTests,
  type StoreEndpoints,
} from "../support/sparql_stores.ts";

const { namedNode, literal, quad } = DataFactory;

/** Two stores on one dataset and one metadata graph: two instances of one deployment. */
async function twoInstances(
  endpoints: StoreEndpoints,
): Promise<[SparqlTripleStore, SparqlTripleStore, string]> {
  const run = `urn:rcs-test:outbox-${crypto.randomUUID()}`;
  const config = {
    graphTemplate: `${run}:graph:{item}`,
    metadataGraph: `${run}:meta`,
    timeoutMs: 30_000,
    retries: 0,
  };
  return [
    await openCheckedStore(endpoints, config),
    await openCheckedStore(endpoints, config),
    run,
  ];
}

const collection = "https://data.example.org/collection/c";
/** A lease that ends within the test: long enough for another instance's claim to come back. */
const SHORT_LEASE_MS = 3_000;
const write = (uri: string, title: string) => ({
  collection,
  uri,
  quads: [quad(namedNode(uri), namedNode("urn:p:title"), literal(title))],
  hash: title,
});

sparqlStoreTests(
  "SPARQL outbox: applied writes leave one entry each, refused writes none",
  async (endpoints) => {
    const [store, other, run] = await twoInstances(endpoints);
    try {
      const uri = `${run}:item`;
      await store.createItem(write(uri, "one"));
      await assert.rejects(store.createItem(write(uri, "again")));
      await assert.rejects(store.replaceItem(write(uri, "two"), { ifMatch: "stale" }));
      await store.replaceItem(write(uri, "two"), { ifMatch: "one" });
      await store.deleteItem(collection, uri);
      await assert.rejects(store.deleteItem(collection, uri));
      assert.equal(await store.outbox.backlog(), 3);
      const claim = await store.outbox.claim(10, 30_000);
      assert.deepEqual(claim.entries.map((entry) => entry.uri), [uri, uri, uri]);
      await store.outbox.complete(claim.entries.map((entry) => entry.id));
      assert.equal(await store.outbox.backlog(), 0);
    } finally {
      await store.close();
      await other.close();
    }
  },
);

sparqlStoreTests(
  "SPARQL outbox: an item's entries go to one claim at a time; an ended lease frees them",
  async (endpoints) => {
    const [a, b, run] = await twoInstances(endpoints);
    try {
      const [first, second] = [`${run}:first`, `${run}:second`];
      await a.createItem(write(first, "1"));
      await b.createItem(write(second, "1"));
      const claimA = await a.outbox.claim(1, 30_000);
      assert.deepEqual(claimA.entries.map((entry) => entry.uri), [first], "oldest item first");
      // A newer write of the leased item: its entry must wait for A's lease.
      await b.replaceItem(write(first, "2"));
      const claimB = await b.outbox.claim(10, 30_000);
      assert.deepEqual(claimB.entries.map((entry) => entry.uri), [second]);
      assert.deepEqual((await b.outbox.claim(10, 30_000)).entries, [], "nothing else is free");
      await a.outbox.complete(claimA.entries.map((entry) => entry.id));
      const next = await b.outbox.claim(10, 30_000);
      assert.deepEqual(next.entries.map((entry) => entry.uri), [first], "free once A is done");

      await b.outbox.complete([...claimB.entries, ...next.entries].map((entry) => entry.id));

      // B "dies" holding its entries: they come free when the lease ends, not before.
      // The lease is long enough for A's claim to come back within it on a busy machine (a
      // 300 ms lease once ran out before a loaded Virtuoso answered A).
      await b.replaceItem(write(second, "2"));
      const leasedAt = Date.now();
      const short = await b.outbox.claim(10, SHORT_LEASE_MS);
      assert.ok(short.entries.length >= 1);
      const during = await a.outbox.claim(10, 30_000);
      const elapsed = Date.now() - leasedAt;
      assert.ok(elapsed < SHORT_LEASE_MS, `A's claim came back after the lease (${elapsed} ms)`);
      assert.deepEqual(during.entries, []);
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, leasedAt + SHORT_LEASE_MS + 200 - Date.now()))
      );
      const taken = await a.outbox.claim(10, 30_000);
      assert.deepEqual(
        taken.entries.map((entry) => entry.id).sort(),
        short.entries.map((entry) => entry.id).sort(),
      );
      await a.outbox.release(taken.entries.map((entry) => entry.id));
      assert.equal((await b.outbox.claim(10, 30_000)).entries.length, taken.entries.length);
    } finally {
      await a.close();
      await b.close();
    }
  },
);
