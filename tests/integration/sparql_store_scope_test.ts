/**
 * A query scope on the SPARQL store (`SparqlQueryOptions.scope`): a scoped query answers as
 * over a dataset holding only the item graphs of the scope's collections. Runs on the
 * environment's Fuseki and Virtuoso (tests/support/sparql_stores.ts), each ignored where
 * its store is not configured (SERVICE_SPARQL_* for Fuseki, SERVICE_VIRTUOSO_* for
 * Virtuoso).
 *
 * Two collections, A and B, in one store; their items hold a triple stated in both an A
 * item and a B item, a subject described in both, blank nodes and typed literals. No
 * triple is stated twice within A, so the default graph's answers are the same whether the
 * store merges the union default graph as a set (Fuseki) or as a bag (Virtuoso).
 */
import { strict as assert } from "node:assert";
import { Parser, type Quad, type Term } from "n3";
import { isProblem } from "../../src/errors/domain_error.ts";
import { SparqlHttpClient } from "../../src/sparql_protocol/client.ts";
import { queryRemoteEndpoint } from "../../src/sparql_protocol/remote_query.ts";
import type {
  QueryDataset,
  SparqlQueryOptions,
  SparqlQueryResult,
} from "../../src/sparql_protocol/query_types.ts";
import type { SparqlTripleStore } from "../../src/store_sparql/sparql_triple_store.ts";
import {
  dropGraphsStartingWith,
  openCheckedStore,
  sparqlStoreTests,
  type StoreEndpoints,
} from "../support/sparql_stores.ts";

/** Unique per run, so runs against a long-lived store never see each other's data. */
const RUN = `https://test.example.org/sparql-scope/${crypto.randomUUID()}`;
const EX = `${RUN}/vocab#`;
const XSD = "http://www.w3.org/2001/XMLSchema#";
const SHARED = `<${RUN}/shared> <${EX}said> "in A and in B"`;
/** A subject with triples in an A item and in a B item. */
const BOTH = `${RUN}/both`;
/** A subject with triples in B items only. */
const B_ONLY = `${RUN}/b-only`;

/** Collections and items by label, with their Turtle bodies. */
const ITEMS: Record<string, { collection: "A" | "B"; body: (uri: string) => string }> = {
  a1: {
    collection: "A",
    body: (uri) =>
      `${SHARED} .
      <${uri}> <${EX}title> "alpha"@en ; <${EX}count> "42"^^<${XSD}integer> .
      <${BOTH}> <${EX}from> "A" .`,
  },
  a2: {
    collection: "A",
    body: (uri) =>
      `<${uri}> <${EX}title> "beta" ; <${EX}part> [ <${EX}n> "7"^^<${XSD}integer> ;
        <${EX}on> "2024-05-01"^^<${XSD}date> ] .`,
  },
  b1: {
    collection: "B",
    body: (uri) =>
      `${SHARED} .
      <${uri}> <${EX}title> "gamma" ; <${EX}secret> "b1 only" .
      <${BOTH}> <${EX}from> "B" .
      <${B_ONLY}> <${EX}part> [ <${EX}n> "9"^^<${XSD}integer> ] .`,
  },
  b2: {
    collection: "B",
    body: (uri) =>
      `<${uri}> <${EX}title> "delta" ; <${EX}when> "2023-01-02T03:04:05Z"^^<${XSD}dateTime> .
      <${B_ONLY}> <${EX}secret> "b2 only" .`,
  },
};

const collectionUri = (label: "A" | "B") => `${RUN}/collection-${label}`;
const itemUri = (label: string) => `${RUN}/item/${label}`;
/** Item graphs are not named by the item URIs, so the scope must list the graphs. */
const GRAPH_TEMPLATE = `${RUN}/graph?item={item}`;
const graphOf = (label: string) => GRAPH_TEMPLATE.replace("{item}", itemUri(label));
const [A, B] = [collectionUri("A"), collectionUri("B")];

const OPTIONS: SparqlQueryOptions = { limit: 1000, timeoutMs: 30_000 };

/** The store with A's and B's items written; the run's graphs are dropped afterwards. */
async function openWithItems(
  endpoints: StoreEndpoints,
): Promise<SparqlTripleStore & AsyncDisposable> {
  const store = await openCheckedStore(endpoints, { graphTemplate: GRAPH_TEMPLATE });
  for (const [label, item] of Object.entries(ITEMS)) {
    const uri = itemUri(label);
    await store.createItem({
      collection: collectionUri(item.collection),
      uri,
      quads: turtle(item.body(uri)),
      hash: `hash-${label}`,
    });
  }
  return Object.assign(store, {
    async [Symbol.asyncDispose]() {
      try {
        for (const [label, item] of Object.entries(ITEMS)) {
          await store.deleteItem(collectionUri(item.collection), itemUri(label)).catch(() => {});
        }
        await dropGraphsStartingWith(endpoints, RUN);
      } finally {
        await store.close();
      }
    },
  });
}

function turtle(text: string): Quad[] {
  return new Parser({ format: "Turtle" }).parse(text);
}

/** A triple's shape: blank nodes compared by position only (their labels are the store's). */
function shape(s: Term, p: Term, o: Term): string {
  const term = (t: Term) => t.termType === "BlankNode" ? "_" : t.id;
  return `${term(s)} ${term(p)} ${term(o)}`;
}

/** A SELECT's rows as records of terms. */
function rows(result: SparqlQueryResult): Record<string, Term>[] {
  assert.equal(result.kind, "bindings");
  if (result.kind !== "bindings") return [];
  return result.rows.map((row) => Object.fromEntries(row));
}

function quads(result: SparqlQueryResult): Quad[] {
  assert.equal(result.kind, "quads");
  return result.kind === "quads" ? result.quads : [];
}

function answer(result: SparqlQueryResult): boolean {
  assert.equal(result.kind, "boolean");
  return result.kind === "boolean" && result.value;
}

/** The triples of the items of `labels` as the store holds them, as shapes, sorted. */
async function heldShapes(store: SparqlTripleStore, labels: string[]): Promise<string[]> {
  const shapes: string[] = [];
  for (const label of labels) {
    const read = await store.readItem(collectionUri(ITEMS[label].collection), itemUri(label));
    for await (const quad of read.quads) {
      shapes.push(shape(quad.subject, quad.predicate, quad.object));
    }
  }
  return shapes.sort();
}

/** Whether any term of the answer is one only B's items hold. */
function mentionsB(terms: Term[]): boolean {
  return terms.some((term) =>
    /b\d only|gamma|delta|"B"/.test(term.id) || term.value === B_ONLY ||
    term.value.startsWith(itemUri("b"))
  );
}

const scoped = (...collections: string[]): SparqlQueryOptions => ({
  ...OPTIONS,
  scope: { collections },
});

sparqlStoreTests(
  "query scope: the default graph is the union of the scope's items",
  async (endpoints) => {
    await using store = await openWithItems(endpoints);
    const expected = await heldShapes(store, ["a1", "a2"]);
    const count = rows(await store.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", scoped(A)));
    // No triple is stated twice within A: the count of distinct triples, on any store.
    assert.equal(Number(count[0].n.value), expected.length);
    const all = rows(await store.query("SELECT ?s ?p ?o WHERE { ?s ?p ?o }", scoped(A)));
    assert.deepEqual(all.map((row) => shape(row.s, row.p, row.o)).sort(), expected);
    // Typed literals come back as the store holds them.
    const typed = rows(
      await store.query(`SELECT ?on WHERE { ?x <${EX}on> ?on }`, scoped(A)),
    );
    assert.equal(typed.length, 1);
    assert.equal(typed[0].on.termType, "Literal");
    assert.equal((typed[0].on as { datatype: Term }).datatype.value, `${XSD}date`);
    // The triple stated in an A and a B item is A's too.
    assert.ok(answer(await store.query(`ASK { ${SHARED} }`, scoped(A))));
  },
);

sparqlStoreTests(
  "query scope: GRAPH ?g ranges over the scope's item graphs only",
  async (endpoints) => {
    await using store = await openWithItems(endpoints);
    const graphs = (result: SparqlQueryResult) => rows(result).map((row) => row.g.value).sort();
    const distinct = "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }";
    assert.deepEqual(graphs(await store.query(distinct, scoped(A))), [
      graphOf("a1"),
      graphOf("a2"),
    ]);
    assert.deepEqual(graphs(await store.query(distinct, scoped(B))), [
      graphOf("b1"),
      graphOf("b2"),
    ]);
    assert.deepEqual(
      graphs(await store.query(distinct, scoped(A, B, `${RUN}/no-such-collection`))),
      ["a1", "a2", "b1", "b2"].map(graphOf).sort(),
    );
    // The shared triple is found in A's graph only.
    assert.deepEqual(
      graphs(await store.query(`SELECT ?g WHERE { GRAPH ?g { ${SHARED} } }`, scoped(A))),
      [graphOf("a1")],
    );
    // A B graph bound beforehand matches nothing either.
    const bound = rows(
      await store.query(
        `SELECT * WHERE { VALUES ?g { <${graphOf("b1")}> } GRAPH ?g { ?s ?p ?o } }`,
        scoped(A),
      ),
    );
    assert.deepEqual(bound, []);
  },
);

sparqlStoreTests(
  "query scope: FROM, FROM NAMED, GRAPH <g> and a protocol dataset naming B match nothing",
  async (endpoints) => {
    await using store = await openWithItems(endpoints);
    const [a1, b1] = [graphOf("a1"), graphOf("b1")];
    const nothing = [
      `SELECT * FROM <${b1}> WHERE { ?s ?p ?o }`,
      `SELECT * FROM NAMED <${b1}> WHERE { GRAPH ?g { ?s ?p ?o } }`,
      // FROM B alone leaves A's graphs out of the default graph and the named graphs.
      `SELECT * FROM <${b1}> WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }`,
      `SELECT * WHERE { GRAPH <${b1}> { ?s ?p ?o } }`,
      `SELECT * FROM NAMED <${a1}> WHERE { GRAPH <${b1}> { ?s ?p ?o } }`,
      `SELECT * WHERE { ?s ?p ?o FILTER EXISTS { GRAPH <${b1}> { ?s ?p ?o } } }`,
      `SELECT * WHERE { { SELECT ?s WHERE { GRAPH <${b1}> { ?s ?p ?o } } } }`,
      // A store's own names for its unions are graphs outside the scope too.
      `SELECT * WHERE { GRAPH <urn:x-arq:UnionGraph> { ?s ?p ?o } }`,
      `SELECT * WHERE { GRAPH <urn:x-arq:DefaultGraph> { ?s ?p ?o } }`,
      `SELECT * FROM <urn:x-arq:UnionGraph> WHERE { ?s ?p ?o }`,
    ];
    for (const sparql of nothing) {
      assert.deepEqual(rows(await store.query(sparql, scoped(A))), [], sparql);
    }
    // Unscoped, the same queries do see B (the test would prove nothing otherwise).
    assert.ok(rows(await store.query(nothing[0], OPTIONS)).length > 0);
    assert.ok(rows(await store.query(nothing[3], OPTIONS)).length > 0);

    // The protocol's dataset naming B, in either part.
    const both = "SELECT * WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }";
    for (
      const dataset of [
        { defaultGraphs: [b1], namedGraphs: [] },
        { defaultGraphs: [], namedGraphs: [b1] },
        { defaultGraphs: [b1], namedGraphs: [b1] },
      ]
    ) {
      assert.deepEqual(
        rows(await store.query(both, { ...scoped(A), dataset })),
        [],
        JSON.stringify(dataset),
      );
    }
    assert.ok(
      rows(
        await store.query(both, { ...OPTIONS, dataset: { defaultGraphs: [b1], namedGraphs: [] } }),
      )
        .length > 0,
    );

    // A dataset naming A and B is kept to A: the protocol's, or the query's own.
    const expected = await heldShapes(store, ["a1"]);
    for (
      const [sparql, dataset] of [
        [`SELECT * FROM <${a1}> FROM <${b1}> WHERE { ?s ?p ?o }`, undefined],
        ["SELECT * WHERE { ?s ?p ?o }", { defaultGraphs: [a1, b1], namedGraphs: [] }],
        // The protocol's dataset replaces the query's own.
        [`SELECT * FROM <${b1}> WHERE { ?s ?p ?o }`, { defaultGraphs: [a1, b1], namedGraphs: [] }],
      ] satisfies [string, QueryDataset | undefined][]
    ) {
      const found = rows(await store.query(sparql, { ...scoped(A), dataset }));
      assert.deepEqual(found.map((row) => shape(row.s, row.p, row.o)).sort(), expected, sparql);
    }
    const named = rows(
      await store.query(
        `SELECT DISTINCT ?g FROM NAMED <${a1}> FROM NAMED <${b1}> WHERE { GRAPH ?g { ?s ?p ?o } }`,
        scoped(A),
      ),
    );
    assert.deepEqual(named.map((row) => row.g.value), [a1]);
    // FROM NAMED alone leaves the default graph empty, as the standard has it.
    const noDefault = rows(
      await store.query(`SELECT * FROM NAMED <${a1}> WHERE { ?s ?p ?o }`, scoped(A)),
    );
    assert.deepEqual(noDefault, []);
  },
);

sparqlStoreTests(
  "query scope: ASK, CONSTRUCT and DESCRIBE show nothing of B",
  async (endpoints) => {
    await using store = await openWithItems(endpoints);
    for (
      const ask of [
        `ASK { <${itemUri("b1")}> <${EX}secret> "b1 only" }`,
        `ASK { GRAPH ?g { <${itemUri("b1")}> <${EX}secret> "b1 only" } }`,
        `ASK { <${B_ONLY}> ?p ?o }`,
        `ASK { <${BOTH}> <${EX}from> "B" }`,
      ]
    ) {
      assert.equal(answer(await store.query(ask, scoped(A))), false, ask);
      assert.equal(answer(await store.query(ask, scoped(B))), true, ask);
    }

    const constructs = [
      `CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }`,
      `CONSTRUCT { ?s ?p ?o } WHERE { GRAPH ?g { ?s ?p ?o } }`,
      `CONSTRUCT { <${B_ONLY}> ?p ?o } WHERE { <${B_ONLY}> ?p ?o }`,
    ];
    for (const construct of constructs) {
      const found = quads(await store.query(construct, scoped(A)));
      assert.ok(
        !found.some((quad) => mentionsB([quad.subject, quad.predicate, quad.object])),
        `${construct}: ${found.map((quad) => quad.object.id).join(", ")}`,
      );
    }
    assert.equal(
      quads(await store.query(constructs[0], scoped(A))).length,
      (await heldShapes(store, ["a1", "a2"])).length,
    );
    assert.deepEqual(quads(await store.query(constructs[2], scoped(A))), []);

    assert.deepEqual(quads(await store.query(`DESCRIBE <${B_ONLY}>`, scoped(A))), []);
    assert.deepEqual(quads(await store.query(`DESCRIBE <${itemUri("b1")}>`, scoped(A))), []);
    const both = quads(await store.query(`DESCRIBE <${BOTH}>`, scoped(A)));
    assert.deepEqual(both.map((quad) => quad.object.value), ["A"]);
    // Unscoped, B is there to be seen.
    assert.ok(quads(await store.query(`DESCRIBE <${BOTH}>`, scoped(A, B))).length >= 2);
  },
);

sparqlStoreTests(
  "query scope: an empty scope sees nothing; none keeps today's answers",
  async (endpoints) => {
    await using store = await openWithItems(endpoints);
    const none = scoped();
    assert.deepEqual(rows(await store.query("SELECT * WHERE { ?s ?p ?o } LIMIT 5", none)), []);
    assert.deepEqual(
      rows(await store.query("SELECT * WHERE { GRAPH ?g { ?s ?p ?o } } LIMIT 5", none)),
      [],
    );
    assert.equal(answer(await store.query("ASK { ?s ?p ?o }", none)), false);
    assert.equal(answer(await store.query("ASK { GRAPH ?g { ?s ?p ?o } }", none)), false);
    assert.deepEqual(quads(await store.query("CONSTRUCT WHERE { ?s ?p ?o }", none)), []);

    // Unscoped: every item graph, as before (the default graph is the store's own).
    const mine = `FILTER(STRSTARTS(STR(?g), ${JSON.stringify(RUN)}))`;
    const graphs = rows(
      await store.query(`SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } ${mine} }`, OPTIONS),
    );
    assert.deepEqual(
      graphs.map((row) => row.g.value).sort(),
      ["a1", "a2", "b1", "b2"].map(graphOf).sort(),
    );
    const shared = rows(await store.query(`SELECT ?g WHERE { GRAPH ?g { ${SHARED} } }`, OPTIONS));
    assert.deepEqual(
      shared.map((row) => row.g.value).sort(),
      [graphOf("a1"), graphOf("b1")].sort(),
    );
  },
);

sparqlStoreTests("query scope: items are listed per query, never cached", async (endpoints) => {
  await using store = await openWithItems(endpoints);
  const uri = itemUri("b2");
  const title = `ASK { <${uri}> <${EX}title> "delta" }`;
  assert.equal(answer(await store.query(title, scoped(A))), false);
  assert.equal(answer(await store.query(title, scoped(B))), true);
  // The same IRI, deleted from B and created again in A: the scopes swap at once.
  await store.deleteItem(B, uri);
  await store.createItem({ collection: A, uri, quads: turtle(ITEMS.b2.body(uri)), hash: "moved" });
  try {
    assert.equal(answer(await store.query(title, scoped(A))), true);
    assert.equal(answer(await store.query(title, scoped(B))), false);
  } finally {
    await store.deleteItem(A, uri);
    await store.createItem({ collection: B, uri, quads: turtle(ITEMS.b2.body(uri)), hash: "back" });
  }
});

sparqlStoreTests("query scope: a refused query is refused as without one", async (endpoints) => {
  await using store = await openWithItems(endpoints);
  for (
    const [sparql, slug] of [
      ["SELECT * WHERE { ?s ", "invalid-sparql"],
      [`INSERT DATA { <${RUN}/x> <${EX}p> 1 }`, "sparql-update-refused"],
      ["SELECT * WHERE { GRAPH <urn:rdf-content-service:meta> { ?s ?p ?o } }", "reserved-graph"],
    ] as const
  ) {
    await assert.rejects(
      store.query(sparql, scoped(A)),
      (error: unknown) => isProblem(error, slug),
    );
  }
});

Deno.test("query scope: a dataset larger than the store takes is refused before it is sent", async () => {
  // Nothing listens there: the refusal comes before any request.
  const client = new SparqlHttpClient({
    queryUrl: "http://127.0.0.1:9/sparql",
    updateUrl: "http://127.0.0.1:9/sparql",
    graphStoreUrl: "http://127.0.0.1:9/data",
    timeoutMs: 1000,
    retries: 0,
  });
  const graphs = ["a1", "a2", "b1"].map(graphOf);
  try {
    await assert.rejects(
      queryRemoteEndpoint(client, "ASK { ?s ?p ?o }", {
        ...scoped(A),
        readableGraphs: () => Promise.resolve(graphs),
        maxDatasetGraphs: 3,
      }),
      (error: unknown) => isProblem(error, "query-too-broad"),
    );
    // The query's own FROM keeps it within bounds (NO_GRAPH is the one named graph more).
    await assert.rejects(
      queryRemoteEndpoint(client, `ASK FROM <${graphs[0]}> { ?s ?p ?o }`, {
        ...scoped(A),
        readableGraphs: () => Promise.resolve(graphs),
        maxDatasetGraphs: 3,
      }),
      (error: unknown) => isProblem(error, "store-unavailable"),
    );
    // A scope without the graphs it may read is never run unconfined.
    await assert.rejects(
      queryRemoteEndpoint(client, "ASK { ?s ?p ?o }", scoped(A)),
      /readableGraphs/,
    );
  } finally {
    client.close();
  }
});
