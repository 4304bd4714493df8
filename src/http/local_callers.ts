/**
 * Without tokens every caller is an admin, which is safe only if every caller is on this
 * machine. Binding to loopback (enforced at start-up) keeps remote hosts out, but not web
 * pages: a browser on this machine sends a hostile site's requests to 127.0.0.1 too
 * (simple POSTs need no CORS preflight), and DNS rebinding makes a foreign name point at
 * loopback. So, in this mode, a request must name a loopback host, and a browser request
 * must come from a loopback origin (the query page's own requests do) or one the operator
 * listed in `service.http.cors.origins`, whose pages are trusted as local callers.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./app_env.ts";
import { isLoopbackHost } from "./loopback.ts";
import { DomainError } from "../errors/domain_error.ts";

/** Refuses requests for a foreign `Host`, or from a foreign, unlisted `Origin`, with 403. */
export function localCallersOnly(listedOrigins: readonly string[]): MiddlewareHandler<AppEnv> {
  const listed = new Set(listedOrigins);
  return async (c, next) => {
    const host = c.req.header("host");
    if (host !== undefined && !isLoopbackHost(hostnameOf(`http://${host}`) ?? host)) {
      throw refused("host", `The Host '${host}' is not a loopback name.`);
    }
    const origin = c.req.header("origin");
    if (origin !== undefined && !listed.has(origin) && !isLoopbackHost(hostnameOf(origin) ?? "")) {
      throw refused("origin", `Requests from the origin '${origin}' are refused.`);
    }
    await next();
  };
}

function hostnameOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

function refused(header: "host" | "origin", detail: string): DomainError {
  return new DomainError("foreign-caller", {
    detail: `${detail} Without access tokens the service only serves callers on this machine; ` +
      "configure service.security.tokens to serve others.",
    errors: [{ path: header, message: "not a loopback name" }],
  });
}
