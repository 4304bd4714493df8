/**
 * `/sparql` on the dataset docs/backends.md recommends for Fuseki: TDB2 with
 * `unionDefaultGraph`, the service's metadata in the stored default graph
 * (`metadataGraph: urn:x-arq:DefaultGraph`). There the protocol's default graph is exactly
 * the union of the item graphs, `GRAPH ?g` finds exactly the item graphs, and no query can
 * reach the service's own records; items, ETags and indexing work as on any dataset.
 * A real Fuseki of its own, started through scripts/fuseki.sh; runs when the SPARQL suite does.
 */
import { strict as assert } from "node:assert";
import { Parser } from "n3";
import { DEMO_COLLECTION, startTestService, type TestService } from "../support/service.ts";
import { FusekiInstance, SPARQL_SUITE_SKIPPED, sparqlEndpointsFromEnv } from "../support/fuseki.ts";
import { freePort } from "../support/ports.ts";
import { expectProblem } from "../support/problems.ts";

const DEFAULT_GRAPH = "urn:x-arq:DefaultGraph";
const METADATA_NAMESPACE = "urn:rdf-content-service:";
const enabled = sparqlEndpointsFromEnv() !== undefined;
if (!enabled) console.log(`[sparql union dataset] ${SPARQL_SUITE_SKIPPED}`);

function yaml(fuseki: FusekiInstance): string {
  const { queryUrl, updateUrl, graphStoreUrl } = fuseki.endpoints;
  return `
service:
  http:
    port: 0
  data:
    dir: \${SERVICE_DATA_DIR:./data}
  store:
    backend: sparql
    sparql:
      queryUrl: ${queryUrl}
      updateUrl: ${updateUrl}
      graphStoreUrl: ${graphStoreUrl}
      metadataGraph: ${DEFAULT_GRAPH}
workspaces:
  - uri: https://data.example.org/workspace/demo
    name: Demo
    collections:
      - uri: ${DEMO_COLLECTION}
        name: Documents
        index: documents
`;
}

Deno.test({
  name: "[sparql union dataset] the default graph is the item graphs' union, nothing else",
  ignore: !enabled,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const dir = await Deno.makeTempDir({ prefix: "rcs-union-dataset-" });
    const fuseki = new FusekiInstance({
      port: freePort(),
      runDir: `${dir}/run`,
      tdb2Dir: `${dir}/tdb2`,
      unionDefaultGraph: true,
    });
    let service: TestService | undefined;
    try {
      await fuseki.start();
      service = await startTestService({ yaml: yaml(fuseki), dataDir: `${dir}/data` });
      const running = service;
      const items = ["https://ex.org/union/a", "https://ex.org/union/b"];
      const gone = "https://ex.org/union/gone";
      await put(
        running,
        items[0],
        `<${items[0]}> <urn:p:title> "alpha" ; <urn:p:part> [ <urn:p:n> 1 ] .`,
      );
      await put(
        running,
        items[1],
        `<${items[1]}> <urn:p:title> "beta"@en ; <urn:p:see> <${items[0]}> .`,
      );
      await put(running, gone, `<${gone}> <urn:p:title> "gone" .`);
      const deleted = await running.fetch(`/api/item?${query(gone)}`, { method: "DELETE" });
      assert.equal(deleted.status, 204, await deleted.text());
      // The stored default graph holds the records: the service wrote them there.
      const records = await fetch(`${fuseki.endpoints.graphStoreUrl}?default`, {
        headers: { Accept: "application/n-triples" },
      });
      assert.match(await records.text(), /<urn:rdf-content-service:collection>/);

      await t.step("SELECT over the default graph sees exactly the items' triples", async () => {
        const expected = new Set<string>();
        for (const item of items) {
          const response = await running.fetch(`/api/item?${query(item)}`, {
            headers: { Accept: "application/n-triples" },
          });
          assert.equal(response.status, 200);
          for (const quad of new Parser({ format: "N-Triples" }).parse(await response.text())) {
            // Blank nodes are the store's own; compare them by position only.
            expected.add(shape(quad.subject, quad.predicate, quad.object));
          }
        }
        const rows = await select(running, "SELECT ?s ?p ?o WHERE { ?s ?p ?o }");
        assert.deepEqual(
          new Set(rows.map((row) => shape(row.s, row.p, row.o))),
          expected,
        );
        for (const row of rows) assert.ok(!row.p.value.startsWith(METADATA_NAMESPACE), row.p.value);
      });

      await t.step("GRAPH ?g finds exactly the item graphs", async () => {
        const rows = await select(running, "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }");
        assert.deepEqual(rows.map((row) => row.g.value).sort(), [...items].sort());
      });

      await t.step("a query naming the metadata graph is refused", async () => {
        for (
          const sparql of [
            `SELECT * WHERE { GRAPH <${DEFAULT_GRAPH}> { ?s ?p ?o } }`,
            `SELECT * FROM <${DEFAULT_GRAPH}> WHERE { ?s ?p ?o }`,
          ]
        ) {
          await expectProblem(
            await running.fetch(`/sparql?query=${encodeURIComponent(sparql)}`),
            400,
            "reserved-graph",
          );
        }
        const problem = await expectProblem(
          await running.fetch(
            `/sparql?query=${encodeURIComponent("ASK { ?s ?p ?o }")}&default-graph-uri=${
              encodeURIComponent(DEFAULT_GRAPH)
            }`,
          ),
          400,
          "reserved-graph",
        );
        assert.deepEqual(problem.errors, [{
          path: "default-graph-uri",
          message: "reserved graph",
        }]);
      });

      await t.step("conditional writes and indexing work on this dataset", async () => {
        const read = await running.fetch(`/api/item?${query(items[1])}`);
        const etag = read.headers.get("etag") ?? "";
        await read.body?.cancel();
        const update = await running.fetch(`/api/item?${query(items[1])}`, {
          method: "POST",
          headers: { "Content-Type": "text/turtle", "If-Match": etag },
          body: `<${items[1]}> <urn:p:title> "gamma" .`,
        });
        assert.equal(update.status, 204, await update.text());
        const stale = await running.fetch(`/api/item?${query(items[1])}`, {
          method: "POST",
          headers: { "Content-Type": "text/turtle", "If-Match": etag },
          body: `<${items[1]}> <urn:p:title> "delta" .`,
        });
        await expectProblem(stale, 412, "precondition-failed");
        const titles = await select(running, `SELECT ?t WHERE { <${items[1]}> <urn:p:title> ?t }`);
        assert.deepEqual(titles.map((row) => row.t.value), ["gamma"]);
        const found = await waitForHit(running, "gamma");
        assert.deepEqual(found, [items[1]]);
      });
    } finally {
      await service?.close();
      await fuseki.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});

interface Term {
  type: string;
  value: string;
}

function shape(
  subject: { termType?: string; type?: string; value: string },
  predicate: { value: string },
  object: { termType?: string; type?: string; value: string },
): string {
  const term = (t: { termType?: string; type?: string; value: string }) =>
    t.termType === "BlankNode" || t.type === "bnode" ? "_:b" : t.value;
  return `${term(subject)} ${predicate.value} ${term(object)}`;
}

async function select(service: TestService, sparql: string): Promise<Record<string, Term>[]> {
  const response = await service.fetch(`/sparql?query=${encodeURIComponent(sparql)}`, {
    headers: { Accept: "application/sparql-results+json" },
  });
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()).results.bindings;
}

function query(item: string): string {
  return `collection=${encodeURIComponent(DEMO_COLLECTION)}&item=${encodeURIComponent(item)}`;
}

async function put(service: TestService, item: string, turtle: string): Promise<void> {
  const response = await service.fetch(`/api/item?${query(item)}`, {
    method: "PUT",
    headers: { "Content-Type": "text/turtle" },
    body: turtle,
  });
  assert.equal(response.status, 201, await response.text());
}

/** The URIs the search finds for `word` once the outbox has indexed them (10 s at most). */
async function waitForHit(service: TestService, word: string): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await service.fetch(
      `/api/search?collection=${encodeURIComponent(DEMO_COLLECTION)}&q=${word}`,
    );
    const hits = (await response.json()).hits as { uri: string }[];
    if (hits.length > 0 || Date.now() > deadline) return hits.map((hit) => hit.uri);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
