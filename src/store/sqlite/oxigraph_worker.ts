/**
 * Worker side of the embedded SPARQL engine: an oxigraph store holding a mirror of every
 * item graph (one named graph per item).
 *
 * It runs in a Worker so that a runaway query can be stopped by terminating the worker:
 * oxigraph evaluates synchronously and cannot be interrupted from the same thread.
 */
import oxigraph from "oxigraph";
import type { SparqlWorkerReply, SparqlWorkerRequest } from "./oxigraph_worker_protocol.ts";

const store = new oxigraph.Store();

/** The worker's global scope, typed without pulling the worker lib into the whole program. */
const scope = self as unknown as {
  postMessage(message: SparqlWorkerReply): void;
  onmessage: ((event: MessageEvent<SparqlWorkerRequest>) => void) | null;
};

function reply(message: SparqlWorkerReply): void {
  scope.postMessage(message);
}

function handle(request: SparqlWorkerRequest): SparqlWorkerReply | undefined {
  switch (request.op) {
    case "load":
      store.load(request.nquads, { format: "application/n-quads", no_transaction: true });
      return undefined;
    case "drop":
      store.update(`DROP SILENT GRAPH <${request.graph}>`);
      return undefined;
    case "query": {
      const result = store.query(request.sparql, {
        use_default_graph_as_union: request.unionDefaultGraph,
        results_format: request.form === "quads"
          ? "application/n-triples"
          : "application/sparql-results+json",
      });
      return { op: "result", id: request.id, text: String(result) };
    }
  }
}

scope.onmessage = (event: MessageEvent<SparqlWorkerRequest>) => {
  const request = event.data;
  try {
    const answer = handle(request);
    if (answer) reply(answer);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // A trap (e.g. "memory access out of bounds" on a query thousands of patterns long)
    // leaves oxigraph's memory in an unknown state: every later query fails the same way.
    const trapped = error instanceof WebAssembly.RuntimeError;
    if (request.op === "query") reply({ op: "error", id: request.id, message, trapped });
    else reply({ op: "fatal", message: `${request.op} failed: ${message}` });
  }
};
