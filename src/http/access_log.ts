/** One structured log line per request: method, path, status, duration, request id. */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./app_env.ts";
import { log } from "../log/logger.ts";

/** Logs after the response is ready (for streams: when headers are sent). */
export function accessLog(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    log("info", "request", {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      requestId: c.get("requestId"),
    });
  };
}
