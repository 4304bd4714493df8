/**
 * The (store, search engine) pairs API suites run on, and the customer.yml fragment that
 * lets a suite's own configuration follow the chosen store.
 *
 * Four pairs: embedded+embedded (the zero set-up default), embedded+opensearch,
 * sparql+opensearch (the scale-out deployment) and sparql+embedded. Every pair is one
 * deployment someone runs, and a suite's behaviour depends on both halves (the store
 * feeds the indexer; search answers from what the store held), so none is left out.
 * Pairs whose engine is not configured are registered as ignored, with one plain line.
 */
import { type StoreBackend, storeBackends } from "./service.ts";
import { type SearchBackend, searchBackends } from "./opensearch.ts";

/** One store and one search engine to run a suite on. */
export interface BackendPair {
  /** `store+search`, e.g. `sparql+opensearch`. */
  name: string;
  store: StoreBackend;
  search: SearchBackend;
  /** True when either engine is not available here. */
  ignore: boolean;
  /** Environment for a service on this pair; a fresh OpenSearch index prefix each call. */
  env(): Record<string, string>;
}

/**
 * The `service.store` section for a suite's own customer.yml, driven by the environment a
 * {@link BackendPair} sets (indented for `service:`).
 */
export const STORE_YAML = `  store:
    backend: \${SERVICE_STORE_BACKEND:embedded}
    sparql:
      queryUrl: \${SERVICE_SPARQL_QUERY_URL:}
      updateUrl: \${SERVICE_SPARQL_UPDATE_URL:}
      graphStoreUrl: \${SERVICE_SPARQL_GSP_URL:}
      username: \${SERVICE_SPARQL_USER:}
      password: \${SERVICE_SPARQL_PASSWORD:}
      authScheme: \${SERVICE_SPARQL_AUTH:}
      userQueries:
        username: \${SERVICE_SPARQL_READER_USER:}
        password: \${SERVICE_SPARQL_READER_PASSWORD:}
`;

/**
 * The `service.search` section for a suite's own customer.yml, driven by the environment a
 * {@link BackendPair} sets (indented for `service:`; more `search` keys may follow it).
 */
export const SEARCH_YAML = `  search:
    backend: \${SERVICE_SEARCH_BACKEND:embedded}
    opensearch:
      node: \${SERVICE_OPENSEARCH_URL:http://127.0.0.1:9200}
      indexPrefix: \${SERVICE_OPENSEARCH_INDEX_PREFIX:}
`;

let sparqlSkipPrinted = false;

/**
 * Every store backend crossed with every search engine; `label` names index prefixes. With
 * `allStores` (suites that exercise the store) Virtuoso too, with the embedded search engine
 * only: search engines behave alike whichever store fed them, and CI time is better spent.
 */
export function testBackends(label: string, options: { allStores?: boolean } = {}): BackendPair[] {
  const stores = storeBackends(options);
  const searches = searchBackends(label);
  const sparql = stores.find((store) => store.name === "sparql");
  if (sparql?.skip && !sparqlSkipPrinted) {
    sparqlSkipPrinted = true;
    console.log(`SPARQL store pairs skipped: ${sparql.skip}`);
  }
  return stores.flatMap((store) =>
    searches.filter((search) => store.name !== "virtuoso" || search.name === "embedded").map((
      search,
    ) => ({
      name: `${store.name}+${search.name}`,
      store,
      search,
      ignore: store.skip !== undefined || search.ignore,
      env: () => ({ ...store.env, ...search.env() }),
    }))
  );
}
