/**
 * Counts and times every answered request by its route pattern (`/api/admin/index/jobs/:id`),
 * never the raw path, so the metrics' label values stay a bounded set.
 */
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { AppEnv } from "./app_env.ts";
import type { ServiceMetrics } from "../metrics/metrics.ts";

/** The label of requests no route matched (404s, preflights). */
const UNMATCHED = "unmatched";

/** Records each request in `metrics` once it is answered. */
export function requestMetrics(metrics: ServiceMetrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    // The last route matched is the handler's; only the app-wide middleware ("*") is none.
    const pattern = routePath(c, -1);
    const route = pattern === "" || pattern === "*" || pattern === "/*" ? UNMATCHED : pattern;
    metrics.recordRequest(c.req.method, route, c.res.status, (performance.now() - started) / 1000);
  };
}
