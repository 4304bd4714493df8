/**
 * Item triples as the SPARQL store reads them: always a CONSTRUCT answered in N-Triples.
 *
 * One answer format for every read of an item's triples (the item read, the paged read of a
 * large item, the batch read, and the read-back a staged write is hashed from) is what makes
 * an ETag the hash of what any read serves. A store's answer formats need not agree on a
 * literal's form: Virtuoso writes a stored `xsd:boolean` as `"1"` in SPARQL JSON results and
 * as `"true"` in N-Triples, so a record hashed from a JSON read-back did not match the item
 * served from an N-Triples read (issue 40). N-Triples is also the compact answer (about half
 * the time of JSON rows on Fuseki and Virtuoso), and its blank node labels are stable from
 * one query to the next on both (Fuseki's JSON labels are numbered per answer), which a read
 * in pages relies on.
 */
import type { Quad } from "n3";
import { type SparqlHttpClient, storeProblemFromError } from "../sparql_protocol/client.ts";
import { streamNTriples } from "../sparql_protocol/ntriples_stream.ts";
import { PAGE_ROWS } from "../sparql_protocol/portable_sparql.ts";
import { PROLOGUE } from "../sparql_protocol/service_vocabulary.ts";
import { iriToSparql } from "../sparql_protocol/terms.ts";

export const N_TRIPLES = "application/n-triples";

/**
 * Runs a CONSTRUCT (the prologue is added) and hands each triple of its answer to `each`, in
 * the order the store wrote them; returns how many there were. Failures while reading the
 * answer become store problems, as the request's own do.
 */
export async function constructEach(
  client: SparqlHttpClient,
  query: string,
  each: (quad: Quad) => void,
): Promise<number> {
  const response = await client.query(`${PROLOGUE}${query}`, N_TRIPLES);
  let count = 0;
  try {
    for await (const quad of streamNTriples(response.body!)) {
      each(quad);
      count++;
    }
  } catch (error) {
    throw storeProblemFromError(error, client.config.queryUrl, client.config.timeoutMs);
  }
  return count;
}

/**
 * Every triple of `graph`, in pages of {@link PAGE_ROWS} (no order: an `ORDER BY` over more
 * rows than Virtuoso's sort limit is refused), each triple once. Whether the pages are one
 * version is the caller's to check (the graph may change in between).
 */
export async function graphTriples(client: SparqlHttpClient, graph: string): Promise<Quad[]> {
  const triples = new Map<string, Quad>();
  for (let offset = 0;; offset += PAGE_ROWS) {
    const count = await constructEach(
      client,
      `CONSTRUCT { ?s ?p ?o } WHERE { GRAPH ${iriToSparql(graph)} { ?s ?p ?o } }
       OFFSET ${offset} LIMIT ${PAGE_ROWS}`,
      (quad) => triples.set(tripleKey(quad), quad),
    );
    if (count < PAGE_ROWS) break;
  }
  return [...triples.values()];
}

/** A triple's identity: two reads of one triple give the same key. */
function tripleKey(quad: Quad): string {
  return `${quad.subject.termType}${quad.subject.value} ${quad.predicate.value} ${quad.object.termType}${quad.object.id}`;
}
