/**
 * Reading a SPARQL request with a real parser before anything runs it.
 *
 * This is what keeps the query tool read-only (an update is refused, whatever its spelling)
 * and what bounds every query: the row limit is written into the query itself, so neither
 * the embedded engine nor a remote endpoint produces more rows than the caller may see.
 */
// @ts-types="@types/sparqljs"
import sparqljs from "sparqljs";
import { ProblemError } from "../http/problem.ts";

/** The four query forms. */
export type QueryForm = "SELECT" | "ASK" | "CONSTRUCT" | "DESCRIBE";

/** A parsed read-only query. */
export interface AnalyzedQuery {
  form: QueryForm;
  /** The query text to run: bounded by the row limit when one was asked for. */
  text: string;
  /** True when the text was rewritten to enforce a limit. */
  limited: boolean;
}

/** Parses `text`; 400 `invalid-sparql` (with line and column) or 400 `sparql-update-refused`. */
export function analyzeQuery(text: string, options: { rowLimit?: number } = {}): AnalyzedQuery {
  let parsed: sparqljs.SparqlQuery;
  try {
    parsed = new sparqljs.Parser().parse(text);
  } catch (error) {
    throw sparqlSyntaxProblem(error);
  }
  if (parsed.type === "update") {
    throw new ProblemError(
      400,
      "sparql-update-refused",
      "Updates are not allowed",
      "This endpoint answers read-only queries (SELECT, ASK, CONSTRUCT, DESCRIBE); " +
        "SPARQL Update operations are refused.",
      [{ path: "query", message: "update operation" }],
    );
  }
  const form = parsed.queryType as QueryForm;
  const limit = options.rowLimit;
  if (limit === undefined || form === "ASK") return { form, text, limited: false };
  // Ask for one row more than allowed, so the caller can tell that rows were cut.
  const wanted = limit + 1;
  // Every query form but ASK carries a solution modifier; the typings miss CONSTRUCT's.
  const bounded = parsed as { limit?: number };
  if (bounded.limit !== undefined && bounded.limit <= wanted) {
    return { form, text, limited: false };
  }
  bounded.limit = wanted;
  return { form, text: new sparqljs.Generator().stringify(parsed), limited: true };
}

function sparqlSyntaxProblem(error: unknown): ProblemError {
  const hash = (error as { hash?: { loc?: { first_line: number; first_column: number } } })
    ?.hash;
  const message = error instanceof Error ? error.message : String(error);
  const firstLine = message.split("\n").at(-1) ?? message;
  const line = hash?.loc?.first_line;
  const column = hash?.loc ? hash.loc.first_column + 1 : undefined;
  const where = line === undefined ? "" : ` at line ${line}, column ${column}`;
  return new ProblemError(
    400,
    "invalid-sparql",
    "Invalid SPARQL",
    `The query could not be parsed${where}: ${firstLine}`,
    [{ path: line === undefined ? "query" : `${line}:${column}`, message: firstLine }],
  );
}
