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

const XSD_STRING = "http://www.w3.org/2001/XMLSchema#string";

/** A term as compared: exact, but a language tag in lower case (RDF compares them so). */
export function termKey(term: Term): string {
  if (term.termType !== "Literal") return `${term.termType}:${term.value}`;
  const literal = term as Term & { language: string; datatype: Term };
  if (literal.language) return `L:${literal.value}@${literal.language.toLowerCase()}`;
  const datatype = literal.datatype?.value ?? XSD_STRING;
  return `L:${literal.value}^^${datatype}`;
}

/** Rows matched one to one, blank nodes by a bijection kept in `mapping` (backtracking). */
export function matchRows(
  expected: Map<string, Term>[],
  actual: Map<string, Term>[],
  mapping: Map<string, string>,
): boolean {
  if (expected.length === 0) return true;
  const [first, ...rest] = expected;
  for (let i = 0; i < actual.length; i++) {
    const trial = new Map(mapping);
    if (!rowMatches(first, actual[i], trial)) continue;
    if (matchRows(rest, [...actual.slice(0, i), ...actual.slice(i + 1)], trial)) {
      for (const [k, v] of trial) mapping.set(k, v);
      return true;
    }
  }
  return false;
}

function rowMatches(
  expected: Map<string, Term>,
  actual: Map<string, Term>,
  mapping: Map<string, string>,
): boolean {
  const names = new Set([...expected.keys(), ...actual.keys()]);
  for (const name of names) {
    const a = expected.get(name);
    const b = actual.get(name);
    if (!a || !b) return false;
    if (a.termType === "BlankNode" || b.termType === "BlankNode") {
      if (a.termType !== b.termType) return false;
      const mapped = mapping.get(a.value);
      if (mapped !== undefined) {
        if (mapped !== b.value) return false;
      } else {
        if ([...mapping.values()].includes(b.value)) return false;
        mapping.set(a.value, b.value);
      }
      continue;
    }
    if (termKey(a) !== termKey(b)) return false;
  }
  return true;
}
