/**
 * `/api/item.{ttl,rdf,nt,n3,jsonld}`: an item as a file, streamed (docs/api.md, Item
 * downloads).
 */
import { Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { readQuery } from "../http/read_query.ts";
import { handle } from "../http/route_contract.ts";
import { formatEtag } from "../http/etag.ts";
import { itemReadResponse } from "./item_reads.ts";
import { DOWNLOAD_FORMATS, mediaTypeOf } from "./media_types.ts";
import { DOWNLOAD_CONTRACTS } from "./contracts/downloads.ts";

/**
 * A file name that is safe in a Content-Disposition header and on any file system: the
 * last path segment of the item URI, reduced to letters, digits, `.`, `_` and `-`.
 */
export function safeFileName(uri: string): string {
  const segment = uri.replace(/[#/?]+$/, "").split(/[/#?:]/).pop() ?? "";
  const cleaned = segment.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^[._]+/, "").slice(0, 100);
  return cleaned || "item";
}

/** The download routes. */
export function downloadRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  for (const [extension, format] of Object.entries(DOWNLOAD_FORMATS)) {
    const contract = DOWNLOAD_CONTRACTS[extension];
    handle(app, contract, async (c) => {
      const { collection, item, version } = readQuery(c, contract);
      const request = { collection, item, version, timeGate: false };
      return await itemReadResponse(c, deps, request, format, (record) => ({
        "Content-Type": mediaTypeOf(format),
        "Content-Disposition": `attachment; filename="${safeFileName(item)}.${extension}"`,
        ETag: formatEtag(record.hash),
      }));
    });
  }
  return app;
}
