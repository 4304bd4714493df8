/** `GET /openapi.json`: the OpenAPI 3.1 description of every route (API.md, Operations). */
import { Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { handle, type RouteContract } from "../http/route_contract.ts";
import { requiredRole } from "../http/auth.ts";
import { buildOpenApiDocument } from "../openapi/document.ts";
import { ALL_CONTRACTS } from "./contracts/all.ts";
import { openApiDocument } from "./contracts/operations.ts";
import { searchItemsWithDsl } from "./contracts/search.ts";

/** The OpenAPI route. */
export function openApiRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Built on first use, then served as is: the contracts and the version never change.
  let document: string | undefined;
  handle(app, openApiDocument, (c) => {
    document ??= JSON.stringify(buildOpenApiDocument(configuredContracts(deps), {
      version: deps.version,
    }));
    return c.body(document, 200, { "Content-Type": "application/json" });
  });
  return app;
}

/** The contracts with the role the configuration gives the raw query DSL. */
function configuredContracts(deps: AppDeps): RouteContract[] {
  const { method, path } = searchItemsWithDsl;
  const dslRole: RouteContract["access"] =
    requiredRole(method, path, deps.config.service.search.dsl.role) ?? "open";
  return ALL_CONTRACTS.map((contract) =>
    contract === searchItemsWithDsl ? { ...contract, access: dslRole } : contract
  );
}
