/**
 * The collections graph on a SPARQL store (src/sparql_protocol/collections_graph.ts): its
 * GRAPH patterns become the rows they match, as VALUES. The answers through /sparql on both
 * stores are checked by tests/api/access_test.ts.
 */
import { strict as assert } from "node:assert";
import { withCollectionRows } from "../../src/sparql_protocol/collections_graph.ts";
import { sparqlParser } from "../../src/sparql_protocol/parser.ts";
import { unindentedGenerator } from "../../src/sparql_protocol/generator.ts";

const ROWS = [
  { graph: "https://ex.org/i/1", collection: "https://ex.org/c/a", item: "https://ex.org/i/1" },
  { graph: "https://ex.org/i/2", collection: "https://ex.org/c/a", item: "https://ex.org/i/2" },
  { graph: "https://ex.org/i/3", collection: "https://ex.org/c/b", item: "https://ex.org/i/3" },
  // The same IRI in a second collection: a graph named apart from the IRI.
  {
    graph: "urn:rdf-content-service:item:b:1",
    collection: "https://ex.org/c/b",
    item: "https://ex.org/i/1",
  },
];
const GRAPH = "<urn:rdf-content-service:collections>";
const PART = "<http://purl.org/dc/terms/isPartOf>";
const TOPIC = "<http://xmlns.com/foaf/0.1/primaryTopic>";

function rewritten(query: string): string {
  const parsed = sparqlParser().parse(query);
  assert.ok(withCollectionRows(parsed, ROWS));
  return unindentedGenerator().stringify(parsed);
}

Deno.test("variables take the rows; constants keep those that match", () => {
  const all = rewritten(`SELECT * { GRAPH ${GRAPH} { ?g ${PART} ?c } }`);
  assert.doesNotMatch(all, /collections>/);
  assert.equal(all.match(/\(<[^>]+> <https:\/\/ex\.org\/c\/\w>\)/g)?.length, 4);
  const ofA = rewritten(`SELECT ?g { GRAPH ${GRAPH} { ?g ${PART} <https://ex.org/c/a> } }`);
  assert.match(ofA, /VALUES \?g \{\s*<https:\/\/ex\.org\/i\/1>\s*<https:\/\/ex\.org\/i\/2>\s*\}/);
});

Deno.test("a graph's item and collection join; a variable repeated binds one value", () => {
  const pairs = rewritten(
    `SELECT ?g ?c { GRAPH ${GRAPH} { ?g ${PART} ?c ; ${TOPIC} <https://ex.org/i/1> } }`,
  );
  // Two blocks joined: the item's graphs, and every graph's collection.
  assert.match(
    pairs,
    /VALUES \?g \{\s*<https:\/\/ex\.org\/i\/1>\s*<urn:rdf-content-service:item:b:1>\s*\}/,
  );
  const any = rewritten(`SELECT ?p { GRAPH ${GRAPH} { <https://ex.org/i/3> ?p ?o } }`);
  assert.equal(any.match(/<http:\/\/(purl|xmlns)[^>]+>\s+<https/g)?.length, 2);
  // ?x ?p ?x: no graph is its own collection or item here but i/1, i/2, i/3 (their items).
  const self = rewritten(`SELECT ?x { GRAPH ${GRAPH} { ?x ?p ?x } }`);
  assert.equal(self.match(/\(<https:\/\/ex\.org\/i\/\d> <[^>]+Topic>\)/g)?.length, 3);
});

Deno.test("a pattern no row matches matches nothing; one inside EXISTS is replaced too", () => {
  assert.match(
    rewritten(`SELECT ?c { GRAPH ${GRAPH} { <https://ex.org/i/9> ${PART} ?c } }`),
    /FILTER\("false"\^\^<[^>]+#boolean>\)/,
  );
  assert.match(
    rewritten(`SELECT ?c { GRAPH ${GRAPH} { ?g <https://ex.org/other> ?c } }`),
    /FILTER\("false"\^\^<[^>]+#boolean>\)/,
  );
  const nested = rewritten(
    `SELECT ?s { ?s ?p ?o FILTER EXISTS { GRAPH ${GRAPH} { ?s ${PART} ?c } } }`,
  );
  assert.doesNotMatch(nested, /collections>/);
});

Deno.test("a query without the graph is left as it is", () => {
  const parsed = sparqlParser().parse("SELECT * { GRAPH ?g { ?s ?p ?o } }");
  assert.equal(withCollectionRows(parsed, ROWS), false);
});
