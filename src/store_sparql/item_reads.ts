/**
 * The SPARQL store's item reads: a record, an item with its record, a batch of items
 * (`batch_graphs.ts`), a collection's listing and its triples. Every read of item triples
 * is a CONSTRUCT answered in N-Triples (`graph_triples.ts`), so that all of them serve the
 * forms the record's hash was taken from.
 *
 * An item read is one query for the item's metadata and its graph together, which the
 * endpoint answers from one read transaction (Fuseki does), so the record served as the
 * ETag is the record of the triples served with it; a record read first and the graph
 * after (say, by a Graph Store GET) could be a version apart under writes. `readItemGraphs`
 * does the same for a batch. `readItem` holds the item in memory to group its triples by
 * subject (SPARQL promises no order); `listItems` and `collectionQuads` stream.
 *
 * An item is read by its collection and IRI: its record is at one of the two keys it may have
 * (`item_records.ts`), and its graph is the one the record names (`rcs:graph`). A listing
 * reads the item's IRI from `rcs:item`, never the key.
 *
 * Every listing pages by key (`listItems`, the export, `collectionQuads`), and an item read
 * whose answer holds fewer triples than its record counts (a store's row cap: Virtuoso
 * answers at most 10,000 with 200) is read again page by page, so nothing is cut silently.
 */
import type { Quad } from "n3";
import { DomainError, isErrorKind } from "../errors/domain_error.ts";
import { selectPages, selectRows } from "../sparql_protocol/bounded_queries.ts";
import type { SparqlRow } from "../sparql_protocol/results_json.ts";
import { METADATA_NAMESPACE } from "../sparql_protocol/service_vocabulary.ts";
import { iriToSparql, stringToSparql } from "../sparql_protocol/terms.ts";
import { groupBySubject } from "../rdf/subject_groups.ts";
import { itemNotFound } from "../store/store_problems.ts";
import type { ItemGraph, ItemRead, ItemRecord } from "../store/triple_store.ts";
import { GRAPHS_PER_QUERY, readItemGraphs } from "./batch_graphs.ts";
import { constructEach, graphTriples } from "./graph_triples.ts";
import { recordFromRow, recordKeys, sameVersion } from "./item_records.ts";
import type { StoreContext } from "./store_context.ts";

/** Subjects that carry an item's record in the answer to a read. */
const RECORD_PREFIX = `${METADATA_NAMESPACE}read:`;
/** Attempts at reading a large item page by page while writes change it. */
const PAGED_READ_ATTEMPTS = 3;

/** Records and graphs of items, as one version each. */
export class ItemReads {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  async getItem(collection: string, uri: string): Promise<ItemRecord | undefined> {
    return (await this.#recordAndGraph(collection, uri))?.record;
  }

  /** The item's record, and the graph it names. */
  async #recordAndGraph(
    collection: string,
    uri: string,
  ): Promise<{ record: ItemRecord; graph: string } | undefined> {
    const rows = await selectRows(
      this.#context.client,
      `SELECT ?g ?hash ?count ?created ?modified WHERE {
         VALUES ?key { ${recordKeys(collection, uri).join(" ")} }
         GRAPH ${this.#context.meta} {
           ?key rcs:collection ${stringToSparql(collection)} ; rcs:graph ?g ; rcs:hash ?hash ;
             rcs:tripleCount ?count ; rcs:created ?created ; rcs:modified ?modified } } LIMIT 1`,
    );
    if (rows.length === 0) return undefined;
    return { record: recordFromRow(collection, uri, rows[0]), graph: rows[0].get("g")!.value };
  }

  /**
   * Records and graphs of a batch of items, in N-Triples as every item read is, a few
   * queries for a hundred items (batch_graphs.ts); an item too large for one answer is read
   * on its own, page by page.
   */
  readItemGraphs(collection: string, uris: string[]): Promise<ItemGraph[]> {
    return readItemGraphs(
      {
        client: this.#context.client,
        meta: this.#context.meta,
        rowCap: this.#context.capabilities()?.rowCap,
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
    const verify = this.#context.capabilities()?.snapshotReads === false;
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
    if (!this.#context.config.hash || read.quads.length !== read.record.tripleCount) return false;
    return await this.#context.config.hash(read.quads) === read.record.hash;
  }

  /** One read of the record and the graph ({@link readItem}). */
  async #readItemOnce(
    collection: string,
    uri: string,
  ): Promise<{ record: ItemRecord; quads: Quad[] }> {
    const keys = `VALUES ?key { ${recordKeys(collection, uri).join(" ")} }`;
    const inCollection = `GRAPH ${this.#context.meta} { ?key rcs:collection ${
      stringToSparql(collection)
    }`;
    const recordSubject = `${RECORD_PREFIX}${crypto.randomUUID()}`;
    // The record's fields by local name (hash, count, created, modified), as a row has them.
    const fields: SparqlRow = new Map();
    const quads: Quad[] = [];
    await constructEach(
      this.#context.client,
      `CONSTRUCT { ?s ?p ?o . ${iriToSparql(recordSubject)} rcs:hash ?hash ;
           rcs:count ?count ; rcs:created ?created ; rcs:modified ?modified }
       WHERE {
         { ${keys} ${inCollection} ; rcs:hash ?hash ; rcs:tripleCount ?count ;
             rcs:created ?created ; rcs:modified ?modified } }
         UNION { ${keys} ${inCollection} ; rcs:graph ?g } GRAPH ?g { ?s ?p ?o } } }`,
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
      const found = await this.#recordAndGraph(collection, uri);
      if (!found) throw itemNotFound(collection, uri);
      const { record: before, graph } = found;
      const quads = await graphTriples(this.#context.client, graph);
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

  /** Pages by item IRI ({@link keyPage}), so no store's row cap cuts the listing. */
  async *listItems(collection: string): AsyncGenerator<ItemRecord> {
    const pages = selectPages(
      this.#context.client,
      "item",
      (page) =>
        `SELECT ?item ?hash ?count ?created ?modified WHERE { GRAPH ${this.#context.meta} {
         ?key rcs:collection ${stringToSparql(collection)} ; rcs:item ?item ; rcs:hash ?hash ;
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
    const flush = async function* (this: ItemReads) {
      for (const graph of await this.readItemGraphs(collection, batch)) yield* graph.quads;
      batch = [];
    };
    for await (const record of this.listItems(collection)) {
      batch.push(record.uri);
      if (batch.length >= GRAPHS_PER_QUERY) yield* flush.call(this);
    }
    if (batch.length > 0) yield* flush.call(this);
  }
}

/** Reads kept finding writes in between, or fewer triples than the record counts. */
function inconsistentRead(uri: string): DomainError {
  return new DomainError("store-incomplete-answer", {
    detail: `The SPARQL endpoint did not give all triples of ${uri} as one version in ` +
      `${PAGED_READ_ATTEMPTS} reads (its row cap, or writes while reading)`,
  });
}

/** The quads with each subject's triples together, as an async stream. */
async function* groupedBySubject(quads: Quad[]): AsyncGenerator<Quad> {
  yield* groupBySubject(quads);
}
