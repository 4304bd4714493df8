/**
 * The triple store on any SPARQL 1.1 endpoint (Query, Update, Graph Store Protocol);
 * tested against Apache Jena Fuseki and OpenLink Virtuoso 7.2. The forms its queries and
 * updates take so that both evaluate them alike are in `src/sparql_protocol/portable_sparql.ts`;
 * what it checks of a store before the service starts is in `capabilities.ts`.
 *
 * Layout in the endpoint's dataset:
 * - each item is one named graph, by default named by the item URI (`graphTemplate`);
 * - a metadata graph (`urn:rdf-content-service:meta`) says, per item, which collection it
 *   belongs to and its hash, triple count, created and modified times, so listing a
 *   collection is one SELECT.
 *
 * Every write is one SPARQL Update request, which the endpoint applies atomically (Fuseki
 * runs a request in one write transaction), so no reader ever sees half an item. An item of
 * more than `maxInlineTriples` triples (and, on a store that rewrites literal forms, any item
 * with typed literals) is first put into a staging graph of its own through the Graph Store
 * Protocol; the update then copies it into place by a pattern (`GRAPH <staging> { ?s ?p ?o }`),
 * so the request stays small whatever the item's size (Virtuoso compiles triples written
 * out into SQL text and fails above about 1,400). The
 * request checks its own precondition (absent for create; present in the collection, and
 * with the If-Match hash, for replace and delete) in its WHERE clauses, inside that
 * transaction: no other write can slip in between check and write. SPARQL Update does not
 * say whether a guarded operation matched, so a write whose guard held also leaves a
 * receipt (`<urn:rdf-content-service:receipt:UUID> rcs:receiptFor <item>`); a query for the
 * receipt then tells success from conflict/not-found/precondition-failed exactly, even if another write changes the
 * item in the meantime. Receipts are deleted by the next update this store sends.
 *
 * A write that fails with unavailable may still have been applied when the connection broke after
 * the request was sent (an update is never retried for that reason); the item's state on
 * the endpoint is then either the old or the new one, never a mix.
 *
 * `query()` runs the query with a row limit written in (`analyzeQuery`), otherwise as
 * written: the endpoint's default graph applies (with `--mem`/TDB2 Fuseki that is not the
 * union of the item graphs, so queries use `GRAPH ?g { … }`). Set `queryDefaultGraph`
 * (Fuseki: `urn:x-arq:UnionGraph`) to query the union of all named graphs instead; the
 * metadata graph is one of them, unless it is the dataset's stored default graph
 * (`metadataGraph: urn:x-arq:DefaultGraph` on a TDB2 dataset with `unionDefaultGraph`,
 * docs/backends.md), which keeps the service's records out of every query's default graph.
 * A query that names the metadata graph is refused (`reserved-graph`). A query with a scope
 * (`SparqlQueryOptions.scope`) sees only the item graphs of the scope's collections, listed
 * from the metadata graph for each query and written into it as its dataset (`FROM`,
 * `FROM NAMED`; remote_query.ts): neither the endpoint's default graph nor
 * `queryDefaultGraph` applies then.
 *
 * Terms are stored as written only if the dataset keeps lexical forms: Fuseki's in-memory
 * dataset does; TDB2 and Virtuoso store numbers, booleans and dates as values ("042" comes
 * back "42", "1.0E0"^^xsd:double comes back "1.0" from Virtuoso). The capability check finds
 * out; on such a store a write with typed literals is staged, read back, and its record
 * carries the hash of what the store gave back, so a body read after a cache miss always
 * hashes to its ETag. Hashing what the store returns, rather than a model of each store's
 * canonical forms, is right by construction for any store (Virtuoso's forms are not XSD's),
 * provided the read-back and every read of the item take the same answer format: a store's
 * formats need not agree (Virtuoso's JSON results write a boolean "1", its N-Triples
 * "true"), so all of them are N-Triples (graph_triples.ts).
 *
 * Every listing pages by key (`listItems`, the export, `collectionQuads`), and an item read
 * whose answer holds fewer triples than its record counts (a store's row cap: Virtuoso
 * answers at most 10,000 with 200) is read again page by page, so nothing is cut silently.
 *
 * An item read is one query for the item's metadata and its graph together, which the
 * endpoint answers from one read transaction (Fuseki does), so the record served as the
 * ETag is the record of the triples served with it; a record read first and the graph
 * after (say, by a Graph Store GET) could be a version apart under writes. `readItemGraphs`
 * does the same for a batch. `readItem` holds the item in memory to group its triples by
 * subject (SPARQL promises no order); `listItems` and `collectionQuads` stream.
 *
 * The index outbox lives in the metadata graph too (`sparql_index_outbox.ts`): each write's
 * INSERT carries its outbox entry under the write's own guard, so the entry exists exactly
 * when the write was applied, whichever instance sent it and whatever becomes of that
 * instance afterwards. An entry can only be seen once its write has landed, so the worker
 * that applies it reads the item as written or newer.
 */
import type { Quad } from "n3";
import { DomainError, isErrorKind } from "../errors/domain_error.ts";
import { queryRemoteEndpoint } from "../sparql_protocol/remote_query.ts";
import { selectPages, selectRows } from "../sparql_protocol/bounded_queries.ts";
import { isBound, mergeRows, whenAbsent } from "../sparql_protocol/portable_sparql.ts";
import { METADATA_NAMESPACE, PROLOGUE } from "../sparql_protocol/service_vocabulary.ts";
import { probeCapabilities, type StoreCapabilities, StoreIncapable } from "./capabilities.ts";
import { SparqlIndexOutbox } from "./sparql_index_outbox.ts";
import { itemExists, itemNotFound, preconditionFailed } from "../store/store_problems.ts";
import type {
  ItemGraph,
  ItemRead,
  ItemRecord,
  ItemWrite,
  TripleStore,
  WriteCondition,
} from "../store/triple_store.ts";
import type { SparqlQueryOptions, SparqlQueryResult } from "../sparql_protocol/query_types.ts";
import type { BackendHealth } from "../backend/backend_health.ts";
import {
  type SparqlEndpointConfig,
  SparqlHttpClient,
  WriteOutcomeUnknown,
} from "../sparql_protocol/client.ts";
import type { SparqlRow } from "../sparql_protocol/results_json.ts";
import { constructEach, graphTriples } from "./graph_triples.ts";
import { GRAPHS_PER_QUERY, readItemGraphs as readBatch } from "./batch_graphs.ts";
import { recordFromRow, sameVersion } from "./item_records.ts";
import {
  integerLiteral,
  iriToSparql,
  stringToSparql,
  triplesToSparql,
} from "../sparql_protocol/terms.ts";
import { groupBySubject } from "../rdf/subject_groups.ts";
import {
  type GroupCommitOptions,
  GroupCommitter,
  type WriteOutcome as Settled,
} from "../store/group_commit.ts";
import { SPARQL_RESULTS_JSON } from "../sparql_protocol/results_formats.ts";

export { METADATA_NAMESPACE };

/** Configuration of a {@link SparqlTripleStore}. */
export interface SparqlTripleStoreConfig extends SparqlEndpointConfig {
  /** Item graph name; `{item}` is replaced by the item URI. Unset: the item URI. */
  graphTemplate?: string;
  /** Where item metadata lives (`service.store.sparql.metadataGraph`). */
  metadataGraph: string;
  /** Sent as `default-graph-uri` with `query()`; unset, the endpoint's default graph. */
  queryDefaultGraph?: string;
  /**
   * The account `query()` (the user's queries) runs as, when it is not the service's own: a
   * read-only account that cannot read the metadata graph (Virtuoso's graph-level
   * security, docs/backends.md). Its query URL defaults to `queryUrl`.
   */
  userQueries?: { queryUrl?: string; username?: string; password?: string };
  /**
   * Items with more triples are staged through the Graph Store Protocol (see the module
   * comment); `service.store.sparql.maxInlineTriples`.
   */
  maxInlineTriples: number;
  /** The hash of an item's triples, for stores that rewrite literal forms. */
  hash?: (quads: Quad[]) => Promise<string>;
  /** Bounds of a group of writes sent as one update request (`service.store.groupCommit`). */
  groupCommit: GroupCommitOptions;
}

const RECEIPT_PREFIX = `${METADATA_NAMESPACE}receipt:`;
/**
 * Most graphs Virtuoso (7.2) takes in a query's FROM, or in its FROM NAMED (and as many
 * through the protocol's parameters): it compiles each list into one `IN` of at most this
 * many arguments and refuses more (`SP030 Too many arguments`). Measured, not documented;
 * it bounds the item graphs a scoped query can see there.
 */
const VIRTUOSO_MAX_DATASET_GRAPHS = 4094;
/** Subjects that carry an item's record in the answer to a read. */
const RECORD_PREFIX = `${METADATA_NAMESPACE}read:`;
/** Attempts of the read that confirms a group's writes, and the backoff step between them. */
const CONFIRM_ATTEMPTS = 3;
/** A write with less of its time budget left than this is not sent (it could not finish). */
const MIN_REQUEST_MS = 100;
const CONFIRM_BACKOFF_MS = 250;
/**
 * Most bytes of written-out triples in one group's request, whatever `groupCommit.maxBytes`
 * says: Virtuoso refuses requests of much more than 1,400 triples (a refused group is sent
 * again write by write, which is correct but slow).
 */
const MAX_GROUP_BYTES = 64 << 10;
/** Staging graphs, one per staged write. */
const STAGING_PREFIX = `${METADATA_NAMESPACE}staging:`;
/** Attempts at reading a large item page by page while writes change it. */
const PAGED_READ_ATTEMPTS = 3;
const XSD_STRING = "http://www.w3.org/2001/XMLSchema#string";
const RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString";
/** The receipts query's answer for a group of a few hundred writes is far below this. */
const MAX_RECEIPTS_BYTES = 4 << 20;

/** Item graphs on a remote SPARQL 1.1 endpoint. */
export class SparqlTripleStore implements TripleStore {
  readonly kind = "sparql" as const;
  readonly #client: SparqlHttpClient;
  /** The account of the user's queries (`query()`): the service's own unless configured. */
  readonly #userClient: SparqlHttpClient;
  readonly #config: SparqlTripleStoreConfig;
  readonly #meta: string;
  /** The metadata graph's IRI: queries through `query()` may not name it. */
  readonly #metadataGraph: string;
  /** The index outbox, in the metadata graph. */
  readonly outbox: SparqlIndexOutbox;
  /** Receipts of verified writes, deleted as part of the next update. */
  #settledReceipts: string[] = [];
  /** Item writes, sent in groups (see `group_commit.ts`). */
  readonly #writes: GroupCommitter<GuardedWrite, WriteOutcome>;
  /** Writes built so far: gives each its own blank node labels. */
  #writesBuilt = 0;
  /**
   * What the capability check found; unknown (assumed standard) until it ran. The service
   * runs it before it starts (main.ts, `Services.checkStore`).
   */
  #capabilities: StoreCapabilities | undefined;
  /** The check in flight or done; forgotten when it could not reach the store. */
  #checking: Promise<StoreCapabilities> | undefined;

  constructor(config: SparqlTripleStoreConfig) {
    this.#config = config;
    this.#client = new SparqlHttpClient(config);
    this.#userClient = config.userQueries
      ? new SparqlHttpClient({
        ...config,
        queryUrl: config.userQueries.queryUrl ?? config.queryUrl,
        username: config.userQueries.username,
        password: config.userQueries.password,
      })
      : this.#client;
    const { metadataGraph } = config;
    this.#meta = iriToSparql(metadataGraph);
    this.#metadataGraph = metadataGraph;
    this.outbox = new SparqlIndexOutbox(this.#client, metadataGraph);
    const group = config.groupCommit;
    this.#writes = new GroupCommitter(
      (writes) => this.#commitGroup(writes),
      { ...group, maxBytes: Math.min(group.maxBytes, MAX_GROUP_BYTES) },
    );
  }

  /**
   * Probes, on scratch graphs, the behaviours this store relies on (capabilities.ts) and
   * throws a `StoreIncapable` naming the first one the endpoint lacks; the service does not
   * start then. Also learns whether the store rewrites literal forms, and its product.
   */
  checkCapabilities(): Promise<StoreCapabilities> {
    this.#checking ??= probeCapabilities(this.#client, this.#userClient, {
      metadataGraph: this.#metadataGraph,
      separateUserAccount: this.#userClient !== this.#client,
    }).then((found) => {
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

  async getItem(collection: string, uri: string): Promise<ItemRecord | undefined> {
    const rows = await this.#select(
      `SELECT ?hash ?count ?created ?modified WHERE { GRAPH ${this.#meta} {
         ${iriToSparql(uri)} rcs:collection ${stringToSparql(collection)} ; rcs:hash ?hash ;
           rcs:tripleCount ?count ; rcs:created ?created ; rcs:modified ?modified } } LIMIT 1`,
    );
    return rows.length === 0 ? undefined : recordFromRow(collection, uri, rows[0]);
  }

  /**
   * Records and graphs of a batch of items, in N-Triples as every item read is, a few
   * queries for a hundred items (batch_graphs.ts); an item too large for one answer is read
   * on its own, page by page.
   */
  readItemGraphs(collection: string, uris: string[]): Promise<ItemGraph[]> {
    return readBatch(
      {
        client: this.#client,
        meta: this.#meta,
        rowCap: this.#capabilities?.rowCap,
        readAlone: async (uri) => {
          try {
            const read = await this.readItem(collection, uri);
            const quads: Quad[] = [];
            for await (const quad of read.quads) quads.push(quad);
            return { record: read.record, quads };
          } catch (error) {
            if (isErrorKind(error, "not-found")) return undefined; // deleted meanwhile
            throw error;
          }
        },
      },
      collection,
      uris,
    );
  }

  /**
   * The record and the graph from one query, so one version whatever writes interleave. A
   * CONSTRUCT, with the record as triples of a subject made up for this read, because
   * N-Triples is the compact answer: Fuseki answers a 20k-triple item about as fast as a
   * Graph Store GET, ten times faster than a SELECT repeating the record on every row. An
   * answer with fewer triples than the record counts was cut by the store's row cap: the
   * item is then read page by page ({@link #readItemPaged}).
   */
  async readItem(collection: string, uri: string): Promise<ItemRead> {
    // A store that reads at "read committed" (Virtuoso) may answer the record and the
    // triples from either side of a write that commits meanwhile: the record is then read
    // before and after too, and the answer kept only when no write came between.
    const verify = this.#capabilities?.snapshotReads === false;
    for (let attempt = 1;; attempt++) {
      const before = verify ? await this.getItem(collection, uri) : undefined;
      if (verify && !before) throw itemNotFound(collection, uri);
      const read = await this.#readItemOnce(collection, uri);
      if (!verify) return { record: read.record, quads: groupedBySubject(read.quads) };
      const after = await this.getItem(collection, uri);
      if (
        (sameVersion(before, read.record) && sameVersion(after, read.record)) ||
        // A write came between, but what was read is one version whole: its triples hash to
        // the record read with them (an item written without pause is read this way).
        await this.#hashesToRecord(read)
      ) {
        return { record: read.record, quads: groupedBySubject(read.quads) };
      }
      if (attempt >= PAGED_READ_ATTEMPTS) throw inconsistentRead(uri);
    }
  }

  async #hashesToRecord(read: { record: ItemRecord; quads: Quad[] }): Promise<boolean> {
    if (!this.#config.hash || read.quads.length !== read.record.tripleCount) return false;
    return await this.#config.hash(read.quads) === read.record.hash;
  }

  /** One read of the record and the graph ({@link readItem}). */
  async #readItemOnce(
    collection: string,
    uri: string,
  ): Promise<{ record: ItemRecord; quads: Quad[] }> {
    const item = iriToSparql(uri);
    const recordSubject = `${RECORD_PREFIX}${crypto.randomUUID()}`;
    // The record's fields by local name (hash, count, created, modified), as a row has them.
    const fields: SparqlRow = new Map();
    const quads: Quad[] = [];
    await constructEach(
      this.#client,
      `CONSTRUCT { ?s ?p ?o . ${iriToSparql(recordSubject)} rcs:hash ?hash ;
           rcs:count ?count ; rcs:created ?created ; rcs:modified ?modified }
       WHERE {
         GRAPH ${this.#meta} { ${item} rcs:collection ${stringToSparql(collection)} }
         { GRAPH ${this.#meta} { ${item} rcs:hash ?hash ; rcs:tripleCount ?count ;
             rcs:created ?created ; rcs:modified ?modified } }
         UNION { GRAPH ${iriToSparql(this.#graphOf(uri))} { ?s ?p ?o } } }`,
      (quad) => {
        if (quad.subject.value !== recordSubject) quads.push(quad);
        else fields.set(quad.predicate.value.slice(METADATA_NAMESPACE.length), quad.object);
      },
    );
    if (fields.size === 0) throw itemNotFound(collection, uri);
    const record = recordFromRow(collection, uri, fields);
    if (quads.length !== record.tripleCount) return await this.#readItemPaged(collection, uri);
    return { record, quads };
  }

  /**
   * An item too large for one answer: its triples in pages (graph_triples.ts), between two
   * reads of its record. The pages are one version when the record did not change in between and
   * they hold as many distinct triples as it counts; otherwise it is read again.
   */
  async #readItemPaged(
    collection: string,
    uri: string,
  ): Promise<{ record: ItemRecord; quads: Quad[] }> {
    for (let attempt = 0; attempt < PAGED_READ_ATTEMPTS; attempt++) {
      const before = await this.getItem(collection, uri);
      if (!before) throw itemNotFound(collection, uri);
      const quads = await graphTriples(this.#client, this.#graphOf(uri));
      const after = await this.getItem(collection, uri);
      if (!after) throw itemNotFound(collection, uri);
      if (
        after.hash === before.hash && after.modified === before.modified &&
        quads.length === after.tripleCount
      ) {
        return { record: after, quads };
      }
    }
    throw inconsistentRead(uri);
  }

  async createItem(write: ItemWrite): Promise<ItemRecord> {
    const item = iriToSparql(write.uri);
    const graph = iriToSparql(this.#graphOf(write.uri));
    const body = await this.#graphBody(write);
    const now = new Date().toISOString();
    const receipt = newReceipt();
    const absent = whenAbsent(`GRAPH ${this.#meta} { ${item} rcs:collection ?any }`);
    // The guard reads only the metadata graph, which only the last operation changes, so
    // every operation sees the same answer.
    const outcome = await this.#guardedWrite(write.uri, receipt, body.staging, [
      // Triples left in the graph by anything but this service would otherwise merge in.
      `DELETE { GRAPH ${graph} { ?s ?p ?o } } WHERE { ${absent} GRAPH ${graph} { ?s ?p ?o } }`,
      body.insert(graph, absent),
      `INSERT { GRAPH ${this.#meta} {
          ${item} rcs:collection ${stringToSparql(write.collection)} ; rcs:graph ${graph} ;
            rcs:hash ${stringToSparql(body.hash)} ; rcs:tripleCount ${integerLiteral(body.count)} ;
            rcs:created ${stringToSparql(now)} ; rcs:modified ${stringToSparql(now)} .
          ${receipt} rcs:receiptFor ${item} .
          ${this.outbox.entryTriples(write.collection, write.uri)} } }
      WHERE { ${absent} }`,
    ]);
    if (!outcome.applied) throw itemExists(write.uri, outcome.collection ?? write.collection);
    return {
      ...pick(write),
      hash: body.hash,
      tripleCount: body.count,
      created: now,
      modified: now,
    };
  }

  async replaceItem(write: ItemWrite, condition: WriteCondition = {}): Promise<ItemRecord> {
    const item = iriToSparql(write.uri);
    const graph = iriToSparql(this.#graphOf(write.uri));
    const body = await this.#graphBody(write);
    const now = new Date().toISOString();
    const receipt = newReceipt();
    const guard = this.#presentGuard(write.collection, item, condition);
    const outcome = await this.#guardedWrite(write.uri, receipt, body.staging, [
      `DELETE { GRAPH ${graph} { ?s ?p ?o } } WHERE { ${guard} GRAPH ${graph} { ?s ?p ?o } }`,
      body.insert(graph, guard),
      `INSERT { GRAPH ${this.#meta} { ${receipt} rcs:receiptFor ${item} .
          ${this.outbox.entryTriples(write.collection, write.uri)} } }
      WHERE { ${guard} }`,
      // One operation per field, each bound on its own: no OPTIONAL whose bindings a store
      // could drop (portable_sparql.ts).
      ...[
        ["hash", stringToSparql(body.hash)],
        ["tripleCount", integerLiteral(body.count)],
        ["modified", stringToSparql(now)],
      ].map(([field, value]) =>
        `DELETE { GRAPH ${this.#meta} { ${item} rcs:${field} ?old } }
        INSERT { GRAPH ${this.#meta} { ${item} rcs:${field} ${value} } }
        WHERE { GRAPH ${this.#meta} { ${receipt} rcs:receiptFor ${item} . ${item} rcs:${field} ?old } }`
      ),
    ]);
    if (!outcome.applied) throw refusal(write.collection, write.uri, condition, outcome);
    return {
      ...pick(write),
      hash: body.hash,
      tripleCount: body.count,
      created: outcome.created ?? now,
      modified: now,
    };
  }

  async deleteItem(
    collection: string,
    uri: string,
    condition: WriteCondition = {},
  ): Promise<void> {
    const item = iriToSparql(uri);
    const graph = iriToSparql(this.#graphOf(uri));
    const receipt = newReceipt();
    const guard = this.#presentGuard(collection, item, condition);
    const outcome = await this.#guardedWrite(uri, receipt, undefined, [
      `DELETE { GRAPH ${graph} { ?s ?p ?o } } WHERE { ${guard} GRAPH ${graph} { ?s ?p ?o } }`,
      `INSERT { GRAPH ${this.#meta} { ${receipt} rcs:receiptFor ${item} .
          ${this.outbox.entryTriples(collection, uri)} } } WHERE { ${guard} }`,
      `DELETE { GRAPH ${this.#meta} { ${item} ?p ?o } }
      WHERE { GRAPH ${this.#meta} { ${receipt} rcs:receiptFor ${item} . ${item} ?p ?o } }`,
    ]);
    if (!outcome.applied) throw refusal(collection, uri, condition, outcome);
  }

  /** How the writes were grouped so far. */
  get groupCommitStats(): GroupCommitter<GuardedWrite, WriteOutcome>["stats"] {
    return this.#writes.stats;
  }

  /** Pages by item IRI ({@link keyPage}), so no store's row cap cuts the listing. */
  async *listItems(collection: string): AsyncGenerator<ItemRecord> {
    const pages = selectPages(
      this.#client,
      "item",
      (page) =>
        `SELECT ?item ?hash ?count ?created ?modified WHERE { GRAPH ${this.#meta} {
         ?item rcs:collection ${stringToSparql(collection)} ; rcs:hash ?hash ;
           rcs:tripleCount ?count ; rcs:created ?created ; rcs:modified ?modified }
         ${page.filter} } ${page.modifiers}`,
    );
    for await (const row of pages) {
      yield recordFromRow(collection, row.get("item")!.value, row);
    }
  }

  /** Every item's triples, read a batch of items at a time (each complete, see readItemGraphs). */
  async *collectionQuads(collection: string): AsyncGenerator<Quad> {
    let batch: string[] = [];
    const flush = async function* (this: SparqlTripleStore) {
      for (const graph of await this.readItemGraphs(collection, batch)) yield* graph.quads;
      batch = [];
    };
    for await (const record of this.listItems(collection)) {
      batch.push(record.uri);
      if (batch.length >= GRAPHS_PER_QUERY) yield* flush.call(this);
    }
    if (batch.length > 0) yield* flush.call(this);
  }

  /**
   * The user's query, as the user-query account when one is configured (it cannot read
   * the metadata graph). A store that caps sorted answers (Virtuoso: 10,000 rows) is asked
   * for at most that many rows; the answer then says it was cut.
   *
   * With a scope, the query sees the item graphs of the scope's collections only: they are
   * listed from the metadata graph for this query ({@link #scopeGraphs}), and the query is
   * sent with them as its dataset (remote_query.ts). Never cached: an item deleted and
   * created again under the same IRI in another collection would keep its old visibility.
   */
  async query(sparql: string, options: SparqlQueryOptions): Promise<SparqlQueryResult> {
    const cap = this.#capabilities?.rowCap;
    const reserved = [this.#metadataGraph, ...(this.#capabilities?.systemGraphs ?? [])];
    const scope = options.scope;
    const result = await queryRemoteEndpoint(this.#userClient, sparql, {
      ...options,
      limit: cap === undefined ? options.limit : Math.min(options.limit, cap - 1),
      defaultGraphUri: this.#config.queryDefaultGraph,
      reservedGraphs: reserved,
      readableGraphs: scope && (() => this.#scopeGraphs(scope.collections)),
      maxDatasetGraphs: /virtuoso/i.test(this.#capabilities?.product ?? "")
        ? VIRTUOSO_MAX_DATASET_GRAPHS
        : undefined,
    });
    return withoutServiceTerms(result, new Set(reserved));
  }

  /**
   * The item graphs of `collections`: one listing over the metadata graph for all of them,
   * paged by graph IRI ({@link keyPage}), as the service's own account (the user-query
   * account cannot read the records).
   */
  async #scopeGraphs(collections: readonly string[]): Promise<string[]> {
    if (collections.length === 0) return [];
    const values = [...new Set(collections)].map(stringToSparql).join(" ");
    const graphs: string[] = [];
    const pages = selectPages(
      this.#client,
      "g",
      (page) =>
        `SELECT ?g WHERE { VALUES ?collection { ${values} }
         GRAPH ${this.#meta} { ?item rcs:collection ?collection ; rcs:graph ?g }
         ${page.filter} } ${page.modifiers}`,
    );
    for await (const row of pages) graphs.push(row.get("g")!.value);
    return graphs;
  }

  async health(): Promise<BackendHealth> {
    const started = performance.now();
    try {
      const response = await this.#client.query("ASK {}", SPARQL_RESULTS_JSON);
      await response.body?.cancel();
      const elapsed = Math.round(performance.now() - started);
      const product = this.#client.server ? ` (${this.#client.server.trim()})` : "";
      return { ok: true, detail: `SPARQL endpoint${product} answered in ${elapsed} ms` };
    } catch (error) {
      return { ok: false, detail: error instanceof Error ? error.message : String(error) };
    }
  }

  async close(): Promise<void> {
    await this.#writes.idle();
    const receipts = this.#settledReceipts.splice(0);
    try {
      if (receipts.length > 0) {
        await this.#client.update(`${PROLOGUE}${this.#deleteReceipts(receipts)}`);
      }
    } catch {
      // Leftover receipts are a few harmless triples; closing must not fail over them.
    } finally {
      this.#client.close();
      if (this.#userClient !== this.#client) this.#userClient.close();
    }
  }

  /** The graph name of an item: its URI, or the configured template filled with it. */
  #graphOf(uri: string): string {
    const template = this.#config.graphTemplate;
    // A function, so that `$&` and the like in the URI are not replacement patterns.
    return template === undefined ? uri : template.replaceAll("{item}", () => uri);
  }

  /**
   * How a write's triples get into its graph: written out in the update when few, or put
   * into a staging graph now (Graph Store Protocol) and copied by the update. On a store
   * that rewrites literal forms, a graph with typed literals is staged and read back as
   * every read of an item reads (graph_triples.ts), and its hash is that of what reads will
   * serve.
   */
  async #graphBody(write: ItemWrite): Promise<GraphBody> {
    const { lines, count } = triplesToSparql(write.quads, this.#blankNodePrefix());
    const rewrites = this.#capabilities?.rewritesLiterals === true && hasTypedLiteral(write.quads);
    const limit = this.#config.maxInlineTriples;
    if (count <= limit && !rewrites) {
      return {
        hash: write.hash,
        count,
        insert: (graph, guard) =>
          `INSERT { GRAPH ${graph} {\n${lines.join("\n")}\n} } WHERE { ${guard} }`,
      };
    }
    const staging = `${STAGING_PREFIX}${crypto.randomUUID()}`;
    await this.#client.putGraph(staging, lines.join("\n") + "\n");
    let [hash, stored] = [write.hash, count];
    if (rewrites) {
      // Two forms of one value ("042" and "42") become one triple: the count is the store's.
      const quads = await graphTriples(this.#client, staging);
      stored = quads.length;
      hash = this.#config.hash ? await this.#config.hash(quads) : write.hash;
    }
    return {
      hash,
      count: stored,
      staging,
      insert: (graph, guard) =>
        `INSERT { GRAPH ${graph} { ?s ?p ?o } }
        WHERE { ${guard} GRAPH ${iriToSparql(staging)} { ?s ?p ?o } }`,
    };
  }

  /** Matches once if the item is in `collection` (with the If-Match hash, when given). */
  #presentGuard(collection: string, item: string, condition: WriteCondition): string {
    const hash = condition.ifMatch === undefined
      ? ""
      : ` ; rcs:hash ${stringToSparql(condition.ifMatch)}`;
    return `GRAPH ${this.#meta} { ${item} rcs:collection ${stringToSparql(collection)}${hash} }`;
  }

  /** Blank node labels of one write, apart from those of the other writes of its group. */
  #blankNodePrefix(): string {
    return `w${(this.#writesBuilt++).toString(36)}_`;
  }

  /**
   * Queues a write's `operations` (guarded; they carry its receipt and outbox entry) for
   * the next group, and tells whether its guard held ({@link #commitGroup}). A staging
   * graph is dropped by the same request, or after it when the request failed.
   */
  async #guardedWrite(
    uri: string,
    receipt: string,
    staging: string | undefined,
    operations: string[],
  ): Promise<WriteOutcome> {
    if (staging) operations = [...operations, `DROP SILENT GRAPH ${iriToSparql(staging)}`];
    const text = operations.join(" ;\n");
    try {
      return await this.#writes.submit(
        { item: iriToSparql(uri), receipt, text, queuedAt: performance.now() },
        text.length,
      );
    } catch (error) {
      if (staging) {
        await this.#client.update(`DROP SILENT GRAPH ${iriToSparql(staging)}`, {
          idempotent: true,
        }).catch(() => {}); // a leftover staging graph is harmless, and named as such
      }
      throw error;
    }
  }

  /**
   * One group: every write's operations in one update request, which the endpoint applies
   * atomically and in order (each guard sees the writes before it), then one query that
   * tells, per write, whether its receipt exists (its guard held) and what the item looks
   * like now. A request the endpoint refuses as a whole (an error answer: nothing of it was
   * applied) is sent again write by write, so that only the write that spoils it fails; one
   * refused for a passing reason (a deadlock, 503) is retried as it was (it is guarded and
   * its receipts tell what happened, so a second application is harmless). A request whose
   * fate is unknown (unavailable: the connection broke) fails every write of it, as a
   * single write does, and is never sent again.
   */
  async #commitGroup(writes: GuardedWrite[]): Promise<Settled<WriteOutcome>[]> {
    // A write waits at most the store timeout in all, queue included: behind commits that
    // hang (a frozen store not yet marked down), what is left of it bounds the request.
    const oldest = Math.min(...writes.map((write) => write.queuedAt));
    const budgetMs = Math.floor(this.#config.timeoutMs - (performance.now() - oldest));
    if (budgetMs < MIN_REQUEST_MS) throw this.#budgetSpent();
    const settled = this.#settledReceipts.splice(0);
    try {
      await this.#client.update(
        `${PROLOGUE}${this.#deleteReceipts(settled)}${
          writes.map((write) => write.text).join(" ;\n")
        }`,
        { idempotent: true, timeoutMs: budgetMs },
      );
    } catch (error) {
      this.#settledReceipts.push(...settled);
      // Sent, but no answer: the receipts may already tell (else each write is unknown).
      if (error instanceof WriteOutcomeUnknown) return await this.#confirmUnknown(writes, error);
      if (writes.length === 1 || !isRefusal(error)) throw error;
      const alone: Settled<WriteOutcome>[] = [];
      for (const write of writes) {
        try {
          alone.push(...await this.#commitGroup([write]));
        } catch (single) {
          alone.push({ ok: false, error: single });
        }
      }
      return alone;
    }
    let rows: SparqlRow[];
    try {
      rows = await this.#receipts(writes);
    } catch (error) {
      // Applied, but how each guard fared cannot be read.
      const unknown = new WriteOutcomeUnknown(
        this.#config.queryUrl,
        `the update was applied, its confirmation could not be read: ${
          error instanceof Error ? error.message : String(error)
        }`,
        error,
      );
      return writes.map(() => ({ ok: false, error: unknown }));
    }
    return this.#outcomes(writes, rows);
  }

  /** A write whose time ran out in the queue: never sent, so nothing of it was written. */
  #budgetSpent(): DomainError {
    return new DomainError("store-unavailable", {
      detail: `The SPARQL store did not answer the writes ahead of this one within ` +
        `${this.#config.timeoutMs} ms; this write was not sent.`,
      extensions: { retryAfter: 1 },
    });
  }

  /**
   * After an update with no answer: the writes whose receipts exist were applied; the rest
   * are unknown (the update may still be applied later), never reported as failed.
   */
  async #confirmUnknown(
    writes: GuardedWrite[],
    unknown: WriteOutcomeUnknown,
  ): Promise<Settled<WriteOutcome>[]> {
    // After a timeout the endpoint is likely hung: reading would only make the client wait
    // as long again.
    if (unknown.afterTimeout) return writes.map(() => ({ ok: false, error: unknown }));
    let rows: SparqlRow[];
    try {
      rows = await this.#receipts(writes);
    } catch {
      return writes.map(() => ({ ok: false, error: unknown }));
    }
    return this.#outcomes(writes, rows).map((outcome) =>
      outcome.ok && outcome.value.applied ? outcome : { ok: false, error: unknown }
    );
  }

  /**
   * The confirming read: per write, its receipt and the item as it is now. Retried a few
   * times (the endpoint may be busy just after a large update) before giving up.
   */
  async #receipts(writes: GuardedWrite[]): Promise<SparqlRow[]> {
    for (let attempt = 1;; attempt++) {
      try {
        return await this.#receiptsOnce(writes);
      } catch (error) {
        if (attempt >= CONFIRM_ATTEMPTS || !isErrorKind(error, "unavailable")) throw error;
        await new Promise((resolve) => setTimeout(resolve, CONFIRM_BACKOFF_MS * attempt));
      }
    }
  }

  #receiptsOnce(writes: GuardedWrite[]): Promise<SparqlRow[]> {
    // Each fact in a branch of its own, merged per write: no OPTIONAL order to rely on.
    return this.#select(
      `SELECT ?n ?applied ?collection ?hash ?created WHERE {
         VALUES (?n ?receipt ?item) { ${
        writes.map((write, n) => `(${n} ${write.receipt} ${write.item})`).join(" ")
      } }
         { GRAPH ${this.#meta} { ?receipt rcs:receiptFor ?item } BIND(true AS ?applied) }
         UNION { GRAPH ${this.#meta} { ?item rcs:collection ?collection ; rcs:hash ?hash } }
         UNION { GRAPH ${this.#meta} { ?item rcs:created ?created } } }`,
      MAX_RECEIPTS_BYTES,
    );
  }

  /** Each write's outcome from the receipts read; applied receipts are deleted later. */
  #outcomes(writes: GuardedWrite[], rows: SparqlRow[]): Settled<WriteOutcome>[] {
    const byIndex = mergeRows(rows, "n");
    return writes.map((write, n) => {
      const row = byIndex.get(String(n));
      const applied = isBound(row, "applied");
      if (applied) this.#settledReceipts.push(`${write.receipt} rcs:receiptFor ${write.item} .`);
      return {
        ok: true,
        value: {
          applied,
          collection: row?.get("collection")?.value,
          hash: row?.get("hash")?.value,
          created: row?.get("created")?.value,
        },
      };
    });
  }

  /** A `DELETE DATA` operation (and separator) for these receipt triples, "" for none. */
  #deleteReceipts(receipts: string[]): string {
    if (receipts.length === 0) return "";
    return `DELETE DATA { GRAPH ${this.#meta} {\n${receipts.join("\n")}\n} } ;\n`;
  }

  #select(query: string, maxBytes?: number): Promise<SparqlRow[]> {
    return selectRows(this.#client, query, maxBytes);
  }
}

/** How a write's triples reach its graph ({@link SparqlTripleStore.#graphBody}). */
interface GraphBody {
  /** The hash the record gets: the write's, or that of what the store holds. */
  hash: string;
  count: number;
  /** The staging graph the triples were put into, if they were. */
  staging?: string;
  /** The operation that fills `graph` when `guard` matches once. */
  insert(graph: string, guard: string): string;
}

/**
 * The answer without rows or triples that name the service's records or a reserved graph:
 * where the store cannot keep them out of the user's view (Fuseki's in-memory union graph
 * holds the metadata graph; Virtuoso lists every graph's name for `DISTINCT ?g`), they are
 * dropped here, so the user never sees them whatever the store.
 */
function withoutServiceTerms(result: SparqlQueryResult, reserved: Set<string>): SparqlQueryResult {
  const hidden = (term: { termType: string; value: string } | undefined) =>
    term !== undefined && term.termType === "NamedNode" &&
    (term.value.startsWith(METADATA_NAMESPACE) || reserved.has(term.value));
  if (result.kind === "bindings") {
    const rows = result.rows.filter((row) => ![...row.values()].some(hidden));
    return rows.length === result.rows.length ? result : { ...result, rows };
  }
  if (result.kind === "quads") {
    const quads = result.quads.filter((quad) =>
      !hidden(quad.subject) && !hidden(quad.predicate) && !hidden(quad.object)
    );
    return quads.length === result.quads.length ? result : { ...result, quads };
  }
  return result;
}

/** Reads kept finding writes in between, or fewer triples than the record counts. */
function inconsistentRead(uri: string): DomainError {
  return new DomainError("store-incomplete-answer", {
    detail: `The SPARQL endpoint did not give all triples of ${uri} as one version in ` +
      `${PAGED_READ_ATTEMPTS} reads (its row cap, or writes while reading)`,
  });
}

/** Whether any object is a literal with a datatype a store may rewrite (not a string). */
function hasTypedLiteral(quads: Quad[]): boolean {
  return quads.some((quad) =>
    quad.object.termType === "Literal" && quad.object.datatype.value !== XSD_STRING &&
    quad.object.datatype.value !== RDF_LANG_STRING
  );
}
/** One write of a group: its operations, and the receipt its guard leaves. */
interface GuardedWrite {
  /** The item, as SPARQL. */
  item: string;
  receipt: string;
  text: string;
  /** When the write was queued (`performance.now()`): its time budget starts there. */
  queuedAt: number;
}

/** An answer of the endpoint that refused a request: nothing of it was applied. */
function isRefusal(error: unknown): boolean {
  return isErrorKind(error, "backend-failed");
}

/** What a guarded write found afterwards. */
interface WriteOutcome {
  applied: boolean;
  collection?: string;
  hash?: string;
  created?: string;
}

/** The quads with each subject's triples together, as an async stream. */
async function* groupedBySubject(quads: Quad[]): AsyncGenerator<Quad> {
  yield* groupBySubject(quads);
}

function newReceipt(): string {
  return `<${RECEIPT_PREFIX}${crypto.randomUUID()}>`;
}

function pick(write: ItemWrite): Pick<ItemRecord, "collection" | "uri" | "hash"> {
  return { collection: write.collection, uri: write.uri, hash: write.hash };
}

/** Why a replace or delete did not apply: precondition-failed if the item is there with another hash. */
function refusal(
  collection: string,
  uri: string,
  condition: WriteCondition,
  outcome: WriteOutcome,
): DomainError {
  if (condition.ifMatch !== undefined && outcome.collection === collection) {
    return preconditionFailed(uri, outcome.hash ?? "");
  }
  return itemNotFound(collection, uri);
}
