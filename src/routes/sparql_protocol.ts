/**
 * `/sparql` and `/sparql/{id}`: the SPARQL 1.1 Protocol's query operation (docs/api.md, SPARQL
 * endpoint), so that standard clients (Jena, rdflib, SPARQLWrapper, YASGUI) can query the
 * service's store and the configured endpoints.
 *
 * The rules are the query tool's: read-only (an update is refused whatever its spelling),
 * no SERVICE, rows capped at `service.query.maxRows`, `service.query.timeoutMs` and
 * `maxQueryBytes`. Each item is a named graph; with no dataset given, the default graph is
 * the union of the graphs. On the service's store a caller sees only the item graphs of the
 * collections it may read (`scope`, docs/SECURITY.md).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { readQuery } from "../http/read_query.ts";
import { handle } from "../http/route_contract.ts";
import { readBodyText } from "../http/body.ts";
import { negotiateFormat, type RdfFormat } from "../rdf/formats.ts";
import { serializeRdf } from "../rdf/serialize.ts";
import {
  analyzeQuery,
  QUERY_BODY_HINT,
  type QueryForm,
  refuseLongQuery,
  requireQueryText,
} from "../sparql_protocol/analyze_query.ts";
import { inQueryOrder } from "../sparql_protocol/projection_order.ts";
import {
  negotiateResultsFormat,
  RESULTS_MEDIA_TYPES,
  type ResultsFormat,
  writeBindings,
  writeBoolean,
} from "../sparql_protocol/results_formats.ts";
import type {
  QueryDataset,
  QueryScope,
  SparqlQueryResult,
} from "../sparql_protocol/query_types.ts";
import { readableScope, scopeOf } from "../http/collection_access.ts";
import { endpointNotFound, STORE_ENDPOINT_ID } from "../tools/sparql_endpoints.ts";
import { GRAPH_DEFAULT, GRAPH_FORMATS, mediaTypeOf, registeredTypesOf } from "./media_types.ts";
import * as contracts from "./contracts/sparql.ts";
import { contractBodyTypes, unsupportedMediaType } from "../http/unsupported_media_type.ts";
import { DomainError } from "../errors/domain_error.ts";

/** The formats a CONSTRUCT or DESCRIBE is answered in, the fallback first. */

/** A protocol request: the query text and its dataset. */
interface ProtocolRequest {
  query: string;
  dataset: QueryDataset;
}

/** The protocol routes. */
export function sparqlProtocolRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const endpoints = deps.sparqlEndpoints;
  const maxBodyBytes = deps.config.service.http.maxBodyBytes;

  const answer = async (c: Context<AppEnv>, id: string, request: ProtocolRequest) => {
    refuseLongQuery(request.query, deps.config.service.query.maxQueryBytes);
    // Parsed here first: an update or a syntax error is refused before anything runs, and
    // the query form decides which formats can answer.
    const { form, projection } = analyzeQuery(request.query);
    const format = negotiate(form, c.req.header("accept"));
    const result = await endpoints.query(id, request.query, {
      limit: deps.config.service.query.maxRows,
      timeoutMs: deps.config.service.query.timeoutMs,
      dataset: request.dataset,
      // The service's store answers from the collections the caller may read (SECURITY.md).
      scope: storeScope(c, id),
    });
    // Columns in the query's order, whatever order the engine chose.
    if (result.kind === "bindings") result.variables = inQueryOrder(result.variables, projection);
    return protocolResponse(result, format);
  };
  const knownEndpoint = (c: Context<AppEnv>) => {
    const id = c.req.param("id") ?? STORE_ENDPOINT_ID;
    if (!endpoints.has(id)) throw endpointNotFound(id, endpoints.list().map((e) => e.id));
    return id;
  };

  handle(app, contracts.sparqlQueryGet, (c) => answer(c, STORE_ENDPOINT_ID, readGet(c)));
  handle(
    app,
    contracts.sparqlQueryPost,
    async (c) => answer(c, STORE_ENDPOINT_ID, await readPost(c, maxBodyBytes)),
  );
  handle(app, contracts.sparqlEndpointQueryGet, (c) => {
    const request = readGet(c);
    return answer(c, knownEndpoint(c), request);
  });
  handle(app, contracts.sparqlEndpointQueryPost, async (c) => {
    const id = knownEndpoint(c);
    return answer(c, id, await readPost(c, maxBodyBytes));
  });
  return app;
}

/** The caller's readable collections when `id` is the service's store; unset: all. */
function storeScope(c: Context<AppEnv>, id: string): QueryScope | undefined {
  return id === STORE_ENDPOINT_ID ? scopeOf(readableScope(c)) : undefined;
}

/** A GET: everything in the URL; an `update` parameter is refused, never ignored. */
function readGet(c: Context<AppEnv>): ProtocolRequest {
  if (c.req.query("update") !== undefined) throw updateRefused();
  const parameters = readQuery(c, contracts.sparqlQueryGet) as {
    query: string;
    "default-graph-uri"?: string[];
    "named-graph-uri"?: string[];
  };
  return {
    query: parameters.query,
    dataset: {
      defaultGraphs: parameters["default-graph-uri"] ?? [],
      namedGraphs: parameters["named-graph-uri"] ?? [],
    },
  };
}

/**
 * A POST: the query as an `application/sparql-query` body (dataset in the URL), or a
 * URL-encoded form (dataset in the form). The update operation's two forms are refused.
 */
async function readPost(c: Context<AppEnv>, limit: number): Promise<ProtocolRequest> {
  const contentType = c.req.header("content-type") ?? "";
  const mediaType = contentType.split(";", 1)[0].trim().toLowerCase();
  if (mediaType === "application/sparql-update") throw updateRefused();
  let query: string | undefined;
  let parameters: URLSearchParams;
  if (mediaType === "application/sparql-query") {
    query = await readBodyText(c, limit);
    parameters = new URL(c.req.url).searchParams;
  } else if (mediaType === "application/x-www-form-urlencoded") {
    parameters = new URLSearchParams(await readBodyText(c, limit));
    if (parameters.has("update")) throw updateRefused();
    query = parameters.get("query") ?? undefined;
  } else {
    throw unsupportedMediaType({
      given: contentType,
      accepted: contractBodyTypes(contracts.sparqlQueryPost),
      hint: QUERY_BODY_HINT,
    });
  }
  return {
    query: requireQueryText(query),
    dataset: {
      defaultGraphs: parameters.getAll("default-graph-uri"),
      namedGraphs: parameters.getAll("named-graph-uri"),
    },
  };
}

function updateRefused(): DomainError {
  return new DomainError("sparql-update-refused", {
    detail: "This endpoint answers the SPARQL 1.1 Protocol's query operation only; the update " +
      "operation is refused.",
    errors: [{ path: "update", message: "update operation" }],
  });
}

/** The graph formats for the 406's message: "a, b, c or d". */
const GRAPH_TYPES = registeredTypesOf(GRAPH_FORMATS).join(", ").replace(/, ([^,]+)$/, " or $1");

/** The format the answer is written in; 406 when the `Accept` header allows none. */
function negotiate(form: QueryForm, accept: string | undefined): ResultsFormat | RdfFormat {
  const graph = form === "CONSTRUCT" || form === "DESCRIBE";
  const format = graph
    ? negotiateFormat(accept, GRAPH_FORMATS, GRAPH_DEFAULT)
    : negotiateResultsFormat(accept);
  if (format) return format;
  throw new DomainError("not-acceptable", {
    detail: graph
      ? `A CONSTRUCT or DESCRIBE is answered as ${GRAPH_TYPES}; the Accept header allows ` +
        "none of them."
      : `A ${form} is answered as application/sparql-results+json, ` +
        "application/sparql-results+xml, text/csv or text/tab-separated-values; the Accept " +
        "header allows none of them.",
  });
}

function protocolResponse(result: SparqlQueryResult, format: ResultsFormat | RdfFormat): Response {
  const headers = new Headers({ "Cache-Control": "no-store", "Vary": "Accept" });
  if (result.kind === "boolean") {
    const resultsFormat = format as ResultsFormat;
    headers.set("Content-Type", RESULTS_MEDIA_TYPES[resultsFormat]);
    return new Response(writeBoolean(resultsFormat, result.value), { headers });
  }
  if (result.truncated) headers.set("X-Results-Truncated", "true");
  if (result.kind === "bindings") {
    const resultsFormat = format as ResultsFormat;
    headers.set("Content-Type", RESULTS_MEDIA_TYPES[resultsFormat]);
    return new Response(writeBindings(resultsFormat, result.variables, result.rows), { headers });
  }
  const rdfFormat = format as RdfFormat;
  headers.set("Content-Type", mediaTypeOf(rdfFormat));
  return new Response(serializeRdf(result.quads, rdfFormat), { headers });
}
