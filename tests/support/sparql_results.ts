/** SPARQL answers compared across engines and stores in tests. */
import type { Term } from "n3";
import type { SparqlQueryResult } from "../../src/sparql_protocol/query_types.ts";

/** A result as sorted lines, blank nodes by their position only (labels differ by engine). */
export function normalizedResult(result: SparqlQueryResult): string[] {
  const show = (term: Term | undefined) =>
    term === undefined
      ? "-"
      : term.termType === "BlankNode"
      ? "_:"
      : `${term.termType}:${term.value}:${
        term.termType === "Literal" ? `${term.language}:${term.datatype.value}` : ""
      }`;
  if (result.kind === "boolean") return [String(result.value)];
  if (result.kind === "quads") {
    return result.quads.map((q) => [q.subject, q.predicate, q.object].map(show).join(" ")).sort();
  }
  return result.rows.map((row) =>
    [...result.variables].sort().map((name) => `${name}=${show(row.get(name))}`).join(" ")
  ).sort();
}
