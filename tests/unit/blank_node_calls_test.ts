/**
 * BNODE(string) per solution (src/sparql_protocol/blank_node_calls.ts): which projections the
 * service takes over, and the blank nodes it makes from the engine's strings. The engines'
 * answers through /sparql are checked by the W3C suites (sparql11/functions/bnode01).
 */
import { strict as assert } from "node:assert";
// @ts-types="@types/n3"
import { DataFactory, type Term } from "n3";
import {
  blankNodesPerSolution,
  withBlankNodeCalls,
} from "../../src/sparql_protocol/blank_node_calls.ts";
import type { SparqlQueryResult } from "../../src/sparql_protocol/query_types.ts";

const { literal, namedNode } = DataFactory;

Deno.test("BNODE(E) projected by the top-level SELECT is asked for as E's string", () => {
  const calls = withBlankNodeCalls(
    "SELECT ?s (BNODE(?s) AS ?b) (bnode(?t) AS ?c) WHERE { ?x ?s ?t }",
  );
  assert.deepEqual(calls.variables, ["b", "c"]);
  assert.doesNotMatch(calls.sparql, /bnode/i);
  assert.match(
    calls.sparql,
    /\(IF\(\(ISLITERAL\(\?s\)\) && \(\(DATATYPE\(\?s\)\) = <[^>]+#string>\), STR\(\?s\), \?\w+\) AS \?b\)/,
  );
});

Deno.test("BNODE is left to the engine where rows would change before they are answered", () => {
  for (
    const query of [
      "SELECT (BNODE() AS ?b) WHERE {}",
      "SELECT DISTINCT (BNODE(?s) AS ?b) WHERE { ?x ?p ?s }",
      "SELECT REDUCED (BNODE(?s) AS ?b) WHERE { ?x ?p ?s }",
      "SELECT (BNODE(?s) AS ?b) WHERE { ?x ?p ?s } ORDER BY ?b",
      "SELECT (BNODE(STRUUID()) AS ?b) WHERE { ?x ?p ?s }",
      "SELECT ?b WHERE { ?x ?p ?s BIND(BNODE(?s) AS ?b) }",
      "CONSTRUCT { ?x ?p ?s } WHERE { ?x ?p ?s FILTER(isBlank(BNODE(?s))) }",
      "SELECT (BNODE(?s) AS ?b) WHERE { ?x ?p ?s", // a syntax error: the store's to answer
    ]
  ) {
    const calls = withBlankNodeCalls(query);
    assert.deepEqual(calls, { sparql: query, variables: [] }, query);
  }
});

Deno.test("one blank node per string within a row, none shared between rows", () => {
  const row = (a: string, b: string) =>
    new Map<string, Term>([
      ["a", literal(a)],
      ["b", literal(b)],
      ["s", namedNode("https://ex.org/s")],
    ]);
  const result: SparqlQueryResult = {
    kind: "bindings",
    variables: ["a", "b", "s"],
    rows: [row("foo", "foo"), row("foo", "bar"), new Map<string, Term>([["a", literal("foo")]])],
    truncated: false,
  };
  const answered = blankNodesPerSolution(result, ["a", "b"]);
  assert.equal(answered.kind, "bindings");
  if (answered.kind !== "bindings") return;
  const [first, second, third] = answered.rows;
  assert.equal(first.get("a")!.termType, "BlankNode");
  assert.ok(first.get("a")!.equals(first.get("b")!));
  assert.ok(!second.get("a")!.equals(second.get("b")!));
  const labels = [first.get("a"), second.get("a"), second.get("b"), third.get("a")]
    .map((term) => term!.value);
  assert.equal(new Set(labels).size, 4);
  assert.equal(third.has("b"), false); // unbound (BNODE's argument was no string) stays so
  assert.equal(first.get("s")!.value, "https://ex.org/s");
});

Deno.test("a text nested too deep to parse is left to the query's reader, at once", () => {
  const deep = `SELECT (BNODE(?s) AS ?b) FROM <https://ex.org/c> WHERE ${"{ ".repeat(50_000)}` +
    `?x ?p ?s${" }".repeat(50_000)}`;
  const started = performance.now();
  assert.deepEqual(withBlankNodeCalls(deep), { sparql: deep, variables: [] });
  assert.ok(performance.now() - started < 1_000, "sparqljs would take about an hour");
});
