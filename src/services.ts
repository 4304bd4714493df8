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
import { EmbeddedTripleStore } from "./store/embedded.ts";
import type { TripleStore } from "./store/triple_store.ts";
import { ItemService } from "./items/item_service.ts";
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
  const store: TripleStore = new EmbeddedTripleStore(db, dbPath);
  const catalog = new Catalog(config.workspaces);
  const maxWorkFactor = config.service.hash.maxWorkFactor;
  const hash = async (quads: Parameters<typeof canonicalHash>[0]) =>
    (await canonicalHash(quads, { maxWorkFactor })).hash;
  const items = new ItemService(store, catalog, hash);
  const deps: AppDeps = {
    config,
    catalog,
    store,
    items,
    jsonldContexts: loadJsonLdContexts(config.service.jsonld.contexts),
    readiness: {
      outbox: () => {
        const row = db.prepare("SELECT count(*) AS n FROM index_outbox").get() as { n: number };
        return Promise.resolve({ ok: true, detail: row.n });
      },
    },
    version: SERVICE_VERSION,
  };
  return {
    deps,
    close: async () => {
      await store.close();
      db.close();
    },
  };
}

/** Reads the local copies of the remote JSON-LD contexts that may be used. */
function loadJsonLdContexts(files: Record<string, string>): Record<string, unknown> {
  const contexts: Record<string, unknown> = {};
  for (const [url, path] of Object.entries(files)) {
    contexts[url] = JSON.parse(readFileSync(path, "utf8"));
  }
  return contexts;
}
