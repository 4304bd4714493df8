/**
 * `/api/admin/tools/…`: the SPARQL endpoint list and query tool, the settings dump and
 * SHACL generation (docs/api.md, Admin tools).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { readQuery } from "../http/read_query.ts";
import { handle } from "../http/route_contract.ts";
import { readBodyBytes, readBodyText } from "../http/body.ts";
import { fileText, readMultipart, readUploadedFile } from "../http/upload.ts";
import {
  formatFromFileName,
  formatFromMediaType,
  GENERIC_JSON_EXTENSION,
  GENERIC_JSON_MEDIA_TYPE,
  negotiateFormat,
  RDF_FORMATS,
  type RdfFormat,
} from "../rdf/formats.ts";
import { FORMAT_NAMES } from "../rdf/format_table.ts";
import { contractBodyTypes, unsupportedMediaType } from "../http/unsupported_media_type.ts";
import { parseRdf } from "../rdf/parse.ts";
import { generateShacl } from "../rdf/shacl/generate.ts";
import { serializeRdf } from "../rdf/serialize.ts";
import { writeSparqlJsonResults } from "../sparql_protocol/results_json.ts";
import {
  QUERY_BODY_HINT,
  refuseLongQuery,
  requireQueryText,
} from "../sparql_protocol/analyze_query.ts";
import type { SparqlQueryResult } from "../sparql_protocol/query_types.ts";
import { endpointNotFound } from "../tools/sparql_endpoints.ts";
import { dumpSettings } from "../tools/settings_dump.ts";
import { mediaTypeOf, registeredTypesOf } from "./media_types.ts";
import * as contracts from "./contracts/tools.ts";
import { SPARQL_RESULTS_JSON } from "../sparql_protocol/results_formats.ts";

/** The types an uploaded RDF file may have: every format's, or generic JSON. */
const UPLOAD_MEDIA_TYPES = [...registeredTypesOf(FORMAT_NAMES), GENERIC_JSON_MEDIA_TYPE];

/** The extensions an uploaded RDF file may have, when its type does not say: `.ttl .nt …`. */
const UPLOAD_EXTENSIONS = [
  ...FORMAT_NAMES.flatMap((format) => RDF_FORMATS[format].extensions),
  GENERIC_JSON_EXTENSION,
].join(" ");

/** The admin tool routes. */
export function toolRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const maxBodyBytes = deps.config.service.http.maxBodyBytes;
  const endpoints = deps.sparqlEndpoints;

  handle(app, contracts.listSparqlEndpoints, (c) => c.json(endpoints.list()));

  handle(app, contracts.querySparqlEndpoint, async (c) => {
    const { endpoint: id } = readQuery(c, contracts.querySparqlEndpoint);
    // Before the body is read: a wrong id is the more useful answer.
    if (!endpoints.has(id)) throw endpointNotFound(id, endpoints.list().map((e) => e.id));
    const sparql = await readQueryText(c, maxBodyBytes);
    refuseLongQuery(sparql, deps.config.service.query.maxQueryBytes);
    const result = await endpoints.query(id, sparql, {
      limit: deps.config.service.query.maxRows,
      timeoutMs: deps.config.service.query.timeoutMs,
    });
    return queryResponse(result, c.req.header("accept"));
  });

  handle(app, contracts.dumpSettings, (c) => {
    c.header("Cache-Control", "no-store");
    return c.body(dumpSettings(deps.config, deps.catalog), 200, {
      "Content-Type": "text/plain; charset=utf-8",
    });
  });

  handle(app, contracts.generateShacl, async (c) => {
    const { namespace } = readQuery(c, contracts.generateShacl);
    const file = await readUploadedFile(c, maxBodyBytes);
    const format = uploadFormat(file);
    const { quads } = await parseRdf(await fileText(file), format, {
      contexts: deps.jsonldContexts,
    });
    const shapes = generateShacl(quads, namespace);
    return c.body(shapes, 200, { "Content-Type": mediaTypeOf("turtle") });
  });

  return app;
}

/**
 * The query text: an `application/sparql-query` body, or the form field `query` of a
 * URL-encoded or multipart form (the SPARQL 1.1 Protocol's two POST forms, plus what an
 * HTML form sends).
 */
async function readQueryText(c: Context<AppEnv>, limit: number): Promise<string> {
  const contentType = c.req.header("content-type") ?? "";
  const mediaType = contentType.split(";", 1)[0].trim().toLowerCase();
  let query: string | undefined;
  if (mediaType === "application/sparql-query") {
    query = await readBodyText(c, limit);
  } else if (mediaType === "application/x-www-form-urlencoded") {
    const form = new URLSearchParams(await readBodyText(c, limit));
    query = form.get("query") ?? undefined;
  } else if (mediaType === "multipart/form-data") {
    const field = (await readMultipart(await readBodyBytes(c, limit), contentType)).get("query");
    query = typeof field === "string" ? field : await field?.text();
  } else {
    throw unsupportedMediaType({
      given: contentType,
      accepted: contractBodyTypes(contracts.querySparqlEndpoint),
      hint: QUERY_BODY_HINT,
    });
  }
  return requireQueryText(query);
}

/** SELECT/ASK as SPARQL JSON results; graphs as Turtle, or JSON-LD when asked for. */
function queryResponse(result: SparqlQueryResult, accept: string | undefined): Response {
  const headers = new Headers({ "Cache-Control": "no-store", "Vary": "Accept" });
  if (result.kind === "boolean") {
    headers.set("Content-Type", SPARQL_RESULTS_JSON);
    return new Response(JSON.stringify({ head: {}, boolean: result.value }), { headers });
  }
  if (result.truncated) headers.set("X-Results-Truncated", "true");
  if (result.kind === "bindings") {
    headers.set("Content-Type", SPARQL_RESULTS_JSON);
    headers.set("X-Result-Count", String(result.rows.length));
    return new Response(writeSparqlJsonResults(result.variables, result.rows), { headers });
  }
  // The query form is only known once it is parsed, so an Accept that suits SELECT results
  // only is no reason to refuse a graph: Turtle serves it.
  const [fallback] = contracts.QUERY_TOOL_GRAPH_FORMATS;
  const format = negotiateFormat(accept, contracts.QUERY_TOOL_GRAPH_FORMATS, fallback) ??
    fallback;
  headers.set("Content-Type", mediaTypeOf(format));
  headers.set("X-Result-Count", String(result.quads.length));
  return new Response(serializeRdf(result.quads, format), { headers });
}

/** The upload's RDF format: its content type if that names one, else its file extension. */
function uploadFormat(file: File): RdfFormat | "json" {
  const byType = file.type ? formatFromMediaType(file.type) : undefined;
  const format = byType ?? formatFromFileName(file.name);
  if (format) return format;
  throw unsupportedMediaType({
    given: file.type,
    file: file.name,
    accepted: UPLOAD_MEDIA_TYPES,
    hint: `Or name the file with the extension of its format: ${UPLOAD_EXTENSIONS}.`,
  });
}
