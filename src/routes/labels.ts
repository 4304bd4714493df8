/**
 * `GET /api/labels` (docs/api.md, Labels): what the workbench shows beside IRIs, for a whole page
 * in one request and one store query.
 */
import { Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { readQuery } from "../http/read_query.ts";
import { handle } from "../http/route_contract.ts";
import { findLabels, MAX_LABEL_IRIS } from "../items/labels.ts";
import { languagesOf } from "../rdf/labels.ts";
import { prefixesOf, WELL_KNOWN_PREFIXES } from "../fields/field_paths.ts";
import { getLabels } from "./contracts/labels.ts";
import { DomainError } from "../errors/domain_error.ts";
import { readableScope, scopeOf } from "../http/collection_access.ts";

/** The labels route. */
export function labelRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  handle(app, getLabels, async (c) => {
    const query = readQuery(c, getLabels);
    if (query.iri.length > MAX_LABEL_IRIS) {
      throw new DomainError("invalid-parameter", {
        detail: `At most ${MAX_LABEL_IRIS} IRIs a request; got ${query.iri.length}.`,
        errors: [{ path: "iri", message: `more than ${MAX_LABEL_IRIS}` }],
      });
    }
    const prefixes = query.collection
      ? prefixesOf(deps.catalog.collection(query.collection).collection.context)
      : { ...WELL_KNOWN_PREFIXES };
    const labels = await findLabels(deps.store, query.iri, {
      languages: languagesOf(query.lang ?? c.req.header("accept-language")),
      timeoutMs: deps.config.service.query.timeoutMs,
      maxRows: deps.config.service.query.maxRows,
      scope: scopeOf(readableScope(c)),
    });
    return c.json({ labels, prefixes });
  });
  return app;
}
