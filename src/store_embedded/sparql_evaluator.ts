/**
 * Evaluates one read-only query over the quad tables on one connection: compiled to SQL
 * when it is in `sparql_to_sql.ts`'s fragment, else by the fallback engine over the quads it
 * can touch (`sparql_fallback.ts`). Runs in the query worker (`sparql_worker.ts`), or on the
 * main thread for an in-memory database, which no worker can open.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type Oxigraph from "oxigraph";
// @ts-types="@types/sparqljs"
import type sparqljs from "sparqljs";
import { DomainError } from "../errors/domain_error.ts";
import { sparqlParser } from "../sparql_protocol/parser.ts";
import { ALIVE_FUNCTION, type CompiledQuery, compileQuery, countText } from "./sparql_to_sql.ts";
import { type Dataset, loadQuads, planLoad } from "./sparql_fallback.ts";
import {
  alteredLiterals,
  extremeVariables,
  queryLiterals,
  restoreLiterals,
  rewriteForSurrogates,
  storedExtremes,
} from "./literal_forms.ts";
import { mixesTimezones } from "./temporal_order.ts";
import { CollectionDatasets, narrowedScope } from "./collection_datasets.ts";
import { mayNameCollectionsGraph } from "../sparql_protocol/collections_graph.ts";
import { unindentedGenerator } from "../sparql_protocol/generator.ts";
import { TermDictionary, termText } from "./term_dictionary.ts";
import { langVariables, queryTags, type WrittenTags } from "./written_tags.ts";

/** One query to evaluate (its text already checked and bounded by `analyze_query.ts`). */
export interface EvaluationRequest {
  sparql: string;
  /** CONSTRUCT and DESCRIBE answer quads; SELECT and ASK bindings. */
  form: "bindings" | "quads";
  /** False when the query names its dataset: the union would override its FROM. */
  unionDefaultGraph: boolean;
  /**
   * The collections whose item graphs the query sees (`SparqlQueryOptions.scope`; an empty
   * list: none); undefined, every item graph.
   */
  scope?: string[];
  /**
   * Which path answers: the compiled SQL when the query is in its fragment, else the fallback
   * (undefined, the service's choice). Tests set it to hold one path against the other;
   * `compiled` for a query outside the fragment is an error.
   */
  path?: "compiled" | "fallback";
  /** When the query's time is up (`Date.now()` clock) and `timeoutMs`, for the message. */
  deadline: number;
  timeoutMs: number;
}

/** An answer: rows of term texts (null: unbound), a boolean, or the fallback engine's text. */
export type Evaluation =
  | { kind: "rows"; variables: string[]; rows: (string | null)[][] }
  | { kind: "boolean"; value: boolean }
  /**
   * SPARQL results JSON (bindings) or N-Triples (quads), as oxigraph writes them, with the
   * tags' written spellings to give its lower-cased tags back (`written_tags.ts`).
   */
  | { kind: "text"; text: string; loadedQuads: number; written: WrittenTags };

/** A column of a compiled query's row: a term's text, a count, or null (unbound). */
type Cell = string | Uint8Array | number | null;

/** The fallback engine, loaded by the first query that needs it (a start does not wait). */
let oxigraphLoaded: Promise<typeof Oxigraph> | undefined;
function oxigraphModule(): Promise<typeof Oxigraph> {
  oxigraphLoaded ??= import("oxigraph").then((module) =>
    (module as unknown as { default: typeof Oxigraph }).default
  );
  return oxigraphLoaded;
}

/** Queries on one connection. */
export class SparqlEvaluator {
  readonly #db: DatabaseSync;
  readonly #terms: TermDictionary;
  readonly #datasets: CollectionDatasets;
  #deadline = Infinity;
  #sharedTriples?: StatementSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#terms = new TermDictionary(db);
    this.#datasets = new CollectionDatasets(db);
    let calls = 0;
    db.function(ALIVE_FUNCTION, { deterministic: false }, (_row: unknown) => {
      // The clock is read every 1,024 rows: a row costs far less than reading it.
      return (++calls & 1023) === 0 && Date.now() > this.#deadline ? 0 : 1;
    });
  }

  /**
   * Evaluates `request`; timeout `query-timeout` once its deadline passes inside SQLite.
   * Everything after the one await (loading the fallback engine) runs without yielding, so
   * queries of one evaluator never interleave.
   */
  async evaluate(request: EvaluationRequest): Promise<Evaluation> {
    // Constants as written: `+5` looks up "+5", not "5" (parser.ts).
    const parsed = sparqlParser().parse(request.sparql);
    const lookUp = (text: string) => this.#terms.find(text);
    const { scope } = request;
    // A query with FROM never answers over the union, whatever the caller said.
    const union = request.unionDefaultGraph && !(parsed.type === "query" && parsed.from);
    // FROM naming collections alone is their union: compiled as a narrower scope.
    const fromCollections = union ? undefined : this.#datasets.defaultGraphCollections(parsed);
    // The collections graph is made for the query that names it: never compiled.
    const namesCollections = mayNameCollectionsGraph(request.sparql);
    const compiled = (union || fromCollections) && !namesCollections &&
        request.path !== "fallback"
      ? compileQuery(
        fromCollections ? { ...parsed, from: undefined } as sparqljs.SparqlQuery : parsed,
        lookUp,
        fromCollections ? narrowedScope(scope, fromCollections) : scope,
        this.#hasSharedTriples(),
      )
      : undefined;
    if (!compiled && request.path === "compiled") {
      throw new Error(`Not in the compiled fragment: ${request.sparql}`);
    }
    if (compiled) return this.#beforeDeadline(request, () => this.#run(compiled));
    const oxigraph = await oxigraphModule();
    const altered = (ids: Iterable<string>) => alteredLiterals(oxigraph, ids);
    // A dataset is built here, not by oxigraph, whose FROM merge counts a triple once per
    // graph that states it: the query then runs on the default graph it was loaded with.
    const dataset = datasetOf(parsed);
    const expanded = dataset && this.#datasets.expand(dataset);
    // A dataset of collections alone is read from their items only.
    const loadScope = expanded?.collections ? narrowedScope(scope, expanded.collections) : scope;
    const loaded = this.#beforeDeadline(
      request,
      () =>
        loadQuads(
          this.#db,
          planLoad(parsed, lookUp, loadScope, expanded?.dataset ?? "union"),
          undefined,
          altered,
        ),
    );
    // Literals oxigraph would not keep as written are loaded as surrogates, and the query
    // reads them through (literal_forms.ts); without any, the query runs as it was sent.
    const constants = queryLiterals(parsed);
    const alteredConstants = altered(constants);
    const mixedTimezones = mixesTimezones([...loaded.literals.typed, ...constants]);
    const surrogates = loaded.surrogates > 0 || alteredConstants.size > 0 || mixedTimezones;
    // Read before the rewrite, which makes MIN and MAX compare values.
    const extremes = surrogates ? extremeVariables(parsed) : [];
    const written: WrittenTags = {
      tags: [...loaded.tags, ...queryTags(request.sparql)],
      langVariables: langVariables(parsed),
    };
    let sparql = request.sparql;
    if (surrogates) rewriteForSurrogates(parsed, alteredConstants, mixedTimezones);
    if (surrogates || dataset) sparql = unindentedGenerator().stringify(parsed);
    const store = new oxigraph.Store();
    try {
      if (loaded.nquads) {
        store.load(loaded.nquads, { format: "application/n-quads", no_transaction: true });
      }
      const collections = namesCollections
        ? this.#datasets.collectionsGraph(loadScope, expanded?.dataset)
        : "";
      if (collections) {
        store.load(collections, { format: "application/n-quads", no_transaction: true });
      }
      // The union default graph is loaded as a graph of its own (`LoadPlan.graphs`): oxigraph's
      // union of named graphs would count a triple once per item that states it.
      const result = String(store.query(sparql, {
        results_format: request.form === "quads"
          ? "application/n-triples"
          : "application/sparql-results+json",
      }));
      const literals = {
        altered: new Set([...loaded.literals.altered, ...alteredConstants]),
        typed: new Set([...loaded.literals.typed, ...constants]),
      };
      return {
        kind: "text",
        text: surrogates
          ? storedExtremes(oxigraph, restoreLiterals(result), extremes, literals)
          : result,
        loadedQuads: lineCount(loaded.nquads),
        written,
      };
    } finally {
      // wasm-bindgen objects hand their WebAssembly memory back on free(); the typings omit it.
      (store as unknown as { free?: () => void }).free?.();
    }
  }

  /** Whether any triple is stated in two item graphs (quad_tables.ts, migration 10). */
  #hasSharedTriples(): boolean {
    this.#sharedTriples ??= this.#db.prepare("SELECT 1 FROM shared_triples LIMIT 1");
    return this.#sharedTriples.get() !== undefined;
  }

  /** Runs SQL `work`, stopped by the alive function once `request`'s deadline has passed. */
  #beforeDeadline<T>(request: EvaluationRequest, work: () => T): T {
    this.#deadline = request.deadline;
    try {
      return work();
    } catch (error) {
      // The alive function's stop is an SQL error raised after the deadline.
      if (Date.now() <= request.deadline) throw error;
      throw new DomainError("query-timeout", {
        detail: `The query did not finish within ${request.timeoutMs} ms and was stopped.`,
      });
    } finally {
      this.#deadline = Infinity;
    }
  }

  #run(compiled: CompiledQuery): Evaluation {
    const statement = this.#db.prepare(compiled.sql);
    statement.setReturnArrays(true);
    const rows = statement.all(...compiled.parameters) as unknown as Cell[][];
    if (compiled.ask) return { kind: "boolean", value: rows.length > 0 };
    return {
      kind: "rows",
      variables: compiled.variables,
      // A query without variables selects a placeholder column: its rows are empty solutions.
      rows: rows.map((row) =>
        row.slice(0, compiled.variables.length).map((cell, i) =>
          cell === null
            ? null
            : compiled.counts[i]
            ? countText(Number(cell))
            : termText(cell as string | Uint8Array)
        )
      ),
    };
  }
}

/** The query's FROM and FROM NAMED graphs, taken out of it; undefined without any. */
function datasetOf(query: sparqljs.SparqlQuery): Dataset | undefined {
  if (query.type !== "query" || !query.from) return undefined;
  const dataset = {
    default: query.from.default.map((graph) => graph.value),
    named: query.from.named.map((graph) => graph.value),
  };
  delete query.from;
  return dataset;
}

function lineCount(text: string): number {
  let lines = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lines++;
  return lines;
}
