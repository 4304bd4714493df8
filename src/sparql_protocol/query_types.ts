/**
 * The shapes of a read-only SPARQL query and its answer, as every query runner speaks them:
 * the embedded engine, the remote store, the protocol endpoint and the tools. They belong to
 * the protocol, so that the protocol need not import the store that implements them.
 */
import type { Quad, Term } from "n3";

/** The result of a read-only SPARQL query, already bounded by `limit`. */
export type SparqlQueryResult =
  | { kind: "bindings"; variables: string[]; rows: Map<string, Term>[]; truncated: boolean }
  | { kind: "boolean"; value: boolean }
  | { kind: "quads"; quads: Quad[]; truncated: boolean };

/** Options of a read-only query. */
export interface SparqlQueryOptions {
  /** Most rows (or triples) returned; more sets `truncated`. */
  limit: number;
  /** Abort after this many milliseconds with a timeout problem. */
  timeoutMs: number;
  /** The SPARQL 1.1 Protocol's dataset; it replaces the query's own FROM clauses. */
  dataset?: QueryDataset;
  /**
   * The item graphs the caller may see (per-collection access, docs/SECURITY.md); unset, every
   * item graph. The answer is the one the query would get from a dataset holding only these
   * collections' item graphs: the default graph is their union, `GRAPH ?g` ranges over them
   * only, and `FROM`, `FROM NAMED`, `GRAPH <g>` or a protocol dataset naming any other graph
   * match nothing, as for a graph that does not exist.
   */
  scope?: QueryScope;
}

/** The collections whose item graphs a query may see (an empty list: none). */
export interface QueryScope {
  collections: string[];
}

/** The graphs of a query's dataset: `default-graph-uri` and `named-graph-uri`. */
export interface QueryDataset {
  defaultGraphs: string[];
  namedGraphs: string[];
}
