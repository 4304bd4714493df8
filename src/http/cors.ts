/**
 * CORS for the origins of `service.http.cors.origins`: pages of those origins may call the
 * service from a browser (preflights answered, response headers readable). A request from
 * any other origin gets no CORS header at all, so the browser keeps its response from the
 * page. Runs before authentication: a preflight never carries the bearer token.
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { AppEnv } from "./app_env.ts";

/** Request headers a page may send beyond the CORS-safelisted ones. */
const ALLOWED_HEADERS = [
  "Authorization",
  "Content-Type",
  "Accept",
  "If-Match",
  "If-None-Match",
  "X-Request-Id",
];

/** Response headers a page may read beyond the CORS-safelisted ones. */
const EXPOSED_HEADERS = [
  "ETag",
  "Location",
  "Content-Disposition",
  "WWW-Authenticate",
  "X-Request-Id",
  "X-Result-Count",
  "X-Results-Truncated",
  "X-Service-Version",
];

/** How long a browser may reuse a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE_S = 600;

/** CORS headers for the listed origins, none for others; nothing when none are listed. */
export function corsForOrigins(origins: readonly string[]): MiddlewareHandler<AppEnv> {
  const listed = new Set(origins);
  const forListed = cors({
    origin: (origin) => listed.has(origin) ? origin : null,
    allowMethods: ["GET", "HEAD", "PUT", "POST", "DELETE"],
    allowHeaders: ALLOWED_HEADERS,
    exposeHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_S,
  });
  return async (c, next) => {
    if (listed.size === 0) return await next();
    // Hono's middleware would still send its method and header lists to any origin.
    if (listed.has(c.req.header("origin") ?? "")) return await forListed(c, next);
    await next();
    // Caches must not hand this response (no Allow-Origin) to a listed origin's page.
    c.header("Vary", "Origin", { append: true });
  };
}
