/**
 * The SPARQL endpoints the admin query tool may query: the service's own store (id
 * `store`) and every endpoint configured under `service.sparqlEndpoints`.
 *
 * The tool only ever sends queries to these: an endpoint is chosen by id, never by a URL
 * from the request. Every query is read with a real parser first, so updates are refused
 * and the row limit is written into the query before anything runs it. Credentials stay
 * here; {@link SparqlEndpointRegistry.list} shows URLs without them. An endpoint trusts
 * its own `caFile` for HTTPS, never the store's.
 */
import type { ServiceConfig } from "../config/schema.ts";
import { readCaCertificates } from "../config/ca_file.ts";
import { DomainError } from "../errors/domain_error.ts";
import { queryRemoteEndpoint } from "../sparql_protocol/remote_query.ts";
import { SparqlHttpClient } from "../sparql_protocol/client.ts";
import { blankNodesPerSolution, withBlankNodeCalls } from "../sparql_protocol/blank_node_calls.ts";
import type { TripleStore } from "../store/triple_store.ts";
import type { SparqlQueryOptions, SparqlQueryResult } from "../sparql_protocol/query_types.ts";

/** Id of the service's own store in the endpoint list. */
export const STORE_ENDPOINT_ID = "store";

/** Path of the query tool: the address of the embedded store, which has no URL of its own. */
export const QUERY_TOOL_PATH = "/api/admin/tools/sparqlui/query";

/** One endpoint as the endpoint list shows it: never with credentials. */
export interface SparqlEndpointInfo {
  id: string;
  name: string;
  url: string;
  /**
   * The service's own SPARQL 1.1 Protocol address of this endpoint (a path): `/sparql` for
   * the store, `/sparql/{id}` for the others. Standard clients query it.
   */
  protocolUrl: string;
  kind: "embedded" | "remote";
  readOnly: boolean;
  /** URIs of the configured collections whose items this endpoint holds. */
  collections: string[];
}

interface Endpoint {
  info: SparqlEndpointInfo;
  run(sparql: string, options: SparqlQueryOptions): Promise<SparqlQueryResult>;
}

/** The endpoints of the query tool, built once from the configuration. */
export class SparqlEndpointRegistry {
  readonly #endpoints = new Map<string, Endpoint>();
  /** The store's collections as they are now (collections can be made at run time). */
  readonly #storeCollections: () => string[];

  /**
   * `store` answers for the service's own store; `collections` are the URIs of every
   * configured collection (all of them live in that store). Throws a ConfigError when an
   * endpoint's CA file cannot be used.
   */
  constructor(
    config: ServiceConfig,
    store: TripleStore,
    collections: string[] | (() => string[]),
  ) {
    this.#storeCollections = typeof collections === "function"
      ? collections
      : () => [...collections];
    const storeIsRemote = config.service.store.backend === "sparql";
    this.#endpoints.set(STORE_ENDPOINT_ID, {
      info: {
        id: STORE_ENDPOINT_ID,
        name: storeIsRemote ? "Service store (SPARQL endpoint)" : "Service store (embedded)",
        url: storeIsRemote
          ? withoutCredentials(config.service.store.sparql.queryUrl ?? "").url
          : `${QUERY_TOOL_PATH}?endpoint=${STORE_ENDPOINT_ID}`,
        protocolUrl: "/sparql",
        kind: storeIsRemote ? "remote" : "embedded",
        // Through this tool the store only ever answers queries.
        readOnly: true,
        collections: [],
      },
      // BNODE(string) per solution whichever engine answers (blank_node_calls.ts).
      run: async (sparql, options) => {
        const calls = withBlankNodeCalls(sparql);
        return blankNodesPerSolution(await store.query(calls.sparql, options), calls.variables);
      },
    });
    for (const [index, configured] of config.service.sparqlEndpoints.entries()) {
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
          caCertificates: configured.caFile
            ? readCaCertificates(configured.caFile, `service.sparqlEndpoints[${index}].caFile`)
            : undefined,
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
          protocolUrl: `/sparql/${encodeURIComponent(configured.id)}`,
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
      collections: endpoint.info.id === STORE_ENDPOINT_ID
        ? this.#storeCollections()
        : [...endpoint.info.collections],
    }));
  }

  /** Whether `id` names an endpoint. */
  has(id: string): boolean {
    return this.#endpoints.has(id);
  }

  /**
   * Runs a read-only query on endpoint `id`: not-found `endpoint-not-found`, invalid-input
   * `invalid-sparql` / `sparql-update-refused`, timeout `query-timeout`, backend-failed/unavailable when a remote
   * endpoint fails.
   */
  query(id: string, sparql: string, options: SparqlQueryOptions): Promise<SparqlQueryResult> {
    const endpoint = this.#endpoints.get(id);
    if (!endpoint) return Promise.reject(endpointNotFound(id, [...this.#endpoints.keys()]));
    return endpoint.run(sparql, options);
  }
}

/** not-found for an endpoint id that is not in the list. */
export function endpointNotFound(id: string, known: string[]): DomainError {
  return new DomainError("endpoint-not-found", {
    detail: `No SPARQL endpoint has the id ${JSON.stringify(id)}; known ids: ${known.join(", ")}.`,
    errors: [{ path: "endpoint", message: "unknown endpoint id" }],
  });
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

  query(sparql: string, options: SparqlQueryOptions): Promise<SparqlQueryResult> {
    return queryRemoteEndpoint(this.#client, sparql, options);
  }
}
