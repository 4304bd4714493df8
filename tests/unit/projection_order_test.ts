/**
 * A SELECT's columns in the query's order (`projection_order.ts`): for `SELECT *`, the order
 * in which each variable first appears in the query, whatever order the parser's tree keeps.
 */
import { strict as assert } from "node:assert";
import { inQueryOrder, projectionOrder } from "../../src/sparql_protocol/projection_order.ts";
import { sparqlParser } from "../../src/sparql_protocol/parser.ts";

const order = (query: string) => projectionOrder(sparqlParser().parse(query));

Deno.test("SELECT * follows first appearance: GRAPH, BIND, VALUES, subqueries", () => {
  assert.deepEqual(order("SELECT * { GRAPH ?g { ?s ?p ?o } }"), ["g", "s", "p", "o"]);
  assert.deepEqual(order("SELECT * { ?s ?p ?o BIND(?o AS ?b) }"), ["s", "p", "o", "b"]);
  assert.deepEqual(order("SELECT * { VALUES (?v $w) { (1 UNDEF) } ?s ?p ?v }"), [
    "v",
    "w",
    "s",
    "p",
  ]);
  // A subquery shows only what it projects, in its projection's order.
  assert.deepEqual(order("SELECT * { ?a ?b ?c { SELECT ?y ?x { ?x ?z ?y } } }"), [
    "a",
    "b",
    "c",
    "y",
    "x",
  ]);
  assert.deepEqual(order("SELECT * { ?s ?p ?o } VALUES ?t { 1 }"), ["s", "p", "o", "t"]);
});

Deno.test("a projection keeps its order; an engine's extra columns follow", () => {
  assert.deepEqual(order("SELECT ?o (STR(?s) AS ?x) ?s { ?s ?p ?o }"), ["o", "x", "s"]);
  assert.deepEqual(order("ASK { ?s ?p ?o }"), []);
  assert.deepEqual(inQueryOrder(["o", "p", "s", "g"], ["g", "s", "p", "o"]), ["g", "s", "p", "o"]);
  assert.deepEqual(inQueryOrder(["z", "s"], ["s"]), ["s", "z"]);
});
