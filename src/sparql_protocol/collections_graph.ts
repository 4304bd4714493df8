/**
 * Which collection holds which item graph, for `/sparql` (issue 43): the named graph
 * {@link COLLECTIONS_GRAPH} holds `<item graph> dct:isPartOf <collection>` and
 * `<item graph> foaf:primaryTopic <item>` for every item of the collections the caller may
 * read, so that one query can group by collection, and tell the item of a graph whose name is
 * not its IRI (`store/item_keys.ts`):
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
/** The item graph is part of the collection. */
export const IS_PART_OF = "http://purl.org/dc/terms/isPartOf";
/** The item graph is about the item (its IRI, which may differ from the graph's name). */
export const PRIMARY_TOPIC = "http://xmlns.com/foaf/0.1/primaryTopic";

/** An item graph, the collection that holds it and the item's IRI. */
export interface CollectionRow {
  graph: string;
  collection: string;
  item: string;
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
  // A property path matches nothing here (documented: only triple patterns are answered).
  const solutions = "type" in predicate ? [] : graphTriples(rows).flatMap(([s, p, o]) => {
    const solution: sparqljs.ValuePatternRow = {};
    const matches = [[subject, s], [predicate, p], [object, o]].every(([term, iri]) =>
      bound(solution, term as sparqljs.Term, iri as string)
    );
    return matches ? [solution] : [];
  });
  if (solutions.length > 0) return { type: "values", values: solutions };
  return { type: "filter", expression: literalExpression(false) };
}

/** The graph's triples: each item graph's collection and item. */
function graphTriples(rows: readonly CollectionRow[]): [string, string, string][] {
  return rows.flatMap((row) =>
    [
      [row.graph, IS_PART_OF, row.collection],
      [row.graph, PRIMARY_TOPIC, row.item],
    ] as [string, string, string][]
  );
}

/**
 * Whether `term` of the pattern matches `iri` given what `solution` binds already (a
 * variable repeated in a pattern matches one value); binds a variable it meets first.
 */
function bound(solution: sparqljs.ValuePatternRow, term: sparqljs.Term, iri: string): boolean {
  if (term.termType === "BlankNode") return true;
  if (term.termType === "NamedNode") return term.value === iri;
  if (term.termType !== "Variable") return false;
  const key = `?${term.value}` as const;
  const held = solution[key] as sparqljs.Term | undefined;
  if (held) return held.value === iri;
  solution[key] = DataFactory.namedNode(iri) as unknown as never;
  return true;
}
