/** Everything the HTTP layer needs, built once at start-up (see services.ts). */
import type { ServiceConfig } from "../config/schema.ts";
import type { Catalog } from "../catalog/catalog.ts";
import type { CatalogAdmin } from "../catalog/catalog_admin.ts";
import type { TripleStore } from "../store/triple_store.ts";
import type { ItemService } from "../items/item_service.ts";
import type { ItemVersions } from "../items/item_versions.ts";
import type { RdfWork } from "../items/rdf_work.ts";
import type { Initializer } from "../initialize/initializer.ts";
import type { SearchEngine } from "../search/search_engine.ts";
import type { CollectionResolver } from "../indexing/index_item.ts";
import type { IndexJobRunner } from "../indexing/job_runner.ts";
import type { IndexOutboxWorker } from "../indexing/outbox_worker.ts";
import type { ImportJobRunner } from "../bulk/import_jobs.ts";
import type { HistoryPruneRunner } from "../items/history_prune_jobs.ts";
import type { ServiceMetrics } from "../metrics/metrics.ts";
import type { SparqlEndpointRegistry } from "../tools/sparql_endpoints.ts";
import type { JwtIdentities } from "../http/auth.ts";
import type { WebhookAdmin } from "../webhooks/webhook_admin.ts";

/** Dependencies of `createApp`. */
export interface AppDeps {
  config: ServiceConfig;
  /** JWT bearer tokens from the identity provider (`service.security.oidc`); unset: off. */
  identities?: JwtIdentities;
  catalog: Catalog;
  /** Run-time workspaces and collections (`/api/admin/collections`). */
  catalogAdmin: CatalogAdmin;
  store: TripleStore;
  items: ItemService;
  /** Items' versions, point-in-time reads and restore (the store's history). */
  itemVersions: ItemVersions;
  /** Parsing and hashing of writes, on worker threads (`service.workers`). */
  rdfWork: RdfWork;
  initializer: Initializer;
  /** The configured search engine and each collection's index in it. */
  search: SearchEngine;
  searchIndexes: CollectionResolver;
  indexJobs: IndexJobRunner;
  indexOutbox: IndexOutboxWorker;
  /** Bulk imports (`/api/admin/import`). */
  importJobs: ImportJobRunner;
  /** History pruning jobs (`/api/admin/history/prune`). */
  pruneJobs: HistoryPruneRunner;
  /** Webhook delivery (`/api/admin/webhooks`); unset: the store keeps no change feed. */
  webhooks?: WebhookAdmin;
  /** The store and `service.sparqlEndpoints`, for the query tool and `/sparql`. */
  sparqlEndpoints: SparqlEndpointRegistry;
  /** Local copies of remote JSON-LD contexts (URL → document), loaded at start-up. */
  jsonldContexts: Record<string, unknown>;
  /** Extra readiness checks (search engine, outbox backlog), keyed by name. */
  readiness: Record<string, () => Promise<{ ok: boolean; detail: string | number }>>;
  /** The Prometheus metrics: the backends' calls are measured as they are built. */
  metrics: ServiceMetrics;
  version: string;
}
