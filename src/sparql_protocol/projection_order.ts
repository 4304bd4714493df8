/**
 * The order of a SELECT query's result columns as the query names them. Engines may answer
 * `SELECT *` in any order (oxigraph sorts the names); people expect the columns in the
 * order they wrote: the projection's order, or for `SELECT *` the order in which the
 * variables first appear in the query (docs/api.md). Jena's is close, but puts a `GRAPH ?g`'s
 * variable after those of its patterns.
 */
// @ts-types="@types/sparqljs"
import type sparqljs from "sparqljs";

/** The variable names of a parsed SELECT in projection order; [] for other forms. */
export function projectionOrder(parsed: sparqljs.SparqlQuery): string[] {
  if (parsed.type !== "query" || parsed.queryType !== "SELECT") return [];
  const names: string[] = [];
  projected(parsed, (name) => {
    if (!names.includes(name)) names.push(name);
  });
  return names;
}

/** Each variable a SELECT (or a subquery) answers, in the order written. */
function projected(select: sparqljs.SelectQuery, add: (name: string) => void): void {
  for (const variable of select.variables) {
    if ("termType" in variable && variable.termType === "Wildcard") {
      collectVariables(select.where ?? [], add);
      // A VALUES after the WHERE clause joins its variables to it.
      for (const row of select.values ?? []) for (const key of Object.keys(row)) add(key.slice(1));
    } else if ("termType" in variable && variable.termType === "Variable") {
      add(variable.value);
    } else if ("variable" in variable) {
      add(variable.variable.value);
    }
  }
}

/**
 * Every variable in a parsed pattern tree, depth first, in the order written. The tree's keys
 * are not always in that order: a GRAPH's name comes after its patterns, a BIND's variable
 * before its expression, and a VALUES block names its variables as keys (`?x`). A subquery
 * shows only what it projects.
 */
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
  switch (record.type) {
    case "graph":
      collectVariables(record.name, add);
      collectVariables(record.patterns, add);
      return;
    case "bind":
      collectVariables(record.expression, add);
      collectVariables(record.variable, add);
      return;
    case "values":
      for (const row of record.values as Record<string, unknown>[]) {
        for (const key of Object.keys(row)) add(key.slice(1));
      }
      return;
    case "query":
      projected(record as unknown as sparqljs.SelectQuery, add);
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
