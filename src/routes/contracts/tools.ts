/** Contracts of the admin tools (docs/api.md, Admin tools). */
import { z } from "zod";
import { requiredIri, requiredText } from "../../http/query_schema.ts";
import { labelsOf, mediaTypeOf } from "../media_types.ts";
import type { RdfFormat } from "../../rdf/format_table.ts";
import { defineContract } from "../../http/route_contract.ts";
import { BAD_PARAMETERS, BODY_TOO_LARGE, NO_PARAMETERS } from "./shared.ts";
import { SPARQL_RESULTS_JSON } from "../../sparql_protocol/results_formats.ts";

const TAGS = ["Admin tools"];

/**
 * What the query tool answers a CONSTRUCT or DESCRIBE in, the default first: two of the
 * graph formats (`/sparql` offers them all), read by the route and listed here.
 */
export const QUERY_TOOL_GRAPH_FORMATS: RdfFormat[] = ["turtle", "jsonld"];

/** One endpoint of the query tool. */
const ENDPOINT = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  protocolUrl: z.string(),
  kind: z.enum(["embedded", "remote"]),
  readOnly: z.boolean(),
  collections: z.array(z.string()),
});

/** A form carrying the query in its field `query`. */
const QUERY_FORM = z.object({ query: z.string() });

/** `GET /api/admin/tools/sparqlui/sparql-endpoints`. */
export const listSparqlEndpoints = defineContract({
  method: "GET",
  path: "/api/admin/tools/sparqlui/sparql-endpoints",
  operationId: "listSparqlEndpoints",
  summary: "The SPARQL endpoints the query tool can query",
  tags: TAGS,
  access: "admin",
  query: NO_PARAMETERS,
  responses: {
    200: {
      description: "The endpoints.",
      content: ["application/json"],
      schema: z.array(ENDPOINT),
    },
  },
  problems: {},
});

/** `POST /api/admin/tools/sparqlui/query`. */
export const querySparqlEndpoint = defineContract({
  method: "POST",
  path: "/api/admin/tools/sparqlui/query",
  operationId: "querySparqlEndpoint",
  summary: "Run a read-only SPARQL query on a configured endpoint",
  description: "Only configured endpoints, never a URL from the request. Rows are capped at " +
    "`service.query.maxRows` (`X-Results-Truncated: true` when cut).",
  tags: TAGS,
  access: "admin",
  query: z.object({
    endpoint: requiredText("An endpoint id from `/api/admin/tools/sparqlui/sparql-endpoints`."),
  }),
  body: {
    description: "The query: the whole body, or the form field `query`.",
    required: true,
    content: {
      "application/sparql-query": z.string(),
      "application/x-www-form-urlencoded": QUERY_FORM,
      "multipart/form-data": QUERY_FORM,
    },
  },
  responses: {
    200: {
      description: "SPARQL 1.1 JSON results (SELECT, ASK); " +
        `${labelsOf(QUERY_TOOL_GRAPH_FORMATS)} (CONSTRUCT, DESCRIBE).`,
      content: [SPARQL_RESULTS_JSON, ...QUERY_TOOL_GRAPH_FORMATS.map(mediaTypeOf)],
      headers: {
        "X-Results-Truncated": "`true` when the rows were cut at `maxResultsLimit`.",
        "X-Result-Count": "Rows or triples answered.",
      },
    },
  },
  problems: {
    400: `${BAD_PARAMETERS} Or no query (\`missing-query\`), a malformed one, or an update.`,
    404: "No endpoint has this id (`endpoint-not-found`).",
    413: BODY_TOO_LARGE,
    415: "The query is neither a `application/sparql-query` body nor a form field.",
    422: "The embedded store would need more than 1M quads in memory to answer " +
      "(`query-too-broad`).",
    502: "The remote endpoint failed.",
    503: "The remote endpoint cannot be reached.",
    504: "The query ran past the configured timeout (`query-timeout`).",
  },
});

/** `POST /api/admin/tools/dump-settings`. */
export const dumpSettings = defineContract({
  method: "POST",
  path: "/api/admin/tools/dump-settings",
  operationId: "dumpSettings",
  summary: "The effective settings as YAML, secrets shown as ******",
  tags: TAGS,
  access: "admin",
  query: NO_PARAMETERS,
  responses: { 200: { description: "The settings.", content: ["text/plain; charset=utf-8"] } },
  problems: {},
});

/** `POST /api/admin/tools/generate-shacl`. */
export const generateShacl = defineContract({
  method: "POST",
  path: "/api/admin/tools/generate-shacl",
  operationId: "generateShacl",
  summary: "SHACL shapes generated from uploaded RDF data",
  description: "The RDF format comes from the part's content type, else the file extension " +
    "(`.ttl .nt .nq .trig .rdf .owl .xml .n3 .jsonld .json`).",
  tags: TAGS,
  access: "admin",
  query: z.object({
    namespace: requiredIri("The namespace of the generated shapes (an absolute IRI)."),
  }),
  body: {
    description: "The data file: the part `file`, or the single file part.",
    required: true,
    content: {
      "multipart/form-data": z.object({
        file: z.string().meta({ contentMediaType: "application/octet-stream" }),
      }),
    },
  },
  responses: { 200: { description: "The shapes.", content: [mediaTypeOf("turtle")] } },
  problems: {
    400: `${BAD_PARAMETERS} Or no file part, or a parse error with line and column.`,
    413: BODY_TOO_LARGE,
    415: "The body is not multipart, or the file's RDF format is unknown.",
  },
});

/** The admin tool contracts. */
export const TOOL_CONTRACTS = [
  listSparqlEndpoints,
  querySparqlEndpoint,
  dumpSettings,
  generateShacl,
];
