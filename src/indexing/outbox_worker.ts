/**
 * The index outbox worker: keeps the search index in step with item writes.
 *
 * Every item write adds an entry to the store's index outbox in the same atomic write
 * (`store/index_outbox.ts`). This background loop, one per service instance, claims
 * entries in batches under a lease: for each item it reads the *current* state — still
 * there → upsert its document, gone → remove it — and only then removes the entries it
 * handled. When the search engine (or the store) cannot be reached the entries are given
 * back and the loop backs off exponentially (capped), so an outage loses nothing and the
 * backlog drains once the engine is back. Entries of an instance that died come free when
 * their lease ends, and any instance applies them.
 *
 * A document write must land while the claim's lease still holds: after it another
 * instance may apply a newer entry of the same item, and a late write of an older read
 * would then overwrite it. So the worker passes the lease's end (less a margin) to the
 * engine as the write's deadline, and gives the entries back instead of writing when too
 * little of the lease is left.
 *
 * Where the claim tells an item's current record (the SPARQL outbox does) and this
 * instance's item cache holds that very version (it wrote it a moment ago), the document
 * is built from that graph instead of a read-back: the hash names the content exactly, and
 * the lease keeps any later write's entry for after this one.
 */
import type { ItemRecord, TripleStore } from "../store/triple_store.ts";
import {
  type CollectionIndexRef,
  EngineRefusal,
  type SearchEngine,
} from "../search/search_engine.ts";
import { DeadLetters } from "./dead_letters.ts";
import { log } from "../log/logger.ts";
import type { CollectionResolver, IndexedCollection } from "./index_item.ts";
import { type OutboxBatch, outboxBatchWith } from "./outbox_batch.ts";

/** Options of {@link IndexOutboxWorker}. */
export interface OutboxWorkerOptions {
  /** The store whose outbox is drained and whose items are read. */
  store: TripleStore;
  engine: SearchEngine;
  resolve: CollectionResolver;
  /**
   * Brings the catalog up to date: asked before entries of a collection this instance does
   * not know are dropped, since another instance may have just made it.
   */
  refreshCatalog?: () => Promise<void>;
  /**
   * Applies one collection's share of a claim (`outbox_batch.ts`); on this thread, through
   * `store` and `engine`, unless the wiring runs it elsewhere.
   */
  applyBatch?: OutboxBatch;
  /** Items claimed per batch (200). */
  batchSize?: number;
  /** How long a claim holds its entries, in ms (`service.cluster.leaseMs`). */
  leaseMs: number;
  /** How often an idle worker looks for new entries, in ms (250). */
  pollIntervalMs?: number;
  /** First wait after a failed batch, in ms (100); doubles per failure. */
  initialBackoffMs?: number;
  /** Longest wait between attempts, in ms (5000). */
  maxBackoffMs?: number;
}

/** A batch that could not be applied; its entries stay for the next attempt. */
class TransientFailure extends Error {}

/** A batch that took too much of its lease; smaller batches follow. */
class LeaseRanShort extends TransientFailure {}

/** Part of a lease kept back for the write itself to land: a tenth, at least 1 s. */
function leaseMargin(leaseMs: number): number {
  return Math.max(1000, leaseMs / 10);
}

/** Drains the store's index outbox into the search engine until stopped. */
export class IndexOutboxWorker {
  readonly #store: TripleStore;
  readonly #engine: SearchEngine;
  readonly #resolve: CollectionResolver;
  readonly #refreshCatalog?: () => Promise<void>;
  readonly #applyBatch: OutboxBatch;
  readonly #batchSize: number;
  /** Items claimed next: halved when a batch ran out of lease, grown back after successes. */
  #claimSize: number;
  readonly #leaseMs: number;
  readonly #pollIntervalMs: number;
  readonly #initialBackoffMs: number;
  readonly #maxBackoffMs: number;
  /** Indices written since the last {@link drain}, refreshed by it. */
  readonly #written = new Map<string, CollectionIndexRef>();
  #loop?: Promise<void>;
  #running = false;
  /** Ends the current wait early: set while the loop sleeps. */
  #interrupt?: () => void;
  #sleepingIdle = false;
  #consecutiveFailures = 0;
  #lastError?: string;
  /** Items the engine refused for good: out of the outbox, shown in /ready and /metrics. */
  readonly deadLetters = new DeadLetters();

  /** Prepares the worker; nothing runs before {@link start}. */
  constructor(options: OutboxWorkerOptions) {
    this.#store = options.store;
    this.#engine = options.engine;
    this.#resolve = options.resolve;
    this.#refreshCatalog = options.refreshCatalog;
    this.#applyBatch = options.applyBatch ?? outboxBatchWith(options.store, options.engine);
    this.#batchSize = options.batchSize ?? 200;
    this.#claimSize = this.#batchSize;
    this.#leaseMs = options.leaseMs;
    this.#pollIntervalMs = options.pollIntervalMs ?? 250;
    this.#initialBackoffMs = options.initialBackoffMs ?? 100;
    this.#maxBackoffMs = options.maxBackoffMs ?? 5000;
  }

  /** Starts the background loop (once). */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Stops the loop after the batch in flight, if any; entries left stay for the next start. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#interrupt?.();
    await this.#loop;
    this.#loop = undefined;
  }

  /** Entries waiting to be applied, of every instance (including batches in flight). */
  backlog(): Promise<number> {
    return this.#store.outbox.backlog();
  }

  /** The last failure while the worker is failing, else undefined. */
  lastError(): string | undefined {
    return this.#lastError;
  }

  /** Looks for entries now instead of at the next poll (does not cut a backoff short). */
  wake(): void {
    if (this.#sleepingIdle) this.#interrupt?.();
  }

  /**
   * Resolves once the backlog is empty and every index written meanwhile is refreshed
   * (searchable); rejects after `timeoutMs`. The worker must be started.
   */
  async drain(timeoutMs = 30_000): Promise<void> {
    if (!this.#running) throw new Error("the outbox worker is not running");
    const deadline = Date.now() + timeoutMs;
    let backlog: number;
    while ((backlog = await this.backlog()) > 0) {
      if (Date.now() > deadline) {
        throw new Error(
          `the index outbox still holds ${backlog} entries after ${timeoutMs} ms` +
            (this.#lastError ? `: ${this.#lastError}` : ""),
        );
      }
      this.wake();
      await delay(10);
    }
    const written = [...this.#written.values()];
    this.#written.clear();
    for (const ref of written) await this.#engine.refresh(ref);
  }

  async #run(): Promise<void> {
    while (this.#running) {
      let handled = 0;
      try {
        handled = await this.#processBatch();
        if (this.#consecutiveFailures > 0) {
          log("info", "index outbox recovered", { failedAttempts: this.#consecutiveFailures });
        }
        this.#consecutiveFailures = 0;
        this.#lastError = undefined;
      } catch (error) {
        this.#consecutiveFailures++;
        this.#lastError = error instanceof Error ? error.message : String(error);
        if (this.#consecutiveFailures === 1) {
          log("warn", "index outbox cannot apply updates; retrying with backoff", {
            error: this.#lastError,
          });
        }
        const backoff = Math.min(
          this.#maxBackoffMs,
          this.#initialBackoffMs * 2 ** (this.#consecutiveFailures - 1),
        );
        await this.#sleep(backoff, false);
        continue;
      }
      if (handled === 0) await this.#sleep(this.#pollIntervalMs, true);
      // A batch on the embedded backends never waits for I/O: let requests run between
      // batches, or draining a large backlog would hold the event loop until it is empty.
      else await delay(0);
    }
  }

  /** Applies the oldest entries; returns how many it handled, throws if some must wait. */
  async #processBatch(): Promise<number> {
    const claim = await this.#store.outbox.claim(this.#claimSize, this.#leaseMs);
    if (claim.entries.length === 0) return 0;
    const deadline = claim.leaseUntil - leaseMargin(this.#leaseMs);
    const byCollection = new Map<string, Map<string, string[]>>();
    const current = new Map<string, ItemRecord>();
    for (const entry of claim.entries) {
      const items = byCollection.get(entry.collection) ?? new Map<string, string[]>();
      byCollection.set(entry.collection, items);
      items.set(entry.uri, [...(items.get(entry.uri) ?? []), entry.id]);
      if (entry.current) current.set(entry.uri, entry.current);
    }
    let failure: unknown;
    const done: string[] = [];
    const again: string[] = [];
    for (const [collection, items] of byCollection) {
      let indexed: IndexedCollection;
      try {
        indexed = await this.#resolveFresh(collection);
      } catch {
        log("warn", "index outbox entries dropped: collection no longer configured", {
          collection,
          items: items.size,
        });
        done.push(...[...items.values()].flat());
        continue;
      }
      try {
        const retry = await this.#apply(indexed, [...items.keys()], deadline, current);
        for (const [uri, ids] of items) (retry.has(uri) ? again : done).push(...ids);
        if (retry.size < items.size) this.#written.set(indexed.ref.indexName, indexed.ref);
        if (retry.size > 0) {
          failure ??= new TransientFailure(`${retry.size} documents were refused for now`);
        }
      } catch (error) {
        if (error instanceof EngineRefusal) {
          // Refused for good (an index it cannot create, say): retrying would block the
          // backlog behind these items forever.
          for (const uri of items.keys()) {
            this.deadLetters.add({ collection, uri, kind: error.kind, message: error.message });
          }
          log("error", "index outbox entries dead-lettered: the search engine refuses them", {
            collection,
            items: items.size,
            error: error.message,
          });
          done.push(...[...items.values()].flat());
          continue;
        }
        again.push(...[...items.values()].flat());
        failure ??= error;
      }
    }
    try {
      await this.#store.outbox.complete(done);
    } finally {
      // Even when completing failed (a full disk): entries left leased wait out the lease.
      await this.#store.outbox.release(again);
    }
    this.#claimSize = failure instanceof LeaseRanShort
      ? Math.max(1, Math.floor(this.#claimSize / 2))
      : Math.min(this.#batchSize, this.#claimSize * 2);
    if (failure !== undefined) throw failure;
    return claim.entries.length;
  }

  /** The collection, after a catalog refresh when this instance does not know it yet. */
  async #resolveFresh(collection: string): Promise<IndexedCollection> {
    try {
      return this.#resolve(collection);
    } catch (error) {
      if (!this.#refreshCatalog) throw error;
      await this.#refreshCatalog();
      return this.#resolve(collection);
    }
  }

  /** Applies one collection's items; returns the URIs to try again later. */
  async #apply(
    indexed: IndexedCollection,
    uris: string[],
    deadline: number,
    current: ReadonlyMap<string, ItemRecord>,
  ): Promise<Set<string>> {
    const linking = indexed.linkableCollections
      .map((uri) => this.#resolve(uri))
      .filter((collection) => collection.fields.length > 0);
    const outcome = await this.#applyBatch(
      { collection: indexed, uris, linking, deadline },
      current,
    );
    for (const { uri, message } of outcome.unbuilt) {
      log("warn", "item not indexed: its document could not be built", {
        collection: indexed.uri,
        item: uri,
        error: message,
      });
    }
    if (outcome.leaseRanShort) {
      throw new LeaseRanShort("the claim's lease ran short before the documents were written");
    }
    for (const { uri, kind, message } of outcome.refused) {
      // The engine will refuse this document every time: retrying would block the outbox.
      this.deadLetters.add({ collection: indexed.uri, uri, kind, message });
      log("warn", "item not indexed: the search engine refused its document", {
        collection: indexed.uri,
        item: uri,
        kind,
        error: message,
      });
    }
    return new Set(outcome.retry);
  }

  /** Waits `ms`, or less if stopped (or woken, when `idle`). */
  #sleep(ms: number, idle: boolean): Promise<void> {
    if (!this.#running) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(finish, ms);
      this.#sleepingIdle = idle;
      this.#interrupt = finish;
      function finish() {
        clearTimeout(timer);
        resolve();
      }
    }).then(() => {
      this.#interrupt = undefined;
      this.#sleepingIdle = false;
    });
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
