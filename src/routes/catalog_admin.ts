/**
 * `/api/admin/collections` and `/api/admin/workspaces`: workspaces and collections made,
 * changed and removed at run time (logic in src/catalog/catalog_admin.ts).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { readQuery } from "../http/read_query.ts";
import { handle } from "../http/route_contract.ts";
import { readBodyText } from "../http/body.ts";
import { parseEtagCondition } from "../http/etag.ts";
import { type CollectionEntry, collectionSettings } from "../catalog/catalog.ts";
import {
  createCollection,
  createWorkspace,
  deleteCollection,
  listCollections,
  replaceCollection,
} from "./contracts/catalog_admin.ts";
import { DomainError } from "../errors/domain_error.ts";
import { contractBodyTypes, unsupportedMediaType } from "../http/unsupported_media_type.ts";

/** The settings' media type (JSON), as the contracts name it. */
const SETTINGS_TYPES = contractBodyTypes(createCollection);

/** The catalog admin routes. */
export function catalogAdminRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const admin = deps.catalogAdmin;

  handle(app, listCollections, (c) => {
    const { collection } = readQuery(c, listCollections);
    if (collection === undefined) return c.json(deps.catalog.collections().map(shown));
    const entry = deps.catalog.collection(collection);
    if (entry.revision) c.header("ETag", `"${entry.revision}"`);
    return c.json(shown(entry));
  });

  handle(app, createCollection, async (c) => {
    const entry = await admin.createCollection(await jsonBody(c, deps));
    // Its index exists before the first item is written or searched.
    await deps.search.ensureIndex(deps.searchIndexes(entry.collection.uri).ref);
    c.header(
      "Location",
      `/api/admin/collections?collection=${encodeURIComponent(entry.collection.uri)}`,
    );
    c.header("ETag", `"${entry.revision}"`);
    return c.json(shown(entry), 201);
  });

  handle(app, replaceCollection, async (c) => {
    const { collection } = readQuery(c, replaceCollection);
    const ifMatch = parseEtagCondition(c.req.header("if-match"));
    const entry = await admin.replaceCollection(collection, await jsonBody(c, deps), ifMatch);
    await deps.search.ensureIndex(deps.searchIndexes(entry.collection.uri).ref);
    c.header("ETag", `"${entry.revision}"`);
    return c.json(shown(entry));
  });

  handle(app, deleteCollection, async (c) => {
    const { collection } = readQuery(c, deleteCollection);
    await admin.deleteCollection(collection, parseEtagCondition(c.req.header("if-match")));
    return c.body(null, 204);
  });

  handle(app, createWorkspace, async (c) => {
    const workspace = await admin.createWorkspace(await jsonBody(c, deps));
    c.header("Location", "/api/workspaces");
    const { collections: _collections, ...rest } = workspace;
    return c.json({ ...rest, source: "api" }, 201);
  });

  return app;
}

/** A collection as the admin API shows it. */
function shown(entry: CollectionEntry) {
  return {
    ...collectionSettings(entry),
    workspace: entry.workspace.uri,
    source: entry.source ?? "config",
    etag: entry.revision ?? null,
  };
}

/** The JSON body: 415 for another media type, 400 `invalid-json` when it does not parse. */
async function jsonBody(c: Context<AppEnv>, deps: AppDeps): Promise<unknown> {
  const given = c.req.header("content-type");
  const type = (given ?? "").split(";")[0].trim().toLowerCase();
  if (!SETTINGS_TYPES.includes(type)) {
    throw unsupportedMediaType({ given, accepted: SETTINGS_TYPES });
  }
  const text = await readBodyText(c, deps.config.service.http.maxBodyBytes);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new DomainError("invalid-json", {
      detail: `The body could not be parsed as JSON: ${(error as Error).message}`,
      errors: [{ path: "body", message: (error as Error).message }],
    });
  }
}
