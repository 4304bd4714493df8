/**
 * The embedded store's SPARQL engine: oxigraph in a Worker over a mirror of the item graphs.
 *
 * The mirror is built lazily on the first query (most deployments never query) and then
 * kept in step with every committed write. A query that overruns its timeout, or that makes
 * the WebAssembly engine trap, terminates the worker; the next query rebuilds the mirror from
 * SQLite, the system of record.
 */
import { Parser } from "n3";
import { InvalidInput, Timeout, Unavailable } from "../../errors/domain_error.ts";
import type { SparqlQueryOptions, SparqlQueryResult } from "../triple_store.ts";
import type { SparqlWorkerReply, SparqlWorkerRequest } from "./oxigraph_worker_protocol.ts";
import { analyzeQuery } from "../../sparql_protocol/analyze_query.ts";
import { parseSparqlJsonResults } from "../../sparql_protocol/results_json.ts";

/** Produces the whole store as N-Quads chunks (each a few thousand lines). */
export type MirrorSource = () => AsyncIterable<string>;

interface PendingQuery {
  resolve: (text: string) => void;
  reject: (error: Error) => void;
}

/** A killable SPARQL engine over a lazily built mirror. */
export class EmbeddedSparqlEngine {
  #worker?: Worker;
  #building?: Promise<Worker>;
  /** Changes committed while the mirror loads, applied after the load. */
  #changesDuringBuild?: SparqlWorkerRequest[];
  #pending = new Map<number, PendingQuery>();
  #nextId = 1;
  readonly #source: MirrorSource;

  constructor(source: MirrorSource) {
    this.#source = source;
  }

  /** Runs a read-only query; invalid-input for updates or syntax errors, timeout on timeout. */
  async query(sparql: string, options: SparqlQueryOptions): Promise<SparqlQueryResult> {
    const analyzed = analyzeQuery(sparql, { rowLimit: options.limit, dataset: options.dataset });
    const form = analyzed.form === "CONSTRUCT" || analyzed.form === "DESCRIBE"
      ? "quads"
      : "bindings";
    const worker = await this.#ensureWorker();
    const id = this.#nextId++;
    const text = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        this.#reset(new Error("superseded by a timeout"));
        reject(
          new Timeout(
            "query-timeout",
            "Query timed out",
            `The query did not finish within ${options.timeoutMs} ms and was stopped.`,
          ),
        );
      }, options.timeoutMs);
      this.#pending.set(id, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      worker.postMessage({
        op: "query",
        id,
        sparql: analyzed.text,
        form,
        unionDefaultGraph: !analyzed.hasDataset,
      });
    });
    if (form === "quads") {
      const quads = new Parser({ format: "N-Triples" }).parse(text);
      const truncated = quads.length > options.limit;
      return { kind: "quads", quads: truncated ? quads.slice(0, options.limit) : quads, truncated };
    }
    const parsed = parseSparqlJsonResults(text);
    if (parsed.kind === "boolean") return parsed;
    const truncated = parsed.rows.length > options.limit;
    return {
      kind: "bindings",
      variables: parsed.variables,
      rows: truncated ? parsed.rows.slice(0, options.limit) : parsed.rows,
      truncated,
    };
  }

  /** Mirrors a committed write: the graph's new content, or undefined when deleted. */
  graphChanged(graph: string, nquads: (() => string) | undefined): void {
    // Neither built nor building: nothing to tell, and the N-Quads are not even written.
    if (!this.#worker && !this.#changesDuringBuild) return;
    const changes: SparqlWorkerRequest[] = [{ op: "drop", graph }];
    if (nquads) changes.push({ op: "load", nquads: nquads() });
    if (this.#worker) { for (const change of changes) this.#worker.postMessage(change); }
    else this.#changesDuringBuild?.push(...changes);
    // Neither: not built yet, and the build will read the committed state.
  }

  /** Stops the worker. */
  close(): void {
    this.#reset(new Error("engine closed"));
  }

  #ensureWorker(): Promise<Worker> {
    if (this.#worker) return Promise.resolve(this.#worker);
    this.#building ??= this.#build().finally(() => this.#building = undefined);
    return this.#building;
  }

  async #build(): Promise<Worker> {
    const worker = new Worker(new URL("./oxigraph_worker.ts", import.meta.url), { type: "module" });
    worker.onmessage = (event: MessageEvent<SparqlWorkerReply>) => this.#onReply(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.#reset(new Error(`SPARQL worker failed: ${event.message}`));
    };
    // Replaying a change the load already saw is harmless: drop + load is idempotent.
    this.#changesDuringBuild = [];
    try {
      for await (const chunk of this.#source()) worker.postMessage({ op: "load", nquads: chunk });
      for (const change of this.#changesDuringBuild) worker.postMessage(change);
    } catch (error) {
      worker.terminate();
      throw error;
    } finally {
      this.#changesDuringBuild = undefined;
    }
    this.#worker = worker;
    return worker;
  }

  #onReply(reply: SparqlWorkerReply): void {
    if (reply.op === "fatal") {
      this.#reset(new Error(reply.message));
      return;
    }
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    this.#pending.delete(reply.id);
    if (reply.op === "result") pending.resolve(reply.text);
    else if (!reply.trapped) {
      pending.reject(
        new InvalidInput("query-failed", "Query failed", `The query failed: ${reply.message}`),
      );
    } else {
      pending.reject(
        new InvalidInput(
          "query-failed",
          "Query failed",
          `The query engine failed on this query (${reply.message}) and was restarted; ` +
            "a simpler query (fewer patterns or values) may run.",
        ),
      );
      // The next query rebuilds the mirror in a fresh worker.
      this.#reset(
        new Unavailable(
          "query-engine-restarted",
          "Query engine restarted",
          "Another query made the embedded query engine fail; it was restarted. Retry the query.",
        ),
      );
    }
  }

  #reset(reason: Error): void {
    this.#worker?.terminate();
    this.#worker = undefined;
    for (const pending of this.#pending.values()) pending.reject(reason);
    this.#pending.clear();
  }
}
