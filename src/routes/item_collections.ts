/**
 * `GET /api/item/collections` (docs/api.md, `GET /api/item/collections`): where the workbench
 * links an IRI, for a whole page in one request.
 */
import { Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { readQuery } from "../http/read_query.ts";
import { handle } from "../http/route_contract.ts";
import { findHolders, MAX_HOLDER_IRIS } from "../items/item_holders.ts";
import { getItemCollections } from "./contracts/item_collections.ts";
import { DomainError } from "../errors/domain_error.ts";
import { readableScope, scopeOf } from "../http/collection_access.ts";

/** The item-collections route. */
export function itemCollectionRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  handle(app, getItemCollections, async (c) => {
    const query = readQuery(c, getItemCollections);
    if (query.item.length > MAX_HOLDER_IRIS) {
      throw new DomainError("invalid-parameter", {
        detail: `At most ${MAX_HOLDER_IRIS} IRIs a request; got ${query.item.length}.`,
        errors: [{ path: "item", message: `more than ${MAX_HOLDER_IRIS}` }],
      });
    }
    const readable = readableScope(c);
    const collections = await findHolders(deps.store, query.item, {
      collections: readable ?? deps.catalog.collections().map((entry) => entry.collection.uri),
      scope: scopeOf(readable),
      timeoutMs: deps.config.service.query.timeoutMs,
      maxRows: deps.config.service.query.maxRows,
    });
    return c.json({ collections });
  });
  return app;
}
