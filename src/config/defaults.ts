/**
 * The built-in configuration, used when no customer.yml is found: the shipped file, word
 * for word (a test keeps the two identical), so every environment variable works without
 * a file.
 */
export const BUILT_IN_CUSTOMER_YML = `service:
  http:
    host: \${SERVICE_HTTP_HOST:127.0.0.1}
    port: \${SERVICE_HTTP_PORT:8080}
    maxBodyBytes: \${SERVICE_HTTP_MAX_BODY:16777216}
  data:
    dir: \${SERVICE_DATA_DIR:./data}
  store:
    backend: \${SERVICE_STORE_BACKEND:embedded}      # embedded | sparql
    sparql:
      queryUrl: \${SERVICE_SPARQL_QUERY_URL:}
      updateUrl: \${SERVICE_SPARQL_UPDATE_URL:}
      graphStoreUrl: \${SERVICE_SPARQL_GSP_URL:}
      username: \${SERVICE_SPARQL_USER:}
      password: \${SERVICE_SPARQL_PASSWORD:}
  search:
    backend: \${SERVICE_SEARCH_BACKEND:embedded}     # embedded | opensearch
    opensearch:
      node: \${SERVICE_OPENSEARCH_URL:http://127.0.0.1:9200}
      username: \${SERVICE_OPENSEARCH_USER:}
      password: \${SERVICE_OPENSEARCH_PASSWORD:}
      indexPrefix: \${SERVICE_OPENSEARCH_INDEX_PREFIX:}
    query:
      maxResultsLimit: \${SERVICE_ES_MAX_RESULTS:10000}
      maxWindow: \${SERVICE_ES_MAX_WINDOW:10000}
  security:
    tokens: []          # [{name, token, role: reader|editor|admin}]
  sparqlEndpoints: []   # extra endpoints for the query tool: [{id, name, url, username?, password?, readOnly}]
workspaces:
  - uri: https://data.example.org/workspace/demo
    name: Demo
    collections:
      - uri: https://data.example.org/collection/documents
        name: Documents
        index: documents
        itemUriTemplate: https://data.example.org/id/document/{uuid}
`;
