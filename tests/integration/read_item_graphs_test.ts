/**
 * `TripleStore.readItemGraphs`, the batch read that indexing uses, on both stores (the
 * SPARQL one on each real store: `[fuseki] …`, `[virtuoso] …`): records
 * and whole graphs of the listed items of one collection, nothing of other collections,
 * missing items left out. The embedded store's batching (several statements per call, big
 * items paged) and the SPARQL store's (queries packed under the store's row cap, large items
 * alone) are driven past their thresholds.
 */
import { strict as assert } from "node:assert";
import { DataFactory, type Quad } from "n3";
import { openLocalDatabase } from "../../src/local_database.ts";
import { EmbeddedTripleStore } from "../../src/store_embedded/embedded_triple_store.ts";
import type { TripleStore } from "../../src/store/triple_store.ts";
import { GROUP_COMMIT } from "../support/config_defaults.ts";
import { openCheckedStore, sparqlStoreTests } from "../support/sparql_stores.ts";

const { namedNode, literal, blankNode, quad } = DataFactory;
const RUN = `https://test.example.org/read-graphs/${crypto.randomUUID()}`;
const BOOKS = `${RUN}/books`;
const FILMS = `${RUN}/films`;

function graphOf(uri: string, triples: number): Quad[] {
  const subject = namedNode(uri);
  const author = blankNode("author");
  const quads = [
    quad(subject, namedNode("https://ex.example.org/author"), author),
    quad(author, namedNode("https://ex.example.org/name"), literal(`Author of ${uri}`, "en")),
  ];
  for (let n = quads.length; n < triples; n++) {
    quads.push(quad(subject, namedNode("https://ex.example.org/p"), literal(String(n))));
  }
  return quads;
}

/** A graph as sorted N-Triples-ish lines, blank node labels erased (one blank node here). */
function shape(quads: Quad[]): string[] {
  const term = (t: Quad["subject"] | Quad["object"]) =>
    t.termType === "BlankNode" ? "_:b" : t.termType === "Literal" ? JSON.stringify(t) : t.value;
  return quads.map((q) => `${term(q.subject)} ${q.predicate.value} ${term(q.object)}`).sort();
}

async function checkBatchRead(
  store: TripleStore,
  sizes: number[],
  label: string = store.kind,
): Promise<void> {
  const written = new Map<string, Quad[]>();
  for (const [n, size] of sizes.entries()) {
    const uri = `${RUN}/${label}/book-${n}`;
    const quads = graphOf(uri, size);
    written.set(uri, quads);
    await store.createItem({ collection: BOOKS, uri, quads, hash: `hash-${n}` });
  }
  const film = `${RUN}/${label}/film`;
  await store.createItem({ collection: FILMS, uri: film, quads: graphOf(film, 3), hash: "f" });
  const asked = [...written.keys()];
  const graphs = await store.readItemGraphs(BOOKS, [
    asked[0],
    `${RUN}/${label}/missing`,
    film, // another collection's item is not this collection's
    ...asked.slice(1),
  ]);
  assert.deepEqual(graphs.map((graph) => graph.record.uri).sort(), [...asked].sort());
  for (const graph of graphs) {
    const uri = graph.record.uri;
    assert.equal(graph.record.collection, BOOKS);
    assert.equal(graph.record.hash, `hash-${asked.indexOf(uri)}`);
    assert.equal(graph.record.tripleCount, written.get(uri)!.length);
    assert.deepEqual(shape(graph.quads), shape(written.get(uri)!));
  }
  assert.deepEqual(await store.readItemGraphs(BOOKS, []), []);
}

Deno.test("readItemGraphs on the embedded store: batches, big items paged, others left out", async () => {
  const db = openLocalDatabase(":memory:");
  const store = new EmbeddedTripleStore(db, undefined, GROUP_COMMIT);
  try {
    // 12k + 12k passes one statement's triple budget; 25k is read in pages on its own.
    await checkBatchRead(store, [5, 12_000, 12_000, 25_000, 1, 40]);
  } finally {
    await store.close();
    db.close();
  }
});

sparqlStoreTests("readItemGraphs on the SPARQL store", async (endpoints) => {
  const store = await openCheckedStore(endpoints);
  try {
    await checkBatchRead(store, [5, 300, 1, 40]);
  } finally {
    await store.close();
  }
});

sparqlStoreTests(
  "readItemGraphs on the SPARQL store: items packed under the row cap, large ones alone",
  async (endpoints) => {
    const store = await openCheckedStore(endpoints);
    try {
      // An answer carries two triples per item triple: on Virtuoso (10,000 triples an
      // answer) the 4,000s go in queries of their own and the 6,000 is read alone; 110 more
      // items pass the 100 items of one count look-up.
      await checkBatchRead(
        store,
        [5, 4_000, 4_000, 6_000, 1, 40, ...Array(110).fill(3)],
        "packed",
      );
    } finally {
      await store.close();
    }
  },
);
