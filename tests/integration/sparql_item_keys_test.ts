/**
 * Items keyed by (collection, IRI) on the SPARQL store, against each real store
 * (`[fuseki] …`, `[virtuoso] …`: tests/support/sparql_stores.ts): the same IRI may be an item
 * of several collections, each its own graph and record (`src/store/item_keys.ts`,
 * `src/store_sparql/item_records.ts`). The first collection's item is named by the IRI, a
 * later one's by the key derived from collection and IRI; reads, listings, batch reads, the
 * outbox's claim and the user's queries each see the item of their own collection; records
 * written before `rcs:item` are upgraded at start; concurrent creates choose keys safely.
 */
import { strict as assert } from "node:assert";
import { DataFactory } from "n3";
import { problemOf } from "../../src/http/problem.ts";
import { SparqlHttpClient } from "../../src/sparql_protocol/client.ts";
import { upgradeItemRecords } from "../../src/store_sparql/record_upgrade.ts";
import type { SparqlTripleStore } from "../../src/store_sparql/sparql_triple_store.ts";
import { collectionItemKey } from "../../src/store/item_keys.ts";
import type { ItemWrite } from "../../src/store/triple_store.ts";
import { canonicalNQuads } from "../support/rdf_fixtures.ts";
import {
  openCheckedStore,
  sparqlStoreTests,
  type StoreEndpoints,
} from "../support/sparql_stores.ts";

const { namedNode, literal, quad } = DataFactory;
const RCS = "urn:rdf-content-service:";

/** A metadata graph of this test's own, and the IRIs of its items and collections. */
function run(): { meta: string; base: string } {
  const base = `https://test.example.org/item-keys/${crypto.randomUUID()}`;
  return { meta: `${base}/meta`, base };
}

function write(collection: string, uri: string, title: string): ItemWrite {
  return {
    collection,
    uri,
    quads: [
      quad(namedNode(uri), namedNode("urn:p:title"), literal(title)),
      quad(namedNode(uri), namedNode("urn:p:in"), literal(collection)),
    ],
    hash: `hash-${title}`,
  };
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** The item's triples as one read serves them, canonical. */
async function readBack(store: SparqlTripleStore, collection: string, uri: string) {
  return await canonicalNQuads(await collect((await store.readItem(collection, uri)).quads));
}

/** The triple `uri <urn:p:title> ?title` of each graph that holds one, by graph name. */
async function titlesByGraph(
  store: SparqlTripleStore,
  uri: string,
): Promise<Map<string, string>> {
  const result = await store.query(
    `SELECT ?g ?title WHERE { GRAPH ?g { <${uri}> <urn:p:title> ?title } }`,
    { limit: 100, timeoutMs: 30_000 },
  );
  assert.equal(result.kind, "bindings");
  return new Map(
    result.kind === "bindings"
      ? result.rows.map((row) => [row.get("g")!.value, row.get("title")!.value])
      : [],
  );
}

async function assertItemExists(work: Promise<unknown>, collection: string): Promise<void> {
  await assert.rejects(work, (thrown: unknown) => {
    const problem = problemOf(thrown);
    assert.equal(problem?.slug, "item-exists", String(thrown));
    assert.match(problem!.message, new RegExp(`<${collection}>`), "names this collection");
    return true;
  });
}

/** A client of the store's own, for the raw reads and updates a test makes. */
function rawClient(endpoints: StoreEndpoints): SparqlHttpClient {
  return new SparqlHttpClient({ ...endpoints, timeoutMs: 60_000, retries: 2 });
}

async function dropAll(endpoints: StoreEndpoints, graphs: string[]): Promise<void> {
  const client = rawClient(endpoints);
  try {
    await client.update(graphs.map((graph) => `DROP SILENT GRAPH <${graph}>`).join(" ;\n"));
  } finally {
    client.close();
  }
}

sparqlStoreTests(
  "one IRI in several collections: a graph, record and ETag each; the first name comes free again",
  async (endpoints) => {
    const { meta, base } = run();
    // Every write staged (Graph Store Protocol): the create under the derived key stages
    // again, the first attempt's request having dropped its staging graph.
    const store = await openCheckedStore(endpoints, { metadataGraph: meta, maxInlineTriples: 1 });
    const uri = `${base}/item`;
    const [a, b, c] = ["a", "b", "c"].map((name) => `${base}/collection/${name}`);
    const keyOf = (collection: string) => collectionItemKey(collection, uri);
    try {
      const inA = await store.createItem(write(a, uri, "A"));
      const inB = await store.createItem(write(b, uri, "B"));
      assert.equal(inA.uri, uri);
      assert.equal(inB.uri, uri, "the record names the item, never its key");
      assert.equal((await store.getItem(a, uri))?.hash, "hash-A");
      assert.equal((await store.getItem(b, uri))?.hash, "hash-B");
      assert.equal(await readBack(store, a, uri), await canonicalNQuads(write(a, uri, "A").quads));
      assert.equal(await readBack(store, b, uri), await canonicalNQuads(write(b, uri, "B").quads));
      assert.equal(await store.getItem(c, uri), undefined);

      // The first holder's graph is named by the IRI, the second's by its key; the user's
      // query sees both names (a key is a graph name, not one of the service's records).
      assert.deepEqual(
        await titlesByGraph(store, uri),
        new Map([[uri, "A"], [keyOf(b), "B"]]),
      );
      const topics = await store.query(
        `SELECT ?g ?c ?i WHERE { GRAPH <${RCS}collections> {
           ?g <http://purl.org/dc/terms/isPartOf> ?c ; <http://xmlns.com/foaf/0.1/primaryTopic> ?i } }`,
        { limit: 100, timeoutMs: 30_000 },
      );
      assert.ok(topics.kind === "bindings");
      assert.deepEqual(
        topics.rows.map((row) => [row.get("g")?.value, row.get("c")?.value, row.get("i")?.value])
          .sort(),
        [[uri, a, uri], [keyOf(b), b, uri]].sort(),
        "the collections graph says which item each graph is about",
      );

      await assertItemExists(store.createItem(write(a, uri, "A again")), a);
      await assertItemExists(store.createItem(write(b, uri, "B again")), b);

      for (const [collection, hash] of [[a, "hash-A"], [b, "hash-B"]]) {
        const listed = await collect(store.listItems(collection));
        assert.deepEqual(listed.map((record) => [record.uri, record.hash]), [[uri, hash]]);
      }
      const [graphOfB] = await store.readItemGraphs(b, [uri]);
      assert.equal(graphOfB.record.uri, uri);
      assert.equal(graphOfB.record.hash, "hash-B");
      assert.equal(
        await canonicalNQuads(graphOfB.quads),
        await canonicalNQuads(write(b, uri, "B").quads),
      );
      assert.equal(
        await canonicalNQuads(await collect(store.collectionQuads(a))),
        await canonicalNQuads(write(a, uri, "A").quads),
      );

      // The outbox's claim reads each entry's record of its own collection.
      const claim = await store.outbox.claim(10, 30_000);
      const current = new Map(
        claim.entries.filter((entry) => entry.uri === uri).map((
          entry,
        ) => [entry.collection, entry.current?.hash]),
      );
      assert.deepEqual(current, new Map([[a, "hash-A"], [b, "hash-B"]]));
      await store.outbox.complete(claim.entries.map((entry) => entry.id));

      // A replace and a delete of one leave the other as it was.
      const replaced = await store.replaceItem(write(b, uri, "B2"), { ifMatch: "hash-B" });
      assert.equal(replaced.created, inB.created);
      assert.equal((await store.getItem(b, uri))?.hash, "hash-B2");
      assert.deepEqual((await store.getItem(a, uri))?.hash, "hash-A");
      assert.equal(await readBack(store, a, uri), await canonicalNQuads(write(a, uri, "A").quads));
      await assert.rejects(
        store.replaceItem(write(a, uri, "A2"), { ifMatch: "hash-B2" }),
        (thrown: unknown) => problemOf(thrown)?.slug === "precondition-failed",
        "If-Match compares with this collection's item only",
      );
      await store.deleteItem(b, uri, { ifMatch: "hash-B2" });
      assert.equal(await store.getItem(b, uri), undefined);
      assert.equal((await store.getItem(a, uri))?.hash, "hash-A");
      assert.deepEqual(await titlesByGraph(store, uri), new Map([[uri, "A"]]));

      // B again takes its key (A holds the IRI's name); once A's item is gone, the next
      // collection to create the IRI takes the IRI's name again.
      await store.createItem(write(b, uri, "B3"));
      await store.deleteItem(a, uri);
      await store.createItem(write(c, uri, "C"));
      assert.deepEqual(
        await titlesByGraph(store, uri),
        new Map([[uri, "C"], [keyOf(b), "B3"]]),
      );
      assert.equal(await readBack(store, c, uri), await canonicalNQuads(write(c, uri, "C").quads));
      assert.equal(await readBack(store, b, uri), await canonicalNQuads(write(b, uri, "B3").quads));
      await store.deleteItem(b, uri);
      await store.deleteItem(c, uri);
      assert.deepEqual(await titlesByGraph(store, uri), new Map(), "deletes leave no triples");
      const left = await store.query(
        `ASK { GRAPH ?g { ?s ?p ?o } FILTER(?g = <${uri}> || ?g = <${keyOf(b)}>) }`,
        { limit: 1, timeoutMs: 30_000 },
      );
      assert.deepEqual(left, { kind: "boolean", value: false });
    } finally {
      await store.close();
      await dropAll(endpoints, [meta, uri, keyOf(a), keyOf(b), keyOf(c)]);
    }
  },
);

sparqlStoreTests(
  "records written before rcs:item are upgraded at start and listed; nothing else is touched",
  async (endpoints) => {
    const { meta, base } = run();
    const uri = `${base}/legacy`;
    const collection = `${base}/collection/old`;
    const entry = `${RCS}outbox:${crypto.randomUUID()}`;
    const client = rawClient(endpoints);
    try {
      // A record as the store wrote it before, its graph, and an outbox entry beside it.
      await client.update(`PREFIX rcs: <${RCS}>
        INSERT DATA { GRAPH <${meta}> {
          <${uri}> rcs:collection "${collection}" ; rcs:graph <${uri}> ; rcs:hash "old" ;
            rcs:tripleCount 1 ; rcs:created "2025-01-01T00:00:00.000Z" ;
            rcs:modified "2025-01-01T00:00:00.000Z" .
          <${entry}> rcs:outboxItem <${uri}> ; rcs:outboxCollection "${collection}" ;
            rcs:enqueued 1 . }
        GRAPH <${uri}> { <${uri}> <urn:p:title> "Old" } }`);
      const store = await openCheckedStore(endpoints, { metadataGraph: meta });
      try {
        assert.deepEqual(
          (await collect(store.listItems(collection))).map((record) => [record.uri, record.hash]),
          [[uri, "old"]],
        );
        const [graph] = await store.readItemGraphs(collection, [uri]);
        assert.equal(graph.quads.length, 1);
        assert.equal(await upgradeItemRecords(client, meta), 0, "a second run finds nothing");
        const items = await client.query(
          `SELECT ?s ?item WHERE { GRAPH <${meta}> { ?s <${RCS}item> ?item } }`,
          "application/sparql-results+json",
        );
        const rows = (await items.json()).results.bindings as Record<string, { value: string }>[];
        assert.deepEqual(
          rows.map((row) => [row.s.value, row.item.value]),
          [[uri, uri]],
          "only the item record got rcs:item",
        );
        // A record an instance of the earlier version writes meanwhile (no rcs:item): reads
        // by collection and IRI, one or a batch, find it all the same.
        const late = `${base}/late`;
        await client.update(`PREFIX rcs: <${RCS}>
          INSERT DATA { GRAPH <${meta}> {
            <${late}> rcs:collection "${collection}" ; rcs:graph <${late}> ; rcs:hash "late" ;
              rcs:tripleCount 1 ; rcs:created "c" ; rcs:modified "m" . }
          GRAPH <${late}> { <${late}> <urn:p:title> "Late" } }`);
        assert.equal((await store.getItem(collection, late))?.hash, "late");
        const lateGraphs = await store.readItemGraphs(collection, [late, uri]);
        assert.deepEqual(lateGraphs.map((graph) => [graph.record.uri, graph.quads.length]), [
          [late, 1],
          [uri, 1],
        ]);
        await store.deleteItem(collection, late);
        assert.equal((await titlesByGraph(store, late)).size, 0);

        // Another collection's item of the IRI takes the derived key.
        const other = `${base}/collection/new`;
        await store.createItem(write(other, uri, "New"));
        assert.deepEqual(
          await titlesByGraph(store, uri),
          new Map([[uri, "Old"], [collectionItemKey(other, uri), "New"]]),
        );
        await store.deleteItem(other, uri);
        await store.deleteItem(collection, uri);
      } finally {
        await store.close();
      }
    } finally {
      client.close();
      await dropAll(endpoints, [meta, uri, `${base}/late`]);
    }
  },
);

sparqlStoreTests(
  "the record upgrade in chunks, from several instances at once",
  async (endpoints) => {
    const { meta, base } = run();
    const uris = Array.from({ length: 7 }, (_, n) => `${base}/legacy-${n}`);
    const collection = `${base}/collection/old`;
    const clients = [rawClient(endpoints), rawClient(endpoints)];
    try {
      await clients[0].update(`PREFIX rcs: <${RCS}>
        INSERT DATA { GRAPH <${meta}> { ${
        uris.map((uri) =>
          `<${uri}> rcs:collection "${collection}" ; rcs:graph <${uri}> ; rcs:hash "h" ;
            rcs:tripleCount 0 ; rcs:created "c" ; rcs:modified "m" .`
        ).join("\n")
      } } }`);
      // Two instances starting at once, two records per update: the first to count finds
      // all 7 records lacking rcs:item (the other may find fewer left); between them they
      // add it to every one, and neither fails.
      const found = await Promise.all(
        clients.map((client) => upgradeItemRecords(client, meta, 2)),
      );
      assert.equal(Math.max(...found), 7, `found ${found}`);
      assert.equal(await upgradeItemRecords(clients[0], meta, 2), 0);
      const store = await openCheckedStore(endpoints, { metadataGraph: meta });
      try {
        assert.deepEqual(
          (await collect(store.listItems(collection))).map((record) => record.uri),
          [...uris].sort(),
        );
      } finally {
        await store.close();
      }
    } finally {
      for (const client of clients) client.close();
      await dropAll(endpoints, [meta]);
    }
  },
);

sparqlStoreTests(
  "concurrent creates of one IRI: in several collections all apply, in one collection exactly one",
  async (endpoints) => {
    const { meta, base } = run();
    const [first, second] = [
      await openCheckedStore(endpoints, { metadataGraph: meta }),
      await openCheckedStore(endpoints, { metadataGraph: meta }),
    ];
    const graphs = [meta];
    try {
      for (let round = 0; round < 6; round++) {
        const uri = `${base}/item-${round}`;
        const collections = [0, 1, 2, 3].map((n) => `${base}/collection/${round}-${n}`);
        graphs.push(uri, ...collections.map((collection) => collectionItemKey(collection, uri)));
        // Two from one instance (one group commit request), two from the other.
        const created = await Promise.all(
          collections.map((collection, n) =>
            (n % 2 === 0 ? first : second).createItem(write(collection, uri, collection))
          ),
        );
        assert.equal(created.length, 4);
        const titles = await titlesByGraph(first, uri);
        assert.equal(titles.size, 4, "four graphs");
        assert.equal(
          [...titles.keys()].filter((graph) => graph === uri).length,
          1,
          "exactly one takes the IRI's name",
        );
        for (const collection of collections) {
          assert.equal(
            await readBack(second, collection, uri),
            await canonicalNQuads(write(collection, uri, collection).quads),
          );
          const key = collectionItemKey(collection, uri);
          assert.equal(titles.get(key) ?? titles.get(uri), collection);
        }

        // Three creates of one IRI in one collection: under the IRI's name, and (another
        // collection holding that) under the derived key.
        const contested = `${base}/contested-${round}`;
        const elsewhere = `${base}/elsewhere-${round}`;
        const same = `${base}/collection/same`;
        const holder = `${base}/collection/holder`;
        await first.createItem(write(holder, elsewhere, "holder"));
        graphs.push(contested, collectionItemKey(same, contested), elsewhere);
        graphs.push(collectionItemKey(same, elsewhere));
        for (const iri of [contested, elsewhere]) {
          const outcomes = await Promise.allSettled([
            first.createItem(write(same, iri, "first")),
            second.createItem(write(same, iri, "second")),
            first.createItem(write(same, iri, "third")),
          ]);
          assert.equal(outcomes.filter((outcome) => outcome.status === "fulfilled").length, 1);
          for (const outcome of outcomes) {
            if (outcome.status === "rejected") {
              assert.equal(problemOf(outcome.reason)?.slug, "item-exists", String(outcome.reason));
            }
          }
          assert.equal((await titlesByGraph(first, iri)).size, iri === contested ? 1 : 2);
        }
        assert.equal((await collect(first.listItems(same))).length, 2 * (round + 1));
      }
    } finally {
      await first.close();
      await second.close();
      await dropAll(endpoints, graphs);
    }
  },
);
