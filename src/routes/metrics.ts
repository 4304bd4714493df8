/** `/metrics`: the Prometheus metrics, read at each scrape. */
import { Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { handle } from "../http/route_contract.ts";
import { metrics } from "./contracts/operations.ts";

/** The metrics route. */
export function metricsRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { registry } = deps.metrics;
  handle(app, metrics, async (c) => {
    return c.body(await registry.metrics(), 200, { "Content-Type": registry.contentType });
  });
  return app;
}
