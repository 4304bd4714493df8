/**
 * A read-only query against a remote SPARQL 1.1 Query endpoint, bounded and read into a
 * {@link SparqlQueryResult}: the one path both the SPARQL store and the query tool's extra
 * endpoints take.
 */
import { Parser } from "n3";
import type { Quad } from "n3";
import { DomainError } from "../errors/domain_error.ts";
import { analyzeQuery } from "./analyze_query.ts";
import { EndpointRefusal, type SparqlHttpClient, storeProblemFromError } from "./client.ts";
import { malformedResults, readSparqlJsonResults } from "./results_json.ts";
import { streamNTriples } from "./ntriples_stream.ts";
import type { SparqlQueryOptions, SparqlQueryResult } from "./query_types.ts";
import { SPARQL_RESULTS_JSON } from "./results_formats.ts";

const ACCEPT_BINDINGS = `${SPARQL_RESULTS_JSON}, application/json;q=0.5`;
const ACCEPT_GRAPH = "application/n-triples, text/turtle;q=0.8, text/plain;q=0.1";

/** Options of {@link queryRemoteEndpoint}. */
export interface RemoteQueryOptions extends SparqlQueryOptions {
  /** Sent as the protocol's `default-graph-uri` (Fuseki: `urn:x-arq:UnionGraph`). */
  defaultGraphUri?: string;
  /** Graphs the query may not name (invalid-input `reserved-graph`): the store's metadata graph. */
  reservedGraphs?: readonly string[];
}

/**
 * Runs `sparql` on the client's endpoint. Updates are refused before anything is sent, and
 * the endpoint is asked for one row more than `limit` only, so it does not compute rows
 * nobody will see; the readers stop at `limit` and set `truncated`.
 */
export async function queryRemoteEndpoint(
  client: SparqlHttpClient,
  sparql: string,
  options: RemoteQueryOptions,
): Promise<SparqlQueryResult> {
  const { limit, timeoutMs, dataset } = options;
  const analyzed = analyzeQuery(sparql, {
    rowLimit: limit,
    dataset,
    reservedGraphs: options.reservedGraphs,
  });
  // The protocol parameter would override the query's own FROM clauses.
  const defaultGraphUri = analyzed.hasDataset ? undefined : options.defaultGraphUri;
  const graphResult = analyzed.form === "CONSTRUCT" || analyzed.form === "DESCRIBE";
  let response: Response;
  try {
    response = await client.query(analyzed.text, graphResult ? ACCEPT_GRAPH : ACCEPT_BINDINGS, {
      timeoutMs,
      defaultGraphUri,
    });
  } catch (error) {
    throw refusedQueryAsInvalid(error);
  }
  // The response timeout keeps running while the body is read.
  try {
    return await readResult(response, graphResult, limit);
  } catch (error) {
    throw storeProblemFromError(error, client.config.queryUrl, timeoutMs, timeoutMs);
  }
}

async function readResult(
  response: Response,
  graphResult: boolean,
  limit: number,
): Promise<SparqlQueryResult> {
  const contentType = response.headers.get("Content-Type")?.split(";")[0].trim().toLowerCase();
  if (!response.body) throw malformedResults("the response has no body");
  if (contentType === SPARQL_RESULTS_JSON || contentType === "application/json") {
    const results = await readSparqlJsonResults(response.body, limit);
    if (graphResult) throw malformedResults("a CONSTRUCT or DESCRIBE answered with bindings");
    // A store that cut its answer at its own cap says so in this header (Virtuoso): the
    // answer is then not complete, whatever the row count looks like.
    const cap = Number(response.headers.get("X-SPARQL-MaxRows") ?? NaN);
    if (results.kind === "bindings" && Number.isFinite(cap) && results.rows.length >= cap) {
      return { ...results, truncated: true };
    }
    return results;
  }
  if (!graphResult) {
    await response.body.cancel();
    throw malformedResults(`unexpected content type ${JSON.stringify(contentType)}`);
  }
  if (contentType === "application/n-triples" || contentType === "text/plain") {
    return await firstQuads(streamNTriples(response.body), limit);
  }
  if (contentType === "text/turtle") {
    let quads: Quad[];
    try {
      quads = new Parser({ format: "Turtle" }).parse(await response.text());
    } catch (error) {
      throw malformedResults(`Turtle: ${error instanceof Error ? error.message : error}`);
    }
    return await firstQuads(quads, limit);
  }
  await response.body.cancel();
  throw malformedResults(`unexpected content type ${JSON.stringify(contentType)}`);
}

/** At most `limit` quads, and whether there were more. */
async function firstQuads(
  quads: AsyncIterable<Quad> | Iterable<Quad>,
  limit: number,
): Promise<SparqlQueryResult> {
  const kept: Quad[] = [];
  for await (const quad of quads) {
    if (kept.length >= limit) return { kind: "quads", quads: kept, truncated: true };
    kept.push(quad);
  }
  return { kind: "quads", quads: kept, truncated: false };
}

/**
 * A query the endpoint refused as a bad request (syntax it does not support, an unknown
 * function) is the caller's mistake: invalid-input `invalid-sparql` with the endpoint's words.
 */
function refusedQueryAsInvalid(error: unknown): unknown {
  if (error instanceof EndpointRefusal && error.badRequest) {
    return new DomainError("invalid-sparql", {
      detail: `The SPARQL endpoint refused the query: ${
        error.message.replace(/^.*? with HTTP 400: /, "")
      }`,
      errors: [{ path: "query", message: "refused by the endpoint" }],
    });
  }
  return error;
}
