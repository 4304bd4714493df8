/**
 * Which readable collections hold an item of each IRI (issue 43): the workbench links an IRI
 * to the item page of the collection that holds it, not to the page's own collection, and
 * shows an IRI no readable collection holds as an external link.
 *
 * Today an IRI names an item of at most one collection, but the answer is a list (zero, one
 * or several) so that callers need not change once several may hold it.
 *
 * Two steps, to keep the store's work near the page's size: one SPARQL query over the
 * readable item graphs keeps the IRIs that are a subject anywhere (an item's IRI is always a
 * subject of its own graph: `item_uri.ts`); only those are then looked up per collection by
 * record, which is what says which collection holds the item (graph names need not be item
 * IRIs on a SPARQL store with a graph template).
 */
import { iriToSparql } from "../sparql_protocol/terms.ts";
import type { TripleStore } from "../store/triple_store.ts";
import type { QueryScope } from "../sparql_protocol/query_types.ts";

/** Most IRIs one lookup takes: a workbench page's worth (each may cost a record read per collection). */
export const MAX_HOLDER_IRIS = 200;

/** Record reads in flight at once (a SPARQL store answers each as a request of its own). */
const CONCURRENT_READS = 16;

/** Options of {@link findHolders}. */
export interface HolderOptions {
  /** The collections the caller may read, in the order answers list them. */
  collections: readonly string[];
  /** The same collections as a query scope; unset when the caller reads them all. */
  scope?: QueryScope;
  timeoutMs: number;
  /** The row cap of SPARQL queries (`service.query.maxRows`). */
  maxRows: number;
}

/** For each of `iris`, the readable collections that hold an item of that IRI (maybe none). */
export async function findHolders(
  store: TripleStore,
  iris: readonly string[],
  options: HolderOptions,
): Promise<Record<string, string[]>> {
  const unique = [...new Set(iris)];
  const holders: Record<string, string[]> = Object.fromEntries(unique.map((iri) => [iri, []]));
  if (unique.length === 0 || options.collections.length === 0) return holders;
  const subjects = await describedSubjects(store, unique, options);
  const lookups = [...subjects].flatMap((iri) =>
    options.collections.map((collection) => ({ iri, collection }))
  );
  const held = await inBatches(
    lookups,
    CONCURRENT_READS,
    async ({ iri, collection }) => (await store.getItem(collection, iri)) !== undefined,
  );
  // Pushed in lookup order: each IRI's collections come in the order the caller gave.
  lookups.forEach(({ iri, collection }, index) => {
    if (held[index]) holders[iri].push(collection);
  });
  return holders;
}

/** Those of `iris` that are the subject of a triple in an item graph the scope lets be read. */
async function describedSubjects(
  store: TripleStore,
  iris: readonly string[],
  options: HolderOptions,
): Promise<Set<string>> {
  const query = `SELECT DISTINCT ?s WHERE {
  VALUES ?s { ${iris.map(iriToSparql).join(" ")} }
  GRAPH ?g { ?s ?p ?o }
}`;
  const result = await store.query(query, {
    limit: Math.min(options.maxRows, iris.length),
    timeoutMs: options.timeoutMs,
    scope: options.scope,
  });
  const found = new Set<string>();
  if (result.kind !== "bindings") return found;
  for (const row of result.rows) {
    const subject = row.get("s");
    if (subject?.termType === "NamedNode") found.add(subject.value);
  }
  return found;
}

/** `work` over `inputs`, at most `width` at a time; results in input order. */
async function inBatches<T, R>(
  inputs: readonly T[],
  width: number,
  work: (input: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < inputs.length; start += width) {
    results.push(...await Promise.all(inputs.slice(start, start + width).map(work)));
  }
  return results;
}
