/**
 * A query scope on the embedded store's SPARQL engine (`SparqlQueryOptions.scope`): a scoped
 * query answers as the same query, unscoped, over a store holding only the scope's
 * collections' items, compiled to SQL or not; graphs outside the scope are graphs that do not
 * exist, whether the query names them (FROM, FROM NAMED, GRAPH <g>, the protocol's dataset)
 * or ranges over graphs; an empty scope sees nothing; no scope is every item graph, as before.
 * Each runs on a file-backed store (the query worker) and an in-memory one (the main thread).
 */
import { strict as assert } from "node:assert";
import { normalizedResult as normalized } from "../support/sparql_results.ts";
import { join } from "node:path";
// @ts-types="@types/sparqljs"
import sparqljs from "sparqljs";
import oxigraph from "oxigraph";
import { DataFactory } from "n3";
import type { Quad, Term } from "n3";
import type { DatabaseSync } from "node:sqlite";
import { openLocalDatabase } from "../../src/local_database.ts";
import { LOCAL_DB_FILE } from "../../src/sqlite/local_db.ts";
import { EmbeddedTripleStore } from "../../src/store_embedded/embedded_triple_store.ts";
import { compileQuery } from "../../src/store_embedded/sparql_to_sql.ts";
import { oxigraphAnswer, referenceStore } from "../support/oxigraph_reference.ts";
import type { SparqlQueryOptions } from "../../src/sparql_protocol/query_types.ts";
import { GROUP_COMMIT } from "../support/config_defaults.ts";

const { namedNode, literal, blankNode, quad } = DataFactory;
const A = "https://data.example.org/collection/a";
const B = "https://data.example.org/collection/b";
const EX = "https://example.org/";
const XSD = "http://www.w3.org/2001/XMLSchema#";
const RDF_TYPE = namedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type");

interface Item {
  collection: string;
  uri: string;
  quads: Quad[];
}

/**
 * Two items in A and two in B: a triple stated in an A item and a B item, a blank node in
 * each, typed literals, links from B to A and from A to A, and a predicate only B states.
 */
function items(): Item[] {
  const shared = quad(namedNode(`${EX}concept/1`), namedNode(`${EX}label`), literal("Shared"));
  const item = (collection: string, name: string, n: number, extra: Quad[]): Item => {
    const s = namedNode(`${EX}${name}`);
    const author = blankNode("author");
    return {
      collection,
      uri: `${EX}${name}`,
      quads: [
        quad(s, RDF_TYPE, namedNode(`${EX}Class${n % 2}`)),
        quad(s, namedNode(`${EX}title`), literal(`Title ${name}`, "en")),
        quad(s, namedNode(`${EX}count`), literal(String(n * 10), namedNode(`${XSD}integer`))),
        quad(s, namedNode(`${EX}date`), literal(`2024-0${n}-01`, namedNode(`${XSD}date`))),
        quad(s, namedNode(`${EX}author`), author),
        quad(author, namedNode(`${EX}name`), literal(`Author ${name}`)),
        ...extra,
      ],
    };
  };
  const next = (from: string, to: string) =>
    quad(namedNode(`${EX}${from}`), namedNode(`${EX}next`), namedNode(`${EX}${to}`));
  return [
    item(A, "a1", 1, [shared, next("a1", "a2")]),
    item(A, "a2", 2, [next("a2", "b1")]),
    item(B, "b1", 3, [
      shared,
      next("b1", "a1"),
      quad(namedNode(`${EX}b1`), namedNode(`${EX}secret`), literal("B only")),
    ]),
    item(B, "b2", 4, [next("b2", "b1")]),
  ];
}

const B1 = `${EX}b1`;
const A1 = `${EX}a1`;

/** Queries the compiler takes, scoped or not (asserted). */
const COMPILED = [
  `SELECT * WHERE { ?s ?p ?o }`,
  `SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }`,
  `SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }`,
  `SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g`,
  `SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }`,
  `SELECT * WHERE { <${B1}> ?p ?o }`,
  `SELECT * WHERE { <${A1}> ?p ?o }`,
  `SELECT ?l WHERE { <${EX}concept/1> <${EX}label> ?l }`,
  `SELECT ?g WHERE { GRAPH ?g { <${EX}concept/1> <${EX}label> ?l } }`,
  `SELECT ?name WHERE { ?s <${EX}author> ?a . ?a <${EX}name> ?name }`,
  `SELECT * WHERE { GRAPH <${B1}> { ?s ?p ?o } }`,
  `SELECT * WHERE { GRAPH <${A1}> { ?s <${EX}author> [ <${EX}name> ?n ] } }`,
  `SELECT ?a ?b ?c WHERE { ?a <${EX}next> ?b . ?b <${EX}next> ?c }`,
  `SELECT ?s WHERE { ?s <${EX}count> 30 }`,
  `SELECT ?s WHERE { ?s <${EX}date> "2024-01-01"^^<${XSD}date> }`,
  `SELECT ?c (COUNT(?s) AS ?n) WHERE { ?s a ?c } GROUP BY ?c`,
  `ASK { ?s <${EX}secret> ?o }`,
  `ASK { ?s <${EX}title> "Title a2"@en }`,
];
/** Queries that fall back to oxigraph over the loaded quads. */
const FALLING_BACK = [
  `SELECT ?g WHERE { GRAPH ?g { } }`,
  `SELECT ?s ?t WHERE { ?s <${EX}title> ?t FILTER(LANG(?t) = "en") } ORDER BY ?t`,
  `SELECT ?s ?o WHERE { ?s ?p ?o FILTER(DATATYPE(?o) = <${XSD}date>) }`,
  `SELECT ?s ?c WHERE { ?s a ?t OPTIONAL { ?s <${EX}secret> ?c } }`,
  `SELECT ?x WHERE { { ?x a <${EX}Class0> } UNION { ?x <${EX}secret> ?y } }`,
  `SELECT ?b WHERE { <${EX}b2> <${EX}next>+ ?b }`,
  `SELECT ?a ?b WHERE { ?a <${EX}next>* ?b }`,
  `SELECT ?a ?b WHERE { ?a !<${EX}title> ?b }`,
  `SELECT (SUM(?c) AS ?total) WHERE { ?s <${EX}count> ?c }`,
  `SELECT * WHERE { ?s ?p ?o } ORDER BY ?s ?p ?o`,
  `CONSTRUCT { ?s <${EX}named> ?n } WHERE { ?s <${EX}author>/<${EX}name> ?n }`,
  `CONSTRUCT WHERE { ?s ?p ?o }`,
  `DESCRIBE <${B1}>`,
  `DESCRIBE <${A1}>`,
  `DESCRIBE ?s WHERE { ?s <${EX}secret> ?o }`,
  `SELECT * FROM <${B1}> WHERE { ?s ?p ?o }`,
  `SELECT * FROM <${A1}> WHERE { ?s ?p ?o }`,
  `SELECT * FROM NAMED <${B1}> WHERE { GRAPH ?g { ?s ?p ?o } }`,
  `SELECT * FROM NAMED <${A1}> FROM NAMED <${B1}> WHERE { GRAPH ?g { ?s ?p ?o } }`,
  `ASK FROM <${B1}> { ?s ?p ?o }`,
  `SELECT (1 AS ?one) WHERE { }`,
];

interface Stores {
  /** Every item of A and B. */
  full: EmbeddedTripleStore;
  /** A's items only: what a scope of [A] must answer as. */
  onlyA: EmbeddedTripleStore;
  /** Oxigraph over every item's quads. */
  reference: oxigraph.Store;
  /** The full store's connection. */
  db: DatabaseSync;
}

async function openStore(dir: string | undefined, content: Item[]) {
  const db = openLocalDatabase(dir ?? ":memory:");
  const store = EmbeddedTripleStore.open(
    db,
    dir ? join(dir, LOCAL_DB_FILE) : undefined,
    GROUP_COMMIT,
  );
  for (const item of content) await store.createItem({ ...item, hash: "h" });
  return { db, store };
}

/** Runs `fn` on file-backed stores (the worker) and on in-memory ones (the main thread). */
async function withStores(fn: (stores: Stores) => Promise<void> | void) {
  for (const onFile of [true, false]) {
    const dirs = onFile
      ? [
        await Deno.makeTempDir({ prefix: "rcs-scope-" }),
        await Deno.makeTempDir({ prefix: "rcs-scope-a-" }),
      ]
      : [undefined, undefined];
    const all = items();
    const full = await openStore(dirs[0], all);
    const onlyA = await openStore(dirs[1], all.filter((item) => item.collection === A));
    const quads = all.flatMap((item, index) =>
      item.quads.map((q) => {
        const scoped = <T extends Term>(term: T) =>
          (term.termType === "BlankNode" ? blankNode(`i${index}_${term.value}`) : term) as T;
        return quad(scoped(q.subject), q.predicate, scoped(q.object), namedNode(item.uri));
      })
    );
    const reference = referenceStore(quads);
    try {
      await fn({
        full: full.store,
        onlyA: onlyA.store,
        reference,
        db: full.db,
      });
    } catch (error) {
      throw new Error(`${onFile ? "file-backed" : "in-memory"} store: ${error}`, {
        cause: error,
      });
    } finally {
      for (const { store, db } of [full, onlyA]) {
        await store.close();
        db.close();
      }
      for (const dir of dirs) if (dir) await Deno.remove(dir, { recursive: true });
    }
  }
}

const OPTIONS: SparqlQueryOptions = { limit: 1000, timeoutMs: 30_000 };
const scoped = (...collections: string[]): SparqlQueryOptions => ({
  ...OPTIONS,
  scope: { collections },
});

async function rows(store: EmbeddedTripleStore, query: string, options: SparqlQueryOptions) {
  const result = await store.query(query, options);
  assert.equal(result.kind, "bindings", query);
  return result.kind === "bindings" ? result.rows : [];
}

async function count(store: EmbeddedTripleStore, query: string, options: SparqlQueryOptions) {
  const [row] = await rows(store, query, options);
  return Number(row.get("n")!.value);
}

Deno.test("scope: the compiled fragment stays compiled when scoped, the rest falls back", () => {
  const parser = new sparqljs.Parser();
  for (const scope of [undefined, [A], [A, B], []]) {
    for (const query of COMPILED) {
      assert.ok(compileQuery(parser.parse(query), () => 1, scope), `not compiled: ${query}`);
    }
    for (const query of FALLING_BACK) {
      assert.equal(compileQuery(parser.parse(query), () => 1, scope), undefined, query);
    }
  }
  // The collections are parameters, never spliced into the SQL.
  const compiled = compileQuery(parser.parse(COMPILED[0]), () => 1, ["x') OR 1 --"])!;
  assert.ok(!compiled.sql.includes("x')"));
  assert.deepEqual(compiled.parameters, ["x') OR 1 --"]);
});

Deno.test("scope [A] answers as an unscoped store holding only A's items", async () => {
  await withStores(async ({ full, onlyA }) => {
    for (const query of [...COMPILED, ...FALLING_BACK]) {
      const answer = await full.query(query, scoped(A));
      assert.deepEqual(normalized(answer), normalized(await onlyA.query(query, OPTIONS)), query);
    }
  });
});

Deno.test("scope [A]: counts, graphs, B's graphs named or in the dataset, B's triples", async () => {
  await withStores(async ({ full }) => {
    // COUNT(*) over the default graph is A's triples as the unscoped engine counts A's graphs.
    let perGraph = 0;
    for (const graph of [`${EX}a1`, `${EX}a2`]) {
      perGraph += await count(
        full,
        `SELECT (COUNT(*) AS ?n) WHERE { GRAPH <${graph}> { ?s ?p ?o } }`,
        OPTIONS,
      );
    }
    const a = items().filter((item) => item.collection === A);
    assert.equal(perGraph, a.reduce((sum, item) => sum + item.quads.length, 0));
    assert.equal(await count(full, `SELECT (COUNT(*) AS ?n) { ?s ?p ?o }`, scoped(A)), perGraph);
    assert.equal(
      await count(full, `SELECT (COUNT(*) AS ?n) { GRAPH ?g { ?s ?p ?o } }`, scoped(A)),
      perGraph,
    );
    assert.ok(await count(full, `SELECT (COUNT(*) AS ?n) { ?s ?p ?o }`, OPTIONS) > perGraph);
    // GRAPH ?g ranges over A's graphs only.
    const graphsOf = async (query: string, options: SparqlQueryOptions) =>
      [...new Set((await rows(full, query, options)).map((row) => row.get("g")!.value))].sort();
    for (const query of [`SELECT ?g { GRAPH ?g { } }`, `SELECT ?g { GRAPH ?g { ?s ?p ?o } }`]) {
      assert.deepEqual(await graphsOf(query, scoped(A)), [`${EX}a1`, `${EX}a2`], query);
      assert.deepEqual(await graphsOf(query, scoped()), [], query);
      assert.deepEqual(
        await graphsOf(query, OPTIONS),
        [`${EX}a1`, `${EX}a2`, `${EX}b1`, `${EX}b2`],
        query,
      );
    }
    // The shared triple: once per item that states it, A's only.
    const shared = `SELECT ?g { GRAPH ?g { <${EX}concept/1> <${EX}label> "Shared" } }`;
    assert.deepEqual(await graphsOf(shared, scoped(A)), [`${EX}a1`]);
    assert.deepEqual(await graphsOf(shared, OPTIONS), [`${EX}a1`, B1]);
    // A graph of B, however named, is a graph that does not exist.
    for (
      const query of [
        `SELECT * FROM <${B1}> WHERE { ?s ?p ?o }`,
        `SELECT * FROM NAMED <${B1}> WHERE { GRAPH ?g { ?s ?p ?o } }`,
        `SELECT * WHERE { GRAPH <${B1}> { ?s ?p ?o } }`,
        `SELECT * WHERE { GRAPH <${B1}> { ?s ?p ?o FILTER(?o != 1) } }`,
        `SELECT * FROM <${B1}> FROM NAMED <${B1}> WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }`,
      ]
    ) {
      assert.equal((await rows(full, query, scoped(A))).length, 0, query);
      assert.ok((await rows(full, query, OPTIONS)).length > 0, query);
    }
    const bDataset = { defaultGraphs: [B1], namedGraphs: [B1] };
    for (
      const query of [
        `SELECT * WHERE { ?s ?p ?o }`,
        `SELECT * WHERE { GRAPH ?g { ?s ?p ?o } }`,
        `SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }`,
      ]
    ) {
      const options = { ...scoped(A), dataset: bDataset };
      const answer = await rows(full, query, options);
      assert.ok(
        answer.length === 0 || (answer.length === 1 && answer[0].get("n")?.value === "0"),
        query,
      );
      assert.ok((await rows(full, query, { ...OPTIONS, dataset: bDataset })).length > 0, query);
    }
    // A dataset of an A graph and a B graph keeps the A graph.
    const mixed = await rows(full, `SELECT DISTINCT ?s WHERE { ?s ?p ?o }`, {
      ...scoped(A),
      dataset: { defaultGraphs: [A1, B1], namedGraphs: [] },
    });
    assert.ok(mixed.some((row) => row.get("s")!.value === A1));
    assert.ok(!mixed.some((row) => row.get("s")!.value === B1));
    // A triple only B states is not there.
    for (const query of [`ASK { ?s <${EX}secret> ?o }`, `ASK { <${B1}> ?p ?o }`]) {
      assert.deepEqual(await full.query(query, scoped(A)), { kind: "boolean", value: false });
      assert.deepEqual(await full.query(query, OPTIONS), { kind: "boolean", value: true });
    }
    const described = await full.query(`DESCRIBE <${B1}>`, scoped(A));
    assert.equal(described.kind === "quads" && described.quads.length, 0);
    // Nothing of B in what falls back: no B subject, no B-only predicate or literal.
    for (const query of FALLING_BACK) {
      const answer = normalized(await full.query(query, scoped(A))).join("\n");
      // (A's a2 links to B's b1: that IRI is A's data too.)
      for (const text of [`:${EX}b2:`, "B only", `${EX}secret`, "Title b", "Author b"]) {
        assert.ok(!answer.includes(text), `${query} shows ${text}`);
      }
    }
  });
});

Deno.test("scope []: nothing is visible", async () => {
  await withStores(async ({ full }) => {
    assert.equal(await count(full, `SELECT (COUNT(*) AS ?n) { ?s ?p ?o }`, scoped()), 0);
    assert.equal(
      await count(full, `SELECT (COUNT(*) AS ?n) { GRAPH ?g { ?s ?p ?o } }`, scoped()),
      0,
    );
    assert.deepEqual(await full.query(`ASK { ?s ?p ?o }`, scoped()), {
      kind: "boolean",
      value: false,
    });
    for (const query of [...COMPILED, ...FALLING_BACK]) {
      const answer = await full.query(query, scoped());
      if (answer.kind === "boolean") assert.equal(answer.value, false, query);
      else if (answer.kind === "quads") assert.equal(answer.quads.length, 0, query);
      else {
        // Only what no graph gives: a count of 0, an empty group's aggregate, a constant.
        for (const row of answer.rows) {
          for (const [name, term] of row) {
            assert.ok(
              (name === "n" && term.value === "0") || name === "total" || name === "one",
              `${query}: ${name}=${term.value}`,
            );
          }
        }
      }
    }
  });
});

Deno.test("no scope answers as before; a scope of every collection answers the same", async () => {
  await withStores(async ({ full, reference }) => {
    for (const query of [...COMPILED, ...FALLING_BACK]) {
      const unscoped = normalized(await full.query(query, OPTIONS));
      assert.deepEqual(unscoped, normalized(oxigraphAnswer(reference, query)), query);
      assert.deepEqual(normalized(await full.query(query, scoped(A, B))), unscoped, query);
      assert.deepEqual(normalized(await full.query(query, scoped(B, A, A))), unscoped, query);
    }
  });
});

Deno.test("scope: the scoped SQL rides the indexes, from the scope's graphs or probing a row's", async () => {
  await withStores(({ db }) => {
    const parser = new sparqljs.Parser();
    const find = (text: string) =>
      (db.prepare("SELECT id FROM terms WHERE term = ?").get(text) as { id: number } | undefined)
        ?.id;
    const plan = (query: string) => {
      const compiled = compileQuery(parser.parse(query), find, [A])!;
      return (db.prepare(`EXPLAIN QUERY PLAN ${compiled.sql}`).all(...compiled.parameters) as {
        detail: string;
      }[]).map((row) => row.detail).join(" | ");
    };
    // Every quad of the scope: its graphs by collection, each graph's quads by the primary key.
    const counting = plan(`SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }`);
    assert.match(counting, /COVERING INDEX items_by_collection_graph \(collection=\?\)/);
    assert.match(counting, /PRIMARY KEY \(g=\?\)/);
    assert.doesNotMatch(counting, /SCAN [qi][0-9]/);
    // One subject: its quads by the subject's index, each one's graph probed once.
    const subject = plan(`SELECT * WHERE { <${A1}> ?p ?o }`);
    assert.match(subject, /COVERING INDEX quads_spo \(s=\?\)/);
    assert.match(subject, /COVERING INDEX items_by_graph \(graph=\? AND collection=\?\)/);
    assert.doesNotMatch(subject, /SCAN [qi][0-9]/);
  });
});
