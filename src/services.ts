/**
 * Builds the running service from its configuration: the local database, the chosen triple
 * store and search engine, and the domain services on top. Everything here is I/O, kept out
 * of `app.ts` so the app can be built from any set of dependencies.
 */
import { join, resolve } from "node:path";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { ServiceConfig } from "./config/schema.ts";
import { readCaCertificates } from "./config/ca_file.ts";
import type { AppDeps } from "./routes/app_deps.ts";
import { Catalog } from "./catalog/catalog.ts";
import { CatalogAdmin } from "./catalog/catalog_admin.ts";
import type { CatalogStore } from "./catalog/catalog_store.ts";
import { SqliteCatalogStore } from "./catalog/sqlite_catalog_store.ts";
import { SparqlCatalogStore } from "./catalog/sparql_catalog_store.ts";
import { LOCAL_DB_FILE } from "./sqlite/local_db.ts";
import { openLocalDatabase } from "./local_database.ts";
import { storageReadiness, withStorageFaults } from "./sqlite/storage_faults.ts";
import type { DatabaseSync } from "node:sqlite";
import { EmbeddedTripleStore } from "./store_embedded/embedded_triple_store.ts";
import { SparqlTripleStore } from "./store_sparql/sparql_triple_store.ts";
import type { TripleStore } from "./store/triple_store.ts";
import { ItemCache } from "./store/item_cache.ts";
import { CachingTripleStore } from "./store/caching_triple_store.ts";
import { ItemService } from "./items/item_service.ts";
import { SparqlEndpointRegistry } from "./tools/sparql_endpoints.ts";
import { CollectionShapes, collectionShapesProblem } from "./items/shacl_validator.ts";
import { Initializer, initializeRulesProblem } from "./initialize/initializer.ts";
import { collectionResolver } from "./indexing/index_item.ts";
import type { JobStore } from "./jobs/job_store.ts";
import type { IndexOutbox } from "./store/index_outbox.ts";
import { log } from "./log/logger.ts";
import { SqliteJobStore } from "./job_stores/sqlite_job_store.ts";
import { SparqlJobStore } from "./job_stores/sparql_job_store.ts";
import { SparqlHttpClient } from "./sparql_protocol/client.ts";
import { CLOCK_ALLOWANCE_MS, IndexJobRunner } from "./indexing/job_runner.ts";
import type { IndexJob, JobRebuild } from "./indexing/index_job.ts";
import { type ImportJob, ImportJobRunner } from "./bulk/import_jobs.ts";
import { SqliteKindJobStore } from "./job_stores/sqlite_kind_job_store.ts";
import { IndexOutboxWorker } from "./indexing/outbox_worker.ts";
import { IndexBatchPool } from "./indexing/index_batch_pool.ts";
import { leaveCheckpointsToOthers } from "./sqlite/wal_checkpoints.ts";
import type { IndexBatchWorkerSetup, OutboxApplied, OutboxWork } from "./index_batch_worker.ts";
import type { OutboxBatch } from "./indexing/outbox_batch.ts";
import { RdfWork } from "./items/rdf_work.ts";
import type { Quad } from "n3";
import { SERVICE_VERSION } from "./version.ts";
import { ServiceMetrics } from "./metrics/metrics.ts";
import { looksLikeJwt, OidcVerifier } from "./http/oidc.ts";
import type { JwtIdentities } from "./http/auth.ts";
import type { ClampWarning } from "./search/clamp.ts";
import { EmbeddedSearchEngine } from "./search_embedded/embedded_search_engine.ts";
import { OpenSearchEngine } from "./search_opensearch/opensearch_engine.ts";
import type { SearchEngine } from "./search/search_engine.ts";
import { CircuitBreaker, engineDown } from "./backend/circuit_breaker.ts";
import { displayUrl } from "./log/display_url.ts";

/** The dependencies plus a way to release them. */
export interface Services {
  deps: AppDeps;
  /**
   * Checks the store can be driven (remote_sparql/capabilities.ts); throws `StoreIncapable`
   * naming the behaviour it lacks. Nothing to check on the embedded store.
   */
  checkStore(): Promise<void>;
  close(): Promise<void>;
}

/** Opens every backend the configuration names. */
export function buildServices(config: ServiceConfig): Services {
  const dataDir = config.service.data.dir;
  const db = openLocalDatabase(dataDir);
  const dbPath = dataDir === ":memory:" ? undefined : join(resolve(dataDir), LOCAL_DB_FILE);
  const jsonldContexts = loadJsonLdContexts(config.service.jsonld.contexts);
  const rdfWork = new RdfWork({
    workers: config.service.workers.count,
    maxQueue: config.service.workers.queue,
    contexts: jsonldContexts,
    maxWorkFactor: config.service.hash.maxWorkFactor,
  });
  const hash = (quads: Quad[]) => rdfWork.hash(quads);
  const metrics = new ServiceMetrics();
  // Timed beneath the item cache: the metrics tell how the store itself answers.
  const { store: backing, checkCapabilities } = openTripleStore(config, db, dbPath, hash);
  const cache = itemCache(config);
  const timedStore = metrics.timed("store", backing);
  const store = cache ? new CachingTripleStore(timedStore, cache) : timedStore;
  const metadata = sparqlMetadata(config);
  const catalog = new Catalog(config.workspaces, openCatalogStore(metadata, db));
  void catalog.ready();
  // One instance owns an embedded store: its own writes are all the changes there are.
  if (store.kind === "sparql") catalog.startPolling(CATALOG_POLL_MS);
  const shapes = new CollectionShapes(config.workspaces);
  const items = new ItemService(store, catalog, hash, shapes);
  const indexBatchPool = openIndexBatchPool(config, dataDir, store.kind);
  // The workers' connections write the file after every store write (the outbox's documents):
  // their commits take the log's checkpoints, off the request thread.
  if (indexBatchPool) leaveCheckpointsToOthers(db);
  const engine = buildSearchEngine(config, db);
  const search = metrics.timed("search", engine);
  const searchIndexes = collectionResolver(config, catalog);
  const catalogAdmin = new CatalogAdmin(
    catalog,
    catalog.store!,
    (collection) => {
      const problem = initializeRulesProblem(collection) ?? collectionShapesProblem(collection);
      if (problem) throw problem;
    },
    async (collection) => {
      for await (const _ of store.listItems(collection)) return true;
      return false;
    },
  );
  const { leaseMs } = config.service.cluster;
  const indexOutbox = new IndexOutboxWorker({
    store,
    engine: search,
    resolve: searchIndexes,
    refreshCatalog: () => catalog.refresh(),
    leaseMs,
    applyBatch: indexBatchPool && engine instanceof EmbeddedSearchEngine
      ? outboxBatchesOn(indexBatchPool, engine)
      : undefined,
  });
  const owner = instanceId(dataDir);
  const indexJobs = new IndexJobRunner({
    jobs: openJobStore(metadata, db, leaseMs),
    store,
    engine: search,
    catalog,
    resolve: searchIndexes,
    // A job re-queues what it may have indexed stale; the outbox worker applies it.
    outbox: store.outbox,
    batchSize: config.service.search.indexing.batchSize,
    owner,
    leaseMs,
    // Only a shared store can hold jobs of other instances that died.
    sweepIntervalMs: store.kind === "sparql" ? leaseMs / 2 : undefined,
    // One instance, one clock: no allowance for clocks that differ (see CLOCK_ALLOWANCE_MS).
    clockAllowanceMs: store.kind === "embedded" ? 0 : CLOCK_ALLOWANCE_MS,
    indexBatch: indexBatchPool?.run,
  });
  const importJobs = new ImportJobRunner({
    jobs: openImportJobStore(metadata, db, leaseMs),
    items,
    rdfWork,
    catalog,
    maxItemBytes: config.service.http.maxBodyBytes,
    jsonldContexts,
    owner,
    leaseMs,
    sweepIntervalMs: store.kind === "sparql" ? leaseMs / 2 : undefined,
  });
  const deps: AppDeps = {
    config,
    identities: jwtIdentities(config),
    catalog,
    catalogAdmin,
    store,
    items,
    rdfWork,
    initializer: new Initializer(catalog, store),
    search,
    searchIndexes,
    indexJobs,
    indexOutbox,
    importJobs,
    sparqlEndpoints: new SparqlEndpointRegistry(
      config,
      store,
      () => catalog.collections().map((entry) => entry.collection.uri),
    ),
    jsonldContexts,
    readiness: {
      outbox: async () => {
        try {
          return { ok: true, detail: await indexOutbox.backlog() };
        } catch (error) {
          return { ok: false, detail: error instanceof Error ? error.message : String(error) };
        }
      },
      search: () => search.health(),
      // Never failing: the rest of the backlog goes on; the count says what is missing.
      deadLetters: () => Promise.resolve({ ok: true, detail: indexOutbox.deadLetters.describe() }),
      ...(dataDir === ":memory:" ? {} : { storage: () => Promise.resolve(storageReadiness(db)) }),
      ...(cache
        ? { itemCache: () => Promise.resolve({ ok: true, detail: describeCache(cache) }) }
        : {}),
    },
    metrics,
    version: SERVICE_VERSION,
  };
  metrics.observe({
    outbox: indexOutbox,
    jobs: indexJobs,
    cache,
  });
  if (store.kind === "sparql") void handOverLocalOutbox(db, store.outbox);
  indexOutbox.start();
  return {
    deps,
    checkStore: async () => {
      await checkCapabilities?.();
    },
    close: async () => {
      catalog.close();
      await importJobs.close();
      await indexJobs.close();
      // The outbox writes through the workers: stopped first, its batch in flight lands.
      await indexOutbox.stop();
      await indexBatchPool?.close();
      await search.close();
      await store.close();
      storeBreakers.get(config)?.close();
      rdfWork.close();
      db.close();
    },
  };
}

/**
 * Worker threads for indexing jobs' batches and the embedded engine's document writes when
 * both engines live in the SQLite file (the workers open it too) and
 * `service.search.indexing.workers` asks for some; otherwise both run on the request thread.
 */
function openIndexBatchPool(
  config: ServiceConfig,
  dataDir: string,
  storeKind: TripleStore["kind"],
): IndexBatchPool<OutboxWork, OutboxApplied> | undefined {
  const { workers } = config.service.search.indexing;
  const searchKind = config.service.search.backend;
  if (dataDir === ":memory:" || storeKind !== "embedded" || searchKind !== "embedded") return;
  if (workers === 0) return;
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
  db: DatabaseSync,
  dbPath: string | undefined,
  hash: (quads: Quad[]) => Promise<string>,
): { store: TripleStore; checkCapabilities?: () => Promise<unknown> } {
  const { backend, sparql, groupCommit } = config.service.store;
  if (backend === "embedded") {
    // A full or read-only data directory answers 507 rather than a bare 500.
    return { store: withStorageFaults(db, new EmbeddedTripleStore(db, dbPath, groupCommit)) };
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
  return { store, checkCapabilities: () => store.checkCapabilities() };
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

/** How often an instance on a shared store looks whether the catalog changed. */
const CATALOG_POLL_MS = 1000;

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
 * This instance's name in shared records (indexing jobs), kept in the data dir: an instance
 * that starts again on the same data dir knows the jobs it was running were cut off.
 */
function instanceId(dataDir: string): string {
  if (dataDir === ":memory:") return crypto.randomUUID();
  const file = join(dataDir, "instance-id");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const id = crypto.randomUUID();
  writeFileSync(file, id);
  return id;
}

/** The item cache in front of the store, unless `service.store.cache.maxBytes` is 0. */
function itemCache(config: ServiceConfig): ItemCache | undefined {
  const { maxBytes } = config.service.store.cache;
  return maxBytes === 0 ? undefined : new ItemCache({ maxBytes });
}

/** The item cache's use in one line, e.g. "12 items, 1.5 of 64.0 MiB, 93% hits (…)". */
function describeCache(cache: ItemCache): string {
  const { hits, misses, entries, bytes, evictions } = cache.stats();
  const mib = (n: number) => (n / (1024 * 1024)).toFixed(1);
  const reads = hits + misses;
  const rate = reads === 0 ? "no reads yet" : `${Math.round(hits * 100 / reads)}% hits`;
  return `${entries} items, ${mib(bytes)} of ${mib(cache.maxBytes)} MiB, ${rate} ` +
    `(${hits} hits, ${misses} misses), ${evictions} evictions`;
}

/** Reads the local copies of the remote JSON-LD contexts that may be used. */
function loadJsonLdContexts(files: Record<string, string>): Record<string, unknown> {
  const contexts: Record<string, unknown> = {};
  for (const [url, path] of Object.entries(files)) {
    contexts[url] = JSON.parse(readFileSync(path, "utf8"));
  }
  return contexts;
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
 * Builds `service.search.backend`: the embedded engine in `db` (the service's own SQLite
 * file), or an OpenSearch client for the nodes of `service.search.opensearch.node`
 * (connects lazily). Throws a ConfigError when the configured CA file cannot be used.
 */
function buildSearchEngine(config: ServiceConfig, db: DatabaseSync): SearchEngine {
  const search = config.service.search;
  const limits = search.query;
  if (search.backend === "opensearch") {
    const { caFile } = search.opensearch;
    return new OpenSearchEngine({
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
  }
  return new EmbeddedSearchEngine(db, { limits, warn: logClampWarning });
}

/** JWT bearer tokens from the identity provider, when `service.security.oidc` names one. */
function jwtIdentities(config: ServiceConfig): JwtIdentities | undefined {
  const oidc = config.service.security.oidc;
  if (oidc.issuer === undefined || oidc.audience === undefined) return undefined;
  const verifier = new OidcVerifier({
    issuer: oidc.issuer,
    audience: oidc.audience,
    jwksUrl: oidc.jwksUrl,
    jwksFile: oidc.jwksFile,
    groupsClaim: oidc.groupsClaim,
    clockSkewSeconds: oidc.clockSkewSeconds,
  });
  return { looksLikeJwt, verify: (token) => verifier.verify(token), roles: oidc.roles };
}
