/**
 * The SPARQL stores the store-level suites run on: the environment's Fuseki
 * (`SERVICE_SPARQL_*`) and Virtuoso (`SERVICE_VIRTUOSO_*`, digest auth). A suite registers
 * each scenario once per store with {@link sparqlStoreTests}; a store that is not configured
 * here leaves its tests ignored. What differs between the stores is said here, never in a
 * shared test. Direct reads and clean-ups go through the store's own client
 * (`SparqlHttpClient`), which speaks basic and digest auth as the service does.
 */
import { SparqlHttpClient } from "../../src/sparql_protocol/client.ts";
import { stringToSparql } from "../../src/sparql_protocol/terms.ts";
import {
  SparqlTripleStore,
  type SparqlTripleStoreConfig,
} from "../../src/store_sparql/sparql_triple_store.ts";
import { SPARQL_STORE_DEFAULTS } from "./config_defaults.ts";
import { SPARQL_SUITE_SKIPPED, type SparqlEndpoints, sparqlEndpointsFromEnv } from "./fuseki.ts";
import { VIRTUOSO_SKIPPED, virtuosoServiceEnv } from "./virtuoso.ts";

/** A store's endpoints and credentials, with the auth scheme it takes. */
export type StoreEndpoints = SparqlEndpoints & { authScheme?: "basic" | "digest" };

/** One store a suite runs on. */
export interface SparqlStoreTarget {
  label: "fuseki" | "virtuoso";
  /** Undefined when this store is not configured here. */
  endpoints: StoreEndpoints | undefined;
  /**
   * The `default-graph-uri` under which a query sees the union of the named graphs: Fuseki's
   * `urn:x-arq:UnionGraph`; undefined on Virtuoso, whose default graph is that union already.
   */
  unionDefaultGraph?: string;
}

let targets: SparqlStoreTarget[] | undefined;

/** Fuseki, then Virtuoso; prints (once) how to configure each one that is missing. */
export function sparqlStoreTargets(): SparqlStoreTarget[] {
  if (targets) return targets;
  const fuseki = sparqlEndpointsFromEnv();
  if (!fuseki) console.log(SPARQL_SUITE_SKIPPED);
  const env = virtuosoServiceEnv();
  if (!env) console.log(`Virtuoso store suite skipped: ${VIRTUOSO_SKIPPED}`);
  targets = [
    { label: "fuseki", endpoints: fuseki, unionDefaultGraph: "urn:x-arq:UnionGraph" },
    {
      label: "virtuoso",
      endpoints: env && {
        queryUrl: env.SERVICE_SPARQL_QUERY_URL,
        updateUrl: env.SERVICE_SPARQL_UPDATE_URL,
        graphStoreUrl: env.SERVICE_SPARQL_GSP_URL,
        username: env.SERVICE_SPARQL_USER,
        password: env.SERVICE_SPARQL_PASSWORD,
        authScheme: "digest",
      },
    },
  ];
  return targets;
}

/**
 * Registers the scenario once per store, as `[fuseki] name` and `[virtuoso] name`, each
 * ignored where its store is not configured.
 */
export function sparqlStoreTests(
  name: string,
  fn: (endpoints: StoreEndpoints, target: SparqlStoreTarget) => Promise<void>,
): void {
  for (const target of sparqlStoreTargets()) {
    Deno.test({
      name: `[${target.label}] ${name}`,
      ignore: !target.endpoints,
      fn: () => fn(target.endpoints!, target),
    });
  }
}

/**
 * A SPARQL store on `endpoints` at the configuration's defaults (overridden by `config`),
 * after its capability check, as the service runs it (`Services.checkStore`): the store
 * learns there, for instance, whether it must stage writes with typed literals.
 */
export async function openCheckedStore(
  endpoints: StoreEndpoints,
  config: Partial<SparqlTripleStoreConfig> = {},
): Promise<SparqlTripleStore> {
  const store = new SparqlTripleStore({
    ...SPARQL_STORE_DEFAULTS,
    ...endpoints,
    timeoutMs: 60_000,
    retries: 2,
    ...config,
  });
  try {
    await store.checkCapabilities();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

/** The SPARQL JSON answer of the store to `query`, bypassing the triple store. */
export async function askStore(
  endpoints: StoreEndpoints,
  query: string,
): Promise<{ boolean?: boolean; results: { bindings: Record<string, { value: string }>[] } }> {
  const client = new SparqlHttpClient({ ...endpoints, timeoutMs: 60_000, retries: 2 });
  try {
    const response = await client.query(query, "application/sparql-results+json");
    return await response.json();
  } finally {
    client.close();
  }
}

/** Drops every graph whose name starts with `prefix` (a test run's own graphs). */
export async function dropGraphsStartingWith(
  endpoints: StoreEndpoints,
  prefix: string,
): Promise<void> {
  const client = new SparqlHttpClient({ ...endpoints, timeoutMs: 120_000, retries: 0 });
  try {
    await client.update(`DELETE { GRAPH ?g { ?s ?p ?o } } WHERE { GRAPH ?g { ?s ?p ?o }
      FILTER(STRSTARTS(STR(?g), ${stringToSparql(prefix)})) }`);
  } finally {
    client.close();
  }
}
