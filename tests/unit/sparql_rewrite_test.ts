/**
 * A query's text as the service reads and rewrites it (the row cap, a scope): each constant
 * read as written (`parser.ts`), and the text written back means what the query meant
 * (`generator.ts`), read again by sparqljs and by oxigraph.
 */
import { strict as assert } from "node:assert";
import oxigraph from "oxigraph";
import { analyzeQuery } from "../../src/sparql_protocol/analyze_query.ts";
import { sparqlParser } from "../../src/sparql_protocol/parser.ts";

const XSD = "http://www.w3.org/2001/XMLSchema#";

/** The parsed query as JSON, without what the rewrite may change: its limit and prefixes. */
function meaning(text: string): string {
  const parsed = sparqlParser().parse(text) as { limit?: number; prefixes?: unknown };
  delete parsed.limit;
  delete parsed.prefixes;
  return JSON.stringify(parsed);
}

/** The text the row cap runs, after checking that both parsers read it. */
function rewritten(query: string): string {
  const analyzed = analyzeQuery(query, { rowLimit: 10 });
  assert.ok(analyzed.limited, query);
  assert.match(analyzed.text, /\bLIMIT 11\b/, query);
  // Another parser than the one that wrote it: the text is SPARQL, not sparqljs's dialect.
  new oxigraph.Store().query(analyzed.text);
  return analyzed.text;
}

Deno.test("a numeric literal or prefixed name is read as written", () => {
  const parsed = sparqlParser().parse(
    `PREFIX x: <urn:x:> SELECT * WHERE { x:a\\.b\\~c ?p +5, 1.0E0, -1.5E-3, +.5, -0.50, 07, ` +
      `"+6"^^<${XSD}integer> }`,
  ) as { where: { triples: { subject: { value: string }; object: { value: string } }[] }[] };
  const [bgp] = parsed.where;
  assert.deepEqual(
    bgp.triples.map((triple) => triple.object.value),
    ["+5", "1.0E0", "-1.5E-3", "+.5", "-0.50", "07", "+6"],
  );
  assert.equal(bgp.triples[0].subject.value, "urn:x:a.b~c");
});

Deno.test("the row cap's rewrite keeps what the query means", () => {
  const queries = [
    `SELECT ?x (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY (STR(?s) AS ?x)`,
    `SELECT ?s (SAMPLE(?o) AS ?any) WHERE { ?s ?p ?o } GROUP BY ?s HAVING (COUNT(*) > 1)`,
    `SELECT * WHERE { { SELECT ?s WHERE { ?s ?p ?o } ORDER BY ?s LIMIT 2 OFFSET 1 } ?s ?q ?r }`,
    `SELECT * WHERE { { SELECT * WHERE { { SELECT ?s WHERE { ?s ?p ?o } LIMIT 3 } } LIMIT 500 } }`,
    `SELECT ?o WHERE { ?s ?p ?o FILTER((?o = 1 || ?o = 2) IN (true)) }`,
    `SELECT ?o WHERE { ?s ?p ?o FILTER((?o + 1) NOT IN (2, 3)) }`,
    `SELECT * WHERE { VALUES (?a ?b) { (1 UNDEF) (UNDEF +2) } ?a ?p ?b }`,
    `SELECT * WHERE { ?s ?p +5, 1.0E0, .5, "01"^^<${XSD}integer> FILTER(?s != -1.0E0) }`,
    `PREFIX x: <urn:x:> SELECT * WHERE { x:a\\.b ?p ?o }`,
    `SELECT * WHERE { ?s ?p "a\u2028b" } VALUES ?s { <urn:s> }`,
  ];
  for (const query of queries) {
    assert.equal(meaning(rewritten(query)), meaning(query), query);
  }
});

Deno.test("the row cap's rewrite writes several HAVING conditions as their conjunction", () => {
  const group = `SELECT ?s (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?s`;
  assert.equal(
    meaning(rewritten(`${group} HAVING (COUNT(*) > 1) (COUNT(*) < 3) (BOUND(?s))`)),
    meaning(`${group} HAVING (COUNT(*) > 1 && COUNT(*) < 3 && BOUND(?s))`),
  );
  // A subquery's conditions too.
  assert.equal(
    meaning(rewritten(`SELECT * WHERE { { ${group} HAVING (COUNT(*) > 1) (MIN(?o) < 3) } }`)),
    meaning(`SELECT * WHERE { { ${group} HAVING (COUNT(*) > 1 && MIN(?o) < 3) } }`),
  );
});

Deno.test("a blank node property list standing alone is a triples block (sparqljs failed on it)", () => {
  const query = sparqlParser().parse(
    "CONSTRUCT { [ <urn:x:s> ?s ; <urn:x:p> ?p ] . } WHERE { ?s ?p ?o . [ <urn:x:q> ?o ] }",
  ) as unknown as {
    template: { predicate: { value: string } }[];
    where: { triples: { predicate: { value: string } }[] }[];
  };
  assert.deepEqual(query.template.map((t) => t.predicate.value), ["urn:x:s", "urn:x:p"]);
  const where = query.where[0].triples.map((t) => t.predicate.value);
  assert.equal(where.length, 2);
  assert.equal(where[1], "urn:x:q");
});
