/**
 * Keeps the catalog current for the request at hand: waits for its first read of the
 * store, and reads it again when the request names (`collection`, `workspace`) a collection
 * or workspace this instance does not know, since another instance sharing the store may
 * have just made it. Changes to known ones arrive with the catalog's poll (`catalog.ts`).
 *
 * With security on (`everyRequest`), every request reads the catalog's version from the
 * store before it goes on (docs/SECURITY.md): grants are part of the catalog, and a grant
 * revoked on any instance must be refused by the first request that starts after the
 * revocation was answered. A request shares a read only with others that began after it
 * started; if the store cannot be read, the request fails rather than go on with grants that
 * may be stale.
 */
import type { MiddlewareHandler } from "hono";
import type { Catalog } from "../catalog/catalog.ts";
import type { AppEnv } from "./app_env.ts";
import { log } from "../log/logger.ts";

/** Paths that answer without the catalog: they never wait for the store because of it. */
const WITHOUT_CATALOG = new Set(["/health", "/ready", "/metrics", "/openapi.json"]);

/** The middleware over `catalog`. */
export function catalogFreshness(
  catalog: Catalog,
  { everyRequest = false }: { everyRequest?: boolean } = {},
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (WITHOUT_CATALOG.has(c.req.path)) return await next();
    if (everyRequest) {
      await catalog.refreshSince(performance.now());
      return await next();
    }
    await catalog.ready();
    const named = [c.req.query("collection"), c.req.query("workspace")];
    if (named.some((uri) => uri !== undefined && uri !== "" && !catalog.knows(uri))) {
      try {
        await catalog.refresh();
      } catch (error) {
        // The request goes on with the copy it has; the route answers for what it lacks.
        log("warn", "could not read the catalog from the store", {
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    await next();
  };
}
