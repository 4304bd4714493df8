/**
 * The admin tools over real HTTP (docs/api.md, Admin tools): the SPARQL endpoint list and query
 * tool on the service's own store, on a real Fuseki as an extra endpoint when one is
 * configured, and on loopback HTTP servers for the protocol's failure paths; the settings
 * dump; SHACL generation from uploads in every RDF format.
 *
 * Every test runs on each store backend (storeBackends()): on the SPARQL store, the store
 * endpoint is the remote one the service writes to, queried over the union of its named
 * graphs as a Fuseki deployment configures it (`queryDefaultGraph: urn:x-arq:UnionGraph`).
 */
import { strict as assert } from "node:assert";
import { DataFactory, Parser, Writer } from "n3";
import type { Quad } from "n3";
import { parse as parseYaml } from "yaml";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  DEMO_COLLECTION,
  startTestService,
  type StoreBackend,
  storeBackends,
  type TestService,
  uniqueItemUri,
} from "../support/service.ts";
import { STORE_YAML } from "../support/backends.ts";
import { expectProblem } from "../support/problems.ts";

const DCT = "http://purl.org/dc/terms/";
const FOAF = "http://xmlns.com/foaf/0.1/";
const SH = "http://www.w3.org/ns/shacl#";
const RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const ENDPOINTS = "/api/admin/tools/sparqlui/sparql-endpoints";
const SPARQL_JSON = "application/sparql-results+json";

/** A customer.yml for these tests: the demo collection plus what each test needs. */
function toolsYaml(
  options: { serviceExtra?: string; searchExtra?: string; timeoutMs?: number } = {},
): string {
  return `
service:
  http:
    port: \${SERVICE_HTTP_PORT:0}
    maxBodyBytes: \${SERVICE_HTTP_MAX_BODY:16777216}
  data:
    dir: \${SERVICE_DATA_DIR:./data}
${STORE_YAML}      queryDefaultGraph: \${SERVICE_SPARQL_USER_DEFAULT_GRAPH:}
  search:
    query:
      maxResultsLimit: \${SERVICE_ES_MAX_RESULTS:10000}
${options.searchExtra ?? ""}
  query:
    timeoutMs: ${options.timeoutMs ?? 30000}
    maxRows: \${SERVICE_QUERY_MAX_ROWS:10000}
${options.serviceExtra ?? ""}
workspaces:
  - uri: https://data.example.org/workspace/demo
    name: Demo
    collections:
      - uri: ${DEMO_COLLECTION}
        name: Documents
        index: documents
      - uri: https://data.example.org/collection/other
        name: Other
        index: other
`;
}

const BACKENDS = storeBackends();
for (const backend of BACKENDS) {
  if (backend.skip) console.log(`tools API suite on ${backend.name} skipped: ${backend.skip}`);
}

/**
 * Registers `fn` once per store backend (only on those named in `options.backends`), each
 * run against a fresh service that is always stopped.
 */
function serviceTest(
  name: string,
  options: {
    yaml?: string;
    env?: Record<string, string>;
    backends?: StoreBackend["name"][];
  },
  fn: (service: TestService, backend: StoreBackend) => Promise<void>,
) {
  for (const backend of BACKENDS) {
    if (options.backends && !options.backends.includes(backend.name)) continue;
    Deno.test({
      name: `[tools/${backend.name}] ${name}`,
      ignore: backend.skip !== undefined,
      sanitizeResources: false,
      sanitizeOps: false,
      fn: async () => {
        const service = await startTestService({
          yaml: options.yaml ?? toolsYaml(),
          env: { ...backend.env, ...options.env },
        });
        try {
          await fn(service, backend);
        } finally {
          await service.close();
        }
      },
    });
  }
}

async function createItem(service: TestService, uri: string, turtle: string): Promise<void> {
  const response = await service.fetch(
    `/api/item?collection=${encodeURIComponent(DEMO_COLLECTION)}&item=${encodeURIComponent(uri)}`,
    { method: "PUT", headers: { "Content-Type": "text/turtle" }, body: turtle },
  );
  assert.equal(response.status, 201, await response.text());
}

/** Three documents under one fresh URI prefix; returns the prefix and the URIs in order. */
async function createDocuments(service: TestService): Promise<{ prefix: string; uris: string[] }> {
  const prefix = uniqueItemUri("tools");
  const uris = ["a", "b", "c"].map((suffix) => `${prefix}/${suffix}`);
  for (const [index, uri] of uris.entries()) {
    await createItem(
      service,
      uri,
      `<${uri}> a <${FOAF}Document> ; <${DCT}title> "Document ${index + 1}"@en ;
         <${DCT}extent> ${index + 10} .`,
    );
  }
  return { prefix, uris };
}

function query(
  service: TestService,
  endpoint: string,
  sparql: string,
  headers: Record<string, string> = {},
) {
  return service.fetch(`/api/admin/tools/sparqlui/query?endpoint=${encodeURIComponent(endpoint)}`, {
    method: "POST",
    headers: { "Content-Type": "application/sparql-query", ...headers },
    body: sparql,
  });
}

interface JsonResults {
  head: { vars: string[] };
  results: { bindings: Record<string, { type: string; value: string; "xml:lang"?: string }>[] };
}

async function selectResults(response: Response): Promise<JsonResults> {
  const text = await response.text();
  assert.equal(response.status, 200, text);
  assert.equal(response.headers.get("content-type"), SPARQL_JSON);
  return JSON.parse(text);
}

const TITLES = (prefix: string) =>
  `SELECT ?s ?title WHERE { ?s <${DCT}title> ?title FILTER(STRSTARTS(STR(?s), "${prefix}/")) }
   ORDER BY ?s`;

serviceTest("the endpoint list names every endpoint and no credentials", {
  yaml: toolsYaml({
    serviceExtra: `  sparqlEndpoints:
    - id: mirror
      name: Mirror with credentials
      url: http://url-user:url-pass-Qw19@127.0.0.1:9/sparql
      username: endpoint-user-Hh42
      password: endpoint-password-Jk77
      readOnly: false
    - id: public
      name: Public
      url: http://127.0.0.1:9/public/sparql`,
  }),
}, async (service, backend) => {
  const response = await service.fetch(ENDPOINTS);
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
  const text = await response.text();
  for (const secret of ["url-pass-Qw19", "url-user", "endpoint-user-Hh42", "endpoint-password"]) {
    assert.ok(!text.includes(secret), `${secret} appears in ${text}`);
  }
  const list = JSON.parse(text);
  assert.deepEqual(list.map((e: { id: string }) => e.id), ["store", "mirror", "public"]);
  const [store, mirror, open] = list;
  if (backend.name === "sparql") {
    // docs/api.md: the remote store's endpoint appears in the list, by its query URL.
    assert.equal(store.kind, "remote");
    assert.equal(store.url, backend.env.SERVICE_SPARQL_QUERY_URL);
  } else {
    assert.equal(store.kind, "embedded");
    assert.equal(store.url, "/api/admin/tools/sparqlui/query?endpoint=store");
  }
  assert.equal(store.protocolUrl, "/sparql");
  const viaProtocol = await service.fetch(
    `${store.protocolUrl}?query=${encodeURIComponent("ASK {}")}`,
  );
  assert.deepEqual(await viaProtocol.json(), { head: {}, boolean: true });
  assert.equal(store.readOnly, true);
  assert.deepEqual(store.collections, [
    DEMO_COLLECTION,
    "https://data.example.org/collection/other",
  ]);
  assert.deepEqual(Object.keys(store).sort(), [
    "collections",
    "id",
    "kind",
    "name",
    "protocolUrl",
    "readOnly",
    "url",
  ]);
  assert.deepEqual(mirror, {
    id: "mirror",
    name: "Mirror with credentials",
    url: "http://127.0.0.1:9/sparql",
    protocolUrl: "/sparql/mirror",
    kind: "remote",
    readOnly: false,
    collections: [],
  });
  assert.equal(open.readOnly, true, "readOnly defaults to true");
});

serviceTest("SELECT, ASK, CONSTRUCT and DESCRIBE on the store", {}, async (service) => {
  const { prefix, uris } = await createDocuments(service);

  const select = await selectResults(await query(service, "store", TITLES(prefix)));
  assert.deepEqual(select.head.vars, ["s", "title"]);
  assert.deepEqual(select.results.bindings.map((b) => b.s.value), uris);
  assert.deepEqual(select.results.bindings[1].title, {
    type: "literal",
    value: "Document 2",
    "xml:lang": "en",
  });

  const ask = await query(service, "store", `ASK { <${uris[0]}> a <${FOAF}Document> }`);
  assert.equal(ask.status, 200);
  assert.equal(ask.headers.get("content-type"), SPARQL_JSON);
  assert.deepEqual(await ask.json(), { head: {}, boolean: true });
  const askNo = await query(service, "store", `ASK { <${uris[0]}> a <${FOAF}Person> }`);
  assert.equal((await askNo.json()).boolean, false);

  const constructQuery = `CONSTRUCT { ?s <${DCT}title> ?t } WHERE {
    ?s <${DCT}title> ?t FILTER(STRSTARTS(STR(?s), "${prefix}/")) }`;
  const turtle = await query(service, "store", constructQuery);
  assert.equal(turtle.status, 200);
  assert.equal(turtle.headers.get("content-type"), "text/turtle; charset=utf-8");
  assert.equal(turtle.headers.get("x-results-truncated"), null);
  const triples = new Parser({ format: "Turtle" }).parse(await turtle.text());
  assert.equal(triples.length, 3);
  assert.deepEqual(triples.map((q) => q.subject.value).sort(), uris);

  const jsonld = await query(service, "store", constructQuery, { Accept: "application/ld+json" });
  assert.equal(jsonld.status, 200);
  assert.match(jsonld.headers.get("content-type") ?? "", /^application\/ld\+json/);
  const document = await jsonld.json();
  const nodes: { "@id": string }[] = Array.isArray(document) ? document : document["@graph"];
  assert.deepEqual(nodes.map((node) => node["@id"]).sort(), uris);

  const describe = await query(service, "store", `DESCRIBE <${uris[2]}>`);
  assert.equal(describe.status, 200);
  const described = new Parser({ format: "Turtle" }).parse(await describe.text());
  assert.ok(described.some((q) => q.predicate.value === `${DCT}extent` && q.object.value === "12"));
});

serviceTest("the query arrives as a body or as the form field 'query'", {}, async (service) => {
  const { prefix, uris } = await createDocuments(service);
  const url = "/api/admin/tools/sparqlui/query?endpoint=store";
  const urlEncoded = await service.fetch(url, {
    method: "POST",
    body: new URLSearchParams({ query: TITLES(prefix) }),
  });
  assert.deepEqual((await selectResults(urlEncoded)).results.bindings.map((b) => b.s.value), uris);
  const form = new FormData();
  form.set("query", TITLES(prefix));
  const multipart = await service.fetch(url, { method: "POST", body: form });
  assert.deepEqual((await selectResults(multipart)).results.bindings.map((b) => b.s.value), uris);

  await expectProblem(
    await service.fetch(url, { method: "POST", body: new URLSearchParams({ other: "x" }) }),
    400,
    "missing-query",
  );
  await expectProblem(await query(service, "store", "  \n"), 400, "missing-query");
  await expectProblem(
    await service.fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    }),
    415,
    "unsupported-media-type",
  );
});

serviceTest(
  "bad requests: update, syntax error, unknown or missing endpoint",
  {},
  async (service) => {
    const { prefix } = await createDocuments(service);
    const update = await expectProblem(
      await query(service, "store", `DELETE WHERE { ?s ?p ?o }`),
      400,
      "sparql-update-refused",
    );
    assert.match(String(update.detail), /read-only/);
    // Nothing was deleted.
    const after = await selectResults(await query(service, "store", TITLES(prefix)));
    assert.equal(after.results.bindings.length, 3);

    const syntax = await expectProblem(
      await query(service, "store", "SELECT ?s\nWHERE { ?s ?p }"),
      400,
      "invalid-sparql",
    );
    assert.match(String(syntax.detail), /line 2/);
    const errors = syntax.errors as { path: string }[];
    assert.match(errors[0].path, /^2:\d+$/);

    await expectProblem(await query(service, "nowhere", "ASK {}"), 404, "endpoint-not-found");
    await expectProblem(
      await service.fetch("/api/admin/tools/sparqlui/query", {
        method: "POST",
        headers: { "Content-Type": "application/sparql-query" },
        body: "ASK {}",
      }),
      400,
      "missing-parameter",
    );
    // The endpoint is an id, never a URL from the request.
    await expectProblem(
      await query(service, "http://127.0.0.1:9/sparql", "ASK {}"),
      404,
      "endpoint-not-found",
    );
  },
);

serviceTest("rows are capped at service.query.maxRows, with X-Results-Truncated", {
  env: { SERVICE_QUERY_MAX_ROWS: "2" },
}, async (service) => {
  const { prefix, uris } = await createDocuments(service);
  const cut = await query(service, "store", TITLES(prefix));
  assert.equal(cut.headers.get("x-results-truncated"), "true");
  assert.deepEqual(
    (await selectResults(cut)).results.bindings.map((b) => b.s.value),
    uris.slice(0, 2),
  );

  const withinLimit = await query(service, "store", `${TITLES(prefix)} LIMIT 2`);
  assert.equal(withinLimit.headers.get("x-results-truncated"), null);
  assert.equal((await selectResults(withinLimit)).results.bindings.length, 2);

  // One predicate of the items: on Fuseki the union default graph also holds the service's
  // records about these subjects, which the store hides after the cap has counted them.
  const graph = await query(
    service,
    "store",
    `CONSTRUCT { ?s <${DCT}title> ?o } WHERE {
       ?s <${DCT}title> ?o FILTER(STRSTARTS(STR(?s), "${prefix}/")) }`,
  );
  assert.equal(graph.status, 200);
  assert.equal(graph.headers.get("x-results-truncated"), "true");
  assert.equal(new Parser({ format: "Turtle" }).parse(await graph.text()).length, 2);
});

// Embedded only: a remote endpoint keeps running a query the service gave up on (the
// protocol has no cancel), and this one would keep the Fuseki every suite shares busy for
// minutes. The remote 504 path is tested against a silent endpoint below.
serviceTest("a query over the time limit is stopped with 504; the service answers on", {
  yaml: toolsYaml({ timeoutMs: 3000 }),
  backends: ["embedded"],
}, async (service) => {
  const uri = uniqueItemUri("wide");
  const properties = Array.from({ length: 200 }, (_, i) => `<urn:p:${i}> "value ${i}"`);
  await createItem(service, uri, `<${uri}> ${properties.join(" ;\n  ")} .`);
  // Warm up the engine, so the timed query measures the query, not the first load.
  assert.equal((await query(service, "store", "ASK { ?s ?p ?o }")).status, 200);

  const started = performance.now();
  const slow = await query(
    service,
    "store",
    `SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l .
       FILTER(REGEX(CONCAT(STR(?c), STR(?f), STR(?i), STR(?l)), "^(x+x+)+y$")) }`,
  );
  const elapsed = performance.now() - started;
  const problem = await expectProblem(slow, 504, "query-timeout");
  assert.match(String(problem.detail), /3000 ms/);
  assert.ok(elapsed < 10_000, `answered after ${Math.round(elapsed)} ms`);

  const count = await selectResults(
    await query(service, "store", `SELECT (COUNT(*) AS ?n) WHERE { <${uri}> ?p ?o }`),
  );
  assert.equal(count.results.bindings[0].n.value, "200");
  assert.equal((await service.fetch("/health")).status, 200);
});

/**
 * A loopback HTTP server standing in for a remote endpoint, to see what the service sends
 * and how it takes refusals and silence. (node:http, because the app under test replaces
 * the global Response with one Deno.serve does not take.)
 */
async function startRecordingEndpoint() {
  const received: { path: string; authorization?: string; query: string }[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => body += chunk);
    request.on("end", () => {
      const path = new URL(request.url ?? "/", "http://localhost").pathname;
      const query = new URLSearchParams(body).get("query") ?? "";
      received.push({ path, authorization: request.headers.authorization, query });
      if (path === "/slow") {
        hanging.push(response);
        return;
      }
      if (path === "/refuse") {
        response.writeHead(400, { "Content-Type": "text/plain" }).end("Parse error: line 1");
        return;
      }
      const bindings = Array.from(
        { length: 5 },
        (_, i) => ({ n: { type: "literal", value: `${i}` } }),
      );
      response.writeHead(200, { "Content-Type": SPARQL_JSON })
        .end(JSON.stringify({ head: { vars: ["n"] }, results: { bindings } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.close(() => resolve());
      }),
  };
}

for (const backend of BACKENDS) {
  Deno.test({
    name:
      `[tools/${backend.name}] remote endpoints: credentials, row limit, refusals, timeout, unreachable`,
    ignore: backend.skip !== undefined,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const remote = await startRecordingEndpoint();
      const unreachable = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const deadPort = (unreachable.addr as Deno.NetAddr).port;
      unreachable.close();
      const base = `http://127.0.0.1:${remote.port}`;
      const service = await startTestService({
        yaml: toolsYaml({
          timeoutMs: 400,
          serviceExtra: `  sparqlEndpoints:
    - { id: url-auth, name: URL auth, url: "http://u%40x:p%3Aw@127.0.0.1:${remote.port}/q" }
    - { id: conf-auth, name: Conf auth, url: "${base}/q", username: alice, password: "pw" }
    - { id: slow, name: Slow, url: "${base}/slow" }
    - { id: refuse, name: Refuse, url: "${base}/refuse" }
    - { id: dead, name: Dead, url: "http://127.0.0.1:${deadPort}/sparql" }`,
        }),
        env: { ...backend.env, SERVICE_QUERY_MAX_ROWS: "3" },
      });
      try {
        const rows = await query(service, "url-auth", "SELECT ?n WHERE { ?s ?p ?n }");
        assert.equal(rows.headers.get("x-results-truncated"), "true");
        assert.equal((await selectResults(rows)).results.bindings.length, 3);
        assert.equal(remote.received[0].path, "/q");
        assert.equal(remote.received[0].authorization, `Basic ${btoa("u@x:p:w")}`);
        // One row more than the limit is asked for, so a cut can be told from an exact fit.
        assert.match(remote.received[0].query, /LIMIT 4\s*$/);

        assert.equal((await query(service, "conf-auth", "SELECT * { ?s ?p ?o }")).status, 200);
        assert.equal(remote.received[1].authorization, `Basic ${btoa("alice:pw")}`);

        const sent = remote.received.length;
        await expectProblem(
          await query(service, "conf-auth", "INSERT DATA { <urn:a> <urn:b> <urn:c> }"),
          400,
          "sparql-update-refused",
        );
        assert.equal(remote.received.length, sent, "an update is never sent");

        const refused = await expectProblem(
          await query(service, "refuse", "SELECT * { ?s ?p ?o }"),
          400,
          "invalid-sparql",
        );
        assert.match(String(refused.detail), /Parse error/);

        const started = performance.now();
        await expectProblem(await query(service, "slow", "ASK {}"), 504, "query-timeout");
        assert.ok(performance.now() - started < 5_000);

        await expectProblem(await query(service, "dead", "ASK {}"), 503, "store-unavailable");
      } finally {
        await service.close();
        await remote.close();
      }
    },
  });
}

const FUSEKI_QUERY_URL = Deno.env.get("SERVICE_SPARQL_QUERY_URL");
const FUSEKI_UPDATE_URL = Deno.env.get("SERVICE_SPARQL_UPDATE_URL");
if (!FUSEKI_QUERY_URL || !FUSEKI_UPDATE_URL) {
  console.log(
    "[tools] Fuseki endpoint test skipped: set SERVICE_SPARQL_QUERY_URL and " +
      'SERVICE_SPARQL_UPDATE_URL (scripts/fuseki.sh start; eval "$(scripts/fuseki.sh env)")',
  );
}

for (const backend of BACKENDS) {
  Deno.test({
    name: `[tools/${backend.name}] a real Fuseki as an extra endpoint`,
    ignore: !FUSEKI_QUERY_URL || !FUSEKI_UPDATE_URL || backend.skip !== undefined,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const user = Deno.env.get("SERVICE_SPARQL_USER");
      const password = Deno.env.get("SERVICE_SPARQL_PASSWORD");
      const auth: Record<string, string> = user
        ? { Authorization: `Basic ${btoa(`${user}:${password ?? ""}`)}` }
        : {};
      const graph = uniqueItemUri("fuseki-graph");
      const update = (text: string) =>
        fetch(FUSEKI_UPDATE_URL!, {
          method: "POST",
          headers: { "Content-Type": "application/sparql-update", ...auth },
          body: text,
        });
      const inserted = await update(
        `INSERT DATA { GRAPH <${graph}> {
         <${graph}/1> <${DCT}title> "one" . <${graph}/2> <${DCT}title> "two" .
         <${graph}/3> <${DCT}title> "three"@en } }`,
      );
      assert.ok(inserted.ok, await inserted.text());
      const credentials = user
        ? `\n      username: "${user}"\n      password: "${password ?? ""}"`
        : "";
      const service = await startTestService({
        yaml: toolsYaml({
          serviceExtra: `  sparqlEndpoints:
    - id: fuseki
      name: Fuseki
      url: "${FUSEKI_QUERY_URL}"${credentials}`,
        }),
        env: { ...backend.env, SERVICE_QUERY_MAX_ROWS: "2" },
      });
      try {
        const list = await (await service.fetch(ENDPOINTS)).json();
        assert.equal(list[1].kind, "remote");
        const select =
          `SELECT ?s ?t WHERE { GRAPH <${graph}> { ?s <${DCT}title> ?t } } ORDER BY ?s`;
        const cut = await query(service, "fuseki", select);
        assert.equal(cut.headers.get("x-results-truncated"), "true");
        const rows = (await selectResults(cut)).results.bindings;
        assert.deepEqual(rows.map((b) => b.t.value), ["one", "two"]);

        const ask = await query(service, "fuseki", `ASK { GRAPH <${graph}> { ?s ?p "three"@en } }`);
        assert.deepEqual(await ask.json(), { head: {}, boolean: true });

        const construct = await query(
          service,
          "fuseki",
          `CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <${graph}> { ?s ?p ?o } } ORDER BY ?s LIMIT 2`,
        );
        assert.equal(construct.status, 200);
        assert.equal(construct.headers.get("content-type"), "text/turtle; charset=utf-8");
        assert.equal(new Parser().parse(await construct.text()).length, 2);

        await expectProblem(
          await query(service, "fuseki", `DROP GRAPH <${graph}>`),
          400,
          "sparql-update-refused",
        );
        const still = await query(service, "fuseki", `ASK { GRAPH <${graph}> { ?s ?p ?o } }`);
        assert.equal((await still.json()).boolean, true);
      } finally {
        await service.close();
        await (await update(`DROP SILENT GRAPH <${graph}>`)).body?.cancel();
      }
    },
  });
}

serviceTest("the settings dump shows every setting and no secret", {
  env: { SERVICE_ES_MAX_RESULTS: "77" },
  yaml: toolsYaml({
    searchExtra: `    opensearch:
      node: https://os-user:os-url-password-8812@127.0.0.1:9200
      username: os-user
      password: opensearch-password-4471`,
    serviceExtra: `  security:
    tokens:
      - { name: ops, token: admin-token-5b1e7f0c9d2a, role: admin }
  sparqlEndpoints:
    - { id: mirror, name: Mirror, url: "http://127.0.0.1:9/sparql", username: bob, password: endpoint-password-9934 }`,
  }),
}, async (service) => {
  const response = await service.fetch("/api/admin/tools/dump-settings", {
    method: "POST",
    // Sent so the test keeps passing once admin routes check tokens.
    headers: { Authorization: "Bearer admin-token-5b1e7f0c9d2a" },
  });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  assert.equal(response.headers.get("content-type"), "text/plain; charset=utf-8");
  for (
    const secret of [
      "admin-token-5b1e7f0c9d2a",
      "os-url-password-8812",
      "opensearch-password-4471",
      "endpoint-password-9934",
    ]
  ) {
    assert.ok(!text.includes(secret), `${secret} appears in the dump`);
  }
  assert.ok(text.includes("******"));
  const settings = parseYaml(text);
  assert.equal(settings.service.search.query.maxResultsLimit, 77);
  assert.equal(settings.service.security.tokens[0].name, "ops");
  assert.equal(settings.service.security.tokens[0].token, "******");
  assert.equal(settings.service.sparqlEndpoints[0].username, "bob");
  assert.equal(settings.workspaces[0].collections[0].uri, DEMO_COLLECTION);
});

const EX = "http://example.org/ns#";
const SAMPLE_TURTLE = `@prefix ex: <${EX}> .
ex:alice a ex:Person ; ex:name "Alice" ; ex:age 42 ; ex:knows ex:bob .
ex:bob a ex:Person ; ex:name "Bob" ; ex:age 40 .
`;
const SAMPLE_QUADS = new Parser({ format: "Turtle" }).parse(SAMPLE_TURTLE);

function writeN3(quads: Quad[], format: string): string {
  const writer = new Writer({ format });
  writer.addQuads(quads);
  let text = "";
  writer.end((error, result) => {
    if (error) throw error;
    text = result;
  });
  return text;
}

const IN_GRAPH = SAMPLE_QUADS.map((q) =>
  DataFactory.quad(q.subject, q.predicate, q.object, DataFactory.namedNode(`${EX}g`))
);
const SAMPLE_RDFXML = `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="${EX}">
  <ex:Person rdf:about="${EX}alice">
    <ex:name>Alice</ex:name>
    <ex:age rdf:datatype="http://www.w3.org/2001/XMLSchema#integer">42</ex:age>
    <ex:knows rdf:resource="${EX}bob"/>
  </ex:Person>
  <ex:Person rdf:about="${EX}bob">
    <ex:name>Bob</ex:name>
    <ex:age rdf:datatype="http://www.w3.org/2001/XMLSchema#integer">40</ex:age>
  </ex:Person>
</rdf:RDF>`;
const SAMPLE_JSONLD = JSON.stringify({
  "@context": { "ex": EX, "knows": { "@id": "ex:knows", "@type": "@id" } },
  "@graph": [
    {
      "@id": "ex:alice",
      "@type": "ex:Person",
      "ex:name": "Alice",
      "ex:age": 42,
      "knows": "ex:bob",
    },
    { "@id": "ex:bob", "@type": "ex:Person", "ex:name": "Bob", "ex:age": 40 },
  ],
});

/** Every upload format: its extension, a media type naming it, and the file's text. */
const UPLOADS: { extension: string; mediaType: string; text: string }[] = [
  { extension: ".ttl", mediaType: "text/turtle", text: SAMPLE_TURTLE },
  {
    extension: ".nt",
    mediaType: "application/n-triples",
    text: writeN3(SAMPLE_QUADS, "N-Triples"),
  },
  {
    extension: ".nq",
    mediaType: "application/n-quads",
    text: writeN3(IN_GRAPH, "N-Quads"),
  },
  {
    extension: ".trig",
    mediaType: "application/trig",
    text: writeN3(IN_GRAPH, "TriG"),
  },
  { extension: ".rdf", mediaType: "application/rdf+xml", text: SAMPLE_RDFXML },
  { extension: ".owl", mediaType: "text/xml", text: SAMPLE_RDFXML },
  { extension: ".xml", mediaType: "application/xml", text: SAMPLE_RDFXML },
  { extension: ".n3", mediaType: "text/n3", text: SAMPLE_TURTLE },
  { extension: ".jsonld", mediaType: "application/ld+json", text: SAMPLE_JSONLD },
  { extension: ".json", mediaType: "application/json", text: SAMPLE_JSONLD },
];

const NAMESPACE = "https://shapes.example.org/shapes/";
const SHACL_URL = `/api/admin/tools/generate-shacl?namespace=${encodeURIComponent(NAMESPACE)}`;

function upload(service: TestService, parts: [string, File | string][], url = SHACL_URL) {
  const form = new FormData();
  for (const [name, value] of parts) form.append(name, value);
  return service.fetch(url, { method: "POST", body: form });
}

/** Asserts a 200 Turtle answer holding the node shape of ex:Person; returns its quads. */
async function expectShapes(response: Response, label: string): Promise<Quad[]> {
  const text = await response.text();
  assert.equal(response.status, 200, `${label}: ${text}`);
  assert.equal(response.headers.get("content-type"), "text/turtle; charset=utf-8", label);
  const quads = new Parser({ format: "Turtle" }).parse(text);
  const shape = `${NAMESPACE}Person`;
  assert.ok(
    quads.some((q) =>
      q.subject.value === shape && q.predicate.value === RDF_TYPE &&
      q.object.value === `${SH}NodeShape`
    ),
    `${label}: no NodeShape <${shape}> in\n${text}`,
  );
  assert.ok(
    quads.some((q) =>
      q.subject.value === shape && q.predicate.value === `${SH}targetClass` &&
      q.object.value === `${EX}Person`
    ),
    label,
  );
  return quads;
}

serviceTest(
  "SHACL from an upload in every format, by content type and by extension",
  {},
  async (service) => {
    for (const { extension, mediaType, text } of UPLOADS) {
      await expectShapes(
        await upload(service, [["file", new File([text], "data.upload", { type: mediaType })]]),
        `${mediaType} by content type`,
      );
      const byExtension = await expectShapes(
        await upload(service, [["file", new File([text], `data${extension}`)]]),
        `${extension} by extension`,
      );
      // The property shapes carry what the data says: every person has one name.
      const nameShape = `${NAMESPACE}Person/name`;
      assert.ok(
        byExtension.some((q) =>
          q.subject.value === nameShape &&
          q.predicate.value === `${SH}minCount` && q.object.value === "1"
        ),
        extension,
      );
    }
    // A generic content type defers to the extension.
    await expectShapes(
      await upload(service, [[
        "file",
        new File([SAMPLE_TURTLE], "data.ttl", { type: "text/plain" }),
      ]]),
      "text/plain .ttl",
    );
  },
);

serviceTest("SHACL upload errors: format, syntax, missing or ambiguous file, namespace", {
  env: { SERVICE_HTTP_MAX_BODY: "4096" },
}, async (service) => {
  await expectProblem(
    await upload(service, [["file", new File(["a,b\n1,2\n"], "data.csv", { type: "text/csv" })]]),
    415,
    "unsupported-media-type",
  );
  const broken = `@prefix ex: <${EX}> .\nex:a a ex:T .\nex:b ex:p "unterminated .\n`;
  const syntax = await expectProblem(
    await upload(service, [["file", new File([broken], "broken.ttl")]]),
    400,
    "rdf-syntax",
  );
  const where = (syntax.errors as { path: string }[])[0].path;
  assert.match(where, /^3:\d+$/, `expected line 3, got ${where}`);
  assert.match(String(syntax.detail), /line 3/);

  await expectProblem(await upload(service, [["note", "no file here"]]), 400, "missing-file");
  await expectProblem(
    await upload(service, [["file", "text, not a file"]]),
    400,
    "missing-file",
  );
  await expectProblem(
    await upload(service, [
      ["first", new File([SAMPLE_TURTLE], "a.ttl")],
      ["second", new File([SAMPLE_TURTLE], "b.ttl")],
    ]),
    400,
    "ambiguous-file",
  );
  // With several files, the one named 'file' is used; a single file may have any name.
  await expectShapes(
    await upload(service, [
      ["other", new File(["not rdf at all"], "notes.txt")],
      ["file", new File([SAMPLE_TURTLE], "data.ttl")],
    ]),
    "part named file",
  );
  await expectShapes(
    await upload(service, [["upload", new File([SAMPLE_TURTLE], "data.ttl")]]),
    "single file",
  );

  await expectProblem(
    await upload(
      service,
      [["file", new File([SAMPLE_TURTLE], "d.ttl")]],
      "/api/admin/tools/generate-shacl",
    ),
    400,
    "missing-parameter",
  );
  await expectProblem(
    await upload(
      service,
      [["file", new File([SAMPLE_TURTLE], "d.ttl")]],
      "/api/admin/tools/generate-shacl?namespace=shapes",
    ),
    400,
    "invalid-iri",
  );
  await expectProblem(
    await service.fetch(SHACL_URL, {
      method: "POST",
      headers: { "Content-Type": "text/turtle" },
      body: SAMPLE_TURTLE,
    }),
    415,
    "unsupported-media-type",
  );
  await expectProblem(
    await upload(service, [["file", new File(["#".repeat(5000)], "big.ttl")]]),
    413,
    "body-too-large",
  );
});
