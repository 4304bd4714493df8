/**
 * The embedded store's SPARQL engine: queries evaluated over the quad tables on disk
 * (`sparql_evaluator.ts`), in a worker with a read-only connection of its own. Nothing is
 * copied into memory ahead of a query, so a start needs no rebuild and memory does not
 * grow with the store.
 *
 * A query that overruns its timeout, or makes the fallback engine trap, terminates the
 * worker; the next query starts a fresh one (a connection, no data to load). A join also
 * stops itself inside SQLite once its time is up (`sparql_to_sql.ts`'s alive function), so a
 * terminated worker leaves no statement running. An in-memory database (tests) cannot be
 * opened by a second connection: its queries run on the main thread, where only that check
 * (not the fallback engine) stops a query at its timeout.
 */
import { Parser } from "n3";
import type { DatabaseSync } from "node:sqlite";
import { DomainError, isErrorKind } from "../errors/domain_error.ts";
import type { SparqlQueryOptions, SparqlQueryResult } from "../sparql_protocol/query_types.ts";
import { termFromId, writtenTagFactory } from "../rdf/language_tags.ts";
import type { Term } from "n3";
import type { QueryFailure, SparqlWorkerReply } from "./sparql_worker_protocol.ts";
import { type Evaluation, type EvaluationRequest, SparqlEvaluator } from "./sparql_evaluator.ts";
import { analyzeQuery } from "../sparql_protocol/analyze_query.ts";
import { parseSparqlJsonResults } from "../sparql_protocol/results_json.ts";
import { restoreBindings, restoreQuads } from "./written_tags.ts";

/** A fallback query that loaded more quads than this leaves its worker to be replaced. */
const RECYCLE_AFTER_QUADS = 50_000;

/** How long after a query's deadline the worker is terminated if it has not answered. */
const TERMINATE_GRACE_MS = 200;

interface PendingQuery {
  resolve: (evaluation: Evaluation) => void;
  reject: (error: Error) => void;
}

/** A killable SPARQL engine over the quad tables. */
export class EmbeddedSparqlEngine {
  readonly #path?: string;
  /** The main thread's evaluator, for an in-memory database. */
  readonly #local?: SparqlEvaluator;
  #worker?: Worker;
  /** The worker is replaced once idle (see {@link RECYCLE_AFTER_QUADS}). */
  #recycle = false;
  #pending = new Map<number, PendingQuery>();
  #nextId = 1;

  /** `path`: the database file the worker opens; undefined for an in-memory `db`. */
  constructor(db: DatabaseSync, path?: string) {
    this.#path = path;
    if (!path) this.#local = new SparqlEvaluator(db);
  }

  /** Runs a read-only query; invalid-input for updates or syntax errors, timeout on timeout. */
  async query(sparql: string, options: SparqlQueryOptions): Promise<SparqlQueryResult> {
    const analyzed = analyzeQuery(sparql, { rowLimit: options.limit, dataset: options.dataset });
    const form = analyzed.form === "CONSTRUCT" || analyzed.form === "DESCRIBE"
      ? "quads"
      : "bindings";
    const request: EvaluationRequest = {
      sparql: analyzed.text,
      form,
      unionDefaultGraph: !analyzed.hasDataset,
      // A copy: the request crosses to the worker, and the caller's list stays its own.
      scope: options.scope ? [...options.scope.collections] : undefined,
      deadline: Date.now() + options.timeoutMs,
      timeoutMs: options.timeoutMs,
    };
    const evaluation = this.#local
      ? await this.#evaluateHere(this.#local, request, options.timeoutMs)
      : await this.#evaluateInWorker(request, options.timeoutMs);
    return toResult(evaluation, form, options.limit);
  }

  /** Stops the worker. */
  close(): void {
    this.#reset(new Error("engine closed"));
  }

  async #evaluateHere(evaluator: SparqlEvaluator, request: EvaluationRequest, timeoutMs: number) {
    const started = performance.now();
    let evaluation: Evaluation;
    try {
      evaluation = await evaluator.evaluate(request);
    } catch (error) {
      if (isErrorKind(error, "unprocessable", "timeout")) throw error;
      throw failed({
        kind: "failed",
        message: error instanceof Error ? error.message : String(error),
        trapped: error instanceof WebAssembly.RuntimeError,
      });
    }
    if (performance.now() - started > timeoutMs) throw timedOut(timeoutMs);
    return evaluation;
  }

  #evaluateInWorker(request: EvaluationRequest, timeoutMs: number): Promise<Evaluation> {
    const worker = this.#ensureWorker();
    const id = this.#nextId++;
    return new Promise<Evaluation>((resolve, reject) => {
      // The worker stops a query inside SQLite at its deadline and answers with a timeout;
      // terminating it is for what runs past that (the fallback engine, a worker that hangs).
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        this.#reset(new Error("superseded by a timeout"));
        reject(timedOut(timeoutMs));
      }, timeoutMs + TERMINATE_GRACE_MS);
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
      worker.postMessage({ op: "query", id, request });
    });
  }

  #ensureWorker(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL("./sparql_worker.ts", import.meta.url), {
      type: "module",
      name: this.#path,
    });
    worker.onmessage = (event: MessageEvent<SparqlWorkerReply>) => this.#onReply(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.#reset(new Error(`SPARQL worker failed: ${event.message}`));
    };
    this.#worker = worker;
    return worker;
  }

  #onReply(reply: SparqlWorkerReply): void {
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    this.#pending.delete(reply.id);
    if (reply.op === "result") {
      pending.resolve(reply.evaluation);
      const { evaluation } = reply;
      if (evaluation.kind === "text" && evaluation.loadedQuads > RECYCLE_AFTER_QUADS) {
        this.#recycle = true;
      }
      // WebAssembly memory never shrinks: a worker whose fallback engine grew for a broad
      // query is replaced once it is idle, so the service's memory returns to its floor.
      if (this.#recycle && this.#pending.size === 0) {
        this.#reset(new Error("recycled"));
        this.#recycle = false;
      }
      return;
    }
    pending.reject(failed(reply.failure));
    if (reply.failure.trapped) {
      // The next query starts a fresh worker.
      this.#reset(
        new DomainError("query-engine-restarted", {
          detail:
            "Another query made the embedded query engine fail; it was restarted. Retry the query.",
        }),
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

function timedOut(timeoutMs: number): DomainError {
  return new DomainError("query-timeout", {
    detail: `The query did not finish within ${timeoutMs} ms and was stopped.`,
  });
}

function failed(failure: QueryFailure): DomainError {
  if (failure.kind === "timeout") {
    return new DomainError("query-timeout", { detail: failure.message });
  }
  if (failure.kind === "too-broad") {
    return new DomainError("query-too-broad", { detail: failure.message });
  }
  if (!failure.trapped) {
    return new DomainError("query-failed", { detail: `The query failed: ${failure.message}` });
  }
  return new DomainError("query-failed", {
    detail: `The query engine failed on this query (${failure.message}) and was restarted; ` +
      "a simpler query (fewer patterns or values) may run.",
  });
}

/** An evaluation as the store's result, cut to `limit` rows. */
function toResult(
  evaluation: Evaluation,
  form: "bindings" | "quads",
  limit: number,
): SparqlQueryResult {
  if (evaluation.kind === "boolean") return evaluation;
  if (evaluation.kind === "rows") {
    const truncated = evaluation.rows.length > limit;
    const rows = (truncated ? evaluation.rows.slice(0, limit) : evaluation.rows).map((row) => {
      const binding = new Map<string, Term>();
      row.forEach((text, i) => {
        if (text !== null) binding.set(evaluation.variables[i], termFromId(text));
      });
      return binding;
    });
    return { kind: "bindings", variables: evaluation.variables, rows, truncated };
  }
  if (form === "quads") {
    const quads = restoreQuads(
      new Parser({ format: "N-Triples", factory: writtenTagFactory }).parse(evaluation.text),
      evaluation.written,
    );
    const truncated = quads.length > limit;
    return { kind: "quads", quads: truncated ? quads.slice(0, limit) : quads, truncated };
  }
  const parsed = parseSparqlJsonResults(evaluation.text);
  if (parsed.kind === "boolean") return parsed;
  const truncated = parsed.rows.length > limit;
  return {
    kind: "bindings",
    variables: parsed.variables,
    rows: restoreBindings(
      truncated ? parsed.rows.slice(0, limit) : parsed.rows,
      evaluation.written,
    ),
    truncated,
  };
}
