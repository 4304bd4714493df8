/**
 * The triple store on any SPARQL 1.1 endpoint (Query, Update, Graph Store Protocol);
 * tested against Apache Jena Fuseki.
 *
 * Layout in the endpoint's dataset:
 * - each item is one named graph, by default named by the item URI (`graphTemplate`);
 * - a metadata graph (`urn:rdf-content-service:meta`) says, per item, which collection it
 *   belongs to and its hash, triple count, created and modified times, so listing a
 *   collection is one SELECT.
 *
 * Every write is one SPARQL Update request, which the endpoint applies atomically (Fuseki
 * runs a request in one write transaction), so no reader ever sees half an item. The
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
 * A query that names the metadata graph is refused (`reserved-graph`).
 *
 * Terms are stored as written only if the dataset keeps lexical forms: Fuseki's in-memory
 * dataset does; TDB2 stores numbers, booleans and dates as values ("042" comes back "42"),
 * so served items could then differ from their hash.
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
import { DataFactory, type Quad } from "n3";
import { type DomainError, isErrorKind } from "../../errors/domain_error.ts";
import { queryRemoteEndpoint } from "../../sparql_protocol/remote_query.ts";
import { integerLiteral, METADATA_NAMESPACE, PROLOGUE, selectRows } from "./lookup.ts";
import { SparqlIndexOutbox } from "./sparql_index_outbox.ts";
import { itemExists, itemNotFound, preconditionFailed } from "../store_problems.ts";
import type {
  BackendHealth,
  ItemGraph,
  ItemRead,
  ItemRecord,
  ItemWrite,
  SparqlQueryOptions,
  SparqlQueryResult,
  TripleStore,
  WriteCondition,
} from "../triple_store.ts";
import {
  type SparqlEndpointConfig,
  SparqlHttpClient,
  storeProblemFromError,
  WriteOutcomeUnknown,
} from "../../sparql_protocol/client.ts";
import {
  malformedResults,
  type SparqlRow,
  streamSparqlJsonRows,
} from "../../sparql_protocol/results_json.ts";
import { streamNTriples } from "../../sparql_protocol/ntriples_stream.ts";
import { iriToSparql, stringToSparql, triplesToSparql } from "../../sparql_protocol/terms.ts";
import { groupBySubject } from "../../rdf/subject_groups.ts";
import {
  DEFAULT_GROUP_COMMIT,
  type GroupCommitOptions,
  GroupCommitter,
  type WriteOutcome as Settled,
} from "../group_commit.ts";
import { SPARQL_RESULTS_JSON } from "../../sparql_protocol/results_formats.ts";

/** The graph that holds item metadata unless configured otherwise. */
export const DEFAULT_METADATA_GRAPH = "urn:rdf-content-service:meta";

export { METADATA_NAMESPACE };

/** Configuration of a {@link SparqlTripleStore}. */
export interface SparqlTripleStoreConfig extends SparqlEndpointConfig {
  /** Item graph name; `{item}` is replaced by the item URI. Default `{item}`. */
  graphTemplate?: string;
  /** Where item metadata lives. Default {@link DEFAULT_METADATA_GRAPH}. */
  metadataGraph?: string;
  /** Sent as `default-graph-uri` with `query()`; unset, the endpoint's default graph. */
  queryDefaultGraph?: string;
  /** Bounds of a group of writes sent as one update request. */
  groupCommit?: GroupCommitOptions;
}

const RECEIPT_PREFIX = `${METADATA_NAMESPACE}receipt:`;
/** Subjects that carry an item's record in the answer to a read. */
const RECORD_PREFIX = `${METADATA_NAMESPACE}read:`;
const N_TRIPLES = "application/n-triples";
/** Attempts of the read that confirms a group's writes, and the backoff step between them. */
const CONFIRM_ATTEMPTS = 3;
const CONFIRM_BACKOFF_MS = 250;
/** Items per query of a batch read: short enough a query, few enough round trips. */
const GRAPHS_PER_QUERY = 100;
/** The receipts query's answer for a group of a few hundred writes is far below this. */
const MAX_RECEIPTS_BYTES = 4 << 20;

/** Item graphs on a remote SPARQL 1.1 endpoint. */
export class SparqlTripleStore implements TripleStore {
  readonly kind = "sparql" as const;
  readonly #client: SparqlHttpClient;
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

  constructor(config: SparqlTripleStoreConfig) {
    this.#config = config;
    this.#client = new SparqlHttpClient(config);
    const metadataGraph = config.metadataGraph ?? DEFAULT_METADATA_GRAPH;
    this.#meta = iriToSparql(metadataGraph);
    this.#metadataGraph = metadataGraph;
    this.outbox = new SparqlIndexOutbox(this.#client, metadataGraph);
    this.#writes = new GroupCommitter(
      (writes) => this.#commitGroup(writes),
      config.groupCommit ?? DEFAULT_GROUP_COMMIT,
    );
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
   * One query per {@link GRAPHS_PER_QUERY} items, records and triples together: a batch
   * costs one round trip instead of two per item, and the endpoint answers it from one read
   * transaction, so each record belongs to the graph beside it.
   */
  async readItemGraphs(collection: string, uris: string[]): Promise<ItemGraph[]> {
    const graphs = new Map<string, ItemGraph>();
    for (let start = 0; start < uris.length; start += GRAPHS_PER_QUERY) {
      const values = uris.slice(start, start + GRAPHS_PER_QUERY).map(iriToSparql).join(" ");
      const response = await this.#client.query(
        `${PROLOGUE}SELECT ?item ?hash ?count ?created ?modified ?s ?p ?o WHERE {
           VALUES ?item { ${values} }
           GRAPH ${this.#meta} { ?item rcs:collection ${stringToSparql(collection)} ;
             rcs:graph ?g ; rcs:hash ?hash ; rcs:tripleCount ?count ; rcs:created ?created ;
             rcs:modified ?modified }
           OPTIONAL { GRAPH ?g { ?s ?p ?o } } }`,
        SPARQL_RESULTS_JSON,
      );
      const rows = streamSparqlJsonRows(response.body!);
      try {
        while (true) {
          const next = await this.#consume(this.#config.queryUrl, () => rows.next());
          if (next.done) break;
          const row = next.value;
          const item = row.get("item")?.value;
          if (item === undefined) throw malformedResults("a graph row has no ?item binding");
          let graph = graphs.get(item);
          if (!graph) {
            graph = { record: recordFromRow(collection, item, row), quads: [] };
            graphs.set(item, graph);
          }
          const [s, p, o] = [row.get("s"), row.get("p"), row.get("o")];
          if (s && p && o) {
            graph.quads.push(
              DataFactory.quad(s as Quad["subject"], p as Quad["predicate"], o as Quad["object"]),
            );
          }
        }
      } finally {
        await rows.return(undefined);
      }
    }
    return uris.flatMap((uri) => graphs.get(uri) ?? []);
  }

  /**
   * The record and the graph from one query, so one version whatever writes interleave. A
   * CONSTRUCT, with the record as triples of a subject made up for this read, because
   * N-Triples is the compact answer: Fuseki answers a 20k-triple item about as fast as a
   * Graph Store GET, ten times faster than a SELECT repeating the record on every row.
   */
  async readItem(collection: string, uri: string): Promise<ItemRead> {
    const item = iriToSparql(uri);
    const recordSubject = `${RECORD_PREFIX}${crypto.randomUUID()}`;
    const response = await this.#client.query(
      `${PROLOGUE}CONSTRUCT { ?s ?p ?o . ${iriToSparql(recordSubject)} rcs:hash ?hash ;
           rcs:count ?count ; rcs:created ?created ; rcs:modified ?modified }
       WHERE {
         GRAPH ${this.#meta} { ${item} rcs:collection ${stringToSparql(collection)} }
         { GRAPH ${this.#meta} { ${item} rcs:hash ?hash ; rcs:tripleCount ?count ;
             rcs:created ?created ; rcs:modified ?modified } }
         UNION { GRAPH ${iriToSparql(this.#graphOf(uri))} { ?s ?p ?o } } }`,
      N_TRIPLES,
    );
    // The record's fields by local name (hash, count, created, modified), as a row has them.
    const fields: SparqlRow = new Map();
    const quads: Quad[] = [];
    await this.#consume(this.#config.queryUrl, async () => {
      for await (const quad of streamNTriples(response.body!)) {
        if (quad.subject.value !== recordSubject) quads.push(quad);
        else fields.set(quad.predicate.value.slice(METADATA_NAMESPACE.length), quad.object);
      }
    });
    if (fields.size === 0) throw itemNotFound(collection, uri);
    return { record: recordFromRow(collection, uri, fields), quads: groupedBySubject(quads) };
  }

  async createItem(write: ItemWrite): Promise<ItemRecord> {
    const item = iriToSparql(write.uri);
    const graph = iriToSparql(this.#graphOf(write.uri));
    const { lines, count } = triplesToSparql(write.quads, this.#blankNodePrefix());
    const now = new Date().toISOString();
    const receipt = newReceipt();
    const absent = `FILTER NOT EXISTS { GRAPH ${this.#meta} { ${item} rcs:collection ?any } }`;
    const outcome = await this.#guardedWrite(write.uri, receipt, [
      // Triples left in the graph by anything but this service would otherwise merge in.
      `DELETE { GRAPH ${graph} { ?s ?p ?o } } WHERE { ${absent} GRAPH ${graph} { ?s ?p ?o } }`,
      `INSERT { GRAPH ${graph} {\n${lines.join("\n")}\n}
        GRAPH ${this.#meta} {
          ${item} rcs:collection ${stringToSparql(write.collection)} ; rcs:graph ${graph} ;
            rcs:hash ${stringToSparql(write.hash)} ; rcs:tripleCount ${integerLiteral(count)} ;
            rcs:created ${stringToSparql(now)} ; rcs:modified ${stringToSparql(now)} .
          ${receipt} rcs:receiptFor ${item} .
          ${this.outbox.entryTriples(write.collection, write.uri)} } }
      WHERE { ${absent} }`,
    ]);
    if (!outcome.applied) throw itemExists(write.uri, outcome.collection ?? write.collection);
    return { ...pick(write), tripleCount: count, created: now, modified: now };
  }

  async replaceItem(write: ItemWrite, condition: WriteCondition = {}): Promise<ItemRecord> {
    const item = iriToSparql(write.uri);
    const graph = iriToSparql(this.#graphOf(write.uri));
    const { lines, count } = triplesToSparql(write.quads, this.#blankNodePrefix());
    const now = new Date().toISOString();
    const receipt = newReceipt();
    const guard = this.#presentGuard(write.collection, item, condition);
    const outcome = await this.#guardedWrite(write.uri, receipt, [
      `DELETE { GRAPH ${graph} { ?s ?p ?o } } WHERE { ${guard} GRAPH ${graph} { ?s ?p ?o } }`,
      // The guard has no variables, so it matches at most once and the template's blank
      // nodes are instantiated exactly once.
      `INSERT { GRAPH ${graph} {\n${lines.join("\n")}\n}
        GRAPH ${this.#meta} { ${receipt} rcs:receiptFor ${item} .
          ${this.outbox.entryTriples(write.collection, write.uri)} } }
      WHERE { ${guard} }`,
      `DELETE { GRAPH ${this.#meta} {
          ${item} rcs:hash ?hash ; rcs:tripleCount ?count ; rcs:modified ?modified } }
      INSERT { GRAPH ${this.#meta} {
          ${item} rcs:hash ${stringToSparql(write.hash)} ;
            rcs:tripleCount ${integerLiteral(count)} ; rcs:modified ${stringToSparql(now)} } }
      WHERE { GRAPH ${this.#meta} { ${receipt} rcs:receiptFor ${item} }
        OPTIONAL { GRAPH ${this.#meta} { ${item} rcs:hash ?hash } }
        OPTIONAL { GRAPH ${this.#meta} { ${item} rcs:tripleCount ?count } }
        OPTIONAL { GRAPH ${this.#meta} { ${item} rcs:modified ?modified } } }`,
    ]);
    if (!outcome.applied) throw refusal(write.collection, write.uri, condition, outcome);
    return {
      ...pick(write),
      tripleCount: count,
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
    const outcome = await this.#guardedWrite(uri, receipt, [
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

  async *listItems(collection: string): AsyncGenerator<ItemRecord> {
    const response = await this.#client.query(
      `${PROLOGUE}SELECT ?item ?hash ?count ?created ?modified WHERE { GRAPH ${this.#meta} {
         ?item rcs:collection ${stringToSparql(collection)} ; rcs:hash ?hash ;
           rcs:tripleCount ?count ; rcs:created ?created ; rcs:modified ?modified } }
       ORDER BY ?item`,
      SPARQL_RESULTS_JSON,
    );
    const rows = streamSparqlJsonRows(response.body!);
    try {
      while (true) {
        const next = await this.#consume(this.#config.queryUrl, () => rows.next());
        if (next.done) return;
        const item = next.value.get("item");
        if (!item) throw malformedResults("a listed item has no ?item binding");
        yield recordFromRow(collection, item.value, next.value);
      }
    } finally {
      await rows.return(undefined); // a caller that stops early closes the response
    }
  }

  async *collectionQuads(collection: string): AsyncGenerator<Quad> {
    const response = await this.#client.query(
      `${PROLOGUE}CONSTRUCT { ?s ?p ?o } WHERE {
         GRAPH ${this.#meta} { ?item rcs:collection ${stringToSparql(collection)} ; rcs:graph ?g }
         GRAPH ?g { ?s ?p ?o } }`,
      N_TRIPLES,
    );
    const quads = streamNTriples(response.body!);
    try {
      while (true) {
        const next = await this.#consume(this.#config.queryUrl, () => quads.next());
        if (next.done) return;
        yield next.value;
      }
    } finally {
      await quads.return(undefined);
    }
  }

  query(sparql: string, options: SparqlQueryOptions): Promise<SparqlQueryResult> {
    return queryRemoteEndpoint(this.#client, sparql, {
      ...options,
      defaultGraphUri: this.#config.queryDefaultGraph,
      reservedGraphs: [this.#metadataGraph],
    });
  }

  async health(): Promise<BackendHealth> {
    const started = performance.now();
    try {
      const response = await this.#client.query("ASK {}", SPARQL_RESULTS_JSON);
      await response.body?.cancel();
      const elapsed = Math.round(performance.now() - started);
      return { ok: true, detail: `SPARQL endpoint answered in ${elapsed} ms` };
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
    }
  }

  /** The graph name of an item. */
  #graphOf(uri: string): string {
    // A function, so that `$&` and the like in the URI are not replacement patterns.
    return (this.#config.graphTemplate ?? "{item}").replaceAll("{item}", () => uri);
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
   * the next group, and tells whether its guard held ({@link #commitGroup}).
   */
  #guardedWrite(uri: string, receipt: string, operations: string[]): Promise<WriteOutcome> {
    const text = operations.join(" ;\n");
    return this.#writes.submit({ item: iriToSparql(uri), receipt, text }, text.length);
  }

  /**
   * One group: every write's operations in one update request, which the endpoint applies
   * atomically and in order (each guard sees the writes before it), then one query that
   * tells, per write, whether its receipt exists (its guard held) and what the item looks
   * like now. A request the endpoint refuses as a whole (an error answer: nothing of it was
   * applied) is sent again write by write, so that only the write that spoils it fails. A
   * request whose fate is unknown (unavailable: the connection broke) fails every write of it, as
   * a single write does, and is never sent again.
   */
  async #commitGroup(writes: GuardedWrite[]): Promise<Settled<WriteOutcome>[]> {
    const settled = this.#settledReceipts.splice(0);
    try {
      await this.#client.update(
        `${PROLOGUE}${this.#deleteReceipts(settled)}${
          writes.map((write) => write.text).join(" ;\n")
        }`,
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
    return this.#select(
      `SELECT ?n ?applied ?collection ?hash ?created WHERE {
         VALUES (?n ?receipt ?item) { ${
        writes.map((write, n) => `(${n} ${write.receipt} ${write.item})`).join(" ")
      } }
         OPTIONAL { GRAPH ${this.#meta} { ?receipt rcs:receiptFor ?item } BIND(true AS ?applied) }
         OPTIONAL { GRAPH ${this.#meta} { ?item rcs:collection ?collection ; rcs:hash ?hash .
           OPTIONAL { ?item rcs:created ?created } } } }`,
      MAX_RECEIPTS_BYTES,
    );
  }

  /** Each write's outcome from the receipts read; applied receipts are deleted later. */
  #outcomes(writes: GuardedWrite[], rows: SparqlRow[]): Settled<WriteOutcome>[] {
    const byIndex = new Map(rows.map((row) => [Number(row.get("n")?.value), row]));
    return writes.map((write, n) => {
      const row = byIndex.get(n);
      const applied = row?.get("applied")?.value === "true";
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

  /** Runs `work` that reads a response body, turning read failures into store problems. */
  async #consume<T>(url: string, work: () => Promise<T>, userTimeoutMs?: number): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw storeProblemFromError(error, url, this.#config.timeoutMs, userTimeoutMs);
    }
  }
}

/** One write of a group: its operations, and the receipt its guard leaves. */
interface GuardedWrite {
  /** The item, as SPARQL. */
  item: string;
  receipt: string;
  text: string;
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

function recordFromRow(collection: string, uri: string, row: SparqlRow): ItemRecord {
  return {
    collection,
    uri,
    hash: row.get("hash")?.value ?? "",
    tripleCount: Number(row.get("count")?.value ?? 0),
    created: row.get("created")?.value ?? "",
    modified: row.get("modified")?.value ?? "",
  };
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
