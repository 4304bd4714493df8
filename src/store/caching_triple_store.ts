/**
 * A {@link TripleStore} decorator that answers item graph reads from an {@link ItemCache}.
 *
 * A decorator rather than code inside each store, because the rule is the same for both
 * backends and matters most for the SPARQL one, where a read is a Graph Store GET.
 *
 * Why a cached graph is never stale: the cache is keyed by (item URI, hash), and the hash
 * asked for is always the one in the store's record of the item: the record the caller
 * read for its ETag, or else one read here. That record lives in the triple store itself
 * and changes in the same atomic write as the graph (the SQLite transaction; the one SPARQL
 * Update request), so a write by anyone, this process or another one sharing the store,
 * changes the hash and the old entry stops matching. A graph enters the cache only when
 * its hash is known: a successful write of this process puts the quads it wrote under the
 * hash it computed of them, and a graph read from the store is put only after hashing it
 * and finding the record's hash (a write between reading the record and reading the graph
 * must not file the newer graph under the older hash). The one assumption is the service's
 * own: a client that rewrites an item's graph without updating its record (the metadata
 * graph, or SQLite's row) makes the store's graph differ from its ETag; the cache then keeps
 * serving the graph that matches the ETag until the next write through the service.
 *
 * Every write drops the item's entry first and puts the new graph only once the store
 * confirms the write, so a write that fails or whose outcome is unknown leaves nothing of
 * itself behind. Batch reads (`readItemGraphs`, collection scans) pass through untouched:
 * a re-index of a whole collection would otherwise flush the items readers actually use.
 */
import type { Quad } from "n3";
import type {
  BackendHealth,
  ItemGraph,
  ItemRecord,
  ItemWrite,
  SparqlQueryOptions,
  SparqlQueryResult,
  TripleStore,
  WriteCondition,
} from "./triple_store.ts";
import { estimateQuadBytes, type ItemCache } from "./item_cache.ts";
import { itemNotFound } from "./store_problems.ts";

/** Hashes a graph the way items' ETags are computed. */
export type CacheHasher = (quads: Quad[]) => Promise<string>;

/** A triple store whose item reads are served from memory when the hash matches. */
export class CachingTripleStore implements TripleStore {
  readonly #inner: TripleStore;
  readonly #cache: ItemCache;
  readonly #hash: CacheHasher;

  /** `hash` must be the hasher that computes the ETags of writes. */
  constructor(inner: TripleStore, cache: ItemCache, hash: CacheHasher) {
    this.#inner = inner;
    this.#cache = cache;
    this.#hash = hash;
  }

  get kind(): TripleStore["kind"] {
    return this.#inner.kind;
  }

  get outbox(): TripleStore["outbox"] {
    return this.#inner.outbox;
  }

  /** The cache, for its statistics. */
  get cache(): ItemCache {
    return this.#cache;
  }

  getItem(collection: string, uri: string): Promise<ItemRecord | undefined> {
    return this.#inner.getItem(collection, uri);
  }

  async *readItemQuads(collection: string, uri: string, record?: ItemRecord) {
    const current = record ?? await this.#inner.getItem(collection, uri);
    if (!current) throw itemNotFound(collection, uri);
    const cached = this.#cache.get(uri, current.hash);
    if (cached) {
      yield* cached;
      return;
    }
    // Collected while streaming to the caller, as long as the item could still be cached.
    let kept: Quad[] | undefined = [];
    let bytes = 0;
    for await (const quad of this.#inner.readItemQuads(collection, uri, current)) {
      yield quad;
      if (!kept) continue;
      bytes += estimateQuadBytes(quad);
      if (this.#cache.fits(bytes)) kept.push(quad);
      else kept = undefined;
    }
    if (kept && kept.length > 0) await this.#putVerified(uri, current.hash, kept);
  }

  readItemGraphs(collection: string, uris: string[]): Promise<ItemGraph[]> {
    return this.#inner.readItemGraphs(collection, uris);
  }

  async createItem(write: ItemWrite): Promise<ItemRecord> {
    this.#cache.invalidate(write.uri);
    const record = await this.#inner.createItem(write);
    this.#cache.set(write.uri, record.hash, groupBySubject(write.quads));
    return record;
  }

  async replaceItem(write: ItemWrite, condition?: WriteCondition): Promise<ItemRecord> {
    this.#cache.invalidate(write.uri);
    try {
      const record = await this.#inner.replaceItem(write, condition);
      this.#cache.set(write.uri, record.hash, groupBySubject(write.quads));
      return record;
    } catch (error) {
      // A read that raced the write may have filed the old graph meanwhile: harmless (it
      // is keyed by the old hash), but the memory is better spent elsewhere.
      this.#cache.invalidate(write.uri);
      throw error;
    }
  }

  async deleteItem(collection: string, uri: string, condition?: WriteCondition): Promise<void> {
    this.#cache.invalidate(uri);
    try {
      await this.#inner.deleteItem(collection, uri, condition);
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

  /** Caches a graph read from the store only if it really has the record's hash. */
  async #putVerified(uri: string, hash: string, quads: Quad[]): Promise<void> {
    try {
      if (await this.#hash(quads) === hash) this.#cache.set(uri, hash, quads);
    } catch {
      // A graph too complex to hash again is simply not cached.
    }
  }
}

/** The quads with each subject's triples next to each other, first-seen subject order. */
function groupBySubject(quads: Quad[]): Quad[] {
  const bySubject = new Map<string, Quad[]>();
  for (const quad of quads) {
    const key = `${quad.subject.termType}:${quad.subject.value}`;
    const group = bySubject.get(key);
    if (group) group.push(quad);
    else bySubject.set(key, [quad]);
  }
  if (bySubject.size === 1) return quads;
  return [...bySubject.values()].flat();
}
