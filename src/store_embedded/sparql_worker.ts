/**
 * The embedded store's query worker: a read-only connection of its own to the service's
 * file, evaluating one query at a time (`sparql_evaluator.ts`).
 *
 * It runs in a Worker so that a query that overruns its timeout can be stopped by
 * terminating the worker: neither SQLite (node:sqlite has no interrupt) nor oxigraph can be
 * interrupted from the thread that runs them. The connection only reads, so a stopped
 * query leaves nothing behind.
 */
import { DatabaseSync } from "node:sqlite";
import { SparqlEvaluator } from "./sparql_evaluator.ts";
import type { SparqlWorkerReply, SparqlWorkerRequest } from "./sparql_worker_protocol.ts";
import { isErrorKind } from "../errors/domain_error.ts";

/** The worker's global scope, typed without pulling the worker lib into the whole program. */
const scope = self as unknown as {
  name: string;
  postMessage(message: SparqlWorkerReply): void;
  onmessage: ((event: MessageEvent<SparqlWorkerRequest>) => unknown) | null;
};

// The file's path is the worker's name (set by the engine that starts it).
const db = new DatabaseSync(scope.name, { readOnly: true });
db.exec("PRAGMA busy_timeout = 5000");
const evaluator = new SparqlEvaluator(db);

scope.onmessage = async (event: MessageEvent<SparqlWorkerRequest>) => {
  const { id, request } = event.data;
  try {
    scope.postMessage({ op: "result", id, evaluation: await evaluator.evaluate(request) });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    scope.postMessage({
      op: "error",
      id,
      failure: {
        kind: isErrorKind(error, "unprocessable")
          ? "too-broad"
          : isErrorKind(error, "timeout")
          ? "timeout"
          : "failed",
        message,
        // A trap (e.g. "memory access out of bounds" on a query thousands of patterns long)
        // leaves oxigraph's memory in an unknown state.
        trapped: error instanceof WebAssembly.RuntimeError,
      },
    });
  }
};
