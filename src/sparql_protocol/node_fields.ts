/**
 * Nodes read as their plain triples (`?node ?p ?o`) and put together in code, a field per
 * known predicate. A pattern per field in one query (a star) is what a store can misjudge:
 * Virtuoso's cost estimate refused such reads outright, and a second `OPTIONAL` loses its
 * bindings there (`portable_sparql.ts`). Unknown predicates are left out.
 */
import type { SparqlRow } from "./results_json.ts";

/**
 * The rows' nodes (bound to `nodeVariable`), each as its fields: `fieldOf` names the field
 * each predicate IRI holds; the rows bind `p` and `o`.
 */
export function nodeFields(
  rows: Iterable<SparqlRow>,
  nodeVariable: string,
  fieldOf: Record<string, string>,
): Map<string, SparqlRow> {
  const nodes = new Map<string, SparqlRow>();
  for (const row of rows) {
    const field = fieldOf[row.get("p")?.value ?? ""];
    const node = row.get(nodeVariable)?.value;
    const object = row.get("o");
    if (field === undefined || node === undefined || object === undefined) continue;
    let fields = nodes.get(node);
    if (!fields) nodes.set(node, fields = new Map());
    fields.set(field, object);
  }
  return nodes;
}
