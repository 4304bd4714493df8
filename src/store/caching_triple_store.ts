/**
 * A {@link TripleStore} decorator that answers item graph reads from an {@link ItemCache}.
 *
 * A decorator rather than code inside each store, because the rule is the same for both
 * backends and matters most for the SPARQL one, where a read is a query over the network.
 *
 * Why a cached graph is never served with another version's ETag: the cache is keyed by
 * (item URI, hash), and a graph enters it only together with the record of its own
 * version. A successful write of this process puts the quads it wrote under the hash it
 * computed of them; a graph read from the store is put under the record the store returned
 * with it, and {@link TripleStore.readItem} reads record and graph as one version, so no
 * re-hashing is needed. A read names the version it wants with the record its caller has
 * just looked up (for its ETag); a hit answers with that record and its graph, a miss asks
 * the store, which answers with its own record, possibly a newer one. Either way the ETag
 * sent is the hash of the graph sent. The one assumption is the service's own: a client
 * that rewrites an item's graph without updating its record (the metadata graph, or
 * SQLite's row) makes the store's graph differ from its ETag; the cache then keeps what it
 * holds until the next write through the service.
 *
 * Every write drops the item's entry first and puts the new graph only once the store
 * confirms the write, so a write that fails or whose outcome is unknown leaves nothing of
 * itself behind. Batch reads (`readItemGraphs`, collection scans) never fill the cache: a
 * re-index of a whole collection would otherwise flush the items readers actually use. The
 * index outbox's batch reads name the records its claim found current; those versions are
 * answered from the cache when it holds them (a write just made), so the worker indexes
 * what was written instead of reading it back.
 */
import type { Quad } from "n3";
import type {
  DeleteOrigin,
  ItemGraph,
  ItemRead,
  ItemRecord,
  ItemWrite,
  TripleStore,
  WriteCondition,
} from "./triple_store.ts";
import type { SparqlQueryOptions, SparqlQueryResult } from "../sparql_protocol/query_types.ts";
import type { BackendHealth } from "../backend/backend_health.ts";
import { estimateQuadBytes, type ItemCache } from "./item_cache.ts";
import { groupBySubject } from "../rdf/subject_groups.ts";

/** A triple store whose item reads are served from memory when the hash matches. */
export class CachingTripleStore implements TripleStore {
  readonly #inner: TripleStore;
  readonly #cache: ItemCache;

  constructor(inner: TripleStore, cache: ItemCache) {
    this.#inner = inner;
    this.#cache = cache;
  }

  get kind(): TripleStore["kind"] {
    return this.#inner.kind;
  }

  get sharedAcrossInstances(): boolean {
    return this.#inner.sharedAcrossInstances;
  }

  get outbox(): TripleStore["outbox"] {
    return this.#inner.outbox;
  }

  /** The inner store's history: versions are never cached (each read names its own). */
  get history(): TripleStore["history"] {
    return this.#inner.history;
  }

  /** The inner store's change feed. */
  get changes(): TripleStore["changes"] {
    return this.#inner.changes;
  }

  /** The cache, for its statistics. */
  get cache(): ItemCache {
    return this.#cache;
  }

  getItem(collection: string, uri: string): Promise<ItemRecord | undefined> {
    return this.#inner.getItem(collection, uri);
  }

  async readItem(collection: string, uri: string, known?: ItemRecord): Promise<ItemRead> {
    const cached = known && this.#cache.get(uri, known.hash);
    if (cached) return { record: known, quads: each(cached) };
    const read = await this.#inner.readItem(collection, uri, known);
    return { record: read.record, quads: this.#keeping(uri, read) };
  }

  /**
   * Items whose current record the caller knows are answered from the cache when it holds
   * that version (looked up, never filled: a re-index would flush what readers use); the
   * others are read from the store.
   */
  async readItemGraphs(
    collection: string,
    uris: string[],
    current?: ReadonlyMap<string, ItemRecord>,
  ): Promise<ItemGraph[]> {
    if (!current) return this.#inner.readItemGraphs(collection, uris);
    const known = new Map<string, ItemGraph>();
    for (const uri of uris) {
      const record = current.get(uri);
      const cached = record && this.#cache.peek(uri, record.hash);
      if (cached) known.set(uri, { record, quads: [...cached] });
    }
    const missing = uris.filter((uri) => !known.has(uri));
    const read = missing.length > 0 ? await this.#inner.readItemGraphs(collection, missing) : [];
    for (const graph of read) known.set(graph.record.uri, graph);
    return uris.flatMap((uri) => known.get(uri) ?? []);
  }

  async createItem(write: ItemWrite): Promise<ItemRecord> {
    this.#cache.invalidate(write.uri);
    const record = await this.#inner.createItem(write);
    this.#keepWritten(write, record);
    return record;
  }

  async replaceItem(write: ItemWrite, condition?: WriteCondition): Promise<ItemRecord> {
    this.#cache.invalidate(write.uri);
    try {
      const record = await this.#inner.replaceItem(write, condition);
      this.#keepWritten(write, record);
      return record;
    } catch (error) {
      // A read that raced the write may have filed the old graph meanwhile: harmless (it
      // is keyed by the old hash), but the memory is better spent elsewhere.
      this.#cache.invalidate(write.uri);
      throw error;
    }
  }

  async deleteItem(
    collection: string,
    uri: string,
    condition?: WriteCondition,
    origin?: DeleteOrigin,
  ): Promise<void> {
    this.#cache.invalidate(uri);
    try {
      await this.#inner.deleteItem(collection, uri, condition, origin);
    } finally {
      this.#cache.invalidate(uri);
    }
  }

  listItems(collection: string): AsyncIterable<ItemRecord> {
    return this.#inner.listItems(collection);
  }

  collectionQuads(collection: string): AsyncIterable<Quad> {
    return this.#inner.collectionQuads(collection);
  }

  query(sparql: string, options: SparqlQueryOptions): Promise<SparqlQueryResult> {
    return this.#inner.query(sparql, options);
  }

  health(): Promise<BackendHealth> {
    return this.#inner.health();
  }

  close(): Promise<void> {
    this.#cache.clear();
    return this.#inner.close();
  }

  /**
   * Caches a write's quads under its record, unless the store recorded another hash: it
   * then holds other forms of the literals (a store that rewrites "042" as "42"), and only
   * a read gives the graph that hashes to the record.
   */
  #keepWritten(write: ItemWrite, record: ItemRecord): void {
    if (record.hash !== write.hash) return;
    this.#cache.set(write.uri, record.hash, groupBySubject(write.quads), {
      probation: write.bulk,
    });
  }

  /**
   * The read's quads, streamed to the caller and collected meanwhile; once read whole, they
   * are cached under their own record's hash if they fit.
   */
  async *#keeping(uri: string, read: ItemRead): AsyncGenerator<Quad> {
    let kept: Quad[] | undefined = [];
    let bytes = 0;
    for await (const quad of read.quads) {
      yield quad;
      if (!kept) continue;
      bytes += estimateQuadBytes(quad);
      if (this.#cache.fits(bytes)) kept.push(quad);
      else kept = undefined;
    }
    if (kept && kept.length > 0) this.#cache.set(uri, read.record.hash, kept);
  }
}

/** An array's quads as a stream. */
async function* each(quads: readonly Quad[]): AsyncGenerator<Quad> {
  yield* quads;
}
