/** `GET /openapi.json`: the OpenAPI 3.1 description of every route (docs/api.md, Operations). */
import { Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { handle } from "../http/route_contract.ts";
import { buildOpenApiDocument } from "../openapi/document.ts";
import { configuredContracts } from "./access.ts";
import { openApiDocument } from "./contracts/operations.ts";

/** The OpenAPI route. */
export function openApiRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Built on first use, then served as is: the contracts and the version never change.
  let document: string | undefined;
  handle(app, openApiDocument, (c) => {
    document ??= JSON.stringify(
      buildOpenApiDocument(configuredContracts(deps.config.service.search.opensearch.dsl.role), {
        version: deps.version,
      }),
    );
    return c.body(document, 200, { "Content-Type": "application/json" });
  });
  return app;
}
