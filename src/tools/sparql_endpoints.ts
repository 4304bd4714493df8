/**
 * The SPARQL endpoints the admin query tool may query: the service's own store (id
 * `store`) and every endpoint configured under `service.sparqlEndpoints`.
 *
 * The tool only ever sends queries to these: an endpoint is chosen by id, never by a URL
 * from the request. Every query is read with a real parser first, so updates are refused
 * and the row limit is written into the query before anything runs it. Credentials stay
 * here; {@link SparqlEndpointRegistry.list} shows URLs without them.
 */
import { Parser } from "n3";
import type { Quad } from "n3";
import type { ServiceConfig } from "../config/schema.ts";
import { ProblemError } from "../http/problem.ts";
import { analyzeQuery } from "../sparql/analyze_query.ts";
import { SparqlHttpClient, storeProblemFromError } from "../store/sparql_client.ts";
import {
  malformedResults,
  readSparqlJsonResults,
  streamNTriples,
} from "../store/sparql_results.ts";
import type { SparqlQueryOptions, SparqlQueryResult, TripleStore } from "../store/triple_store.ts";

/** Id of the service's own store in the endpoint list. */
export const STORE_ENDPOINT_ID = "store";

/** Path of the query tool: the address of the embedded store, which has no URL of its own. */
export const QUERY_TOOL_PATH = "/api/admin/tools/sparqlui/query";

/** One endpoint as the endpoint list shows it: never with credentials. */
export interface SparqlEndpointInfo {
  id: string;
  name: string;
  url: string;
  kind: "embedded" | "remote";
  readOnly: boolean;
  /** URIs of the configured collections whose items this endpoint holds. */
  collections: string[];
}

interface Endpoint {
  info: SparqlEndpointInfo;
  run(sparql: string, options: SparqlQueryOptions): Promise<SparqlQueryResult>;
}

const SPARQL_JSON = "application/sparql-results+json";
const ACCEPT_BINDINGS = `${SPARQL_JSON}, application/json;q=0.5`;
const ACCEPT_GRAPH = "application/n-triples, text/turtle;q=0.8, text/plain;q=0.1";

/** The endpoints of the query tool, built once from the configuration. */
export class SparqlEndpointRegistry {
  readonly #endpoints = new Map<string, Endpoint>();

  /**
   * `store` answers for the service's own store; `collections` are the URIs of every
   * configured collection (all of them live in that store).
   */
  constructor(config: ServiceConfig, store: TripleStore, collections: string[]) {
    const storeIsRemote = config.service.store.backend === "sparql";
    this.#endpoints.set(STORE_ENDPOINT_ID, {
      info: {
        id: STORE_ENDPOINT_ID,
        name: storeIsRemote ? "Service store (SPARQL endpoint)" : "Service store (embedded)",
        url: storeIsRemote
          ? withoutCredentials(config.service.store.sparql.queryUrl ?? "").url
          : `${QUERY_TOOL_PATH}?endpoint=${STORE_ENDPOINT_ID}`,
        kind: storeIsRemote ? "remote" : "embedded",
        // Through this tool the store only ever answers queries.
        readOnly: true,
        collections: [...collections],
      },
      run: (sparql, options) => store.query(sparql, options),
    });
    for (const configured of config.service.sparqlEndpoints) {
      if (this.#endpoints.has(configured.id)) {
        throw new Error(
          `service.sparqlEndpoints: the id '${configured.id}' is used twice ` +
            `('${STORE_ENDPOINT_ID}' is the service's own store)`,
        );
      }
      const { url, username, password } = withoutCredentials(configured.url);
      const remote = new RemoteQueryEndpoint(
        new SparqlHttpClient({
          queryUrl: url,
          // The tool never writes, so the client's write endpoints are never used.
          updateUrl: url,
          graphStoreUrl: url,
          username: configured.username ?? username,
          password: configured.username ? configured.password : password,
          timeoutMs: config.service.query.timeoutMs,
          // An interactive user is better served by a quick answer than by retries.
          retries: 0,
        }),
      );
      this.#endpoints.set(configured.id, {
        info: {
          id: configured.id,
          name: configured.name,
          url,
          kind: "remote",
          readOnly: configured.readOnly,
          collections: [],
        },
        run: (sparql, options) => remote.query(sparql, options),
      });
    }
  }

  /** Every endpoint, the service's store first, then in configuration order. */
  list(): SparqlEndpointInfo[] {
    return [...this.#endpoints.values()].map((endpoint) => ({
      ...endpoint.info,
      collections: [...endpoint.info.collections],
    }));
  }

  /** Whether `id` names an endpoint. */
  has(id: string): boolean {
    return this.#endpoints.has(id);
  }

  /**
   * Runs a read-only query on endpoint `id`: 404 `endpoint-not-found`, 400
   * `invalid-sparql` / `sparql-update-refused`, 504 `query-timeout`, 502/503 when a remote
   * endpoint fails.
   */
  query(id: string, sparql: string, options: SparqlQueryOptions): Promise<SparqlQueryResult> {
    const endpoint = this.#endpoints.get(id);
    if (!endpoint) return Promise.reject(endpointNotFound(id, [...this.#endpoints.keys()]));
    return endpoint.run(sparql, options);
  }
}

/** 404 for an endpoint id that is not in the list. */
export function endpointNotFound(id: string, known: string[]): ProblemError {
  return new ProblemError(
    404,
    "endpoint-not-found",
    "SPARQL endpoint not found",
    `No SPARQL endpoint has the id ${JSON.stringify(id)}; known ids: ${known.join(", ")}.`,
    [{ path: "endpoint", message: "unknown endpoint id" }],
  );
}

/** A URL with its user info removed, and the credentials it carried. */
export function withoutCredentials(
  raw: string,
): { url: string; username?: string; password?: string } {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return { url: raw };
  }
  if (!parsed.username && !parsed.password) return { url: raw };
  const username = decodeUserInfo(parsed.username) || undefined;
  const password = decodeUserInfo(parsed.password) || undefined;
  parsed.username = "";
  parsed.password = "";
  return { url: parsed.href, username, password };
}

function decodeUserInfo(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // a stray % is taken literally, as a password may well contain one
  }
}

/** Queries one remote SPARQL 1.1 Query endpoint. */
class RemoteQueryEndpoint {
  readonly #client: SparqlHttpClient;

  constructor(client: SparqlHttpClient) {
    this.#client = client;
  }

  async query(sparql: string, options: SparqlQueryOptions): Promise<SparqlQueryResult> {
    const { limit, timeoutMs } = options;
    // Refuses updates before anything is sent, and asks the endpoint for one row more than
    // the limit only, so it does not compute rows nobody will see.
    const analyzed = analyzeQuery(sparql, { rowLimit: limit });
    const graphResult = analyzed.form === "CONSTRUCT" || analyzed.form === "DESCRIBE";
    let response: Response;
    try {
      response = await this.#client.query(
        analyzed.text,
        graphResult ? ACCEPT_GRAPH : ACCEPT_BINDINGS,
        { timeoutMs },
      );
    } catch (error) {
      throw refusedQueryAsInvalid(error);
    }
    // The response timeout keeps running while the body is read.
    try {
      return await readResult(response, graphResult, limit);
    } catch (error) {
      throw storeProblemFromError(error, this.#client.config.queryUrl, timeoutMs, timeoutMs);
    }
  }
}

async function readResult(
  response: Response,
  graphResult: boolean,
  limit: number,
): Promise<SparqlQueryResult> {
  const contentType = response.headers.get("Content-Type")?.split(";")[0].trim().toLowerCase();
  if (!response.body) throw malformedResults("the response has no body");
  if (contentType === SPARQL_JSON || contentType === "application/json") {
    const results = await readSparqlJsonResults(response.body, limit);
    if (graphResult) throw malformedResults("a CONSTRUCT or DESCRIBE answered with bindings");
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
 * function) is the caller's mistake: 400 `invalid-sparql` with the endpoint's words.
 */
function refusedQueryAsInvalid(error: unknown): unknown {
  if (error instanceof ProblemError && error.extensions.endpointStatus === 400) {
    return new ProblemError(
      400,
      "invalid-sparql",
      "Invalid SPARQL",
      `The SPARQL endpoint refused the query: ${error.message.replace(/^.*? with HTTP 400: /, "")}`,
      [{ path: "query", message: "refused by the endpoint" }],
    );
  }
  return error;
}
