/**
 * The configuration the `/sparql` suites run the service with: the demo collection, and on
 * the SPARQL store the default graph the store's backend names (service.ts: Fuseki's union
 * graph; nothing on Virtuoso, whose default graph is already the union of the graphs the
 * user-query account may read), which is what docs/api.md describes.
 */
import { STORE_YAML } from "./backends.ts";
import { DEMO_COLLECTION } from "./service.ts";

/** customer.yml text for a `/sparql` test service on the store the environment names. */
export const SPARQL_PROTOCOL_YAML = `
service:
  http:
    port: \${SERVICE_HTTP_PORT:0}
  data:
    dir: \${SERVICE_DATA_DIR:./data}
${STORE_YAML}      queryDefaultGraph: \${SERVICE_SPARQL_USER_DEFAULT_GRAPH:}
workspaces:
  - uri: https://data.example.org/workspace/demo
    name: Demo
    collections:
      - uri: ${DEMO_COLLECTION}
        name: Documents
        index: documents
`;
