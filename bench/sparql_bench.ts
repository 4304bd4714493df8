/**
 * The SPARQL backend beside the embedded store and beside Fuseki itself, in one run, on
 * the same 50-triple item: item GET (Turtle) and update (POST /api/item, which replaces
 * the whole graph) through the service on either store, and Fuseki's own Graph Store GET
 * and PUT of the same graph, the baseline a service in front of Fuseki cannot beat.
 *
 * Needs SERVICE_SPARQL_QUERY_URL, SERVICE_SPARQL_UPDATE_URL and SERVICE_SPARQL_GSP_URL
 * (scripts/fuseki.sh start). The item and graph it writes are removed afterwards.
 */
import { formatLoad, type LoadResult, runLoad } from "./lib/load.ts";
import { fiftyTripleItem } from "./items_bench.ts";
import { startServiceProcess } from "../tests/support/process.ts";
import { DEMO_COLLECTION, itemQuery } from "../tests/support/service.ts";
import { sparqlEndpointsFromEnv } from "../tests/support/fuseki.ts";
import { basicAuthorization } from "../src/store/sparql_client.ts";

const C = encodeURIComponent(DEMO_COLLECTION);

/** Options of {@link benchSparql}. */
export interface SparqlBenchOptions {
  durationMs: number;
  concurrency: number;
}

/** What one run measured, by scenario. */
export interface SparqlBenchResult {
  gspGet: LoadResult;
  embeddedGet: LoadResult;
  sparqlGet: LoadResult;
  gspPut: LoadResult;
  embeddedUpdate: LoadResult;
  sparqlUpdate: LoadResult;
}

/** Two versions of the item, so that successive writes really change the graph. */
function itemVersion(uri: string, n: number): string {
  return fiftyTripleItem(uri).replace("Example Press", `Example Press ${n % 2}`);
}

/** Runs every scenario once; undefined when no Fuseki is configured. */
export async function benchSparql(
  options: SparqlBenchOptions = { durationMs: 5000, concurrency: 16 },
): Promise<SparqlBenchResult | undefined> {
  const endpoints = sparqlEndpointsFromEnv();
  if (!endpoints) return undefined;
  const run = crypto.randomUUID();
  const uri = `https://data.example.org/id/document/sparql-bench-${run}`;
  const graph = `${endpoints.graphStoreUrl}?graph=${encodeURIComponent(`urn:rcs-bench:${run}`)}`;
  const auth: Record<string, string> = endpoints.username
    ? { Authorization: basicAuthorization(endpoints.username, endpoints.password ?? "") }
    : {};
  const dataDirs = [
    await Deno.makeTempDir({ prefix: "rcs-bench-" }),
    await Deno.makeTempDir({ prefix: "rcs-bench-" }),
  ];
  const embedded = await startServiceProcess({
    SERVICE_DATA_DIR: dataDirs[0],
    SERVICE_STORE_BACKEND: "embedded",
  });
  const sparql = await startServiceProcess({
    SERVICE_DATA_DIR: dataDirs[1],
    SERVICE_STORE_BACKEND: "sparql",
    SERVICE_SPARQL_QUERY_URL: endpoints.queryUrl,
    SERVICE_SPARQL_UPDATE_URL: endpoints.updateUrl,
    SERVICE_SPARQL_GSP_URL: endpoints.graphStoreUrl,
    SERVICE_SPARQL_USER: endpoints.username ?? "",
    SERVICE_SPARQL_PASSWORD: endpoints.password ?? "",
  });
  try {
    for (const service of [embedded, sparql]) {
      const created = await fetch(`${service.url}/api/item?collection=${C}`, {
        method: "PUT",
        headers: { "Content-Type": "application/n-triples" },
        body: itemVersion(uri, 0),
      });
      if (created.status !== 201) throw new Error(`setup failed: ${await created.text()}`);
      await created.body?.cancel();
    }
    const put = await fetch(graph, {
      method: "PUT",
      headers: { "Content-Type": "text/turtle", ...auth },
      body: itemVersion(uri, 0),
    });
    if (!put.ok) throw new Error(`Graph Store PUT failed: ${await put.text()}`);
    await put.body?.cancel();

    const load = (make: Parameters<typeof runLoad>[0]) => runLoad(make, options);
    const turtle = { headers: { Accept: "text/turtle" } };
    const getItem = (url: string) => () => ({
      url: `${url}/api/item?${itemQuery(uri)}`,
      init: turtle,
    });
    const updateItem = (url: string) => (_worker: number, n: number) => ({
      url: `${url}/api/item?${itemQuery(uri)}`,
      init: {
        method: "POST",
        headers: { "Content-Type": "application/n-triples" },
        body: itemVersion(uri, n),
      },
    });
    return {
      gspGet: await load(() => ({ url: graph, init: { headers: { ...turtle.headers, ...auth } } })),
      embeddedGet: await load(getItem(embedded.url)),
      sparqlGet: await load(getItem(sparql.url)),
      gspPut: await load((_worker, n) => ({
        url: graph,
        init: {
          method: "PUT",
          headers: { "Content-Type": "text/turtle", ...auth },
          body: itemVersion(uri, n),
        },
      })),
      embeddedUpdate: await load(updateItem(embedded.url)),
      sparqlUpdate: await load(updateItem(sparql.url)),
    };
  } finally {
    const removed = await fetch(`${sparql.url}/api/item?${itemQuery(uri)}`, { method: "DELETE" })
      .catch(() => undefined);
    await removed?.body?.cancel();
    const dropped = await fetch(graph, { method: "DELETE", headers: auth }).catch(() => undefined);
    await dropped?.body?.cancel();
    await embedded.stop();
    await sparql.stop();
    for (const dir of dataDirs) await Deno.remove(dir, { recursive: true });
  }
}

/** Markdown table lines: each service row with its ratio to Fuseki's own request. */
export function formatSparqlBench(result: SparqlBenchResult): string[] {
  const overhead = (service: LoadResult, raw: LoadResult) =>
    `${((raw.perSecond / service.perSecond - 1) * 100).toFixed(0)}%`;
  return [
    "| scenario | req/s | p50 ms | p99 ms | ratio to Fuseki's own request |",
    "|---|---|---|---|---|",
    formatLoad("Fuseki Graph Store GET (Turtle)", result.gspGet),
    formatLoad("GET /api/item (Turtle), embedded store", result.embeddedGet, result.gspGet),
    formatLoad("GET /api/item (Turtle), SPARQL store", result.sparqlGet, result.gspGet),
    formatLoad("Fuseki Graph Store PUT (Turtle)", result.gspPut),
    formatLoad("POST /api/item (update), embedded store", result.embeddedUpdate, result.gspPut),
    formatLoad("POST /api/item (update), SPARQL store", result.sparqlUpdate, result.gspPut),
    "",
    `Goal: embedded GET / Graph Store GET ≥ 1.00; SPARQL-store overhead over raw Fuseki ` +
    `< 30% (here: GET ${overhead(result.sparqlGet, result.gspGet)}, update ` +
    `${overhead(result.sparqlUpdate, result.gspPut)}, as extra time per request at equal load).`,
  ];
}

if (import.meta.main) {
  const durationMs = Number(Deno.args[0] ?? 5000);
  const result = await benchSparql({ durationMs, concurrency: 16 });
  if (!result) {
    console.log("SPARQL bench skipped: set SERVICE_SPARQL_QUERY_URL, _UPDATE_URL, _GSP_URL");
  } else for (const line of formatSparqlBench(result)) console.log(line);
}
