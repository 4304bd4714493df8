/** Messages between the embedded SPARQL engine and its query worker. */
import type { Evaluation, EvaluationRequest } from "./sparql_evaluator.ts";

/** What the main thread asks of the worker. */
export type SparqlWorkerRequest = { op: "query"; id: number; request: EvaluationRequest };

/** A failed query, as the main thread turns it into a domain error. */
export interface QueryFailure {
  /**
   * `too-broad`: the fallback's quad limit; `timeout`: its time ran out inside SQLite;
   * `failed`: the engine refused the query.
   */
  kind: "too-broad" | "timeout" | "failed";
  message: string;
  /** WebAssembly trapped, and the fallback engine's memory can no longer be trusted. */
  trapped: boolean;
}

/** What the worker answers. */
export type SparqlWorkerReply =
  | { op: "result"; id: number; evaluation: Evaluation }
  | { op: "error"; id: number; failure: QueryFailure };
