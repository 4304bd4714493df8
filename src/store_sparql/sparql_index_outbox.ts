/**
 * The SPARQL store's index outbox: entries in the store's metadata graph, shared by every
 * service instance on the store (see `index_outbox.ts` for the contract).
 *
 * An entry is `<urn:rdf-content-service:outbox:UUID> rcs:outboxItem <item> ;
 * rcs:outboxCollection "…" ; rcs:enqueued <ms>`. The store's write updates insert it with
 * the item ({@link SparqlIndexOutbox.entryTriples}), under the write's own guard, so it
 * commits or fails with the write.
 *
 * A claim is one guarded update: it leases (`rcs:leaseUntil <ms>`, `rcs:claim "token"`)
 * every entry of the oldest items that have no entry under a live lease. The endpoint runs
 * an update in one write transaction, so two instances' claims never take the same item.
 * A query for the claim's token then tells which entries it got. Lease times are the
 * claiming instance's clock in epoch milliseconds, so instances' clocks must agree to well
 * within a lease (NTP does).
 */
import type { SparqlHttpClient } from "../sparql_protocol/client.ts";
import { integerLiteral, iriToSparql, stringToSparql } from "../sparql_protocol/terms.ts";
import { ask, selectRows } from "../sparql_protocol/bounded_queries.ts";
import { UPDATE_CHUNK } from "../sparql_protocol/portable_sparql.ts";
import { METADATA_NAMESPACE, PROLOGUE } from "../sparql_protocol/service_vocabulary.ts";
import type { IndexOutbox, OutboxClaim, OutboxEntry } from "../store/index_outbox.ts";

const ENTRY_PREFIX = `${METADATA_NAMESPACE}outbox:`;
/**
 * Entries per `enqueue`, `complete` and `release` update: a short request (Virtuoso refuses
 * an update of more than about 1,400 triples), few round trips.
 */
const ENQUEUE_CHUNK = UPDATE_CHUNK;
/** The claim query's answer for a batch of a few hundred entries is far below this. */
const MAX_CLAIM_BYTES = 16 << 20;

/** The outbox in `metadataGraph` of the store `client` talks to. */
export class SparqlIndexOutbox implements IndexOutbox {
  readonly #client: SparqlHttpClient;
  readonly #meta: string;

  constructor(client: SparqlHttpClient, metadataGraph: string) {
    this.#client = client;
    this.#meta = iriToSparql(metadataGraph);
  }

  /** Triples of a new entry, for the metadata graph block of a write's INSERT template. */
  entryTriples(collection: string, uri: string): string {
    return `<${ENTRY_PREFIX}${crypto.randomUUID()}> rcs:outboxItem ${iriToSparql(uri)} ;
      rcs:outboxCollection ${stringToSparql(collection)} ; rcs:enqueued ${
      integerLiteral(Date.now())
    } .`;
  }

  async claim(limit: number, leaseMs: number): Promise<OutboxClaim> {
    const now = Date.now();
    const leaseUntil = now + leaseMs;
    if (!await ask(this.#client, `ASK { GRAPH ${this.#meta} { ?entry rcs:outboxItem ?item } }`)) {
      return { entries: [], leaseUntil };
    }
    const token = stringToSparql(crypto.randomUUID());
    const live = `FILTER NOT EXISTS { GRAPH ${this.#meta} {
        ?held rcs:outboxItem ?item ; rcs:leaseUntil ?until FILTER(?until > ${now}) } }`;
    await this.#client.update(
      `${PROLOGUE}
      DELETE { GRAPH ${this.#meta} { ?entry rcs:leaseUntil ?oldUntil ; rcs:claim ?oldClaim } }
      INSERT { GRAPH ${this.#meta} {
        ?entry rcs:leaseUntil ${integerLiteral(leaseUntil)} ; rcs:claim ${token} } }
      WHERE {
        { SELECT ?item (MIN(?enqueued) AS ?first) WHERE {
            GRAPH ${this.#meta} { ?free rcs:outboxItem ?item ; rcs:enqueued ?enqueued }
            ${live}
          } GROUP BY ?item ORDER BY ?first LIMIT ${Math.max(1, Math.trunc(limit))} }
        GRAPH ${this.#meta} { ?entry rcs:outboxItem ?item }
        OPTIONAL { GRAPH ${this.#meta} { ?entry rcs:leaseUntil ?oldUntil } }
        OPTIONAL { GRAPH ${this.#meta} { ?entry rcs:claim ?oldClaim } }
      }`,
      { idempotent: true },
    );
    // Each item's record comes along, read in the same transaction as the claim: the record
    // of the entry's collection that names the item (its key may be another IRI).
    const rows = await selectRows(
      this.#client,
      `SELECT ?entry ?item ?collection ?hash ?count ?created ?modified WHERE {
         GRAPH ${this.#meta} {
           ?entry rcs:claim ${token} ; rcs:outboxItem ?item ; rcs:outboxCollection ?collection }
         OPTIONAL { GRAPH ${this.#meta} { ?key rcs:item ?item ; rcs:collection ?collection ;
           rcs:hash ?hash ; rcs:tripleCount ?count ; rcs:created ?created ;
           rcs:modified ?modified } } }`,
      MAX_CLAIM_BYTES,
    );
    const entries: OutboxEntry[] = [];
    for (const row of rows) {
      const [entry, item, collection] = [row.get("entry"), row.get("item"), row.get("collection")];
      if (!entry || !item || !collection) continue;
      const claimed: OutboxEntry = {
        id: entry.value,
        uri: item.value,
        collection: collection.value,
      };
      const [hash, count, created, modified] = ["hash", "count", "created", "modified"]
        .map((name) => row.get(name)?.value);
      if (hash && count && created && modified) {
        claimed.current = {
          collection: collection.value,
          uri: item.value,
          hash,
          tripleCount: Number(count),
          created,
          modified,
        };
      }
      entries.push(claimed);
    }
    return { entries, leaseUntil };
  }

  async complete(ids: string[]): Promise<void> {
    for (let start = 0; start < ids.length; start += ENQUEUE_CHUNK) {
      const values = ids.slice(start, start + ENQUEUE_CHUNK).map(iriToSparql).join(" ");
      await this.#client.update(
        `${PROLOGUE}
        DELETE { GRAPH ${this.#meta} { ?entry ?p ?o } }
        WHERE { VALUES ?entry { ${values} } GRAPH ${this.#meta} { ?entry ?p ?o } }`,
        { idempotent: true },
      );
    }
  }

  async release(ids: string[]): Promise<void> {
    for (let start = 0; start < ids.length; start += ENQUEUE_CHUNK) {
      const values = ids.slice(start, start + ENQUEUE_CHUNK).map(iriToSparql).join(" ");
      await this.#client.update(
        `${PROLOGUE}
        DELETE { GRAPH ${this.#meta} { ?entry rcs:leaseUntil ?until ; rcs:claim ?claim } }
        WHERE { VALUES ?entry { ${values} }
          GRAPH ${this.#meta} { ?entry rcs:leaseUntil ?until ; rcs:claim ?claim } }`,
        { idempotent: true },
      );
    }
  }

  async enqueue(collection: string, uris: Iterable<string>): Promise<void> {
    let chunk: string[] = [];
    const flush = async () => {
      if (chunk.length === 0) return;
      await this.#client.update(
        `${PROLOGUE}INSERT DATA { GRAPH ${this.#meta} {\n${chunk.join("\n")}\n} }`,
      );
      chunk = [];
    };
    for (const uri of uris) {
      chunk.push(this.entryTriples(collection, uri));
      if (chunk.length >= ENQUEUE_CHUNK) await flush();
    }
    await flush();
  }

  async backlog(): Promise<number> {
    const rows = await selectRows(
      this.#client,
      `SELECT (COUNT(?entry) AS ?n) WHERE { GRAPH ${this.#meta} { ?entry rcs:outboxItem ?item } }`,
    );
    return Number(rows[0]?.get("n")?.value ?? 0);
  }
}
