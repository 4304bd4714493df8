/**
 * The query tool's and initialise's SPARQL handling against hostile input: federation is
 * refused, deep nesting is refused before the (cubic) parser sees it, and re-generated
 * query text keeps IRIs and literals that hold U+2028 intact.
 */
import { strict as assert } from "node:assert";
import oxigraph from "oxigraph";
import { analyzeQuery } from "../../src/sparql_protocol/analyze_query.ts";
import { parseRuleQuery } from "../../src/initialize/rule_query.ts";
import { ProblemError, problemOf as asProblem } from "../../src/http/problem.ts";

function slugOf(run: () => unknown): string {
  try {
    run();
  } catch (thrown) {
    const error = asProblem(thrown);
    assert.ok(error instanceof ProblemError, String(thrown));
    return error.slug;
  }
  return "accepted";
}

Deno.test("SERVICE is refused wherever it is nested", () => {
  for (
    const query of [
      "SELECT * WHERE { SERVICE <http://127.0.0.1:1/sparql> { ?s ?p ?o } }",
      "SELECT * WHERE { ?s ?p ?o OPTIONAL { { SERVICE SILENT <http://h/> { ?s ?q ?v } } } }",
      "SELECT * WHERE { BIND(<http://h/> AS ?e) SERVICE ?e { ?s ?p ?o } }",
      "ASK { FILTER EXISTS { SERVICE <http://h/> { ?s ?p ?o } } }",
      "SELECT * WHERE { { SELECT ?s WHERE { SERVICE <http://h/> { ?s ?p ?o } } } }",
    ]
  ) {
    assert.equal(slugOf(() => analyzeQuery(query, { rowLimit: 10 })), "sparql-service-refused");
  }
  assert.equal(
    slugOf(() => analyzeQuery("SELECT * FROM <http://h/g> WHERE { ?s ?p ?o }")),
    "accepted",
  );
});

Deno.test("a reserved graph is refused wherever the query or the dataset names it", () => {
  const meta = "urn:x:meta";
  const options = { reservedGraphs: [meta] };
  for (
    const query of [
      `SELECT * FROM <${meta}> WHERE { ?s ?p ?o }`,
      `SELECT * FROM NAMED <${meta}> WHERE { GRAPH ?g { ?s ?p ?o } }`,
      `SELECT * WHERE { GRAPH <${meta}> { ?s ?p ?o } }`,
      `ASK { FILTER NOT EXISTS { { SELECT * { GRAPH <${meta}> { ?s ?p ?o } } } } }`,
      `CONSTRUCT { ?s ?p ?o } WHERE { OPTIONAL { GRAPH <${meta}> { ?s ?p ?o } } }`,
    ]
  ) {
    assert.equal(slugOf(() => analyzeQuery(query, options)), "reserved-graph", query);
  }
  const any = "SELECT * WHERE { GRAPH ?g { ?s ?p ?o } }";
  for (
    const dataset of [{ defaultGraphs: [meta], namedGraphs: [] }, {
      defaultGraphs: [],
      namedGraphs: ["urn:x:item", meta],
    }]
  ) {
    assert.equal(slugOf(() => analyzeQuery(any, { ...options, dataset })), "reserved-graph");
  }
  // Other graphs, variables and the same IRI as a plain term are fine.
  for (
    const query of [
      any,
      "SELECT * FROM <urn:x:item> WHERE { GRAPH <urn:x:other> { ?s ?p ?o } }",
      `SELECT * WHERE { ?s ?p <${meta}> }`,
    ]
  ) {
    assert.equal(slugOf(() => analyzeQuery(query, options)), "accepted", query);
  }
});

Deno.test("a query nested 50,000 deep is refused at once; 100 levels are fine", () => {
  const nested = (depth: number) =>
    `SELECT * WHERE ${"{ ".repeat(depth)}?s ?p ?o${" }".repeat(depth)}`;
  const started = performance.now();
  assert.equal(slugOf(() => analyzeQuery(nested(50_000))), "invalid-sparql");
  assert.equal(
    slugOf(() => analyzeQuery(`ASK { FILTER(${"(".repeat(200)}1${")".repeat(200)}) }`)),
    "invalid-sparql",
  );
  assert.ok(performance.now() - started < 1_000);
  assert.equal(slugOf(() => analyzeQuery(nested(100))), "accepted");
  // Brackets inside strings, IRIs and comments are not nesting.
  const quoted = `SELECT * WHERE { ?s ?p "${"(".repeat(300)}" . ?s <http://x.org/${
    "(".repeat(300)
  }> ?o
    # ${"{".repeat(300)}
    FILTER(?o != '''${"[".repeat(300)}''') }`;
  assert.equal(slugOf(() => analyzeQuery(quoted, { rowLimit: 5 })), "accepted");
});

Deno.test("re-generated queries keep U+2028 in IRIs and literals", () => {
  const iri = "https://x.org/a\u2028b";
  const limited = analyzeQuery(`SELECT * WHERE { <${iri}> ?p "x\u2028y" }`, { rowLimit: 5 });
  assert.ok(limited.limited);
  assert.ok(limited.text.includes(`<${iri}>`), limited.text);
  assert.ok(limited.text.includes(`"x\u2028y"`), limited.text);

  const rule = parseRuleQuery("CONSTRUCT { ?this <http://x.org/p> 1 } WHERE { }");
  const store = new oxigraph.Store();
  const quads = store.query(rule.bind(iri)) as { subject: { value: string } }[];
  assert.equal(quads[0].subject.value, iri);
});
