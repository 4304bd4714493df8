/**
 * The one factory of engines: opens the configured triple store and search engine, the
 * record stores that live beside the store (the run-time catalog, indexing and import jobs,
 * webhook delivery state),
 * and, when both engines live in the service's SQLite file, the worker threads that run
 * indexing's batches. The only file (with the worker module it starts,
 * `index_batch_worker.ts`) that names an engine's class: what differs between engines
 * reaches the services as members of the contracts (`TripleStore.sharedAcrossInstances`,
 * `SearchEngine.missingCapabilities`) and as {@link IndexingWorkers}.
 */
import { resolve } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import type { Quad } from "n3";
import type { ServiceConfig } from "./config/schema.ts";
import { readCaCertificates } from "./config/ca_file.ts";
import type { CatalogStore } from "./catalog/catalog_store.ts";
import { SqliteCatalogStore } from "./catalog/sqlite_catalog_store.ts";
import { SparqlCatalogStore } from "./catalog/sparql_catalog_store.ts";
import { withStorageFaults } from "./sqlite/storage_faults.ts";
import { leaveCheckpointsToOthers } from "./sqlite/wal_checkpoints.ts";
import type { TripleStore } from "./store/triple_store.ts";
import type { IndexOutbox } from "./store/index_outbox.ts";
import { EmbeddedTripleStore } from "./store_embedded/embedded_triple_store.ts";
import { SparqlTripleStore } from "./store_sparql/sparql_triple_store.ts";
import type { SearchEngine } from "./search/search_engine.ts";
import type { ClampWarning } from "./search/clamp.ts";
import { EmbeddedSearchEngine } from "./search_embedded/embedded_search_engine.ts";
import { OpenSearchEngine } from "./search_opensearch/opensearch_engine.ts";
import type { JobStore } from "./jobs/job_store.ts";
import { SqliteJobStore } from "./job_stores/sqlite_job_store.ts";
import { SqliteKindJobStore } from "./job_stores/sqlite_kind_job_store.ts";
import { SparqlJobStore } from "./job_stores/sparql_job_store.ts";
import type { WebhookStateStore } from "./webhooks/webhook_state.ts";
import { SqliteWebhookState } from "./webhooks/sqlite_webhook_state.ts";
import { SparqlWebhookState } from "./webhooks/sparql_webhook_state.ts";
import { SparqlHttpClient } from "./sparql_protocol/client.ts";
import type { IndexJob, JobRebuild } from "./indexing/index_job.ts";
import type { ImportJob } from "./bulk/import_jobs.ts";
import type { PruneJob } from "./items/history_prune_jobs.ts";
import { IndexBatchPool } from "./indexing/index_batch_pool.ts";
import type { IndexBatch } from "./indexing/index_batch.ts";
import type { OutboxBatch } from "./indexing/outbox_batch.ts";
import type { IndexBatchWorkerSetup, OutboxApplied, OutboxWork } from "./index_batch_worker.ts";
import { CircuitBreaker, engineDown } from "./backend/circuit_breaker.ts";
import { displayUrl } from "./log/display_url.ts";
import { log } from "./log/logger.ts";

/**
 * Where indexing's batches run off the request thread: a job's batches and the outbox's,
 * each read, built and written whole on a worker thread. Absent, both run where they are
 * called, through the store and engine themselves.
 */
export interface IndexingWorkers {
  indexBatch: IndexBatch;
  outboxBatch: OutboxBatch;
  /** Stops the workers; after the outbox and the jobs, before the service's own connection. */
  close(): Promise<void>;
}

/** The opened engines, bare: the caller adds metrics and the item cache. */
export interface Engines {
  store: TripleStore;
  /**
   * Checks the store can be driven (`store_sparql/capabilities.ts`); throws a problem
   * `store-incapable` naming the behaviour it lacks. Nothing to check on the embedded store.
   */
  checkStore(): Promise<void>;
  search: SearchEngine;
  catalogStore: CatalogStore;
  indexJobStore: JobStore<IndexJob, JobRebuild>;
  importJobStore: JobStore<ImportJob>;
  pruneJobStore: JobStore<PruneJob>;
  /** Where webhook delivery stands: beside the jobs, shared as they are. */
  webhookState: WebhookStateStore;
  indexingWorkers?: IndexingWorkers;
  /** Releases what the engines share beyond themselves (the SPARQL store's breaker); last. */
  close(): void;
}

/** What the engines are opened on, beyond the configuration. */
export interface EngineSite {
  /** The service's SQLite file, open. */
  db: DatabaseSync;
  /** Its path; undefined for an in-memory database. */
  dbPath: string | undefined;
  /** Hashes a graph canonically (the SPARQL store hashes what it reads back). */
  hash: (quads: Quad[]) => Promise<string>;
}

/** Opens every engine the configuration names. */
export function openEngines(config: ServiceConfig, site: EngineSite): Engines {
  const { db } = site;
  const { store, checkStore } = openTripleStore(config, site);
  const pool = openIndexBatchPool(config);
  // The workers' connections write the file after every store write (the outbox's documents):
  // their commits take the log's checkpoints, off the request thread.
  if (pool) leaveCheckpointsToOthers(db);
  const search = openSearchEngine(config, db);
  const metadata = sparqlMetadata(config);
  const { leaseMs } = config.service.cluster;
  const engines: Engines = {
    store,
    checkStore,
    search: search.engine,
    catalogStore: openCatalogStore(metadata, db),
    indexJobStore: openJobStore(metadata, db, leaseMs),
    importJobStore: openImportJobStore(metadata, db, leaseMs),
    pruneJobStore: metadata
      ? new SparqlJobStore<PruneJob>(metadata.client, metadata.graph, leaseMs, "history-prune-job")
      : new SqliteKindJobStore<PruneJob>(db, "history-prune"),
    webhookState: metadata
      ? new SparqlWebhookState(metadata.client, metadata.graph, leaseMs)
      : new SqliteWebhookState(db),
    indexingWorkers: pool && search.embedded && {
      indexBatch: pool.run,
      outboxBatch: outboxBatchesOn(pool, search.embedded),
      close: () => pool.close(),
    },
    close: () => storeBreakers.get(config)?.close(),
  };
  if (store instanceof SparqlTripleStore) void handOverLocalOutbox(db, store.outbox);
  return engines;
}

/**
 * Worker threads for indexing jobs' batches and the embedded engine's document writes when
 * both engines live in the SQLite file (the workers open it too) and
 * `service.search.indexing.workers` asks for some; otherwise both run on the request thread.
 */
function openIndexBatchPool(
  config: ServiceConfig,
): IndexBatchPool<OutboxWork, OutboxApplied> | undefined {
  const dataDir = config.service.data.dir;
  const { workers } = config.service.search.indexing;
  const inTheFile = config.service.store.backend === "embedded" &&
    config.service.search.backend === "embedded";
  if (dataDir === ":memory:" || !inTheFile || workers === 0) return;
  const init: IndexBatchWorkerSetup = {
    dataDir: resolve(dataDir),
    groupCommit: config.service.store.groupCommit,
    limits: config.service.search.query,
  };
  return new IndexBatchPool({
    url: new URL("./index_batch_worker.ts", import.meta.url),
    workers,
    init,
  });
}

/**
 * The outbox's batches applied on the indexing workers, on behalf of the request thread's
 * engine: its rebuilds reached, its held facet values kept up to date.
 */
function outboxBatchesOn(
  pool: IndexBatchPool<OutboxWork, OutboxApplied>,
  engine: EmbeddedSearchEngine,
): OutboxBatch {
  return async (task) => {
    const { facets, ...outcome } = await pool.applyOutbox({ task, context: engine.writeContext() });
    engine.noteWrittenElsewhere(facets);
    return outcome;
  };
}

/**
 * The configured triple store: the SQLite file, or a SPARQL 1.1 endpoint, whose
 * capabilities start-up checks.
 */
function openTripleStore(
  config: ServiceConfig,
  { db, dbPath, hash }: EngineSite,
): { store: TripleStore; checkStore: () => Promise<void> } {
  const { backend, sparql, groupCommit } = config.service.store;
  if (backend === "embedded") {
    // A full or read-only data directory answers 507 rather than a bare 500.
    const store = withStorageFaults(db, new EmbeddedTripleStore(db, dbPath, groupCommit));
    return { store, checkStore: () => Promise.resolve() };
  }
  const { userQueries } = sparql;
  const store = new SparqlTripleStore({
    ...sparqlEndpoint(config),
    groupCommit,
    graphTemplate: sparql.graphTemplate,
    metadataGraph: sparql.metadataGraph,
    queryDefaultGraph: sparql.queryDefaultGraph,
    userQueries: userQueries.username || userQueries.queryUrl ? userQueries : undefined,
    maxInlineTriples: sparql.maxInlineTriples,
    hash,
  });
  return {
    store,
    checkStore: async () => {
      await store.checkCapabilities();
    },
  };
}

/** One fail-fast breaker per configured SPARQL store, shared by all its clients. */
const storeBreakers = new WeakMap<ServiceConfig, CircuitBreaker>();

/** The SPARQL store's breaker (service.failFast). */
function storeBreaker(config: ServiceConfig): CircuitBreaker {
  let breaker = storeBreakers.get(config);
  if (!breaker) {
    const where = displayUrl(config.service.store.sparql.queryUrl ?? "");
    breaker = new CircuitBreaker(
      `the SPARQL store at ${where}`,
      engineDown("store-unavailable", `The SPARQL store at ${where}`),
      config.service.failFast,
    );
    const { sparql } = config.service.store;
    // Around the breaker: a client of its own, one attempt, no longer than the interval.
    const probeClient = new SparqlHttpClient({
      ...sparqlEndpointWithout(config),
      retries: 0,
      timeoutMs: Math.min(sparql.timeoutMs, config.service.failFast.probeIntervalMs),
    });
    breaker.setProbe(async () => {
      const response = await probeClient.query("ASK {}", "application/sparql-results+json");
      await response.body?.cancel();
    });
    storeBreakers.set(config, breaker);
  }
  return breaker;
}

/** How to reach the configured SPARQL store, failing fast when it is down. */
function sparqlEndpoint(config: ServiceConfig) {
  return { ...sparqlEndpointWithout(config), breaker: storeBreaker(config) };
}

/** How to reach the configured SPARQL store, without the breaker. */
function sparqlEndpointWithout(config: ServiceConfig) {
  const { sparql } = config.service.store;
  return {
    // The schema requires the three URLs when the backend is sparql.
    queryUrl: sparql.queryUrl!,
    updateUrl: sparql.updateUrl!,
    graphStoreUrl: sparql.graphStoreUrl!,
    username: sparql.username,
    password: sparql.password,
    authScheme: sparql.authScheme,
    caCertificates: sparql.caFile
      ? readCaCertificates(sparql.caFile, "service.store.sparql.caFile")
      : undefined,
    timeoutMs: sparql.timeoutMs,
    retries: sparql.retries,
  };
}

/**
 * On a SPARQL store, where the service keeps its own records (jobs, import jobs, the
 * run-time catalog) beside the items: one client for all of them, and their graph.
 * Undefined on the embedded store, whose records are in the SQLite file.
 */
interface SparqlMetadata {
  client: SparqlHttpClient;
  graph: string;
}

/** The {@link SparqlMetadata} of the configured store, built once. */
function sparqlMetadata(config: ServiceConfig): SparqlMetadata | undefined {
  const { backend, sparql } = config.service.store;
  if (backend === "embedded") return undefined;
  return {
    client: new SparqlHttpClient(sparqlEndpoint(config)),
    graph: sparql.metadataGraph,
  };
}

/**
 * Where indexing jobs are recorded: beside the items, so that every instance sharing a
 * SPARQL store shares the jobs and their lock (the embedded store has one instance).
 */
function openJobStore(
  metadata: SparqlMetadata | undefined,
  db: DatabaseSync,
  leaseMs: number,
): JobStore<IndexJob, JobRebuild> {
  if (!metadata) return new SqliteJobStore<IndexJob, JobRebuild>(db);
  return new SparqlJobStore<IndexJob, JobRebuild>(metadata.client, metadata.graph, leaseMs);
}

/** Where run-time workspaces and collections are kept: beside jobs, shared as they are. */
function openCatalogStore(metadata: SparqlMetadata | undefined, db: DatabaseSync): CatalogStore {
  if (!metadata) return new SqliteCatalogStore(db);
  return new SparqlCatalogStore(metadata.client, metadata.graph);
}

/** Where import jobs are recorded: beside indexing jobs, as their own kind. */
function openImportJobStore(
  metadata: SparqlMetadata | undefined,
  db: DatabaseSync,
  leaseMs: number,
): JobStore<ImportJob> {
  if (!metadata) return new SqliteKindJobStore<ImportJob>(db, "import");
  return new SparqlJobStore<ImportJob>(metadata.client, metadata.graph, leaseMs, "import-job");
}

/**
 * Moves outbox entries that an earlier version kept in the local file (before the SPARQL
 * store held its own outbox) into the store's outbox, so an upgrade loses none of them.
 */
async function handOverLocalOutbox(db: DatabaseSync, outbox: IndexOutbox): Promise<void> {
  const rows = db.prepare("SELECT DISTINCT collection, uri FROM index_outbox").all() as {
    collection: string;
    uri: string;
  }[];
  if (rows.length === 0) return;
  try {
    const byCollection = Map.groupBy(rows, (row) => row.collection);
    for (const [collection, items] of byCollection) {
      await outbox.enqueue(collection, items.map((row) => row.uri));
    }
    db.exec("DELETE FROM index_outbox");
    log("info", "outbox entries of the local file handed over to the store", {
      entries: rows.length,
    });
  } catch (error) {
    log("warn", "could not hand the local outbox over to the store; trying at the next start", {
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/** Clamp warnings go to the service log as one `warn` line each. */
const logClampWarning: ClampWarning = (entry) => {
  const { msg, ...fields } = entry;
  log("warn", typeof msg === "string" ? msg : "search query clamped", fields);
};

/**
 * Opens `service.search.backend`: the embedded engine in `db` (the service's own SQLite
 * file; also answered as `embedded`, for the workers that write on its behalf), or an
 * OpenSearch client for the nodes of `service.search.opensearch.node` (connects lazily).
 * Throws a ConfigError when the configured CA file cannot be used.
 */
function openSearchEngine(
  config: ServiceConfig,
  db: DatabaseSync,
): { engine: SearchEngine; embedded?: EmbeddedSearchEngine } {
  const search = config.service.search;
  const limits = search.query;
  if (search.backend === "opensearch") {
    const { caFile } = search.opensearch;
    const engine = new OpenSearchEngine({
      node: search.opensearch.node,
      username: search.opensearch.username,
      password: search.opensearch.password,
      caCertificates: caFile
        ? readCaCertificates(caFile, "service.search.opensearch.caFile")
        : undefined,
      limits,
      warn: logClampWarning,
      rawSearchTimeoutMs: search.opensearch.dsl.timeoutMs,
      dslGate: { expensiveQueries: search.opensearch.dsl.expensiveQueries },
      timeouts: search.opensearch.timeouts,
      failFast: config.service.failFast,
    });
    return { engine };
  }
  const embedded = new EmbeddedSearchEngine(db, { limits, warn: logClampWarning });
  return { engine: embedded, embedded };
}
