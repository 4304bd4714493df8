/**
 * The triple store on any SPARQL 1.1 endpoint (Query, Update, Graph Store Protocol);
 * tested against Apache Jena Fuseki and OpenLink Virtuoso 7.2. The forms its queries and
 * updates take so that both evaluate them alike are in `src/sparql_protocol/portable_sparql.ts`;
 * what it checks of a store before the service starts is in `capabilities.ts`.
 *
 * Layout in the endpoint's dataset:
 * - each item is one named graph, named through `graphTemplate` (by default the name
 *   itself) by the item's key: its IRI for the first collection that holds the IRI, the key
 *   `store/item_keys.ts` derives from collection and IRI for an item created while another
 *   collection's item had the IRI's name (the same IRI may be an item of several
 *   collections, each its own graph);
 * - a metadata graph (`urn:rdf-content-service:meta`) holds a record per item, its subject
 *   the key (`item_records.ts`): its collection, its IRI (`rcs:item`), its graph, hash,
 *   triple count, created and modified times, so listing a collection is one SELECT;
 *   records written before `rcs:item` get it at start (`record_upgrade.ts`);
 * - the index outbox lives in the metadata graph too (`sparql_index_outbox.ts`), and so does
 *   every item's history (`sparql_item_history.ts`) and each collection's change feed
 *   (`sparql_change_feed.ts`): each write's version and change are written by the write's own
 *   update request, under its guard.
 *
 * This class composes the parts, which share one {@link StoreContext}:
 * - reads (`item_reads.ts`): an item and its record from one query, a batch of items
 *   (`batch_graphs.ts`), listings paged by key; every read of item triples is a CONSTRUCT
 *   answered in N-Triples (`graph_triples.ts`);
 * - writes (`item_writes.ts`): create, replace and delete as guarded operations, their
 *   triples inline or staged (`graph_bodies.ts`: on a store that rewrites literal forms,
 *   read back and hashed as reads will serve them), sent in groups and confirmed by
 *   receipts (`guarded_writes.ts`);
 * - the user's queries (`user_queries.ts`), as the user-query account when one is set.
 */
import type { Quad } from "n3";
import { isErrorKind } from "../errors/domain_error.ts";
import type { BackendHealth } from "../backend/backend_health.ts";
import { SparqlHttpClient } from "../sparql_protocol/client.ts";
import type { SparqlQueryOptions, SparqlQueryResult } from "../sparql_protocol/query_types.ts";
import { SPARQL_RESULTS_JSON } from "../sparql_protocol/results_formats.ts";
import { METADATA_NAMESPACE } from "../sparql_protocol/service_vocabulary.ts";
import { iriToSparql } from "../sparql_protocol/terms.ts";
import type {
  DeleteOrigin,
  ItemGraph,
  ItemRead,
  ItemRecord,
  ItemWrite,
  TripleStore,
  WriteCondition,
} from "../store/triple_store.ts";
import { probeCapabilities, type StoreCapabilities, StoreIncapable } from "./capabilities.ts";
import { GuardedWrites } from "./guarded_writes.ts";
import { upgradeItemRecords } from "./record_upgrade.ts";
import { ItemReads } from "./item_reads.ts";
import { ItemWrites } from "./item_writes.ts";
import { SparqlIndexOutbox } from "./sparql_index_outbox.ts";
import { SparqlItemHistory } from "./sparql_item_history.ts";
import { SparqlChangeFeed } from "./sparql_change_feed.ts";
import type { SparqlTripleStoreConfig, StoreContext } from "./store_context.ts";
import { UserQueries } from "./user_queries.ts";

export { METADATA_NAMESPACE };
export type { SparqlTripleStoreConfig };

/** Item graphs on a remote SPARQL 1.1 endpoint. */
export class SparqlTripleStore implements TripleStore {
  readonly kind = "sparql" as const;
  /** Several instances may name the same endpoint. */
  readonly sharedAcrossInstances = true;
  readonly #context: StoreContext;
  readonly #reads: ItemReads;
  readonly #guarded: GuardedWrites;
  readonly #writes: ItemWrites;
  readonly #queries: UserQueries;
  /** The index outbox, in the metadata graph. */
  readonly outbox: SparqlIndexOutbox;
  /** Every version of every item, in the metadata graph, written by each write's request. */
  readonly history: SparqlItemHistory;
  /** Every applied write per collection, in the metadata graph, written by its request. */
  readonly changes: SparqlChangeFeed;
  /**
   * What the capability check found; unknown (assumed standard) until it ran. The service
   * runs it before it starts (main.ts, `Services.checkStore`).
   */
  #capabilities: StoreCapabilities | undefined;
  /** The check in flight or done; forgotten when it could not reach the store. */
  #checking: Promise<StoreCapabilities> | undefined;

  constructor(config: SparqlTripleStoreConfig) {
    this.#context = {
      config,
      client: new SparqlHttpClient(config),
      meta: iriToSparql(config.metadataGraph),
      capabilities: () => this.#capabilities,
    };
    this.outbox = new SparqlIndexOutbox(this.#context.client, config.metadataGraph);
    this.#reads = new ItemReads(this.#context);
    this.#guarded = new GuardedWrites(this.#context);
    this.history = new SparqlItemHistory(this.#context);
    this.changes = new SparqlChangeFeed(this.#context);
    this.#writes = new ItemWrites(
      this.#context,
      this.#guarded,
      this.outbox,
      this.history,
      this.changes,
    );
    this.#queries = new UserQueries(this.#context);
  }

  /**
   * Probes, on scratch graphs, the behaviours this store relies on (capabilities.ts) and
   * throws a `StoreIncapable` naming the first one the endpoint lacks; the service does not
   * start then. Also learns whether the store rewrites literal forms, and its product.
   * Then brings item records written before to the current layout (record_upgrade.ts).
   */
  checkCapabilities(): Promise<StoreCapabilities> {
    const { client, config } = this.#context;
    this.#checking ??= probeCapabilities(client, this.#queries.client, {
      metadataGraph: config.metadataGraph,
      separateUserAccount: this.#queries.separateAccount,
    }).then(async (found) => {
      await upgradeItemRecords(client, config.metadataGraph);
      this.#capabilities = found;
      return found;
    }, (error) => {
      if (isErrorKind(error, "unavailable") && !(error instanceof StoreIncapable)) {
        this.#checking = undefined; // not reached: try again with the next request
      }
      throw error;
    });
    return this.#checking;
  }

  getItem(collection: string, uri: string): Promise<ItemRecord | undefined> {
    return this.#reads.getItem(collection, uri);
  }

  readItem(collection: string, uri: string): Promise<ItemRead> {
    return this.#reads.readItem(collection, uri);
  }

  readItemGraphs(collection: string, uris: string[]): Promise<ItemGraph[]> {
    return this.#reads.readItemGraphs(collection, uris);
  }

  createItem(write: ItemWrite): Promise<ItemRecord> {
    return this.#writes.createItem(write);
  }

  replaceItem(write: ItemWrite, condition: WriteCondition = {}): Promise<ItemRecord> {
    return this.#writes.replaceItem(write, condition);
  }

  deleteItem(
    collection: string,
    uri: string,
    condition: WriteCondition = {},
    origin: DeleteOrigin = {},
  ): Promise<void> {
    return this.#writes.deleteItem(collection, uri, condition, origin);
  }

  /** How the writes were grouped so far. */
  get groupCommitStats(): GuardedWrites["stats"] {
    return this.#guarded.stats;
  }

  listItems(collection: string): AsyncGenerator<ItemRecord> {
    return this.#reads.listItems(collection);
  }

  collectionQuads(collection: string): AsyncGenerator<Quad> {
    return this.#reads.collectionQuads(collection);
  }

  query(sparql: string, options: SparqlQueryOptions): Promise<SparqlQueryResult> {
    return this.#queries.query(sparql, options);
  }

  async health(): Promise<BackendHealth> {
    const started = performance.now();
    const client = this.#context.client;
    try {
      const response = await client.query("ASK {}", SPARQL_RESULTS_JSON);
      await response.body?.cancel();
      const elapsed = Math.round(performance.now() - started);
      const product = client.server ? ` (${client.server.trim()})` : "";
      return { ok: true, detail: `SPARQL endpoint${product} answered in ${elapsed} ms` };
    } catch (error) {
      return { ok: false, detail: error instanceof Error ? error.message : String(error) };
    }
  }

  async close(): Promise<void> {
    try {
      await this.#guarded.close();
    } finally {
      this.#context.client.close();
      this.#queries.close();
    }
  }
}
