/** `POST /api/item/initialize`: the body plus the collection's default data (API.md). */
import { Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "../app_deps.ts";
import { iriList, requiredIri } from "../http/params.ts";
import { readRdfBody } from "../http/rdf_body.ts";
import { serializeRdf } from "../rdf/serialize.ts";
import { mediaTypeOf } from "./downloads.ts";

/** The initialise route. */
export function initializeRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post("/api/item/initialize", async (c) => {
    const collection = requiredIri(c, "collection");
    const uris = iriList(c, "uri", { min: 1 });
    deps.catalog.collection(collection);
    const body = await readRdfBody(c, {
      maxBodyBytes: deps.config.service.http.maxBodyBytes,
      contexts: deps.jsonldContexts,
      accept: "json",
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
