/** `/api/admin/import` and `/api/admin/export`: bulk in, bulk out (logic in src/bulk/). */
import { Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { readQuery } from "../http/read_query.ts";
import { handle } from "../http/route_contract.ts";
import { jobNotFound } from "../http/problem.ts";
import { formatFromMediaType, negotiateFormat, RDF_FORMATS } from "../rdf/formats.ts";
import {
  type ImportFormat,
  importFormatOf,
  importFormats,
  isQuadFormat,
  QUAD_FORMATS,
} from "../rdf/format_table.ts";
import type { ItemsBy } from "../bulk/import_job.ts";
import { registeredTypesOf } from "./media_types.ts";
import { unsupportedMediaType } from "../http/unsupported_media_type.ts";
import { exportDocument } from "../bulk/export.ts";
import { bodyStream } from "../http/body.ts";
import { exportItems, getImportJob, importItems, listImportJobs } from "./contracts/bulk.ts";
import { DomainError } from "../errors/domain_error.ts";
import { mayUseCollection, readableScope } from "../http/collection_access.ts";
import { workspaceNotFound } from "../catalog/catalog.ts";
import { author } from "../http/auth.ts";

/** Most jobs `GET /api/admin/import/jobs` lists. */
const MAX_LISTED_JOBS = 1000;

/** The bulk routes. */
export function bulkRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const runner = deps.importJobs;

  handle(app, importItems, async (c) => {
    const { collection, mode, base, wait, itemsBy, graphs } = readQuery(c, importItems);
    const format = bodyFormat(c.req.header("content-type"), itemsBy ?? "graph");
    if (graphs !== undefined && itemsBy !== "subject") throw graphsWithoutSubjects(graphs);
    const declared = Number(c.req.header("content-length") ?? "NaN");
    const { bodyRead, done } = await runner.start({
      collection,
      mode: mode ?? "create",
      format,
      itemsBy: itemsBy ?? "graph",
      graphs,
      base,
      declaredBytes: Number.isFinite(declared) ? declared : undefined,
      principal: author(c),
    }, bodyStream(c));
    // The answer waits for the body at least: a request body is not read on once answered.
    const read = await bodyRead;
    c.header("Location", `/api/admin/import/jobs/${encodeURIComponent(read.id)}`);
    return wait ? c.json(await done, 200) : c.json(read, 202);
  });

  handle(app, listImportJobs, async (c) => {
    const limit = Math.min(readQuery(c, listImportJobs).limit, MAX_LISTED_JOBS);
    // Only the caller's collections' jobs: read as many as may be listed, then filtered.
    if (readableScope(c) === undefined) return c.json(await runner.recent(limit));
    const jobs = await runner.recent(MAX_LISTED_JOBS);
    return c.json(
      jobs.filter((job) => mayUseCollection(c, job.collection, "export")).slice(0, limit),
    );
  });

  handle(app, getImportJob, async (c) => {
    const id = c.req.param("id") ?? "";
    const job = await runner.find(id);
    // Another collection's job answers as a job that does not exist.
    if (!job || !mayUseCollection(c, job.collection, "export")) throw jobNotFound("import", id);
    return c.json(job);
  });

  handle(app, exportItems, (c) => {
    const { collection, workspace, asOf } = readQuery(c, exportItems);
    // A workspace exports as the caller sees it: the collections it may export.
    const listed = exportedCollections(deps, collection, workspace);
    const collections = listed.filter((uri) => mayUseCollection(c, uri, "export"));
    if (workspace !== undefined && listed.length > 0 && collections.length === 0) {
      throw workspaceNotFound(workspace);
    }
    const format = negotiateFormat(c.req.header("accept"), QUAD_FORMATS, QUAD_FORMATS[0]);
    if (!isQuadFormat(format)) {
      throw new DomainError("not-acceptable", {
        detail: `An export is available as ${registeredTypesOf(QUAD_FORMATS).join(" or ")}.`,
      });
    }
    const encoder = new TextEncoder();
    const pieces = exportDocument(deps.store, collections, format, asOf)[Symbol.asyncIterator]();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await pieces.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      async cancel() {
        await pieces.return?.();
      },
    });
    return c.body(body, 200, { "Content-Type": RDF_FORMATS[format].contentType });
  });

  return app;
}

/** The collections an export covers; 400 unless exactly one of the two is given. */
function exportedCollections(deps: AppDeps, collection?: string, workspace?: string): string[] {
  if ((collection === undefined) === (workspace === undefined)) {
    throw new DomainError("invalid-parameter", {
      detail: "An export needs exactly one of `collection` and `workspace`.",
      errors: [{
        path: collection === undefined ? "collection" : "workspace",
        message: "one of two",
      }],
    });
  }
  if (collection !== undefined) {
    deps.catalog.require(collection);
    return [collection];
  }
  return deps.catalog.workspace(workspace!).collections.map((entry) => entry.uri);
}

/** 400: `graphs` says what items by subject do with graph names; by graph they are items. */
function graphsWithoutSubjects(graphs: string): DomainError {
  return new DomainError("invalid-parameter", {
    detail: `graphs=${graphs} applies to itemsBy=subject: by graph, each named graph is an ` +
      "item and its name the item's URI.",
    errors: [{ path: "graphs", message: "only with itemsBy=subject" }],
  });
}

/** The import format from Content-Type; 415 for anything `itemsBy` does not read. */
function bodyFormat(contentType: string | undefined, itemsBy: ItemsBy): ImportFormat {
  const format = importFormatOf(contentType ? formatFromMediaType(contentType) : undefined);
  const accepted = importFormats(itemsBy);
  if (format && accepted.includes(format)) return format;
  throw unsupportedMediaType({
    given: contentType,
    accepted: registeredTypesOf(accepted),
    // Read by subject, but not by graph: the way out is the other way of cutting items.
    hint: format
      ? "A document without named graphs is imported with itemsBy=subject (each IRI subject " +
        "one item)."
      : undefined,
  });
}
