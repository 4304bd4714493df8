/**
 * SPARQL 1.1 Query Results JSON Format, both ways, with n3 terms.
 */
import type { Term } from "n3";
import { ProblemError } from "../http/problem.ts";
import { type SparqlJsonTerm, termFromSparqlJson } from "../store/sparql_results.ts";

/** One binding value as the JSON format writes it. */
export type JsonTerm = SparqlJsonTerm;

/** A parsed SELECT or ASK result. */
export type ParsedResults =
  | { kind: "bindings"; variables: string[]; rows: Map<string, Term>[] }
  | { kind: "boolean"; value: boolean };

/** Parses a SPARQL JSON results document. */
export function parseSparqlJsonResults(text: string): ParsedResults {
  let document: {
    head?: { vars?: string[] };
    boolean?: boolean;
    results?: { bindings?: Record<string, JsonTerm>[] };
  };
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new ProblemError(
      502,
      "store-error",
      "Unreadable SPARQL results",
      `The endpoint answered results that are not JSON: ${(error as Error).message}`,
    );
  }
  if (typeof document.boolean === "boolean") return { kind: "boolean", value: document.boolean };
  const variables = document.head?.vars ?? [];
  const rows = (document.results?.bindings ?? []).map((binding) => {
    const row = new Map<string, Term>();
    for (const [name, value] of Object.entries(binding)) row.set(name, termFromSparqlJson(value));
    return row;
  });
  return { kind: "bindings", variables, rows };
}

/** An n3 term as a JSON binding value. */
export function termToJson(term: Term): JsonTerm {
  switch (term.termType) {
    case "NamedNode":
      return { type: "uri", value: term.value };
    case "BlankNode":
      return { type: "bnode", value: term.value };
    case "Literal": {
      const result: JsonTerm = { type: "literal", value: term.value };
      if (term.language) result["xml:lang"] = term.language;
      else if (term.datatype.value !== "http://www.w3.org/2001/XMLSchema#string") {
        result.datatype = term.datatype.value;
      }
      return result;
    }
    default:
      return { type: "literal", value: term.value };
  }
}

/** Serialises bindings as a SPARQL JSON results document. */
export function writeSparqlJsonResults(variables: string[], rows: Map<string, Term>[]): string {
  return JSON.stringify({
    head: { vars: variables },
    results: {
      bindings: rows.map((row) => {
        const binding: Record<string, JsonTerm> = {};
        for (const [name, term] of row) binding[name] = termToJson(term);
        return binding;
      }),
    },
  });
}
