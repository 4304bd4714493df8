/**
 * The built-in configuration, used when no customer.yml is found: the shipped file, word
 * for word (a test keeps the two identical), so every environment variable works without
 * a file. Its default values are not written here: each is the schema's
 * (`src/config/schema.ts`, their one owner), and tests/unit/config_docs_test.ts checks the
 * shipped file and docs/configuration.md against the schema.
 */
import { configSchema } from "./schema.ts";

/** `service` of a configuration that sets nothing: the schema's defaults. */
const D = configSchema.parse({}).service;

export const BUILT_IN_CUSTOMER_YML = `service:
  http:
    host: \${SERVICE_HTTP_HOST:${D.http.host}}
    port: \${SERVICE_HTTP_PORT:${D.http.port}}
    maxBodyBytes: \${SERVICE_HTTP_MAX_BODY:${D.http.maxBodyBytes}}
    bodyStallMs: \${SERVICE_HTTP_BODY_STALL_MS:${D.http.bodyStallMs}}   # cut a request body that stops arriving for this long (0: never)
    cors:
      origins: \${SERVICE_HTTP_CORS_ORIGINS:}   # browser origins allowed to call: comma-separated, e.g. https://app.example.org
  data:
    dir: \${SERVICE_DATA_DIR:${D.data.dir}}
  store:
    backend: \${SERVICE_STORE_BACKEND:${D.store.backend}}      # embedded | sparql
    sparql:
      queryUrl: \${SERVICE_SPARQL_QUERY_URL:}
      updateUrl: \${SERVICE_SPARQL_UPDATE_URL:}
      graphStoreUrl: \${SERVICE_SPARQL_GSP_URL:}
      username: \${SERVICE_SPARQL_USER:}
      password: \${SERVICE_SPARQL_PASSWORD:}
      authScheme: \${SERVICE_SPARQL_AUTH:}            # basic (default) | digest (Virtuoso's /sparql-auth)
      userQueries:       # the read-only account /sparql and the query tool run as (default: the one above)
        queryUrl: \${SERVICE_SPARQL_USER_QUERY_URL:}
        username: \${SERVICE_SPARQL_READER_USER:}
        password: \${SERVICE_SPARQL_READER_PASSWORD:}
      caFile: \${SERVICE_SPARQL_CA_FILE:}           # PEM CA certificates trusted for https:// endpoints
      timeoutMs: \${SERVICE_SPARQL_TIMEOUT_MS:${D.store.sparql.timeoutMs}}   # each request to the store
    groupCommit:        # writes arriving while a commit is in flight are committed together in the next one
      maxWrites: \${SERVICE_STORE_GROUP_MAX_WRITES:${D.store.groupCommit.maxWrites}}         # most writes per group (1: every write alone)
      maxBytes: \${SERVICE_STORE_GROUP_MAX_BYTES:${D.store.groupCommit.maxBytes}}      # most bytes of triples per group
      maxWaitMs: \${SERVICE_STORE_GROUP_MAX_WAIT_MS:${D.store.groupCommit.maxWaitMs}}      # longest wait for the commit ahead before going beside it
  search:
    backend: \${SERVICE_SEARCH_BACKEND:${D.search.backend}}     # embedded | opensearch
    indexPrefix: \${SERVICE_SEARCH_INDEX_PREFIX:}   # before every collection's index, on either engine
    indexing:
      workers: \${SERVICE_INDEXING_WORKERS:${D.search.indexing.workers}}   # threads running jobs' and the outbox's index batches (embedded backends); 0: the request thread
    opensearch:
      node: \${SERVICE_OPENSEARCH_URL:${
  D.search.opensearch.node.join(",")
}}   # one URL, or every node: comma-separated
      username: \${SERVICE_OPENSEARCH_USER:}
      password: \${SERVICE_OPENSEARCH_PASSWORD:}
      caFile: \${SERVICE_OPENSEARCH_CA_FILE:}       # PEM CA certificates trusted for https:// nodes
      indexPrefix: \${SERVICE_OPENSEARCH_INDEX_PREFIX:}   # older name of service.search.indexPrefix
      timeouts:         # client-side: a request not answered in time is aborted
        searchMs: \${SERVICE_OPENSEARCH_SEARCH_TIMEOUT_MS:${D.search.opensearch.timeouts.searchMs}}
        bulkMs: \${SERVICE_OPENSEARCH_BULK_TIMEOUT_MS:${D.search.opensearch.timeouts.bulkMs}}
        adminMs: \${SERVICE_OPENSEARCH_ADMIN_TIMEOUT_MS:${D.search.opensearch.timeouts.adminMs}}
      dsl:                # POST /api/search: the raw query DSL, behind an allow-list (docs/backends.md)
        role: \${SERVICE_OPENSEARCH_DSL_ROLE:${D.search.opensearch.dsl.role}}            # reader | editor | admin | none (off)
        expensiveQueries: \${SERVICE_OPENSEARCH_DSL_EXPENSIVE:${D.search.opensearch.dsl.expensiveQueries}}   # leading wildcards, regexp, fuzzy
        timeoutMs: \${SERVICE_OPENSEARCH_DSL_TIMEOUT_MS:${D.search.opensearch.dsl.timeoutMs}}     # a slower query answers 504
    query:
      maxResultsLimit: \${SERVICE_ES_MAX_RESULTS:${D.search.query.maxResultsLimit}}
      maxWindow: \${SERVICE_ES_MAX_WINDOW:${D.search.query.maxWindow}}
      trackTotalHits: \${SERVICE_SEARCH_TRACK_TOTAL_HITS:${D.search.query.trackTotalHits}}   # hits counted exactly; beyond, totalRelation is gte
  ready:
    timeoutMs: \${SERVICE_READY_TIMEOUT_MS:${D.ready.timeoutMs}}       # /ready answers within this budget
    requireSearch: \${SERVICE_READY_REQUIRE_SEARCH:${D.ready.requireSearch}}   # search down: 503 instead of 200 degraded
  failFast:             # engines marked down after repeated timeouts/refusals: 503 + Retry-After at once
    failures: \${SERVICE_FAIL_FAST_FAILURES:${D.failFast.failures}}
    probeIntervalMs: \${SERVICE_FAIL_FAST_PROBE_MS:${D.failFast.probeIntervalMs}}
  cluster:
    leaseMs: \${SERVICE_CLUSTER_LEASE_MS:${D.cluster.leaseMs}}   # claims on shared work (outbox entries, jobs, webhook endpoints)
  changes:            # the change feed, GET /api/changes
    retentionMs: \${SERVICE_CHANGES_RETENTION_MS:${D.changes.retentionMs}}   # older changes are pruned: their cursors answer 410
  webhooks:           # delivery of the change feed to collections' webhooks
    retryForMs: \${SERVICE_WEBHOOKS_RETRY_FOR_MS:${D.webhooks.retryForMs}}   # a change refused this long is dead-lettered
    retryStartMs: \${SERVICE_WEBHOOKS_RETRY_START_MS:${D.webhooks.retryStartMs}}   # first retry's wait, doubled each time
    retryMaxMs: \${SERVICE_WEBHOOKS_RETRY_MAX_MS:${D.webhooks.retryMaxMs}}   # longest wait between attempts
    timeoutMs: \${SERVICE_WEBHOOKS_TIMEOUT_MS:${D.webhooks.timeoutMs}}   # each POST's time to answer
  workers:            # threads that parse and hash writes and imports
    count: \${SERVICE_WORKERS:}              # empty or 0: on the request thread; N: N worker threads
  query:             # SPARQL queries run for callers: /sparql, the query tool, label lookups
    timeoutMs: \${SERVICE_QUERY_TIMEOUT_MS:${D.query.timeoutMs}}   # 504 query-timeout beyond
    maxRows: \${SERVICE_QUERY_MAX_ROWS:${D.query.maxRows}}       # more rows are cut (X-Results-Truncated: true)
  security:
    tokens: ${
  JSON.stringify(D.security.tokens)
}          # [{name, token, role: reader|editor|admin}]
    oidc:               # OpenID Connect / JWT bearer tokens (docs/SECURITY.md); off without an issuer
      issuer: \${SERVICE_OIDC_ISSUER:}
      audience: \${SERVICE_OIDC_AUDIENCE:}
      jwksUrl: \${SERVICE_OIDC_JWKS_URL:}           # the provider's keys, cached; or jwksFile
      jwksFile: \${SERVICE_OIDC_JWKS_FILE:}
      groupsClaim: \${SERVICE_OIDC_GROUPS_CLAIM:${D.security.oidc.groupsClaim}}   # dotted path: realm_access.roles for Keycloak
      clockSkewSeconds: \${SERVICE_OIDC_CLOCK_SKEW_S:${D.security.oidc.clockSkewSeconds}}
      roles: \${SERVICE_OIDC_ROLES:}                # group → global role: group=role,group=role
  history:
    retention: \${SERVICE_HISTORY_RETENTION:${D.history.retention}}   # versions a prune keeps: all | last:N | ISO 8601 duration (P90D); never an item's newest
    pruneIntervalMs: \${SERVICE_HISTORY_PRUNE_INTERVAL_MS:${D.history.pruneIntervalMs}}   # start a prune of every collection this often (0: only POST /api/admin/history/prune)
  sparqlEndpoints: ${
  JSON.stringify(D.sparqlEndpoints)
}   # extra endpoints for the query tool: [{id, name, url, username?, password?, caFile?, readOnly}]
workspaces:
  - uri: https://data.example.org/workspace/demo
    name: Demo
    collections:
      - uri: https://data.example.org/collection/documents
        name: Documents
        index: documents
        itemUriTemplate: https://data.example.org/id/document/{uuid}
        # Defaults added by POST /api/item/initialize, ?this bound to each listed URI.
        # Each rule guards itself (FILTER NOT EXISTS) so initialising twice adds nothing.
        initialize:
          - name: creation date
            construct: |
              PREFIX dct: <http://purl.org/dc/terms/>
              PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
              CONSTRUCT { ?this dct:created ?today }
              WHERE {
                FILTER NOT EXISTS { ?this dct:created ?any }
                BIND(STRDT(SUBSTR(STR(NOW()), 1, 10), xsd:date) AS ?today)
              }
          - name: identifier from the URI
            construct: |
              PREFIX dct: <http://purl.org/dc/terms/>
              CONSTRUCT { ?this dct:identifier ?id }
              WHERE {
                FILTER NOT EXISTS { ?this dct:identifier ?any }
                BIND(REPLACE(STR(?this), "^.*[/#]", "") AS ?id)
              }
          - name: English label from an untagged title
            forType: http://xmlns.com/foaf/0.1/Document
            construct: |
              PREFIX dct: <http://purl.org/dc/terms/>
              PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
              CONSTRUCT { ?this rdfs:label ?label }
              WHERE {
                ?this dct:title ?title .
                FILTER(LANG(?title) = "")
                FILTER NOT EXISTS { ?this rdfs:label ?any }
                BIND(STRLANG(STR(?title), "en") AS ?label)
              }
          - name: related stored documents on the same subject
            from: store
            construct: |
              PREFIX dct: <http://purl.org/dc/terms/>
              CONSTRUCT { ?this dct:relation ?other }
              WHERE {
                ?this dct:subject ?topic .
                ?other dct:subject ?topic .
                FILTER(?other != ?this)
              }
`;
