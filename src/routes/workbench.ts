/**
 * The workbench (docs/api.md, Workbench): its pages, the files they load, and the old
 * query page's redirect. Thin: the pages are built in src/ui/, their data comes from the API.
 */
import { Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { handle } from "../http/route_contract.ts";
import { notModified } from "../http/etag.ts";
import { renderPage, WORKBENCH_CSP } from "../ui/layout.ts";
import { PAGES } from "../ui/pages.ts";
import { findAsset } from "../ui/assets.ts";
import { sparqlQueryPage, WORKBENCH_PAGES, workbenchAsset } from "./contracts/workbench.ts";
import { DomainError } from "../errors/domain_error.ts";

/** Headers of every page: its script fetches the data, nothing else may run or frame it. */
const PAGE_HEADERS = {
  "Content-Security-Policy": WORKBENCH_CSP,
  "Cache-Control": "no-cache",
  "Referrer-Policy": "no-referrer",
  "X-Content-Type-Options": "nosniff",
};

/** The workbench routes. */
export function workbenchRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const shell = { tokens: deps.config.service.security.tokens.length > 0 };
  for (const [name, contract] of Object.entries(WORKBENCH_PAGES)) {
    const html = renderPage(contract.path, PAGES[name as keyof typeof PAGES], shell);
    handle(app, contract, (c) => c.html(html, 200, PAGE_HEADERS));
  }

  handle(app, workbenchAsset, async (c) => {
    const name = c.req.param("name") ?? "";
    const asset = await findAsset(name);
    if (!asset) {
      throw new DomainError("asset-not-found", {
        detail: `The workbench has no file ${JSON.stringify(name)}.`,
      });
    }
    // Revalidated on each use, so a new version of the service is never served stale.
    const headers = { "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff" };
    return notModified(c, asset.etag, headers) ??
      c.body(asset.body, 200, { ...headers, ETag: asset.etag, "Content-Type": asset.contentType });
  });

  handle(app, sparqlQueryPage, (c) => c.redirect("/ui/sparql", 302));
  return app;
}
