/**
 * An item's record in the SPARQL store's metadata graph (collection, hash, triple count,
 * created and modified times) as its reads and writes see it.
 */
import type { SparqlRow } from "../sparql_protocol/results_json.ts";
import type { ItemRecord } from "../store/triple_store.ts";

/** The record from a row (or answer) that binds `hash`, `count`, `created` and `modified`. */
export function recordFromRow(collection: string, uri: string, row: SparqlRow): ItemRecord {
  return {
    collection,
    uri,
    hash: row.get("hash")?.value ?? "",
    tripleCount: Number(row.get("count")?.value ?? 0),
    created: row.get("created")?.value ?? "",
    modified: row.get("modified")?.value ?? "",
  };
}

/** The fields of a record as a read binds them: an answer that lacks one was cut. */
export const RECORD_FIELDS = ["hash", "count", "created", "modified"] as const;

/** Whether two reads of a record found the same version. */
export function sameVersion(a: ItemRecord | undefined, b: ItemRecord): boolean {
  return a !== undefined && a.hash === b.hash && a.modified === b.modified &&
    a.tripleCount === b.tripleCount;
}
