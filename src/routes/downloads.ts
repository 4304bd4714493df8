/** `/api/item.{ttl,rdf,nt,n3,jsonld}`: an item as a file, streamed (API.md, Item downloads). */
import { Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "../app_deps.ts";
import { requiredIri } from "../http/params.ts";
import { formatEtag, noneMatchHits } from "../http/etag.ts";
import type { RdfFormat } from "../rdf/formats.ts";
import { rdfResponse } from "./rdf_response.ts";

/** Download extensions and the format each serves. */
export const DOWNLOAD_FORMATS: Record<string, RdfFormat> = {
  ttl: "turtle",
  rdf: "rdfxml",
  nt: "ntriples",
  n3: "n3",
  jsonld: "jsonld",
};

const MEDIA_TYPES: Record<RdfFormat, string> = {
  turtle: "text/turtle; charset=utf-8",
  rdfxml: "application/rdf+xml; charset=utf-8",
  ntriples: "application/n-triples; charset=utf-8",
  n3: "text/n3; charset=utf-8",
  jsonld: "application/ld+json",
  rdfjson: "application/rdf+json",
  nquads: "application/n-quads; charset=utf-8",
  trig: "application/trig; charset=utf-8",
};

/** The Content-Type a response in `format` carries. */
export function mediaTypeOf(format: RdfFormat): string {
  return MEDIA_TYPES[format];
}

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
    app.get(`/api/item.${extension}`, async (c) => {
      const collection = requiredIri(c, "collection");
      const item = requiredIri(c, "item");
      const record = await deps.items.record(collection, item);
      const etag = formatEtag(record.hash);
      if (noneMatchHits(c.req.header("if-none-match"), record.hash)) {
        return c.body(null, 304, { ETag: etag });
      }
      const { quads } = await deps.items.read(collection, item);
      return await rdfResponse(quads, format, record.tripleCount, {
        "Content-Type": mediaTypeOf(format),
        "Content-Disposition": `attachment; filename="${safeFileName(item)}.${extension}"`,
        ETag: etag,
      });
    });
  }
  return app;
}
