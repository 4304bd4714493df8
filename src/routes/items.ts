/** `/api/item`: create, read, update, delete (docs/api.md, Items). */
import { Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { readQuery } from "../http/read_query.ts";
import { handle } from "../http/route_contract.ts";
import { readRdfBody } from "../http/rdf_body.ts";
import { formatEtag, parseEtagCondition } from "../http/etag.ts";
import { negotiateFormat, type RdfFormat } from "../rdf/formats.ts";
import type { ParseOptions } from "../rdf/parse.ts";
import {
  ITEM_READ_DEFAULT,
  ITEM_READ_FORMATS,
  mediaTypeOf,
  registeredTypesOf,
} from "./media_types.ts";
import { createItem, deleteItem, readItem, updateItem } from "./contracts/items.ts";
import { itemReadResponse } from "./item_reads.ts";
import { DomainError } from "../errors/domain_error.ts";
import { author } from "../http/auth.ts";

/** The 406's list of what an item is available as. */
const READ_TYPES = registeredTypesOf(ITEM_READ_FORMATS).join(", ");

/** The item routes. */
export function itemRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const bodyOptions = {
    maxBodyBytes: deps.config.service.http.maxBodyBytes,
    contexts: deps.jsonldContexts,
    accept: "any" as const,
    // Parsed and hashed as an item on a worker thread (src/items/rdf_work.ts).
    parser: (text: string, format: RdfFormat | "json", options: ParseOptions) =>
      deps.rdfWork.parse(text, format, { baseIri: options.baseIri, item: true }),
  };

  handle(app, createItem, async (c) => {
    // An unknown collection is the items service's 404.
    const { collection, item, base } = readQuery(c, createItem);
    const record = await deps.rdfWork.writing(async () => {
      const body = await readRdfBody(c, { ...bodyOptions, baseIri: base });
      return await deps.items.create(collection, item, body.quads, { principal: author(c) });
    });
    const location = `/api/item?collection=${encodeURIComponent(collection)}&item=${
      encodeURIComponent(record.uri)
    }`;
    c.header("Location", location);
    c.header("ETag", formatEtag(record.hash));
    return c.json({ uri: record.uri }, 201);
  });

  handle(app, readItem, async (c) => {
    const { collection, item, version } = readQuery(c, readItem);
    const format = negotiateFormat(c.req.header("accept"), ITEM_READ_FORMATS, ITEM_READ_DEFAULT);
    if (!format) {
      throw new DomainError("not-acceptable", {
        detail: `No acceptable RDF format; this resource is available as ${READ_TYPES}.`,
      });
    }
    const request = { collection, item, version, timeGate: true };
    return await itemReadResponse(c, deps, request, format, (record) => ({
      "Content-Type": mediaTypeOf(format),
      ETag: formatEtag(record.hash),
      Vary: "Accept",
    }));
  });

  handle(app, updateItem, async (c) => {
    const { collection, item, base } = readQuery(c, updateItem);
    const ifMatch = parseEtagCondition(c.req.header("if-match"));
    const record = await deps.rdfWork.writing(async () => {
      const body = await readRdfBody(c, { ...bodyOptions, baseIri: base });
      return await deps.items.update(collection, item, body.quads, ifMatch, {
        principal: author(c),
      });
    });
    return c.body(null, 204, { ETag: formatEtag(record.hash) });
  });

  handle(app, deleteItem, async (c) => {
    const { collection, item } = readQuery(c, deleteItem);
    const ifMatch = parseEtagCondition(c.req.header("if-match"));
    await deps.items.delete(collection, item, ifMatch, author(c));
    return c.body(null, 204);
  });

  return app;
}
