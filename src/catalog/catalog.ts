/**
 * Workspaces and collections, looked up by URI: those of customer.yml (`source: config`)
 * and those made at run time through the admin API (`source: api`), which live in the
 * store (`catalog_store.ts`) so that every instance sharing the store sees them.
 *
 * Lookups are synchronous, over a copy in memory. The copy is brought up to date when the
 * store's catalog version changes: at once after a write made here, on a request that
 * names a collection or workspace the copy does not know (`src/http/catalog_freshness.ts`,
 * so a collection made on another instance is usable there at once), and every second by
 * a poll when the store is shared (so that changes and removals reach every instance
 * within a second).
 */
import {
  type CollectionConfig,
  collectionSchema,
  type WorkspaceConfig,
  workspaceSchema,
} from "../config/schema.ts";
import { DomainError } from "../errors/domain_error.ts";
import { withoutWebhookSecrets } from "../config/webhook_setting.ts";
import { log } from "../log/logger.ts";
import type { CatalogRecord, CatalogStore } from "./catalog_store.ts";

/** Where a workspace or collection was defined. */
export type CatalogSource = "config" | "api";

/** A collection together with the workspace that holds it. */
export interface CollectionEntry {
  collection: CollectionConfig;
  workspace: WorkspaceConfig;
  /** customer.yml, or the admin API; config when not said. */
  source?: CatalogSource;
  /** The stored record's revision (its ETag); none for customer.yml's collections. */
  revision?: string;
  /** The settings as stored, in customer.yml's shape (API-made collections). */
  settings?: Record<string, unknown>;
}

/** A workspace and where it was defined. */
export interface WorkspaceEntry {
  workspace: WorkspaceConfig;
  source: CatalogSource;
}

/** Called after the catalog changed. */
export type CatalogListener = () => void;

/** Lookups over the configured and the stored workspaces and collections. */
export class Catalog {
  readonly #configured: WorkspaceConfig[];
  readonly #store?: CatalogStore;
  #workspaces = new Map<string, WorkspaceEntry>();
  #collections = new Map<string, CollectionEntry>();
  #version: string | undefined;
  #refreshing: Promise<void> | undefined;
  /** When the read in flight began (`performance.now()`). */
  #refreshStarted = 0;
  #loaded: Promise<void> | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #listeners: CatalogListener[] = [];
  /** Moves on with every change of the copy in memory. */
  generation = 0;

  /** customer.yml's `workspaces`; `store` holds the run-time part (none: config only). */
  constructor(workspaces: WorkspaceConfig[], store?: CatalogStore) {
    this.#configured = workspaces;
    this.#store = store;
    this.#apply([]);
  }

  /** The store of the run-time part, if there is one. */
  get store(): CatalogStore | undefined {
    return this.#store;
  }

  /**
   * Reads the stored records when the store's version differs from the copy's. Concurrent
   * callers share one read. Store failures are thrown.
   */
  refresh(): Promise<void> {
    if (!this.#store) return Promise.resolve();
    if (this.#refreshing === undefined) {
      this.#refreshStarted = performance.now();
      this.#refreshing = this.#reload(this.#store).finally(() => this.#refreshing = undefined);
    }
    return this.#refreshing;
  }

  /**
   * Brings the copy up to date with a read of the store that began at `instant` or later
   * (`performance.now()`): a change answered before `instant` is in the copy when this
   * settles. Shares a read in flight only if it began late enough. Store failures are thrown.
   */
  refreshSince(instant: number): Promise<void> {
    if (!this.#store) return Promise.resolve();
    const inFlight = this.#refreshing;
    if (inFlight === undefined || this.#refreshStarted >= instant) return this.refresh();
    // The read in flight may have been answered before the change: another one after it.
    return inFlight.catch(() => {}).then(() => this.refresh());
  }

  /**
   * Settles once the first read of the stored part has ended. A failed first read is logged
   * and not waited for again (requests go on with customer.yml's part): the poll, or a
   * request naming a collection this copy does not know, reads the store again.
   */
  ready(): Promise<void> {
    if (!this.#store) return Promise.resolve();
    this.#loaded ??= this.refresh().catch((error) => {
      log("warn", "could not read the catalog from the store; trying again later", {
        error: error instanceof Error ? error.message : String(error),
      });
    });
    return this.#loaded;
  }

  /** Polls the store's version every `intervalMs`; failures are logged, not thrown. */
  startPolling(intervalMs: number): void {
    if (!this.#store || this.#timer !== undefined) return;
    // A store that is down fails every poll: said once when it starts, once when it ends.
    let failing = false;
    this.#timer = setInterval(() => {
      this.refresh().then(() => {
        if (failing) log("info", "the catalog is read from the store again");
        failing = false;
      }, (error) => {
        if (!failing) {
          log("warn", "could not read the catalog from the store; polling on", {
            error: error instanceof Error ? error.message : String(error),
          });
        }
        failing = true;
      });
    }, intervalMs);
    Deno.unrefTimer(this.#timer as unknown as number);
  }

  /** Stops polling. */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Calls `listener` after every change of the copy in memory. */
  onChange(listener: CatalogListener): void {
    this.#listeners.push(listener);
  }

  /** The workspace, or `workspace-not-found`. */
  workspace(uri: string): WorkspaceConfig {
    return this.workspaceEntry(uri).workspace;
  }

  /** The workspace and its source, or `workspace-not-found`. */
  workspaceEntry(uri: string): WorkspaceEntry {
    const entry = this.#workspaces.get(uri);
    if (!entry) throw workspaceNotFound(uri);
    return entry;
  }

  /** The collection and its workspace, or `collection-not-found`. */
  collection(uri: string): CollectionEntry {
    const entry = this.#collections.get(uri);
    if (!entry) throw collectionNotFound(uri);
    return entry;
  }

  /** Whether the copy in memory knows a collection of this URI. */
  hasCollection(uri: string): boolean {
    return this.#collections.has(uri);
  }

  /** Whether the copy in memory knows a collection or workspace of this URI. */
  knows(uri: string): boolean {
    return this.#collections.has(uri) || this.#workspaces.has(uri);
  }

  /**
   * Checks that the collection is configured: 404 `collection-not-found` otherwise, as
   * `collection()`. For callers that need the check only (the service they call next does
   * not look the collection up).
   */
  require(uri: string): void {
    this.collection(uri);
  }

  /** Every collection: customer.yml's in its order, then the stored ones. */
  collections(): CollectionEntry[] {
    return [...this.#collections.values()];
  }

  /** Every workspace: customer.yml's in its order, then the stored ones. */
  workspaces(): WorkspaceConfig[] {
    return [...this.#workspaces.values()].map((entry) => entry.workspace);
  }

  /** Every workspace with its source. */
  workspaceEntries(): WorkspaceEntry[] {
    return [...this.#workspaces.values()];
  }

  async #reload(store: CatalogStore): Promise<void> {
    const version = await store.version();
    if (version === this.#version) return;
    const records = await store.list();
    this.#version = version;
    this.#apply(records);
  }

  /** Rebuilds the copy from customer.yml and `records`; records that do not fit are logged. */
  #apply(records: CatalogRecord[]): void {
    const workspaces = new Map<string, WorkspaceEntry>();
    const collections = new Map<string, CollectionEntry>();
    for (const workspace of this.#configured) {
      workspaces.set(workspace.uri, {
        workspace: { ...workspace, collections: [...workspace.collections] },
        source: "config",
      });
    }
    for (const record of records) {
      if (record.kind !== "workspace") continue;
      if (workspaces.has(record.uri)) {
        skipped(record, "customer.yml configures a workspace of this URI");
        continue;
      }
      const parsed = workspaceSchema.safeParse({ ...record.settings, uri: record.uri });
      if (!parsed.success) {
        skipped(record, parsed.error.message);
        continue;
      }
      workspaces.set(record.uri, { workspace: { ...parsed.data, collections: [] }, source: "api" });
    }
    for (const { workspace } of workspaces.values()) {
      for (const collection of workspace.collections) {
        collections.set(collection.uri, { collection, workspace, source: "config" });
      }
    }
    for (const record of records) {
      if (record.kind !== "collection") continue;
      const workspace = workspaces.get(record.workspace ?? "")?.workspace;
      if (!workspace) {
        skipped(record, `its workspace <${record.workspace}> is not there`);
        continue;
      }
      if (collections.has(record.uri)) {
        skipped(record, "customer.yml configures a collection of this URI");
        continue;
      }
      const parsed = collectionSchema.safeParse({ ...record.settings, uri: record.uri });
      if (!parsed.success) {
        skipped(record, parsed.error.message);
        continue;
      }
      workspace.collections.push(parsed.data);
      collections.set(record.uri, {
        collection: parsed.data,
        workspace,
        source: "api",
        revision: record.revision,
        settings: record.settings,
      });
    }
    this.#workspaces = workspaces;
    this.#collections = collections;
    this.generation++;
    for (const listener of this.#listeners) listener();
  }
}

/**
 * The settings of a collection in customer.yml's shape (what the admin API and the settings
 * dump show), webhook secrets masked: no answer carries them.
 */
export function collectionSettings(entry: CollectionEntry): Record<string, unknown> {
  if (entry.settings) {
    return withoutWebhookSecrets({ ...entry.settings, uri: entry.collection.uri });
  }
  const { index, fields, ...rest } = entry.collection;
  return withoutWebhookSecrets({ ...rest, index: { name: index, fields } });
}

/** The answer for a workspace that is not configured, and for one the caller sees none of. */
export function workspaceNotFound(uri: string): DomainError {
  return new DomainError("workspace-not-found", {
    detail: `No workspace <${uri}> is configured.`,
    errors: [{ path: "workspace", message: "unknown workspace" }],
  });
}

/**
 * The answer for a collection that is not configured, and for one the caller may not read
 * (src/http/collection_access.ts): the same, so that existence does not leak.
 */
export function collectionNotFound(uri: string): DomainError {
  return new DomainError("collection-not-found", {
    detail: `No collection <${uri}> is configured.`,
    errors: [{ path: "collection", message: "unknown collection" }],
  });
}

function skipped(record: CatalogRecord, reason: string): void {
  log("warn", "stored catalog record not used", { uri: record.uri, kind: record.kind, reason });
}
