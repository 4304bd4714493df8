/**
 * Which collection holds which item graph, for `/sparql` (issue 43): the named graph
 * {@link COLLECTIONS_GRAPH} holds `<item graph> dct:isPartOf <collection>` for every item
 * of the collections the caller may read, so that one query can group by collection:
 *
 *   SELECT ?c (COUNT(DISTINCT ?class) AS ?n) WHERE {
 *     GRAPH <urn:rdf-content-service:collections> { ?g dct:isPartOf ?c }
 *     GRAPH ?g { ?s a ?class } } GROUP BY ?c
 *
 * The graph is not stored: the embedded store loads its triples when a query names it
 * (`store_embedded/sparql_fallback.ts`); on a SPARQL store, each `GRAPH <…collections> { … }`
 * of the query is replaced by the rows that match it, as VALUES ({@link withCollectionRows}),
 * since the store's own records are not the user's to read.
 */
// @ts-types="@types/sparqljs"
import type sparqljs from "sparqljs";
import { DataFactory } from "n3";
import { visitQueryNodes } from "./analyze_query.ts";
import { literalExpression } from "./expression_builders.ts";

/** The graph that says which collection holds which item graph. */
export const COLLECTIONS_GRAPH = "urn:rdf-content-service:collections";
/** Its one predicate: the item graph is part of the collection. */
export const IS_PART_OF = "http://purl.org/dc/terms/isPartOf";

/** An item graph and the collection that holds it. */
export interface CollectionRow {
  graph: string;
  collection: string;
}

/** Whether the query text may name the graph (a cheap test before parsing). */
export function mayNameCollectionsGraph(sparql: string): boolean {
  return sparql.includes(COLLECTIONS_GRAPH);
}

/**
 * Replaces, in place, every `GRAPH <COLLECTIONS_GRAPH> { … }` of `query` (subqueries and
 * EXISTS included) by the solutions its triple patterns have over `rows`, written as VALUES.
 * True when it replaced any. A pattern other than a basic graph pattern of triples (a
 * FILTER or OPTIONAL inside it, a property path) is left as it is and matches nothing there.
 */
export function withCollectionRows(
  query: sparqljs.SparqlQuery,
  rows: readonly CollectionRow[],
): boolean {
  let replaced = false;
  visitQueryNodes(query, (record) => {
    if (record.type !== "graph") return;
    const name = record.name as { termType?: string; value?: string } | undefined;
    if (name?.termType !== "NamedNode" || name.value !== COLLECTIONS_GRAPH) return;
    const patterns = record.patterns as sparqljs.Pattern[];
    if (!patterns.every((pattern) => pattern.type === "bgp")) return;
    const triples = patterns.flatMap((pattern) => (pattern as sparqljs.BgpPattern).triples);
    const values = triples.map((triple) => valuesOf(triple, rows));
    // The GRAPH node becomes a group of VALUES blocks: they join as the triples did.
    const group = record as Record<string, unknown>;
    delete group.name;
    group.type = "group";
    group.patterns = values;
    replaced = true;
  });
  return replaced;
}

/** The solutions of one triple pattern over the graph: VALUES, or FILTER(false) for none. */
function valuesOf(triple: sparqljs.Triple, rows: readonly CollectionRow[]): sparqljs.Pattern {
  const subject = triple.subject as sparqljs.Term;
  const predicate = triple.predicate as sparqljs.Term | sparqljs.PropertyPath;
  const object = triple.object as sparqljs.Term;
  const { namedNode } = DataFactory;
  const isPart = namedNode(IS_PART_OF) as unknown as sparqljs.Term;
  const matching = "type" in predicate ||
      (predicate.termType !== "Variable" && predicate.value !== IS_PART_OF)
    ? []
    : rows.filter((row) =>
      fits(subject, row.graph) && fits(object, row.collection) &&
      (!sameVariables(subject, object) || row.graph === row.collection) &&
      (predicate.termType !== "Variable" ||
        (!sameVariables(predicate, subject) && !sameVariables(predicate, object)))
    );
  const solutions = matching.map((row) => {
    const solution: sparqljs.ValuePatternRow = {};
    bind(solution, subject, namedNode(row.graph) as unknown as sparqljs.Term);
    bind(solution, object, namedNode(row.collection) as unknown as sparqljs.Term);
    if (!("type" in predicate)) bind(solution, predicate, isPart);
    return solution;
  });
  if (solutions.length > 0) return { type: "values", values: solutions };
  return { type: "filter", expression: literalExpression(false) };
}

/** Whether a term of the pattern matches `iri` (a variable or blank node matches anything). */
function fits(term: sparqljs.Term, iri: string): boolean {
  return term.termType === "Variable" || term.termType === "BlankNode" ||
    (term.termType === "NamedNode" && term.value === iri);
}

/** Whether two terms of the pattern are one variable (then bound to one value). */
function sameVariables(a: sparqljs.Term, b: sparqljs.Term): boolean {
  return a.termType === "Variable" && b.termType === "Variable" && a.value === b.value;
}

function bind(solution: sparqljs.ValuePatternRow, term: sparqljs.Term, value: sparqljs.Term) {
  if (term.termType === "Variable") solution[`?${term.value}`] = value as never;
}
