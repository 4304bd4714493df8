/**
 * SPARQL on the embedded store, over its quad tables: every query answers what oxigraph
 * answers over the same item graphs held in memory (the engine the store used before, and
 * the union default graph as the store defines it), whether the query is compiled to SQL or
 * falls back; a query that would load too much is refused; a timeout stops a join inside
 * SQLite and leaves the engine answering.
 */
import { strict as assert } from "node:assert";
import { normalizedResult as normalized } from "../support/sparql_results.ts";
import { join } from "node:path";
// @ts-types="@types/sparqljs"
import sparqljs from "sparqljs";
import oxigraph from "oxigraph";
import { DataFactory, Parser, termToId } from "n3";
import type { Quad, Term } from "n3";
import { openLocalDatabase } from "../../src/local_database.ts";
import { LOCAL_DB_FILE } from "../../src/sqlite/local_db.ts";
import { EmbeddedTripleStore } from "../../src/store_embedded/embedded_triple_store.ts";
import { compileQuery } from "../../src/store_embedded/sparql_to_sql.ts";
import { loadQuads, planLoad } from "../../src/store_embedded/sparql_fallback.ts";
import { nquadsTerm } from "../../src/store_embedded/nquads_term.ts";
import { oxigraphAnswer, referenceStore } from "../support/oxigraph_reference.ts";
import { isProblem } from "../../src/errors/domain_error.ts";
import { GROUP_COMMIT } from "../support/config_defaults.ts";

const { namedNode, literal, blankNode, quad } = DataFactory;
const COLLECTION = "https://data.example.org/collection/sparql";
const EX = "https://example.org/";
const RDF_TYPE = namedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type");
const XSD_INT = namedNode("http://www.w3.org/2001/XMLSchema#integer");

/** Three items: a triple stated in two of them, one blank-node label in two, a U+0000. */
function items(): { uri: string; quads: Quad[] }[] {
  const shared = quad(namedNode(`${EX}concept/1`), namedNode(`${EX}label`), literal("Shared"));
  return [1, 2, 3].map((n) => {
    const s = namedNode(`${EX}item/${n}`);
    const author = blankNode("author");
    const quads = [
      quad(s, RDF_TYPE, namedNode(`${EX}Class${n % 2}`)),
      quad(s, namedNode(`${EX}title`), literal(`Title ${n}`, "en")),
      quad(s, namedNode(`${EX}title`), literal(`Titel ${n}`, "de")),
      quad(s, namedNode(`${EX}count`), literal(String(n * 10), XSD_INT)),
      quad(s, namedNode(`${EX}subject`), namedNode(`${EX}concept/${n === 3 ? 2 : 1}`)),
      quad(s, namedNode(`${EX}author`), author),
      quad(author, namedNode(`${EX}name`), literal(n === 2 ? "nul\u0000name" : `Author ${n}`)),
      quad(s, namedNode(`${EX}next`), namedNode(`${EX}item/${n + 1}`)),
    ];
    if (n < 3) quads.push(shared);
    return { uri: `${EX}item/${n}`, quads };
  });
}

/** Queries the compiler must take (asserted), then ones that fall back. */
const COMPILED = [
  `SELECT * WHERE { ?s ?p ?o }`,
  `SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }`,
  `SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }`,
  `SELECT * WHERE { GRAPH ?g { <${EX}item/2> ?p ?o } }`,
  `SELECT ?g ?p WHERE { GRAPH ?g { ?g ?p <${EX}concept/1> } }`,
  `SELECT ?s ?t WHERE { ?s a <${EX}Class1> ; <${EX}title> ?t }`,
  `SELECT DISTINCT ?c WHERE { ?s <${EX}subject> ?c }`,
  `SELECT ?c (COUNT(?s) AS ?n) WHERE { ?s <${EX}subject> ?c } GROUP BY ?c`,
  `SELECT (COUNT(DISTINCT ?c) AS ?n) WHERE { ?s <${EX}subject> ?c }`,
  `SELECT ?name WHERE { ?s <${EX}author> ?a . ?a <${EX}name> ?name }`,
  `SELECT ?name WHERE { GRAPH <${EX}item/2> { ?s <${EX}author> [ <${EX}name> ?name ] } }`,
  `SELECT ?a ?b WHERE { ?a <${EX}next> ?b . ?b <${EX}next> ?c }`,
  `SELECT * WHERE { ?s <${EX}title> "Title 2"@en }`,
  `SELECT * WHERE { ?s <${EX}count> 30 }`,
  `SELECT * WHERE { ?s <${EX}nothing> ?o }`,
  `SELECT (COUNT(*) AS ?n) WHERE { ?s <${EX}nothing> ?o }`,
  `SELECT ?l WHERE { <${EX}concept/1> <${EX}label> ?l }`,
  `SELECT ?g WHERE { GRAPH ?g { <${EX}concept/1> <${EX}label> ?l } }`,
  `ASK { ?s <${EX}title> "Titel 3"@de }`,
  `ASK { ?s <${EX}title> "Titel 9"@de }`,
];
const FALLING_BACK = [
  `SELECT ?s ?t WHERE { ?s <${EX}title> ?t FILTER(LANG(?t) = "en") } ORDER BY ?t`,
  `SELECT ?s ?c WHERE { ?s a ?t OPTIONAL { ?s <${EX}count> ?c FILTER(?c > 15) } }`,
  `SELECT ?x WHERE { { ?x a <${EX}Class0> } UNION { ?x <${EX}count> 10 } }`,
  `SELECT ?b WHERE { <${EX}item/1> <${EX}next>+ ?b }`,
  `SELECT (SUM(?c) AS ?total) WHERE { ?s <${EX}count> ?c }`,
  `SELECT ?s WHERE { VALUES ?s { <${EX}item/1> <${EX}item/3> } ?s a ?t }`,
  `SELECT ?s ?p WHERE { ?s ?p ?o FILTER NOT EXISTS { ?s a <${EX}Class1> } }`,
  `SELECT ?g WHERE { GRAPH ?g { } }`,
  `CONSTRUCT { ?s <${EX}named> ?n } WHERE { ?s <${EX}author>/<${EX}name> ?n }`,
];

async function withStore(
  fn: (store: EmbeddedTripleStore, reference: oxigraph.Store, dir: string) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "rcs-sparql-" });
  const db = openLocalDatabase(dir);
  const store = EmbeddedTripleStore.open(db, join(dir, LOCAL_DB_FILE), GROUP_COMMIT);
  try {
    const all: Quad[] = [];
    for (const [index, item] of items().entries()) {
      await store.createItem({
        collection: COLLECTION,
        uri: item.uri,
        quads: item.quads,
        hash: "h",
      });
      const graph = namedNode(item.uri);
      const scoped = (term: Term) =>
        term.termType === "BlankNode" ? blankNode(`i${index}_${term.value}`) : term;
      for (const q of item.quads) {
        all.push(
          quad(
            scoped(q.subject) as Quad["subject"],
            q.predicate,
            scoped(q.object) as Quad["object"],
            graph,
          ),
        );
      }
    }
    const reference = referenceStore(all);
    await fn(store, reference, dir);
  } finally {
    await store.close();
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("embedded SPARQL answers as oxigraph over the same graphs, compiled or not", async () => {
  await withStore(async (store, reference) => {
    const parser = new sparqljs.Parser();
    for (const query of COMPILED) {
      assert.ok(compileQuery(parser.parse(query), () => 1), `not compiled: ${query}`);
    }
    for (const query of FALLING_BACK) {
      assert.equal(compileQuery(parser.parse(query), () => 1), undefined, `compiled: ${query}`);
    }
    for (const query of [...COMPILED, ...FALLING_BACK]) {
      const answer = await store.query(query, { limit: 1000, timeoutMs: 30_000 });
      assert.deepEqual(normalized(answer), normalized(oxigraphAnswer(reference, query)), query);
    }
  });
});

Deno.test("embedded SPARQL: the fallback loads only what the patterns select, and at most its limit", async () => {
  await withStore(async (store, _reference, dir) => {
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(join(dir, LOCAL_DB_FILE), { readOnly: true });
    try {
      const find = (text: string) => {
        const row = db.prepare("SELECT id FROM terms WHERE term = ?").get(text) as
          | { id: number }
          | undefined;
        return row?.id;
      };
      const parser = new sparqljs.Parser();
      const titles = planLoad(
        parser.parse(`SELECT ?t WHERE { ?s <${EX}title> ?t } ORDER BY ?t`),
        find,
      );
      assert.equal(titles.everything, false);
      assert.equal(loadQuads(db, titles).nquads.trim().split("\n").length, 6);
      const everything = planLoad(parser.parse(`SELECT * WHERE { ?s ?p ?o } ORDER BY ?s`), find);
      assert.equal(everything.everything, true);
      assert.throws(
        () => loadQuads(db, everything, 5),
        (error) => isProblem(error, "query-too-broad"),
      );
    } finally {
      db.close();
    }
    // Through the store, a query the fallback cannot bound is still answered here (small).
    const all = await store.query(`SELECT * WHERE { ?s ?p ?o } ORDER BY ?s`, {
      limit: 1000,
      timeoutMs: 30_000,
    });
    // 26 quads, 25 triples: the default graph holds the shared label once.
    assert.equal(all.kind === "bindings" && all.rows.length, 25);
  });
});

Deno.test("embedded SPARQL: a join past its timeout is stopped inside SQLite; the next query answers", async () => {
  await withStore(async (store) => {
    const started = performance.now();
    await assert.rejects(
      store.query(
        `SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n2 ?o }`,
        { limit: 10, timeoutMs: 500 },
      ),
      (error) => isProblem(error, "query-timeout"),
    );
    assert.ok(performance.now() - started < 5_000);
    const after = await store.query(`ASK { ?s ?p ?o }`, { limit: 10, timeoutMs: 5_000 });
    assert.deepEqual(after, { kind: "boolean", value: true });
  });
});

Deno.test("embedded SPARQL: the fallback's N-Quads hold every stored term exactly", () => {
  const graph = namedNode(`${EX}g`);
  const objects = [
    literal('quote " backslash \\ newline \n return \r tab \t nul \u0000 é 😀', "en"),
    literal("1.5e3", namedNode("http://www.w3.org/2001/XMLSchema#double")),
    literal("plain"),
    namedNode(`${EX}o?x=1#y`),
    blankNode("i7_b0"),
  ];
  for (const object of objects) {
    const id = termToId(object);
    const line = `${nquadsTerm(`${EX}s`)} ${nquadsTerm(`${EX}p`)} ${nquadsTerm(id)} ${
      nquadsTerm(`${EX}g`)
    } .\n`;
    const [parsed] = new Parser({ format: "N-Quads", blankNodePrefix: "" }).parse(line);
    assert.ok(parsed.object.equals(object), `${JSON.stringify(id)} → ${line}`);
    assert.ok(parsed.graph.equals(graph));
  }
});

Deno.test("embedded SPARQL: the default graph is a set; a triple two items state counts once on both paths", async () => {
  await withStore(async (store) => {
    const concept = `<${EX}concept/1>`;
    // Each pair: the compiled form, and the same query the fallback answers (a FILTER).
    const answers = async (query: string) => {
      const result = await store.query(query, { limit: 1000, timeoutMs: 30_000 });
      assert.equal(result.kind, "bindings", query);
      return result.kind === "bindings"
        ? result.rows.map((row) => row.get("n")?.value ?? row.get("o")?.value)
        : [];
    };
    for (const filter of ["", "FILTER(true)"]) {
      assert.deepEqual(await answers(`SELECT ?o WHERE { ${concept} ?p ?o ${filter} }`), ["Shared"]);
      assert.deepEqual(
        await answers(`SELECT (COUNT(*) AS ?n) WHERE { ${concept} ?p ?o ${filter} }`),
        ["1"],
      );
      // Joined with a pattern each item matches: one row per item, not per item and copy.
      assert.deepEqual(
        await answers(
          `SELECT (COUNT(*) AS ?n) WHERE { ?s <${EX}subject> ?c . ?c ?p ?o ${filter} }`,
        ),
        ["2"],
      );
    }
    // The same graphs named as the dataset: their merge is a set too.
    const from = `FROM <${EX}item/1> FROM <${EX}item/2> FROM <${EX}item/3>`;
    assert.deepEqual(await answers(`SELECT (COUNT(*) AS ?n) ${from} WHERE { ${concept} ?p ?o }`), [
      "1",
    ]);
    assert.deepEqual(
      await answers(
        `SELECT (COUNT(*) AS ?n) FROM <${EX}item/1> FROM NAMED <${EX}item/2> WHERE { GRAPH ?g { ${concept} ?p ?o } }`,
      ),
      ["1"],
    );
    // Inside GRAPH each item's copy is its own.
    assert.deepEqual(
      await answers(`SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ${concept} ?p ?o } }`),
      ["2"],
    );
  });
});

Deno.test("embedded SPARQL: a file from before migration 10 finds its shared triples on upgrade", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rcs-sparql-upgrade-" });
  try {
    let db = openLocalDatabase(dir);
    let store = EmbeddedTripleStore.open(db, join(dir, LOCAL_DB_FILE), GROUP_COMMIT);
    for (const item of items()) {
      await store.createItem({
        collection: COLLECTION,
        uri: item.uri,
        quads: item.quads,
        hash: "h",
      });
    }
    await store.close();
    // Back to version 9: neither the table, migration 11's search layout column, migration
    // 13's item versions, migration 14's change feed nor migration 15's webhook state existed.
    db.exec(
      "DROP TABLE shared_triples; ALTER TABLE search_physical_indices DROP COLUMN layout; " +
        "DROP TABLE item_versions; DROP TABLE item_changes; DROP TABLE change_horizons; " +
        "DROP TABLE webhook_positions; DROP TABLE webhook_dead_letters; " +
        "UPDATE schema_version SET version = 9",
    );
    db.close();
    db = openLocalDatabase(dir);
    store = EmbeddedTripleStore.open(db, join(dir, LOCAL_DB_FILE), GROUP_COMMIT);
    try {
      const shared = db.prepare("SELECT count(*) AS n FROM shared_triples").get() as { n: number };
      assert.equal(shared.n, 1);
      const count = await store.query(`SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }`, {
        limit: 10,
        timeoutMs: 30_000,
      });
      assert.equal(count.kind === "bindings" && count.rows[0].get("n")?.value, "25");
    } finally {
      await store.close();
      db.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
