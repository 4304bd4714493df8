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

/** Each blank node label's rows (blank nodes masked) and variables, sorted: label-free. */
function blankSignatures(rows: Map<string, Term>[]): string[] {
  const signatures = new Map<string, string[]>();
  for (const row of rows) {
    const masked = [...row].map(([name, term]) =>
      `${name}=${term.termType === "BlankNode" ? "_:" : termKey(term)}`
    ).sort().join(" ");
    for (const [name, term] of row) {
      if (term.termType !== "BlankNode") continue;
      const list = signatures.get(term.value) ?? [];
      list.push(`${name}@${masked}`);
      signatures.set(term.value, list);
    }
  }
  return [...signatures.values()].map((list) => list.sort().join(" | ")).sort();
}

/**
 * Why two multisets of solutions differ, or undefined when they are equal (with `subset`:
 * when every row of `a` is a row of `b`). Rows are compared with blank nodes masked, then
 * each blank node by the rows it appears in (what a bijection of labels keeps).
 */
export function sameSolutions(
  a: Map<string, Term>[],
  b: Map<string, Term>[],
  options: { subset?: boolean } = {},
): string | undefined {
  const masked = (row: Map<string, Term>) =>
    [...row].map(([name, term]) =>
      `${name}=${term.termType === "BlankNode" ? "_:" : termKey(term)}`
    )
      .sort().join(" ");
  const counts = new Map<string, number>();
  for (const row of b) counts.set(masked(row), (counts.get(masked(row)) ?? 0) + 1);
  for (const row of a) {
    const key = masked(row);
    const left = counts.get(key) ?? 0;
    if (left === 0) return `a row not in the other answer: ${key}`;
    counts.set(key, left - 1);
  }
  if (options.subset) return undefined;
  const extra = [...counts].find(([, n]) => n > 0);
  if (extra) return `a row only in the other answer: ${extra[0]}`;
  // Blank nodes: each label's signature (the masked rows it appears in, and where) must
  // pair up between the answers, as a bijection of labels would make them.
  if (blankSignatures(a).join("\n") !== blankSignatures(b).join("\n")) {
    return "the rows match only with blank nodes taken apart";
  }
  return undefined;
}
