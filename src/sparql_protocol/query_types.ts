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
}

/** The graphs of a query's dataset: `default-graph-uri` and `named-graph-uri`. */
export interface QueryDataset {
  defaultGraphs: string[];
  namedGraphs: string[];
}
