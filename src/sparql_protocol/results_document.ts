/**
 * SPARQL 1.1 Query Results JSON Format, both ways, with n3 terms.
 */
import type { Term } from "n3";
import { malformedResults, rowFromSparqlJson, type SparqlJsonTerm } from "./results_json.ts";

/** One binding value as the JSON format writes it. */
export type JsonTerm = SparqlJsonTerm;

/** A parsed SELECT or ASK result. */
export type ParsedResults =
  | { kind: "bindings"; variables: string[]; rows: Map<string, Term>[] }
  | { kind: "boolean"; value: boolean };

/**
 * Parses a whole SPARQL JSON results document (an answer known to be small: `JSON.parse`
 * of the text costs a fraction of the streaming reader). Anything that is not a results
 * document is a 502 `store-error`.
 */
export function parseSparqlJsonResults(text: string): ParsedResults {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw malformedResults(`not JSON: ${(error as Error).message}`);
  }
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    throw malformedResults("the JSON document is not an object");
  }
  const { head, boolean, results } = document as {
    head?: { vars?: unknown };
    boolean?: unknown;
    results?: { bindings?: unknown };
  };
  if (typeof boolean === "boolean") return { kind: "boolean", value: boolean };
  const bindings = results?.bindings;
  if (!Array.isArray(bindings)) throw malformedResults("the document has no results.bindings");
  const rows = bindings.map((binding) => {
    if (typeof binding !== "object" || binding === null) {
      throw malformedResults("a binding is not an object");
    }
    return rowFromSparqlJson(binding as Record<string, SparqlJsonTerm>);
  });
  const variables = Array.isArray(head?.vars)
    ? head.vars.map(String)
    : [...new Set(rows.flatMap((row) => [...row.keys()]))];
  return { kind: "bindings", variables, rows };
}

/**
 * Reads and parses a results body known to be small (the SPARQL store's one-item
 * look-ups); a body over `maxBytes` is refused rather than buffered.
 */
export async function readSmallSparqlJsonResults(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<ParsedResults> {
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      throw malformedResults(`a look-up answered with more than ${maxBytes} bytes`);
    }
    text += decoder.decode(chunk, { stream: true });
  }
  return parseSparqlJsonResults(text + decoder.decode());
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
