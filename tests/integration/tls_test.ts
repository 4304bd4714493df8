/**
 * HTTPS to the engines with a CA of the operator's own: `caFile` for OpenSearch, the SPARQL
 * store and the query tool's extra endpoints, and basic auth carried over it.
 *
 * The TLS is real: a throwaway CA and a server certificate for 127.0.0.1, made in code at
 * test time (tests/support/tls.ts), and a TLS-terminating loopback proxy in front of the
 * real OpenSearch and Fuseki (tests/support/loopback_proxy.ts). Tests that need an engine
 * are ignored when it is not configured (SERVICE_OPENSEARCH_URL, SERVICE_SPARQL_*_URL).
 */
import { strict as assert } from "node:assert";
import { X509Certificate } from "node:crypto";
import { join } from "node:path";
import { DataFactory } from "n3";
import { ConfigError, parseConfigText } from "../../src/config/load.ts";
import { ProblemError, problemOf as asProblem } from "../../src/http/problem.ts";
import { OpenSearchEngine } from "../../src/search_opensearch/opensearch_engine.ts";
import { EmbeddedTripleStore } from "../../src/store_embedded/embedded_triple_store.ts";
import { openLocalDatabase } from "../../src/local_database.ts";
import { SparqlTripleStore } from "../../src/store_sparql/sparql_triple_store.ts";
import { SparqlHttpClient } from "../../src/sparql_protocol/client.ts";
import { SparqlEndpointRegistry } from "../../src/tools/sparql_endpoints.ts";
import {
  FusekiInstance,
  SPARQL_SUITE_SKIPPED,
  type SparqlEndpoints,
  sparqlEndpointsFromEnv,
} from "../support/fuseki.ts";
import { LoopbackProxy } from "../support/loopback_proxy.ts";
import {
  deleteIndicesWithPrefix,
  OPENSEARCH_DEFAULTS,
  openSearchUrl,
  reportOpenSearchSkipped,
  uniqueIndexPrefix,
} from "../support/opensearch.ts";
import { freePort } from "../support/ports.ts";
import { startTestService } from "../support/service.ts";
import { dropIsolatedGraphs } from "../support/sparql_isolation.ts";
import { makeTestCertificates, type TestCertificates } from "../support/tls.ts";
import { GROUP_COMMIT, SPARQL_STORE_DEFAULTS } from "../support/config_defaults.ts";

const openSearch = openSearchUrl();
if (!openSearch) reportOpenSearchSkipped();
const fuseki = sparqlEndpointsFromEnv();
if (!fuseki) console.log(SPARQL_SUITE_SKIPPED);

const LIMITS = { maxResultsLimit: 100, maxWindow: 100, trackTotalHits: 10_000 };
const COLLECTION = "https://data.example.org/collection/documents";
const RUN = `https://test.example.org/tls/${crypto.randomUUID()}`;
const { namedNode, literal, quad } = DataFactory;

/** One CA and server certificate for the whole file; each test writes its own CA file. */
const certificates: TestCertificates = await makeTestCertificates();

/** A temporary directory holding `ca.pem`, removed by `using`. */
function caDirectory(): { dir: string; caFile: string; [Symbol.dispose](): void } {
  const dir = Deno.makeTempDirSync({ prefix: "rcs-tls-" });
  const caFile = join(dir, "ca.pem");
  Deno.writeTextFileSync(caFile, certificates.caPem);
  return { dir, caFile, [Symbol.dispose]: () => Deno.removeSync(dir, { recursive: true }) };
}

/** A TLS-terminating proxy in front of the server of `url`, open, closed by `using`. */
function httpsFront(url: string): LoopbackProxy & Disposable {
  const proxy = LoopbackProxy.to(url, { cert: certificates.certPem, key: certificates.keyPem });
  proxy.open();
  return Object.assign(proxy, { [Symbol.dispose]: () => proxy.close() });
}

/** The endpoints of `target` as reached through `proxy`. */
function through(proxy: LoopbackProxy, target: SparqlEndpoints): SparqlEndpoints {
  return {
    ...target,
    queryUrl: proxy.rewrite(target.queryUrl),
    updateUrl: proxy.rewrite(target.updateUrl),
    graphStoreUrl: proxy.rewrite(target.graphStoreUrl),
  };
}

async function rejectsWith(
  work: Promise<unknown>,
  status: number,
  slug: string,
  message?: RegExp,
): Promise<void> {
  await assert.rejects(work, (thrown: unknown) => {
    const error = asProblem(thrown);
    assert.ok(error instanceof ProblemError, `expected a ProblemError, got ${thrown}`);
    assert.equal(error.slug, slug, error.message);
    assert.equal(error.status, status, error.message);
    if (message) assert.match(error.message, message);
    return true;
  });
}

Deno.test("test certificates: the server's chains to the CA and names loopback", () => {
  const ca = new X509Certificate(certificates.caPem);
  const server = new X509Certificate(certificates.certPem);
  assert.equal(ca.ca, true);
  assert.equal(server.ca, false);
  assert.ok(server.checkIssued(ca));
  assert.ok(server.verify(ca.publicKey), "signed by the CA's key");
  assert.equal(server.checkIP("127.0.0.1"), "127.0.0.1");
  assert.equal(server.checkHost("localhost"), "localhost");
});

Deno.test({
  name: "OpenSearch over HTTPS: with the CA it indexes and searches, without it 503",
  ignore: !openSearch,
  fn: async () => {
    using front = httpsFront(openSearch!);
    const node = `https://127.0.0.1:${front.port}`;
    const prefix = uniqueIndexPrefix("tls");
    const ref = { collection: COLLECTION, indexName: `${prefix}docs` };
    const trusting = new OpenSearchEngine({
      ...OPENSEARCH_DEFAULTS,
      node,
      caCertificates: [certificates.caPem],
      limits: LIMITS,
    });
    const untrusting = new OpenSearchEngine({ ...OPENSEARCH_DEFAULTS, node, limits: LIMITS });
    try {
      const document = {
        uri: `${RUN}/doc-1`,
        collection: COLLECTION,
        workspace: "https://data.example.org/workspace/demo",
        types: [],
        hash: "0".repeat(64),
        modified: "2025-01-01T00:00:00.000Z",
        text: "encrypted hedgehog",
      };
      assert.deepEqual(await trusting.upsert(ref, [document]), { succeeded: 1, failed: [] });
      await trusting.refresh(ref);
      const found = await trusting.search(ref, { q: "hedgehog" });
      assert.deepEqual(found.hits.map((hit) => hit.uri), [document.uri]);
      assert.equal((await trusting.health()).ok, true);

      const refused = new RegExp(`^OpenSearch at ${node} cannot serve the request: .*certificate`);
      await rejectsWith(
        untrusting.search(ref, { q: "hedgehog" }),
        503,
        "search-unavailable",
        refused,
      );
      await rejectsWith(untrusting.upsert(ref, [document]), 503, "search-unavailable", refused);
      const health = await untrusting.health();
      assert.equal(health.ok, false);
      assert.match(health.detail, refused);
    } finally {
      await trusting.close();
      await untrusting.close();
      await deleteIndicesWithPrefix(openSearch!, prefix);
    }
  },
});

Deno.test({
  name: "SPARQL store over HTTPS with basic auth: query, update and GSP on a real Fuseki",
  ignore: !fuseki,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "rcs-fuseki-tls-" });
    const passwdFile = `${dir}/passwd`;
    await Deno.writeTextFile(passwdFile, "writer: tls-pw-8c\n");
    const instance = new FusekiInstance({ port: freePort(), runDir: `${dir}/run`, passwdFile });
    try {
      await instance.start();
      using front = httpsFront(instance.endpoints.queryUrl);
      const endpoints = through(front, instance.endpoints);
      const settings = { ...endpoints, timeoutMs: 30_000, retries: 0 };
      const ca = { caCertificates: [certificates.caPem] };
      const credentials = { username: "writer", password: "tls-pw-8c" };
      const store = new SparqlTripleStore({
        ...SPARQL_STORE_DEFAULTS,
        ...settings,
        ...ca,
        ...credentials,
      });
      const untrusting = new SparqlTripleStore({
        ...SPARQL_STORE_DEFAULTS,
        ...settings,
        ...credentials,
      });
      const anonymous = new SparqlHttpClient({ ...settings, ...ca });
      try {
        // With the CA and the credentials: an update, queries and an item read.
        const uri = `${RUN}/item-1`;
        const quads = [quad(namedNode(uri), namedNode(`${RUN}#title`), literal("over TLS"))];
        await store.createItem({ collection: COLLECTION, uri, quads, hash: "h1" });
        assert.equal((await store.getItem(COLLECTION, uri))?.tripleCount, 1);
        const read = [];
        for await (const found of (await store.readItem(COLLECTION, uri)).quads) read.push(found);
        assert.deepEqual(read.map((q) => q.object.value), ["over TLS"]);
        const counted = await store.query(
          `SELECT (COUNT(*) AS ?n) { GRAPH <${uri}> { ?s ?p ?o } }`,
          {
            limit: 1,
            timeoutMs: 30_000,
          },
        );
        assert.equal(counted.kind === "bindings" && counted.rows[0].get("n")?.value, "1");
        assert.equal((await store.health()).ok, true);

        // Fuseki refuses queries and updates without the credentials.
        const unauthorized = /refused the request with HTTP 401/;
        await rejectsWith(
          anonymous.query("ASK {}", "application/sparql-results+json"),
          502,
          "store-error",
          unauthorized,
        );
        await rejectsWith(
          anonymous.update("INSERT DATA { <urn:a> <urn:b> <urn:c> }"),
          502,
          "store-error",
          unauthorized,
        );

        // Without the CA nothing is sent: 503, naming the endpoint and the reason.
        const untrusted = new RegExp(
          `^The SPARQL endpoint ${endpoints.queryUrl} is unavailable: .*UnknownIssuer`,
        );
        await rejectsWith(untrusting.getItem(COLLECTION, uri), 503, "store-unavailable", untrusted);
        const health = await untrusting.health();
        assert.equal(health.ok, false);
        assert.match(health.detail, untrusted);
        await rejectsWith(
          untrusting.createItem({
            collection: COLLECTION,
            uri: `${RUN}/item-2`,
            quads,
            hash: "h2",
          }),
          503,
          "store-unavailable",
          /UnknownIssuer/,
        );
        assert.equal(await store.getItem(COLLECTION, `${RUN}/item-2`), undefined);
      } finally {
        anonymous.close();
        await store.close();
        await untrusting.close();
      }
    } finally {
      await instance.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "query tool: an extra endpoint over HTTPS trusts its own caFile, not the store's",
  ignore: !fuseki,
  fn: async () => {
    using ca = caDirectory();
    using front = httpsFront(fuseki!.queryUrl);
    const endpointsYaml = (caFile: string) => `
service:
  sparqlEndpoints:
    - { id: private, name: Private CA, url: "${
      front.rewrite(fuseki!.queryUrl)
    }", caFile: "${caFile}" }
    - { id: public, name: Default roots, url: "${front.rewrite(fuseki!.queryUrl)}" }
`;
    const config = parseConfigText(endpointsYaml(ca.caFile), "test", () => undefined);
    const db = openLocalDatabase(":memory:");
    const ownStore = new EmbeddedTripleStore(db, undefined, GROUP_COMMIT);
    try {
      const registry = new SparqlEndpointRegistry(config, ownStore, []);
      const options = { limit: 10, timeoutMs: 30_000 };
      assert.deepEqual(await registry.query("private", "ASK {}", options), {
        kind: "boolean",
        value: true,
      });
      await rejectsWith(
        registry.query("public", "ASK {}", options),
        503,
        "store-unavailable",
        /UnknownIssuer/,
      );

      const missing = parseConfigText(
        endpointsYaml(join(ca.dir, "none.pem")),
        "test",
        () => undefined,
      );
      assert.throws(
        () => new SparqlEndpointRegistry(missing, ownStore, []),
        (error: unknown) =>
          error instanceof ConfigError &&
          /service\.sparqlEndpoints\[0\]\.caFile: cannot read .*none\.pem/.test(error.message),
      );
    } finally {
      await ownStore.close();
      db.close();
    }
  },
});

Deno.test({
  name: "service over HTTPS to both engines, a dead OpenSearch node first: writes and searches",
  ignore: !openSearch || !fuseki,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    using ca = caDirectory();
    using searchFront = httpsFront(openSearch!);
    using storeFront = httpsFront(fuseki!.queryUrl);
    const store = through(storeFront, fuseki!);
    const prefix = uniqueIndexPrefix("tls-service");
    const service = await startTestService({
      env: {
        SERVICE_STORE_BACKEND: "sparql",
        SERVICE_SPARQL_QUERY_URL: store.queryUrl,
        SERVICE_SPARQL_UPDATE_URL: store.updateUrl,
        SERVICE_SPARQL_GSP_URL: store.graphStoreUrl,
        SERVICE_SPARQL_CA_FILE: ca.caFile,
        SERVICE_SEARCH_BACKEND: "opensearch",
        SERVICE_OPENSEARCH_URL: `http://127.0.0.1:${freePort()},${
          searchFront.rewrite(openSearch!)
        }`,
        SERVICE_OPENSEARCH_CA_FILE: ca.caFile,
        SERVICE_OPENSEARCH_INDEX_PREFIX: prefix,
      },
    });
    try {
      const uri = `https://data.example.org/id/document/tls-${crypto.randomUUID()}`;
      const query = `collection=${encodeURIComponent(COLLECTION)}&item=${encodeURIComponent(uri)}`;
      const put = await service.fetch(`/api/item?${query}`, {
        method: "PUT",
        headers: { "Content-Type": "text/turtle" },
        body: `<${uri}> <http://purl.org/dc/terms/title> "Armadillo behind TLS" .`,
      });
      assert.equal(put.status, 201, await put.text());
      const got = await service.fetch(`/api/item.nt?${query}`);
      assert.match(await got.text(), /Armadillo behind TLS/);

      // The outbox indexes the item in the background; a search right after the index was
      // created may meet its shards still starting (503), so ask until it is found.
      const deadline = Date.now() + 30_000;
      let hits: { uri: string }[] = [];
      let last = "";
      while (hits.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const response = await service.fetch(
          `/api/search?collection=${encodeURIComponent(COLLECTION)}&q=armadillo`,
        );
        last = await response.text();
        if (response.ok) hits = JSON.parse(last).hits;
      }
      assert.deepEqual(hits.map((hit) => hit.uri), [uri], last);
      const ready = await service.fetch("/ready");
      assert.equal(ready.status, 200, await ready.clone().text());
      await ready.body?.cancel();
    } finally {
      await service.close();
      // The service's own clean-up went through the proxy with no CA: repeat it directly.
      const direct = structuredClone(service.config);
      direct.service.store.sparql.updateUrl = fuseki!.updateUrl;
      await dropIsolatedGraphs(direct);
      await deleteIndicesWithPrefix(openSearch!, prefix);
    }
  },
});

Deno.test("start-up stops with exit code 2 when a CA file cannot be used", async () => {
  using ca = caDirectory();
  const missing = join(ca.dir, "missing.pem");
  const notPem = join(ca.dir, "not.pem");
  Deno.writeTextFileSync(notPem, "just text\n");
  const withEndpoint = join(ca.dir, "customer.yml");
  Deno.writeTextFileSync(
    withEndpoint,
    `service:\n  sparqlEndpoints:\n    - { id: x, name: X, url: "https://x.invalid/sparql", ` +
      `caFile: "${missing}" }\n`,
  );
  for (
    const [env, expected] of [
      [
        { SERVICE_SEARCH_BACKEND: "opensearch", SERVICE_OPENSEARCH_CA_FILE: missing },
        /service\.search\.opensearch\.caFile: cannot read .*missing\.pem/,
      ],
      [
        {
          SERVICE_STORE_BACKEND: "sparql",
          SERVICE_SPARQL_QUERY_URL: "https://fuseki.invalid/ds/query",
          SERVICE_SPARQL_UPDATE_URL: "https://fuseki.invalid/ds/update",
          SERVICE_SPARQL_GSP_URL: "https://fuseki.invalid/ds/data",
          SERVICE_SPARQL_CA_FILE: notPem,
        },
        /service\.store\.sparql\.caFile: .*not\.pem holds no PEM certificate/,
      ],
      [
        { CUSTOMER_YML: withEndpoint },
        /service\.sparqlEndpoints\[0\]\.caFile: cannot read .*missing\.pem/,
      ],
    ] as const
  ) {
    const result = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("../../src/main.ts", import.meta.url).pathname],
      env: { ...env, SERVICE_DATA_DIR: join(ca.dir, "data"), SERVICE_HTTP_PORT: "0" },
      stdout: "null",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(result.stderr);
    assert.equal(result.code, 2, stderr);
    assert.match(stderr, expected);
  }
});
