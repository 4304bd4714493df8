/**
 * Builds the running service from its configuration: the local database, the chosen triple
 * store and search engine, and the domain services on top. Everything here is I/O, kept out
 * of `app.ts` so the app can be built from any set of dependencies.
 */
import { join, resolve } from "node:path";
import { readFileSync } from "node:fs";
import type { ServiceConfig } from "./config/schema.ts";
import type { AppDeps } from "./app_deps.ts";
import { Catalog } from "./catalog/catalog.ts";
import { LOCAL_DB_FILE, openLocalDatabase } from "./store/local_db.ts";
import type { DatabaseSync } from "node:sqlite";
import { EmbeddedTripleStore } from "./store/embedded.ts";
import { SparqlTripleStore } from "./store/sparql.ts";
import type { TripleStore } from "./store/triple_store.ts";
import { ItemCache } from "./store/item_cache.ts";
import { CachingTripleStore } from "./store/caching_triple_store.ts";
import { ItemService } from "./items/item_service.ts";
import { CollectionShapes } from "./items/shacl_validator.ts";
import { Initializer } from "./initialize/initializer.ts";
import { buildSearchEngine } from "./search/build_engine.ts";
import { collectionResolver } from "./indexing/index_item.ts";
import { JobStore } from "./indexing/job_store.ts";
import { IndexJobRunner } from "./indexing/job_runner.ts";
import { IndexOutboxWorker } from "./indexing/outbox_worker.ts";
import { canonicalHash } from "./rdf/canonical_hash.ts";
import { SERVICE_VERSION } from "./version.ts";

/** The dependencies plus a way to release them. */
export interface Services {
  deps: AppDeps;
  close(): Promise<void>;
}

/** Opens every backend the configuration names. */
export function buildServices(config: ServiceConfig): Services {
  const dataDir = config.service.data.dir;
  const db = openLocalDatabase(dataDir);
  const dbPath = dataDir === ":memory:" ? undefined : join(resolve(dataDir), LOCAL_DB_FILE);
  const maxWorkFactor = config.service.hash.maxWorkFactor;
  const hash = async (quads: Parameters<typeof canonicalHash>[0]) =>
    (await canonicalHash(quads, { maxWorkFactor })).hash;
  const store = withItemCache(openTripleStore(config, db, dbPath), config);
  const catalog = new Catalog(config.workspaces);
  const shapes = new CollectionShapes(config.workspaces);
  const items = new ItemService(store, catalog, hash, shapes.active ? shapes : undefined);
  const search = buildSearchEngine(config, db);
  const searchIndexes = collectionResolver(config, catalog);
  const indexOutbox = new IndexOutboxWorker({ db, store, engine: search, resolve: searchIndexes });
  const indexJobs = new IndexJobRunner({
    jobs: new JobStore(db),
    store,
    engine: search,
    catalog,
    resolve: searchIndexes,
    changes: indexOutbox,
    batchSize: config.service.search.indexing.batchSize,
  });
  const deps: AppDeps = {
    config,
    catalog,
    store,
    items,
    initializer: new Initializer(catalog, store),
    search,
    searchIndexes,
    indexJobs,
    indexOutbox,
    jsonldContexts: loadJsonLdContexts(config.service.jsonld.contexts),
    readiness: {
      outbox: () => Promise.resolve({ ok: true, detail: indexOutbox.backlog() }),
      search: () => search.health(),
      ...(store instanceof CachingTripleStore
        ? { itemCache: () => Promise.resolve({ ok: true, detail: describeCache(store.cache) }) }
        : {}),
    },
    version: SERVICE_VERSION,
  };
  indexOutbox.start();
  return {
    deps,
    close: async () => {
      await indexJobs.close();
      await indexOutbox.stop();
      await search.close();
      await store.close();
      db.close();
    },
  };
}

/** The configured triple store: the SQLite file, or a SPARQL 1.1 endpoint. */
function openTripleStore(config: ServiceConfig, db: DatabaseSync, dbPath?: string): TripleStore {
  const { backend, sparql } = config.service.store;
  if (backend === "embedded") return new EmbeddedTripleStore(db, dbPath);
  return new SparqlTripleStore({
    // The schema requires the three URLs when the backend is sparql.
    queryUrl: sparql.queryUrl!,
    updateUrl: sparql.updateUrl!,
    graphStoreUrl: sparql.graphStoreUrl!,
    username: sparql.username,
    password: sparql.password,
    timeoutMs: sparql.timeoutMs,
    retries: sparql.retries,
    graphTemplate: sparql.graphTemplate,
    metadataGraph: sparql.metadataGraph,
    queryDefaultGraph: sparql.queryDefaultGraph,
  }, db);
}

/** The store behind an item cache, unless `service.store.cache.maxBytes` is 0. */
function withItemCache(store: TripleStore, config: ServiceConfig) {
  const { maxBytes } = config.service.store.cache;
  if (maxBytes === 0) return store;
  return new CachingTripleStore(store, new ItemCache({ maxBytes }));
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
