/** `POST /api/item/initialize`: the body plus the collection's default data (docs/api.md). */
import { Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { readQuery } from "../http/read_query.ts";
import { handle } from "../http/route_contract.ts";
import { readRdfBody } from "../http/rdf_body.ts";
import { serializeRdf } from "../rdf/serialize.ts";
import { mediaTypeOf } from "./media_types.ts";
import { initializeItem } from "./contracts/initialize.ts";

/** The initialise route. */
export function initializeRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  handle(app, initializeItem, async (c) => {
    // An unknown collection is the initializer's 404.
    const { collection, uri: uris, base } = readQuery(c, initializeItem);
    const body = await readRdfBody(c, {
      maxBodyBytes: deps.config.service.http.maxBodyBytes,
      contexts: deps.jsonldContexts,
      accept: "json",
      baseIri: base,
    });
    const quads = await deps.initializer.initialize(collection, uris, body.quads);
    // Answer in the flavour the request used.
    const format = body.format === "rdfjson" ? "rdfjson" : "jsonld";
    return new Response(serializeRdf(quads, format), {
      headers: { "Content-Type": mediaTypeOf(format) },
    });
  });
  return app;
}
