/**
 * The order of a SELECT query's result columns as the query names them. Engines may answer
 * `SELECT *` in any order (oxigraph sorts the names); people expect the columns in the
 * order they wrote: the projection's order, or for `SELECT *` the order in which the
 * variables first appear in the WHERE clause (as Jena does).
 */
// @ts-types="@types/sparqljs"
import type sparqljs from "sparqljs";

/** The variable names of a parsed SELECT in projection order; [] for other forms. */
export function projectionOrder(parsed: sparqljs.SparqlQuery): string[] {
  if (parsed.type !== "query" || parsed.queryType !== "SELECT") return [];
  const names: string[] = [];
  const add = (name: string) => {
    if (!names.includes(name)) names.push(name);
  };
  for (const variable of parsed.variables) {
    if ("termType" in variable && variable.termType === "Wildcard") {
      collectVariables(parsed.where ?? [], add);
    } else if ("termType" in variable && variable.termType === "Variable") {
      add(variable.value);
    } else if ("variable" in variable) {
      add(variable.variable.value);
    }
  }
  return names;
}

/** Every variable in a parsed pattern tree, depth first, in the order written. */
function collectVariables(node: unknown, add: (name: string) => void): void {
  if (Array.isArray(node)) {
    for (const child of node) collectVariables(child, add);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const record = node as Record<string, unknown>;
  if (record.termType === "Variable" && typeof record.value === "string") {
    add(record.value);
    return;
  }
  for (const value of Object.values(record)) collectVariables(value, add);
}

/**
 * `answered` (the engine's column names) in the query's order: names the query orders come
 * first, in its order, any other the engine gave keep the engine's order after them.
 */
export function inQueryOrder(answered: readonly string[], order: readonly string[]): string[] {
  const given = new Set(answered);
  const ordered = order.filter((name) => given.has(name));
  const placed = new Set(ordered);
  return [...ordered, ...answered.filter((name) => !placed.has(name))];
}
