/**
 * `GET /api/workspaces`: the configured workspaces and collections with how many items the
 * store holds in each: what a client (the workbench's landing page among them) needs to
 * know which collections there are without reading customer.yml. Each caller sees the
 * collections it may read (docs/SECURITY.md).
 */
import { type Context, Hono } from "hono";
import type { CollectionConfig } from "../config/schema.ts";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { handle } from "../http/route_contract.ts";
import { listWorkspaces } from "./contracts/catalog.ts";
import { mayUseCollection } from "../http/collection_access.ts";
import { requirePrincipal } from "../http/auth.ts";
import { type CollectionRight, hasRole } from "../catalog/access_policy.ts";

/** The catalogue route. */
export function catalogRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  handle(app, listWorkspaces, async (c) => {
    const workspaces = [];
    const principal = requirePrincipal(c);
    for (const { workspace, source } of deps.catalog.workspaceEntries()) {
      // The caller's view: the collections it may read, and no workspace it sees none of.
      const readable = workspace.collections.filter((collection) =>
        mayUseCollection(c, collection.uri, "read")
      );
      const seen = readable.length > 0 ||
        (workspace.collections.length === 0 && hasRole(principal.role, "reader"));
      if (!seen) continue;
      const collections = [];
      for (const collection of readable) {
        collections.push({
          uri: collection.uri,
          name: collection.name,
          index: collection.index,
          items: await countItems(deps, collection.uri),
          source: deps.catalog.collection(collection.uri).source ?? "config",
          ...rightsOf(c, collection),
        });
      }
      workspaces.push({ uri: workspace.uri, name: workspace.name, source, collections });
    }
    return c.json(workspaces);
  });
  return app;
}

/** The store lists a collection's item records in pages; counting them reads no graph. */
async function countItems(deps: AppDeps, collection: string): Promise<number> {
  let count = 0;
  for await (const _record of deps.store.listItems(collection)) count++;
  return count;
}

/** The caller's rights on a readable collection, and its grants for those who may write it. */
function rightsOf(c: Context<AppEnv>, collection: CollectionConfig) {
  const rights = RIGHTS.filter((right) => mayUseCollection(c, collection.uri, right));
  const write = rights.includes("write");
  return { rights, ...(write ? { access: collection.access ?? null } : {}) };
}

const RIGHTS: CollectionRight[] = ["read", "write", "export", "maintain"];
