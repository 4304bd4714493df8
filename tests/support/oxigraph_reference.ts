/**
 * A reference answer for the embedded store's SPARQL: oxigraph over the same item graphs, the
 * default graph loaded as the RDF merge of the item graphs (a set: a triple stated in several
 * items is in it once), as the store defines its union default graph. A query naming its
 * dataset (FROM) builds its default graph from the named graphs instead.
 *
 * Oxigraph keeps typed literals by value ("01"^^xsd:integer becomes "1"), so fixtures compared
 * with it hold literals in canonical form only.
 */
// @ts-types="@types/n3"
import { DataFactory, type Quad, Writer } from "n3";
import oxigraph from "oxigraph";
import { Parser } from "n3";
import { parseSparqlJsonResults } from "../../src/sparql_protocol/results_json.ts";
import type { SparqlQueryResult } from "../../src/sparql_protocol/query_types.ts";

/** An oxigraph store holding `quads` in their named graphs and their triples as the default. */
export function referenceStore(quads: Quad[]): oxigraph.Store {
  const store = new oxigraph.Store();
  store.load(new Writer({ format: "N-Quads" }).quadsToString(quads), {
    format: "application/n-quads",
  });
  const triples = quads.map((q) => DataFactory.quad(q.subject, q.predicate, q.object));
  store.load(new Writer({ format: "N-Triples" }).quadsToString(triples), {
    format: "application/n-triples",
  });
  return store;
}

/** Oxigraph's answer to `query` over a {@link referenceStore}. */
export function oxigraphAnswer(store: oxigraph.Store, query: string): SparqlQueryResult {
  const quads = /^\s*(CONSTRUCT|DESCRIBE)/.test(query);
  const text = String(store.query(query, {
    results_format: quads ? "application/n-triples" : "application/sparql-results+json",
  }));
  if (quads) {
    return {
      kind: "quads",
      quads: new Parser({ format: "N-Triples" }).parse(text),
      truncated: false,
    };
  }
  const parsed = parseSparqlJsonResults(text);
  return parsed.kind === "boolean" ? parsed : { ...parsed, truncated: false };
}
