/** Contracts of the SPARQL 1.1 Protocol endpoints (docs/api.md, SPARQL endpoint). */
import { z } from "zod";
import { GRAPH_FORMATS, mediaTypeOf } from "../media_types.ts";
import { defineContract, type RouteContract } from "../../http/route_contract.ts";
import { BODY_TOO_LARGE } from "./shared.ts";
import { RESULTS_MEDIA_TYPES } from "../../sparql_protocol/results_formats.ts";

const TAGS = ["SPARQL"];

const GRAPH_LIST = (what: string) =>
  z.array(z.string()).optional().meta({
    description: `${what} of the dataset (repeatable); replaces the query's own FROM clauses.`,
  });

/** The protocol's query parameters; `query` is required on GET. */
const PROTOCOL_PARAMETERS = {
  "default-graph-uri": GRAPH_LIST("A graph merged into the default graph"),
  "named-graph-uri": GRAPH_LIST("A named graph"),
};

const FORM = z.object({
  query: z.string(),
  "default-graph-uri": z.array(z.string()).optional(),
  "named-graph-uri": z.array(z.string()).optional(),
});

const RESULT_TYPES = [...Object.values(RESULTS_MEDIA_TYPES), ...GRAPH_FORMATS.map(mediaTypeOf)];

const RESPONSES = {
  200: {
    description: "SELECT and ASK as SPARQL JSON, XML, CSV or TSV results; CONSTRUCT and " +
      "DESCRIBE as Turtle, N-Triples, RDF/XML or JSON-LD, as `Accept` asks.",
    content: RESULT_TYPES,
    headers: {
      "X-Results-Truncated": "`true` when the rows were cut at `service.query.maxRows`.",
    },
  },
};

const PROBLEMS = {
  400: "No query (`missing-query`), a malformed one (`invalid-sparql`, with line and column), " +
    "an update (`sparql-update-refused`), a SERVICE clause (`sparql-service-refused`), the " +
    "SPARQL store's metadata graph (`reserved-graph`).",
  406: "No format the query's results can be written in is acceptable (`not-acceptable`).",
  413: `${BODY_TOO_LARGE} Or the query exceeds \`service.query.maxQueryBytes\`.`,
  415: "A POST body is neither `application/sparql-query` nor a URL-encoded form.",
  422: "The embedded store would need more than 1M quads in memory to answer " +
    "(`query-too-broad`): bind more of the query's terms.",
  504: "The query ran past `service.query.timeoutMs` (`query-timeout`).",
};

const REMOTE_PROBLEMS = {
  ...PROBLEMS,
  404: "No configured endpoint has this id (`endpoint-not-found`).",
  502: "The endpoint failed.",
  503: "The endpoint cannot be reached.",
};

const ID = z.object({ id: z.string().meta({ description: "An endpoint id." }) });

function getContract(path: string, operationId: string, summary: string): RouteContract {
  return defineContract({
    method: "GET",
    path,
    operationId,
    summary,
    tags: TAGS,
    // The store's own endpoint: any identity, seeing what it may read; the others: readers.
    access: path.includes("{id}") ? "reader" : "authenticated",
    query: z.object({
      query: z.string().meta({ description: "The SPARQL query (a read-only query form)." }),
      ...PROTOCOL_PARAMETERS,
    }),
    pathParams: path.includes("{id}") ? ID : undefined,
    responses: RESPONSES,
    problems: path.includes("{id}") ? REMOTE_PROBLEMS : PROBLEMS,
  });
}

function postContract(path: string, operationId: string, summary: string): RouteContract {
  return defineContract({
    method: "POST",
    path,
    operationId,
    summary,
    tags: TAGS,
    // The store's own endpoint: any identity, seeing what it may read; the others: readers.
    access: path.includes("{id}") ? "reader" : "authenticated",
    query: z.object(PROTOCOL_PARAMETERS),
    pathParams: path.includes("{id}") ? ID : undefined,
    body: {
      description: "The query as the whole body, or a form with the field `query` (and the " +
        "dataset parameters, which then come from the form only).",
      required: true,
      content: {
        "application/sparql-query": z.string(),
        "application/x-www-form-urlencoded": FORM,
      },
    },
    responses: RESPONSES,
    problems: path.includes("{id}") ? REMOTE_PROBLEMS : PROBLEMS,
  });
}

/** `GET /sparql`: the protocol's query operation over the service's store. */
export const sparqlQueryGet = getContract(
  "/sparql",
  "sparqlQueryGet",
  "SPARQL 1.1 Protocol query (GET)",
);

/** `POST /sparql`. */
export const sparqlQueryPost = postContract(
  "/sparql",
  "sparqlQueryPost",
  "SPARQL 1.1 Protocol query (POST)",
);

/** `GET /sparql/{id}`: the same for a configured endpoint. */
export const sparqlEndpointQueryGet = getContract(
  "/sparql/{id}",
  "sparqlEndpointQueryGet",
  "SPARQL 1.1 Protocol query of a configured endpoint (GET)",
);

/** `POST /sparql/{id}`. */
export const sparqlEndpointQueryPost = postContract(
  "/sparql/{id}",
  "sparqlEndpointQueryPost",
  "SPARQL 1.1 Protocol query of a configured endpoint (POST)",
);

/** The protocol contracts. */
export const SPARQL_CONTRACTS = [
  sparqlQueryGet,
  sparqlQueryPost,
  sparqlEndpointQueryGet,
  sparqlEndpointQueryPost,
];
