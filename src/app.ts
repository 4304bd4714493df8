/**
 * The Hono app: middleware, routes and error handling. No I/O happens at import time; all
 * dependencies come in through {@link AppDeps}.
 */
import { Hono } from "hono";
import type { AppEnv } from "./http/app_env.ts";
import type { AppDeps } from "./routes/app_deps.ts";
import { requestId } from "./http/request_id.ts";
import { accessLog } from "./http/access_log.ts";
import { requestMetrics } from "./http/request_metrics.ts";
import { authenticate, requireRole, securityOn } from "./http/auth.ts";
import { CollectionGate } from "./http/collection_gate.ts";
import { localCallersOnly } from "./http/local_callers.ts";
import { corsForOrigins } from "./http/cors.ts";
import { handleError, handleNotFound } from "./http/errors.ts";
import { healthRoutes } from "./routes/health.ts";
import { itemRoutes } from "./routes/items.ts";
import { itemHistoryRoutes } from "./routes/item_history.ts";
import { changeRoutes } from "./routes/changes.ts";
import { historyAdminRoutes } from "./routes/history_admin.ts";
import { webhookAdminRoutes } from "./routes/webhooks_admin.ts";
import { downloadRoutes } from "./routes/downloads.ts";
import { hashRoutes } from "./routes/hash.ts";
import { initializeRoutes } from "./routes/initialize.ts";
import { toolRoutes } from "./routes/tools.ts";
import { workbenchRoutes } from "./routes/workbench.ts";
import { catalogRoutes } from "./routes/catalog.ts";
import { sparqlProtocolRoutes } from "./routes/sparql_protocol.ts";
import { indexingRoutes } from "./routes/indexing.ts";
import { bulkRoutes } from "./routes/bulk.ts";
import { searchRoutes } from "./routes/search.ts";
import { labelRoutes } from "./routes/labels.ts";
import { itemCollectionRoutes } from "./routes/item_collections.ts";
import { openApiRoutes } from "./routes/openapi.ts";
import { metricsRoutes } from "./routes/metrics.ts";
import { catalogFreshness } from "./http/catalog_freshness.ts";
import { catalogAdminRoutes } from "./routes/catalog_admin.ts";

/** Builds the whole HTTP surface of the service. */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", requestId());
  app.use("*", accessLog());
  app.use("*", requestMetrics(deps.metrics));
  const tokens = deps.config.service.security.tokens;
  const secured = securityOn(tokens, deps.identities);
  const { origins } = deps.config.service.http.cors;
  if (!secured) app.use("*", localCallersOnly(origins));
  app.use("*", corsForOrigins(origins));
  const gate = new CollectionGate(deps.catalog);
  app.use("*", async (c, next) => {
    c.set("collections", gate);
    c.set("refusals", deps.metrics);
    await next();
  });
  // Reads the token only; each route checks what its contract declares.
  app.use("*", authenticate(tokens, deps.identities));
  app.use("*", async (c, next) => {
    await next();
    c.res.headers.set("X-Service-Version", deps.version);
  });
  // With security on, grants decide what each request sees: read as they stand at its start.
  app.use("*", catalogFreshness(deps.catalog, { everyRequest: secured }));
  app.route("/", healthRoutes(deps));
  app.route("/", openApiRoutes(deps));
  app.route("/", metricsRoutes(deps));
  app.route("/", downloadRoutes(deps));
  app.route("/", hashRoutes(deps));
  app.route("/", initializeRoutes(deps));
  app.route("/", toolRoutes(deps));
  app.route("/", workbenchRoutes(deps));
  app.route("/", catalogRoutes(deps));
  app.route("/", catalogAdminRoutes(deps));
  app.route("/", sparqlProtocolRoutes(deps));
  app.route("/", indexingRoutes(deps));
  app.route("/", bulkRoutes(deps));
  app.route("/", historyAdminRoutes(deps));
  app.route("/", webhookAdminRoutes(deps));
  app.route("/", searchRoutes(deps));
  app.route("/", labelRoutes(deps));
  app.route("/", itemCollectionRoutes(deps));
  app.route("/", itemHistoryRoutes(deps));
  app.route("/", changeRoutes(deps));
  app.route("/", itemRoutes(deps));
  // A request no route takes needs a valid token too, so that 404 tells strangers nothing.
  app.notFound((c) => {
    requireRole(c, "authenticated");
    return handleNotFound(c);
  });
  app.onError(handleError);
  return app;
}
