/**
 * An in-process cache of item graphs, least recently used first out, bounded by bytes.
 *
 * Entries are content-addressed: an item URI maps to one graph together with the hash
 * (the item's ETag, SHA-256 of its RDFC-1.0 form) those quads have. A lookup names the
 * hash it wants (the one the store's record holds now), so an entry whose item has since
 * changed is simply not found: the cache cannot serve a graph that differs from the ETag
 * sent with it, and invalidation is about freeing memory early, not about correctness.
 * {@link CachingTripleStore} keeps to that rule by only putting quads whose hash is known.
 *
 * Sizes are an estimate of the heap the quads hold (term strings plus a fixed cost per
 * quad for the objects around them), good to bound memory, not an exact count.
 *
 * Bulk writes (an import of thousands of items) would flush every reader's entries and grow
 * the heap to the bound for graphs nobody reads. They go to a small probation segment
 * instead (the scan resistance of 2Q-style caches): held just long enough for the index
 * outbox to find them, evicted first, promoted to the main segment by a reader's hit.
 */
import type { Quad, Term } from "n3";

/** Bounds of an {@link ItemCache}. */
export interface ItemCacheOptions {
  /** Most estimated bytes held; older entries are evicted to stay under it. */
  maxBytes: number;
  /**
   * Items estimated larger than this are never cached, so one large item cannot flush
   * the rest. Default: a sixteenth of `maxBytes`.
   */
  maxItemBytes?: number;
  /** Most estimated bytes of probation entries (bulk writes). Default: an eighth of `maxBytes`. */
  maxProbationBytes?: number;
}

/** How an entry enters the cache. */
export interface CacheSetOptions {
  /** A bulk write: kept in the probation segment until a reader asks for it. */
  probation?: boolean;
}

/** Counters of an {@link ItemCache}, for tests and `/ready`-style reporting. */
export interface ItemCacheStats {
  hits: number;
  misses: number;
  entries: number;
  bytes: number;
  evictions: number;
}

interface Entry {
  hash: string;
  quads: readonly Quad[];
  bytes: number;
}

/** Fixed cost of one quad: the Quad and its term objects, beyond their strings. */
const QUAD_OVERHEAD_BYTES = 200;

/** The estimated heap bytes of one quad. */
export function estimateQuadBytes(quad: Quad): number {
  return QUAD_OVERHEAD_BYTES + 2 * (termLength(quad.subject) + termLength(quad.predicate) +
        termLength(quad.object) + termLength(quad.graph));
}

function termLength(term: Term): number {
  if (term.termType !== "Literal") return term.value.length;
  // A literal's language or datatype is a string of its own.
  return term.value.length + term.language.length + term.datatype.value.length;
}

/** Item graphs by (item URI, hash), least recently used evicted first. */
export class ItemCache {
  readonly maxBytes: number;
  readonly maxItemBytes: number;
  readonly maxProbationBytes: number;
  /** Map order is use order: the first entry is the least recently used. */
  readonly #entries = new Map<string, Entry>();
  /** Bulk writes nobody has read yet, oldest first; evicted before any main entry. */
  readonly #probation = new Map<string, Entry>();
  #bytes = 0;
  #probationBytes = 0;
  #hits = 0;
  #misses = 0;
  #evictions = 0;

  constructor(options: ItemCacheOptions) {
    this.maxBytes = options.maxBytes;
    this.maxItemBytes = Math.min(
      options.maxItemBytes ?? Math.floor(options.maxBytes / 16),
      options.maxBytes,
    );
    this.maxProbationBytes = Math.min(
      options.maxProbationBytes ?? Math.floor(options.maxBytes / 8),
      options.maxBytes,
    );
  }

  /** The quads of `uri` if the cache holds them with exactly this hash. */
  get(uri: string, hash: string): readonly Quad[] | undefined {
    const entry = this.#entries.get(uri) ?? this.#probation.get(uri);
    if (!entry || entry.hash !== hash) {
      this.#misses++;
      return undefined;
    }
    this.#hits++;
    // Most recent in the main segment: a bulk write someone reads is promoted.
    this.#put(this.#entries, uri, this.#take(uri)!);
    return entry.quads;
  }

  /**
   * The quads of `uri` if held with exactly this hash, for indexing: neither counted as a
   * reader's hit or miss nor made more recent.
   */
  peek(uri: string, hash: string): readonly Quad[] | undefined {
    const entry = this.#entries.get(uri) ?? this.#probation.get(uri);
    return entry?.hash === hash ? entry.quads : undefined;
  }

  /**
   * Keeps `quads` as the graph of `uri` whose hash is `hash`, replacing any other graph of
   * that item. Returns false (and holds nothing for the item) when it is too large. The
   * caller must not change `quads` afterwards.
   */
  set(uri: string, hash: string, quads: readonly Quad[], options: CacheSetOptions = {}): boolean {
    this.invalidate(uri);
    let bytes = uri.length * 2;
    const limit = options.probation
      ? Math.min(this.maxItemBytes, this.maxProbationBytes)
      : this.maxItemBytes;
    for (const quad of quads) {
      bytes += estimateQuadBytes(quad);
      if (bytes > limit) return false;
    }
    this.#put(options.probation ? this.#probation : this.#entries, uri, { hash, quads, bytes });
    this.#evict(this.#probation, () => this.#probationBytes > this.maxProbationBytes);
    this.#evict(this.#probation, () => this.#bytes > this.maxBytes);
    this.#evict(this.#entries, () => this.#bytes > this.maxBytes);
    return true;
  }

  /** Drops `segment`'s oldest entries while `over()` holds. */
  #evict(segment: Map<string, Entry>, over: () => boolean): void {
    for (const oldest of segment.keys()) {
      if (!over()) break;
      this.#take(oldest);
      this.#evictions++;
    }
  }

  /** Files `entry` as the most recent of `segment`, counting its bytes. */
  #put(segment: Map<string, Entry>, uri: string, entry: Entry): void {
    segment.set(uri, entry);
    this.#bytes += entry.bytes;
    if (segment === this.#probation) this.#probationBytes += entry.bytes;
  }

  /** Removes the entry of `uri` from whichever segment holds it, uncounting its bytes. */
  #take(uri: string): Entry | undefined {
    for (const segment of [this.#entries, this.#probation]) {
      const entry = segment.get(uri);
      if (!entry) continue;
      segment.delete(uri);
      this.#bytes -= entry.bytes;
      if (segment === this.#probation) this.#probationBytes -= entry.bytes;
      return entry;
    }
    return undefined;
  }

  /** Whether the quads of a graph estimated at `bytes` so far could still be cached. */
  fits(bytes: number): boolean {
    return bytes <= this.maxItemBytes;
  }

  /** Forgets whatever graph of `uri` is held. */
  invalidate(uri: string): void {
    this.#take(uri);
  }

  /** Forgets everything. */
  clear(): void {
    this.#entries.clear();
    this.#probation.clear();
    this.#bytes = 0;
    this.#probationBytes = 0;
  }

  stats(): ItemCacheStats {
    return {
      hits: this.#hits,
      misses: this.#misses,
      entries: this.#entries.size + this.#probation.size,
      bytes: this.#bytes,
      evictions: this.#evictions,
    };
  }
}
