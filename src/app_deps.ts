/** Everything the HTTP layer needs, built once at start-up (see services.ts). */
import type { ServiceConfig } from "./config/schema.ts";
import type { Catalog } from "./catalog/catalog.ts";
import type { TripleStore } from "./store/triple_store.ts";
import type { ItemService } from "./items/item_service.ts";

/** Dependencies of `createApp`. */
export interface AppDeps {
  config: ServiceConfig;
  catalog: Catalog;
  store: TripleStore;
  items: ItemService;
  /** Local copies of remote JSON-LD contexts (URL → document), loaded at start-up. */
  jsonldContexts: Record<string, unknown>;
  /** Extra readiness checks (search engine, outbox backlog), keyed by name. */
  readiness: Record<string, () => Promise<{ ok: boolean; detail: string | number }>>;
  version: string;
}
