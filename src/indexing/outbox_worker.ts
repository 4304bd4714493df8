/**
 * The index outbox worker: keeps the search index in step with item writes.
 *
 * Every item write commits an `index_outbox` row (collection, item URI) together with the
 * write. This background loop drains the table in batches: for each entry it reads the
 * item's *current* state — still there → upsert its document, gone → remove it — and only
 * then deletes the entries it handled. When the search engine (or the store) cannot be
 * reached the entries stay, their `attempts` grow, and the loop backs off exponentially
 * (capped), so an outage loses nothing and the backlog drains once the engine is back.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { enqueueIndexUpdate, inTransaction } from "../store/local_db.ts";
import type { TripleStore } from "../store/triple_store.ts";
import type { CollectionIndexRef, SearchEngine } from "../search/search_engine.ts";
import { log } from "../log/logger.ts";
import {
  type CollectionResolver,
  type IndexedCollection,
  readItemDocuments,
} from "./index_item.ts";

/** Options of {@link IndexOutboxWorker}. */
export interface OutboxWorkerOptions {
  db: DatabaseSync;
  store: TripleStore;
  engine: SearchEngine;
  resolve: CollectionResolver;
  /** Entries read per batch (200). */
  batchSize?: number;
  /** How often an idle worker looks for new entries, in ms (250). */
  pollIntervalMs?: number;
  /** First wait after a failed batch, in ms (100); doubles per failure. */
  initialBackoffMs?: number;
  /** Longest wait between attempts, in ms (5000). */
  maxBackoffMs?: number;
}

/** Told which items of a collection the worker just brought in step with the store. */
export type ProcessedListener = (collection: string, uris: string[]) => void;

interface OutboxRow {
  id: number;
  collection: string;
  uri: string;
}

/** A batch that could not be applied; its entries stay for the next attempt. */
class TransientFailure extends Error {}

/** Drains `index_outbox` into the search engine until stopped. */
export class IndexOutboxWorker {
  readonly #db: DatabaseSync;
  readonly #store: TripleStore;
  readonly #engine: SearchEngine;
  readonly #resolve: CollectionResolver;
  readonly #batchSize: number;
  readonly #pollIntervalMs: number;
  readonly #initialBackoffMs: number;
  readonly #maxBackoffMs: number;
  readonly #statements: Record<string, StatementSync>;
  readonly #listeners = new Set<ProcessedListener>();
  /** Indices written since the last {@link drain}, refreshed by it. */
  readonly #written = new Map<string, CollectionIndexRef>();
  #loop?: Promise<void>;
  #running = false;
  /** Ends the current wait early: set while the loop sleeps. */
  #interrupt?: () => void;
  #sleepingIdle = false;
  #consecutiveFailures = 0;
  #lastError?: string;

  /** Prepares the worker; nothing runs before {@link start}. */
  constructor(options: OutboxWorkerOptions) {
    this.#db = options.db;
    this.#store = options.store;
    this.#engine = options.engine;
    this.#resolve = options.resolve;
    this.#batchSize = options.batchSize ?? 200;
    this.#pollIntervalMs = options.pollIntervalMs ?? 250;
    this.#initialBackoffMs = options.initialBackoffMs ?? 100;
    this.#maxBackoffMs = options.maxBackoffMs ?? 5000;
    this.#statements = {
      next: options.db.prepare("SELECT id, collection, uri FROM index_outbox ORDER BY id LIMIT ?"),
      count: options.db.prepare("SELECT count(*) AS n FROM index_outbox"),
      remove: options.db.prepare("DELETE FROM index_outbox WHERE id = ?"),
      attempted: options.db.prepare("UPDATE index_outbox SET attempts = attempts + 1 WHERE id = ?"),
    };
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

  /** Entries waiting to be applied (including the batch in flight). */
  backlog(): number {
    return (this.#statements.count.get() as { n: number }).n;
  }

  /** The last failure while the worker is failing, else undefined. */
  lastError(): string | undefined {
    return this.#lastError;
  }

  /** Looks for entries now instead of at the next poll (does not cut a backoff short). */
  wake(): void {
    if (this.#sleepingIdle) this.#interrupt?.();
  }

  /** Registers a listener for handled entries; returns its removal. */
  onProcessed(listener: ProcessedListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Enqueues items again (one transaction), e.g. those a job may have indexed stale. */
  requeue(collection: string, uris: Iterable<string>): void {
    inTransaction(this.#db, () => {
      for (const uri of uris) enqueueIndexUpdate(this.#db, collection, uri);
    });
    this.wake();
  }

  /**
   * Resolves once the backlog is empty and every index written meanwhile is refreshed
   * (searchable); rejects after `timeoutMs`. The worker must be started.
   */
  async drain(timeoutMs = 30_000): Promise<void> {
    if (!this.#running) throw new Error("the outbox worker is not running");
    const deadline = Date.now() + timeoutMs;
    while (this.backlog() > 0) {
      if (Date.now() > deadline) {
        throw new Error(
          `the index outbox still holds ${this.backlog()} entries after ${timeoutMs} ms` +
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
            backlog: this.backlog(),
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
    const rows = this.#statements.next.all(this.#batchSize) as unknown as OutboxRow[];
    if (rows.length === 0) return 0;
    const byCollection = new Map<string, Map<string, number[]>>();
    for (const row of rows) {
      const items = byCollection.get(row.collection) ?? new Map<string, number[]>();
      byCollection.set(row.collection, items);
      items.set(row.uri, [...(items.get(row.uri) ?? []), row.id]);
    }
    let failure: unknown;
    for (const [collection, items] of byCollection) {
      let indexed: IndexedCollection;
      try {
        indexed = this.#resolve(collection);
      } catch {
        log("warn", "index outbox entries dropped: collection no longer configured", {
          collection,
          items: items.size,
        });
        this.#complete([...items.values()].flat());
        continue;
      }
      try {
        const retry = await this.#apply(indexed, [...items.keys()]);
        const done = [...items].filter(([uri]) => !retry.has(uri));
        this.#complete(done.flatMap(([, ids]) => ids));
        if (done.length > 0) {
          this.#written.set(indexed.ref.indexName, indexed.ref);
          this.#notify(collection, done.map(([uri]) => uri));
        }
        if (retry.size > 0) {
          this.#attempted([...retry].flatMap((uri) => items.get(uri)!));
          failure ??= new TransientFailure(`${retry.size} documents were refused for now`);
        }
      } catch (error) {
        this.#attempted([...items.values()].flat());
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
    return rows.length;
  }

  /** Brings the items' documents in step; returns the URIs to try again later. */
  async #apply(indexed: IndexedCollection, uris: string[]): Promise<Set<string>> {
    const documents = [];
    const gone = [];
    for (const result of await readItemDocuments(this.#store, indexed, uris)) {
      if (result.outcome === "document") documents.push(result.document);
      else if (result.outcome === "gone") gone.push(result.uri);
      else {
        log("warn", "item not indexed: its document could not be built", {
          collection: indexed.uri,
          item: result.uri,
          error: result.message,
        });
      }
    }
    const retry = new Set<string>();
    const results = [];
    if (documents.length > 0) results.push(await this.#engine.upsert(indexed.ref, documents));
    if (gone.length > 0) results.push(await this.#engine.remove(indexed.ref, gone));
    for (const failure of results.flatMap((result) => result.failed)) {
      if (failure.status === 429 || failure.status >= 500) {
        retry.add(failure.uri);
      } else {
        // The engine will refuse this document every time: retrying would block the outbox.
        log("warn", "item not indexed: the search engine refused its document", {
          collection: indexed.uri,
          item: failure.uri,
          status: failure.status,
          error: failure.message,
        });
      }
    }
    return retry;
  }

  #complete(ids: number[]): void {
    if (ids.length === 0) return;
    inTransaction(this.#db, () => {
      for (const id of ids) this.#statements.remove.run(id);
    });
  }

  #attempted(ids: number[]): void {
    if (ids.length === 0) return;
    inTransaction(this.#db, () => {
      for (const id of ids) this.#statements.attempted.run(id);
    });
  }

  #notify(collection: string, uris: string[]): void {
    for (const listener of this.#listeners) {
      try {
        listener(collection, uris);
      } catch (error) {
        log("error", "index outbox listener failed", { error: String(error) });
      }
    }
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
