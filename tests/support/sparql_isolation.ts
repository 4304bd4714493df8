/**
 * Keeps API test services on the SPARQL store apart from each other on one shared Fuseki.
 *
 * Every test service gets its own metadata graph and item graph names, derived from its
 * data directory: the store lists a collection from its metadata graph and names each
 * item's graph from the template, so two services never see each other's items, even
 * with the same item URIs and collections, and a service restarted on the same data
 * directory finds its items again. Tests stay the same on both backends. The layout is
 * the one a deployment sharing a dataset between services would configure
 * (`service.store.sparql.metadataGraph` and `graphTemplate`).
 */
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import type { ServiceConfig } from "../../src/config/schema.ts";
import { SparqlHttpClient } from "../../src/sparql_protocol/client.ts";
import { CONFIG_DEFAULTS } from "./config_defaults.ts";

/** The prefix of every graph of a test service on the SPARQL store. */
export const TEST_GRAPH_PREFIX = "urn:rcs-test:";

/**
 * Gives a SPARQL-store configuration graphs of its own, unless the test chose a layout
 * itself. Returns true when it did.
 */
export function isolateSparqlStore(config: ServiceConfig, dataDir: string): boolean {
  const { store } = config.service;
  if (store.backend !== "sparql") return false;
  // A layout other than the defaults is the test's own choice.
  const defaults = CONFIG_DEFAULTS.store.sparql;
  if (
    store.sparql.metadataGraph !== defaults.metadataGraph ||
    store.sparql.graphTemplate !== defaults.graphTemplate
  ) {
    return false;
  }
  const id = createHash("sha256").update(resolve(dataDir)).digest("hex").slice(0, 20);
  store.sparql.metadataGraph = `${TEST_GRAPH_PREFIX}${id}:meta`;
  store.sparql.graphTemplate = `${TEST_GRAPH_PREFIX}${id}:graph:{item}`;
  return true;
}

/**
 * Removes every graph an isolated service wrote (its items' graphs, then its metadata
 * graph), so that runs against a long-lived Fuseki do not pile up data.
 */
export async function dropIsolatedGraphs(config: ServiceConfig): Promise<void> {
  const { sparql } = config.service.store;
  const { metadataGraph } = sparql;
  if (!metadataGraph?.startsWith(TEST_GRAPH_PREFIX) || !sparql.updateUrl) return;
  // The store's own client: Virtuoso's endpoint takes digest authentication only.
  const client = new SparqlHttpClient({
    queryUrl: sparql.queryUrl!,
    updateUrl: sparql.updateUrl,
    graphStoreUrl: sparql.graphStoreUrl ?? "",
    username: sparql.username,
    password: sparql.password,
    authScheme: sparql.authScheme,
    timeoutMs: 60_000,
    retries: 0,
  });
  try {
    await client.update(`DELETE { GRAPH ?g { ?s ?p ?o } } WHERE {
        GRAPH <${metadataGraph}> { ?item <urn:rdf-content-service:graph> ?g }
        GRAPH ?g { ?s ?p ?o } } ;
      DROP SILENT GRAPH <${metadataGraph}>`);
  } finally {
    client.close();
  }
}
