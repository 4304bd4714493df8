/**
 * Builds the running service from its configuration: the local database, the engines
 * (opened by `engines.ts`, the one file that picks them), and the domain services on top.
 * Everything here is I/O, kept out of `app.ts` so the app can be built from any set of
 * dependencies. It knows the engines only through their contracts.
 */
import { join, resolve } from "node:path";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { ServiceConfig } from "./config/schema.ts";
import type { AppDeps } from "./routes/app_deps.ts";
import { Catalog } from "./catalog/catalog.ts";
import { ChangeRetention } from "./store/change_retention.ts";
import { CatalogAdmin } from "./catalog/catalog_admin.ts";
import { LOCAL_DB_FILE } from "./sqlite/local_db.ts";
import { openLocalDatabase } from "./local_database.ts";
import { storageReadiness } from "./sqlite/storage_faults.ts";
import { ImportJobRunner } from "./bulk/import_jobs.ts";
import { openEngines } from "./engines.ts";
import { ItemCache } from "./store/item_cache.ts";
import { CachingTripleStore } from "./store/caching_triple_store.ts";
import { ItemService } from "./items/item_service.ts";
import { ItemVersions } from "./items/item_versions.ts";
import { HistoryPruneRunner } from "./items/history_prune_jobs.ts";
import { SparqlEndpointRegistry } from "./tools/sparql_endpoints.ts";
import { CollectionShapes, collectionShapesProblem } from "./items/shacl_validator.ts";
import { Initializer, initializeRulesProblem } from "./initialize/initializer.ts";
import { collectionResolver } from "./indexing/index_item.ts";
import { CLOCK_ALLOWANCE_MS, IndexJobRunner } from "./indexing/job_runner.ts";
import { IndexOutboxWorker } from "./indexing/outbox_worker.ts";
import { RdfWork } from "./items/rdf_work.ts";
import type { Quad } from "n3";
import { SERVICE_VERSION } from "./version.ts";
import { ServiceMetrics } from "./metrics/metrics.ts";
import { looksLikeJwt, OidcVerifier } from "./http/oidc.ts";
import type { JwtIdentities } from "./http/auth.ts";
import { WebhookDeliverer, type WebhookEndpoint } from "./webhooks/webhook_deliverer.ts";
import type { WebhookStateStore } from "./webhooks/webhook_state.ts";
import { WebhookAdmin } from "./webhooks/webhook_admin.ts";

/** The dependencies plus a way to release them. */
export interface Services {
  deps: AppDeps;
  /** Checks the store can be driven: `Engines.checkStore` (engines.ts). */
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
  const engines = openEngines(config, { db, dbPath, hash });
  const { indexingWorkers } = engines;
  // Timed beneath the item cache: the metrics tell how the store itself answers.
  const cache = itemCache(config);
  const timedStore = metrics.timed("store", engines.store);
  const store = cache ? new CachingTripleStore(timedStore, cache) : timedStore;
  const shared = store.sharedAcrossInstances;
  const catalog = new Catalog(config.workspaces, engines.catalogStore);
  void catalog.ready();
  // A store of one instance: its own writes are all the changes there are.
  if (shared) catalog.startPolling(CATALOG_POLL_MS);
  const shapes = new CollectionShapes(config.workspaces);
  const items = new ItemService(store, catalog, hash, shapes);
  const search = metrics.timed("search", engines.search);
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
    applyBatch: indexingWorkers?.outboxBatch,
  });
  const owner = instanceId(dataDir);
  const indexJobs = new IndexJobRunner({
    jobs: engines.indexJobStore,
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
    sweepIntervalMs: shared ? leaseMs / 2 : undefined,
    // One instance, one clock: no allowance for clocks that differ (see CLOCK_ALLOWANCE_MS).
    clockAllowanceMs: shared ? CLOCK_ALLOWANCE_MS : 0,
    indexBatch: indexingWorkers?.indexBatch,
  });
  const importJobs = new ImportJobRunner({
    jobs: engines.importJobStore,
    items,
    rdfWork,
    catalog,
    maxItemBytes: config.service.http.maxBodyBytes,
    jsonldContexts,
    owner,
    leaseMs,
    sweepIntervalMs: shared ? leaseMs / 2 : undefined,
  });
  const pruneJobs = new HistoryPruneRunner({
    jobs: engines.pruneJobStore,
    history: store.history,
    catalog,
    defaultRetention: config.service.history.retention,
    owner,
    leaseMs,
    // No sweeps of the shared store for jobs that cannot run on it (a history without prune).
    sweepIntervalMs: shared && store.history?.prune ? leaseMs / 2 : undefined,
  });
  pruneJobs.schedule(config.service.history.pruneIntervalMs);
  // On a shared store, instances share the delivery state and take endpoints by lease.
  const webhooks = store.changes
    ? startWebhooks(config, catalog, store.changes, engines.webhookState, metrics, {
      holder: owner,
      leaseMs,
      // An endpoint whose holder died is taken over within about a lease and a half.
      pollMs: shared ? Math.min(WEBHOOK_POLL_MS, leaseMs / 2) : WEBHOOK_POLL_MS,
    })
    : undefined;
  const deps: AppDeps = {
    config,
    identities: jwtIdentities(config),
    catalog,
    catalogAdmin,
    store,
    items,
    itemVersions: new ItemVersions(store, catalog, items),
    rdfWork,
    initializer: new Initializer(catalog, store),
    search,
    searchIndexes,
    indexJobs,
    indexOutbox,
    importJobs,
    pruneJobs,
    webhooks: webhooks?.admin,
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
    history: store.history,
  });
  indexOutbox.start();
  const changeRetention = store.changes
    ? new ChangeRetention(store.changes, config.service.changes.retentionMs)
    : undefined;
  changeRetention?.start();
  return {
    deps,
    checkStore: () => engines.checkStore(),
    close: async () => {
      catalog.close();
      await webhooks?.deliverer.stop();
      await changeRetention?.stop();
      await importJobs.close();
      await pruneJobs.close();
      await indexJobs.close();
      // The outbox writes through the workers: stopped first, its batch in flight lands.
      await indexOutbox.stop();
      await indexingWorkers?.close();
      await search.close();
      await store.close();
      engines.close();
      rdfWork.close();
      db.close();
    },
  };
}

/** The webhook deliverer's safety-net poll (feed and catalog changes wake it sooner). */
const WEBHOOK_POLL_MS = 5000;

/**
 * Delivers the change feed to every collection's `webhooks`, woken by the feed and by catalog
 * changes. Its state is this instance's file on the embedded store, and the store's metadata
 * graph on a shared one, where each endpoint is delivered by the instance holding its lease.
 */
function startWebhooks(
  config: ServiceConfig,
  catalog: Catalog,
  feed: NonNullable<AppDeps["store"]["changes"]>,
  state: WebhookStateStore,
  metrics: ServiceMetrics,
  lease: { holder: string; leaseMs: number; pollMs: number },
) {
  const endpoints = (): WebhookEndpoint[] =>
    catalog.collections().flatMap(({ collection }) =>
      (collection.webhooks ?? []).map(({ url, secret }) => ({
        collection: collection.uri,
        url,
        secret,
      }))
    );
  const deliverer = new WebhookDeliverer({
    feed,
    state,
    endpoints,
    ...config.service.webhooks,
    ...lease,
    counters: metrics,
  });
  catalog.onChange(() => deliverer.wake());
  deliverer.start();
  return { deliverer, admin: new WebhookAdmin(feed, state, endpoints, deliverer) };
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

/** How often an instance on a shared store looks whether the catalog changed. */
const CATALOG_POLL_MS = 1000;

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
