/**
 * The SPARQL forms the service relies on in a remote store, written once in the shape every
 * store tried evaluates as the standard says (Apache Jena Fuseki 5, OpenLink Virtuoso 7.2; see
 * docs/backends.md). The SPARQL store, its outbox, the job records and the catalog records
 * build their guards, receipts and pages from here, so a store's quirk is handled in one place:
 *
 * - **Lone `FILTER NOT EXISTS`** ({@link whenAbsent}): Virtuoso 7.2 ignores a filter that
 *   stands alone in a group (`WHERE { FILTER NOT EXISTS { … } }` matches even when the
 *   pattern exists); with one `VALUES` row before it, it evaluates the filter.
 * - **Template graphs from stored IRIs** ({@link templateGraph}): Virtuoso 7.2 applies
 *   `INSERT { GRAPH ?g { … } } WHERE { … ?x rcs:graph ?g }` (a graph name read from the store)
 *   and then answers an error (`SR002: Function string_output_string needs a string output`,
 *   raised while it words its "Insert into <g>" report), so a guarded write would seem
 *   refused although applied; a graph name computed by `IRI(STR(?g))` it words, and takes.
 * - **Receipts by boundness** ({@link isBound}): `BIND(true AS ?x)` comes back as `"true"` from
 *   Fuseki and as `"1"^^xsd:integer` from Virtuoso; only whether it is bound is portable.
 * - **No reliance on `OPTIONAL` order**: Virtuoso drops a second `OPTIONAL`'s bindings when
 *   the first did not match; facts that may be missing independently are asked as branches
 *   of a `UNION` and merged per key by the reader ({@link mergeRows}).
 * - **Row caps** ({@link PAGE_ROWS}, {@link looksCapped}): Virtuoso answers at most
 *   `ResultSetMaxRows` (10,000 stock) rows or triples with 200 (only a `X-SPARQL-MaxRows`
 *   header on SELECT says so), and refuses `ORDER BY` with `OFFSET + LIMIT` above its sort
 *   limit (10,000: `SR353`). Listings therefore page by key (`FILTER(STR(?k) > "…")`,
 *   `ORDER BY ?k LIMIT n`), never by offset, with pages far below any cap.
 * - **Update size**: Virtuoso compiles an `INSERT DATA` into SQL text and fails above about
 *   1,400 triples (`SP031`); large item graphs go through the Graph Store Protocol into a
 *   staging graph and are moved by a small pattern update
 *   (`src/store_sparql/sparql_triple_store.ts`), and bulk metadata updates are sent in chunks
 *   of {@link UPDATE_CHUNK}.
 */
import type { SparqlRow } from "./results_json.ts";
import { stringToSparql } from "./terms.ts";

/** Rows per page of a listing: far below Virtuoso's stock cap of 10,000. */
export const PAGE_ROWS = 2000;

/** Triples or entries per bulk metadata update: far below Virtuoso's SQL text limit. */
export const UPDATE_CHUNK = 200;

/**
 * A group that matches exactly once when none of `patterns` has a match, and never
 * otherwise. The `VALUES` row is there for Virtuoso, which ignores a `FILTER NOT EXISTS`
 * alone in a group.
 */
export function whenAbsent(...patterns: string[]): string {
  return `VALUES ?rcsOnce { 1 } ${
    patterns.map((pattern) => `FILTER NOT EXISTS { ${pattern} }`).join(" ")
  }`;
}

/**
 * Binds `as` to the graph name `stored` (read from the store) for an update's template to
 * write into: see the module comment (Virtuoso words a stored one as an error).
 */
export function templateGraph(stored: string, as: string): string {
  return `BIND(IRI(STR(${stored})) AS ${as})`;
}

/** Whether a row binds `name`: receipts are read this way, never by the bound value. */
export function isBound(row: SparqlRow | undefined, name: string): boolean {
  return row?.get(name) !== undefined;
}

/**
 * Rows of a `UNION` query merged per `key`: each branch binds the key and some facts, and
 * the merged row holds them all.
 */
export function mergeRows(rows: SparqlRow[], key: string): Map<string, SparqlRow> {
  const merged = new Map<string, SparqlRow>();
  for (const row of rows) {
    const value = row.get(key)?.value;
    if (value === undefined) continue;
    const into = merged.get(value) ?? new Map();
    for (const [name, term] of row) into.set(name, term);
    merged.set(value, into);
  }
  return merged;
}

/**
 * The filter and modifiers of one page of a listing keyed by `variable` (an IRI), after the
 * key `after` (exclusive; undefined for the first page). Comparing `STR()` keeps it to
 * string order, which every store sorts alike.
 */
export function keyPage(variable: string, after: string | undefined, rows = PAGE_ROWS): {
  filter: string;
  modifiers: string;
} {
  return {
    filter: after === undefined ? "" : `FILTER(STR(${variable}) > ${stringToSparql(after)})`,
    modifiers: `ORDER BY STR(${variable}) LIMIT ${rows}`,
  };
}

/**
 * Whether an answer of `count` rows to a request for at most `asked` looks cut by the store
 * rather than complete: the store said so, or a page came back fuller than asked.
 */
export function looksCapped(count: number, asked: number, maxRowsHeader?: string | null): boolean {
  if (maxRowsHeader && Number(maxRowsHeader) <= count) return true;
  return count > asked;
}
