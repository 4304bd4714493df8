/** `GET /admin/sparqlui`: the SPARQL query page (API.md, Admin tools). */
import { Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "../app_deps.ts";
import { sparqlPageHtml } from "../tools/sparql_page_html.ts";
import { handle } from "../http/route_contract.ts";
import { sparqlQueryPage } from "./contracts/tools.ts";

/**
 * The page may run only its own inline style and script, talk only to this service, and
 * not be framed: it is an admin page, so it gets the strictest policy it can live with.
 */
function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The query page route. */
export function sparqlPageRoutes(_deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  handle(app, sparqlQueryPage, (c) => {
    const nonce = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
    return c.html(sparqlPageHtml(nonce), 200, {
      "Content-Security-Policy": contentSecurityPolicy(nonce),
      "Cache-Control": "no-store",
      "Referrer-Policy": "no-referrer",
      "X-Content-Type-Options": "nosniff",
    });
  });
  return app;
}
