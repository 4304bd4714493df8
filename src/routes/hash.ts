/**
 * `/api/item/hash`: the stable hash of RDF data sent in the body — of a GET, as the original
 * API contract defines it (served through node:http so the body arrives), or of a POST.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { readQuery } from "../http/read_query.ts";
import { handle } from "../http/route_contract.ts";
import { readRdfBodyText } from "../http/rdf_body.ts";
import { HASH_EXTRA_FORMATS, HASH_QUERY, hashGet, hashPost } from "./contracts/hash.ts";

/** The hash routes. */
export function hashRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const handler = async (c: Context<AppEnv>) => {
    const { collection, base } = readQuery(c, { query: HASH_QUERY });
    deps.catalog.require(collection);
    const body = await readRdfBodyText(c, {
      maxBodyBytes: deps.config.service.http.maxBodyBytes,
      contexts: deps.jsonldContexts,
      accept: "json",
      extra: HASH_EXTRA_FORMATS,
    });
    // Parsed and hashed on a worker thread: a large body would hold the request thread.
    try {
      return c.json(await deps.rdfWork.hashBody(body.text, body.format, base));
    } catch (error) {
      throw body.explain(error);
    }
  };
  handle(app, hashGet, handler);
  handle(app, hashPost, handler);
  return app;
}
