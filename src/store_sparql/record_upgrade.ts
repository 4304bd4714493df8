/**
 * The one-off upgrade of the SPARQL store's item records to the layout of items keyed by
 * (collection, IRI) (`item_records.ts`): every record states the item's IRI
 * (`<key> rcs:item <iri>`), which listings and the outbox's claim read. A record written
 * before lacks it, and its key is its item's IRI, so `?k rcs:item ?k` is added to it; the
 * records keep their subjects and the items their graphs (nothing moves).
 *
 * Run before the store serves (`SparqlTripleStore.checkCapabilities`), at every start: when
 * nothing lacks the triple it is one query. Item records are the metadata graph's subjects
 * with `rcs:collection` and `rcs:hash`; the outbox entries, receipts, job and catalog records
 * there have neither. Several instances may run it at once: each update adds the same
 * triples (adding a triple twice leaves one), in chunks a store takes in one update
 * (`PAGE_ROWS`, which the capability check proved a pattern update copies whole).
 */
import type { SparqlHttpClient } from "../sparql_protocol/client.ts";
import { selectRows } from "../sparql_protocol/bounded_queries.ts";
import { PAGE_ROWS } from "../sparql_protocol/portable_sparql.ts";
import { PROLOGUE } from "../sparql_protocol/service_vocabulary.ts";
import { iriToSparql } from "../sparql_protocol/terms.ts";
import { log } from "../log/logger.ts";
import { StoreIncapable } from "./capabilities.ts";

/**
 * Adds `rcs:item` to every item record in `metadataGraph` that lacks it, `chunk` records per
 * update; returns how many lacked it.
 */
export async function upgradeItemRecords(
  client: SparqlHttpClient,
  metadataGraph: string,
  chunk = PAGE_ROWS,
): Promise<number> {
  const meta = iriToSparql(metadataGraph);
  const lacking = `GRAPH ${meta} { ?k rcs:collection ?collection ; rcs:hash ?hash
    FILTER NOT EXISTS { ?k rcs:item ?item } }`;
  const count = async () => {
    const rows = await selectRows(
      client,
      `SELECT (COUNT(DISTINCT ?k) AS ?n) WHERE { ${lacking} }`,
    );
    return Number(rows[0]?.get("n")?.value ?? 0);
  };
  const found = await count();
  if (found === 0) return 0;
  log("info", "SPARQL store: adding the item IRI (rcs:item) to item records written before", {
    records: found,
    metadataGraph,
  });
  for (let left = found; left > 0;) {
    await client.update(
      `${PROLOGUE}INSERT { GRAPH ${meta} { ?k rcs:item ?k } }
      WHERE { { SELECT DISTINCT ?k WHERE { ${lacking} } LIMIT ${chunk} } }`,
      { idempotent: true },
    );
    const now = await count();
    // Another instance's chunk counts as progress too; none at all would loop for ever.
    if (now >= left) {
      throw new StoreIncapable(
        "record upgrade",
        `an update adding rcs:item to ${Math.min(left, chunk)} item records added none`,
      );
    }
    left = now;
  }
  log("info", "SPARQL store: item records upgraded", { records: found, metadataGraph });
  return found;
}
