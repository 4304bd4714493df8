/**
 * Reading a SPARQL request with a real parser before anything runs it.
 *
 * This is what keeps the query tool read-only (an update is refused, whatever its spelling)
 * and what bounds every query: the row limit is written into the query itself, so neither
 * the embedded engine nor a remote endpoint produces more rows than the caller may see.
 */
// @ts-types="@types/sparqljs"
import type sparqljs from "sparqljs";
import { DomainError } from "../errors/domain_error.ts";
import { unindentedGenerator } from "./generator.ts";
import { sparqlParser } from "./parser.ts";
import { projectionOrder } from "./projection_order.ts";
import type { QueryDataset } from "./query_types.ts";

/** The four query forms. */
export type QueryForm = "SELECT" | "ASK" | "CONSTRUCT" | "DESCRIBE";

/** A parsed read-only query. */
export interface AnalyzedQuery {
  form: QueryForm;
  /** The query text to run: bounded by the row limit when one was asked for. */
  text: string;
  /** True when the text was rewritten to enforce a limit. */
  limited: boolean;
  /** True when the text names its dataset (FROM, FROM NAMED): no union default graph then. */
  hasDataset: boolean;
  /** A SELECT's column names in the query's order (projection_order.ts); [] otherwise. */
  projection: string[];
}

/** Options of {@link analyzeQuery}. */
export interface AnalyzeOptions {
  /** Most rows the query may produce; one more is asked for, to tell that rows were cut. */
  rowLimit?: number;
  /** A protocol dataset, written into the query as FROM / FROM NAMED in place of its own. */
  dataset?: QueryDataset;
  /**
   * Graphs the query may not name (FROM, FROM NAMED, GRAPH <iri>, or the protocol's
   * dataset): invalid-input `reserved-graph`. The SPARQL store's metadata graph is one.
   */
  reservedGraphs?: readonly string[];
}

/** too-large `query-too-large` for a query text over `maxBytes` (UTF-8), before it is parsed. */
export function refuseLongQuery(query: string, maxBytes: number): void {
  // Every UTF-16 unit is at most 3 UTF-8 bytes: short texts need no encoding to pass.
  if (query.length * 3 <= maxBytes) return;
  const bytes = new TextEncoder().encode(query).length;
  if (bytes <= maxBytes) return;
  throw new DomainError("query-too-large", {
    detail: `The query is ${bytes} bytes long; service.query.maxQueryBytes allows ${maxBytes}.`,
    errors: [{ path: "query", message: `longer than ${maxBytes} bytes` }],
  });
}

/** How a query is sent, as the query tool's and `/sparql`'s 415 say after the types they take. */
export const QUERY_BODY_HINT = "The query is the whole body, or the form's field 'query'.";

/** invalid-input `missing-query` unless `query` holds a query text: the query tool's and `/sparql`'s rule. */
export function requireQueryText(query: string | undefined): string {
  if (query !== undefined && query.trim() !== "") return query;
  throw new DomainError("missing-query", {
    detail: "The request carries no SPARQL query: send it as the body (application/sparql-query) " +
      "or as the form field 'query'.",
    errors: [{ path: "query", message: "required" }],
  });
}

/** Parses `text`; invalid-input `invalid-sparql` (with line and column) or invalid-input `sparql-update-refused`. */
export function analyzeQuery(text: string, options: AnalyzeOptions = {}): AnalyzedQuery {
  if (nestsDeeperThan(text, MAX_NESTING)) {
    throw new DomainError("invalid-sparql", {
      detail:
        `The query nests groups, brackets or parentheses more than ${MAX_NESTING} levels deep.`,
      errors: [{ path: "query", message: "nested too deeply" }],
    });
  }
  let parsed: sparqljs.SparqlQuery;
  try {
    parsed = sparqlParser().parse(text);
  } catch (error) {
    throw sparqlSyntaxProblem(error);
  }
  if (parsed.type === "update") {
    throw new DomainError("sparql-update-refused", {
      detail: "This endpoint answers read-only queries (SELECT, ASK, CONSTRUCT, DESCRIBE); " +
        "SPARQL Update operations are refused.",
      errors: [{ path: "query", message: "update operation" }],
    });
  }
  const form = parsed.queryType as QueryForm;
  const dataset = options.dataset;
  const datasetGiven = dataset !== undefined &&
    dataset.defaultGraphs.length + dataset.namedGraphs.length > 0;
  refuseReservedDataset(dataset, options.reservedGraphs ?? []);
  refuseForbiddenPatterns(parsed, new Set(options.reservedGraphs ?? []));
  if (datasetGiven) {
    // The protocol's dataset wins over the query's (SPARQL 1.1 Protocol, 2.1.4).
    parsed.from = {
      default: dataset.defaultGraphs.map((iri) => namedNode(iri)),
      named: dataset.namedGraphs.map((iri) => namedNode(iri)),
    };
  }
  const hasDataset = (parsed.from?.default.length ?? 0) + (parsed.from?.named.length ?? 0) > 0;
  const limited = bounded(parsed, form, options.rowLimit);
  const projection = projectionOrder(parsed);
  if (!limited && !datasetGiven) return { form, text, limited, hasDataset, projection };
  const rewritten = unindentedGenerator().stringify(parsed);
  return { form, text: rewritten, limited, hasDataset, projection };
}

/** Writes the row limit into `parsed` when it asks for more; true when it did. */
function bounded(parsed: sparqljs.Query, form: QueryForm, limit: number | undefined): boolean {
  if (limit === undefined || form === "ASK") return false;
  // Ask for one row more than allowed, so the caller can tell that rows were cut.
  const wanted = limit + 1;
  // Every query form but ASK carries a solution modifier; the typings miss CONSTRUCT's.
  const modified = parsed as { limit?: number };
  if (modified.limit !== undefined && modified.limit <= wanted) return false;
  modified.limit = wanted;
  return true;
}

function namedNode(iri: string): sparqljs.IriTerm {
  return { termType: "NamedNode", value: iri } as sparqljs.IriTerm;
}

/**
 * True when `text` nests too deeply to be handed to the parser: a module that parses a query
 * before `analyzeQuery` has read it (to rewrite it) must ask this first and leave such a text
 * to `analyzeQuery`, which refuses it.
 */
export function tooDeepToParse(text: string): boolean {
  return nestsDeeperThan(text, MAX_NESTING);
}

/**
 * Most levels of `{`, `(` and `[` a query may nest. sparqljs parses nesting in roughly
 * cubic time, synchronously (measured: 2,000 levels 0.5 s, 4,000 levels 3.4 s, so a 150 kB
 * query 50,000 levels deep would hold the event loop for about an hour); hand-written
 * queries stay far below this.
 */
const MAX_NESTING = 128;

/** An IRIREF token, whose `(`, `)` and `#` are not syntax. */
// deno-lint-ignore no-control-regex -- control characters end an IRIREF
const IRIREF = /<[^<>"{}|^`\\\u0000-\u0020]*>/y;

/**
 * Whether the brackets of `text` nest deeper than `limit`, skipping strings, IRIs and
 * comments; a linear scan that runs before the parser.
 */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "#") {
      const end = text.indexOf("\n", i);
      if (end < 0) return false;
      i = end;
    } else if (c === '"' || c === "'") {
      i = endOfString(text, i);
    } else if (c === "<") {
      IRIREF.lastIndex = i;
      if (IRIREF.test(text)) i = IRIREF.lastIndex - 1;
    } else if (c === "{" || c === "(" || c === "[") {
      if (++depth > limit) return true;
    } else if (c === "}" || c === ")" || c === "]") {
      depth = Math.max(0, depth - 1);
    }
  }
  return false;
}

/** The index of the last character of the string literal opening at `start`. */
function endOfString(text: string, start: number): number {
  const quote = text[start];
  const long = text.startsWith(quote.repeat(3), start);
  const closing = long ? quote.repeat(3) : quote;
  for (let i = start + closing.length; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text.startsWith(closing, i)) return i + closing.length - 1;
    else if (!long && text[i] === "\n") return i;
  }
  return text.length;
}

/**
 * Refuses `SERVICE` clauses, wherever they are nested: the endpoint would send a request
 * to a URL taken from the query, and the tool never lets a request choose where the
 * service (or its SPARQL server) connects. Refuses `FROM`, `FROM NAMED` and `GRAPH <iri>`
 * naming a reserved graph. The walk keeps its own stack, so a deeply nested query cannot
 * overflow the call stack.
 */
function refuseForbiddenPatterns(parsed: sparqljs.SparqlQuery, reserved: Set<string>): void {
  if (reserved.size > 0 && parsed.type === "query") {
    for (const graph of [...parsed.from?.default ?? [], ...parsed.from?.named ?? []]) {
      if (reserved.has(graph.value)) throw reservedGraph(graph.value, "query");
    }
  }
  visitQueryNodes(parsed, (record) => {
    if (record.type === "service") {
      const name = (record.name as { value?: string } | undefined)?.value ?? "";
      throw new DomainError("sparql-service-refused", {
        detail:
          `SERVICE <${name}> is refused: the query tool only queries the configured endpoints ` +
          "and never sends requests to a URL taken from the query.",
        errors: [{ path: "query", message: "SERVICE clause" }],
      });
    }
    if (record.type === "graph" && reserved.size > 0) {
      const name = record.name as { termType?: string; value?: string } | undefined;
      if (name?.termType === "NamedNode" && reserved.has(name.value ?? "")) {
        throw reservedGraph(name.value ?? "", "query");
      }
    }
  });
}

/**
 * Calls `visit` on every object node of a parsed query (patterns, expressions, subqueries,
 * wherever nested), parents before children. The walk keeps its own stack, so a deeply
 * nested query cannot overflow the call stack.
 */
export function visitQueryNodes(
  root: unknown,
  visit: (record: Record<string, unknown>) => void,
): void {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== "object" || node === null) continue;
    if (Array.isArray(node)) {
      for (const entry of node) pending.push(entry);
      continue;
    }
    const record = node as Record<string, unknown>;
    visit(record);
    for (const value of Object.values(record)) {
      if (typeof value === "object" && value !== null) pending.push(value);
    }
  }
}

/** invalid-input `reserved-graph` when the protocol's dataset names a reserved graph. */
function refuseReservedDataset(dataset: QueryDataset | undefined, reserved: readonly string[]) {
  for (const iri of dataset?.defaultGraphs ?? []) {
    if (reserved.includes(iri)) throw reservedGraph(iri, "default-graph-uri");
  }
  for (const iri of dataset?.namedGraphs ?? []) {
    if (reserved.includes(iri)) throw reservedGraph(iri, "named-graph-uri");
  }
}

function reservedGraph(iri: string, path: string): DomainError {
  return new DomainError("reserved-graph", {
    detail: `<${iri}> holds the service's own records (item records, the index outbox, indexing ` +
      "jobs), not item data, and cannot be queried; query the item graphs (each item is a " +
      "named graph, and the default graph is their union).",
    errors: [{ path, message: "reserved graph" }],
  });
}

function sparqlSyntaxProblem(error: unknown): DomainError {
  const hash = (error as { hash?: { loc?: { first_line: number; first_column: number } } })
    ?.hash;
  const message = error instanceof Error ? error.message : String(error);
  const firstLine = message.split("\n").at(-1) ?? message;
  const line = hash?.loc?.first_line;
  const column = hash?.loc ? hash.loc.first_column + 1 : undefined;
  const where = line === undefined ? "" : ` at line ${line}, column ${column}`;
  return new DomainError("invalid-sparql", {
    detail: `The query could not be parsed${where}: ${firstLine}`,
    errors: [{ path: line === undefined ? "query" : `${line}:${column}`, message: firstLine }],
  });
}
