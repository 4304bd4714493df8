/** Messages between the embedded SPARQL engine and its worker. */

/** What the main thread asks of the worker. */
export type SparqlWorkerRequest =
  | { op: "load"; nquads: string }
  | { op: "drop"; graph: string }
  | {
    op: "query";
    id: number;
    sparql: string;
    form: "bindings" | "quads";
    /** False when the query names its dataset: the union would override its FROM. */
    unionDefaultGraph: boolean;
  };

/** What the worker answers. */
export type SparqlWorkerReply =
  | { op: "result"; id: number; text: string }
  /** `trapped`: WebAssembly trapped, and the engine's memory can no longer be trusted. */
  | { op: "error"; id: number; message: string; trapped: boolean }
  | { op: "fatal"; message: string };
