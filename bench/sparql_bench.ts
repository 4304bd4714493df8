/**
 * The SPARQL backend beside the embedded store and beside Fuseki itself, in one run, on
 * the same 50-triple item: item GET (Turtle) and update (POST /api/item, which replaces
 * the whole graph) through the service on either store, and Fuseki's own Graph Store GET
 * and PUT of the same graph, the baseline a service in front of Fuseki cannot beat.
 *
 * A further reference row: Fuseki's own SPARQL Update replacing the same graph (DROP SILENT
 * GRAPH + INSERT DATA), the cheapest atomic whole-graph replace SPARQL Update offers, which
 * shows what any write protocol built on SPARQL Update starts from: the anchor of the
 * SPARQL store's create and update rows. New-item PUTs on the embedded store run with 1 and
 * with 2 worker threads, side by side.
 *
 * Every scenario first runs unmeasured (the JVM compiles its hot paths), then all of them
 * run `rounds` times in turn and each reports its median round, so a slow moment of the
 * shared machine moves one round, not the result. Where the processes are local, CPU time
 * per request of the service and of Fuseki is read from /proc: it shows where a request's
 * cost goes.
 *
 * Needs SERVICE_SPARQL_QUERY_URL, SERVICE_SPARQL_UPDATE_URL and SERVICE_SPARQL_GSP_URL
 * (scripts/fuseki.sh start). The item and graphs it writes are removed afterwards.
 */
import { type LoadResult, type RequestFactory, runLoad } from "./lib/load.ts";
import { CpuMeter, findProcess } from "./lib/process_cpu.ts";
import { fiftyTripleItem, loadAverage, startBaseline } from "./items_bench.ts";
import { startServiceProcess } from "../tests/support/process.ts";
import { DEMO_COLLECTION, itemQuery } from "../tests/support/service.ts";
import { sparqlEndpointsFromEnv } from "../tests/support/fuseki.ts";
import { basicAuthorization } from "../src/sparql_protocol/client.ts";
import { DigestCredentials } from "../src/sparql_protocol/digest_auth.ts";

const C = encodeURIComponent(DEMO_COLLECTION);

/** Options of {@link benchSparql}. */
export interface SparqlBenchOptions {
  /** Measured time of one scenario in one round. */
  durationMs: number;
  concurrency: number;
  /** Measured rounds; each scenario reports its median one. */
  rounds: number;
  /** Unmeasured load per scenario before the first round. */
  warmupMs: number;
  /** Rounds of the write scenarios with one client, for latency (0: none). */
  singleClientRounds?: number;
}

/** The scenarios, in the order they run and are reported. */
const SCENARIOS = [
  "gspGet",
  "embeddedGet",
  "sparqlGet",
  "bodyPut",
  "gspPut",
  "updateRequest",
  "embeddedCreate1",
  "embeddedCreate",
  "embeddedUpdate",
  "sparqlCreate",
  "sparqlUpdate",
] as const;
type ScenarioKey = typeof SCENARIOS[number];

/** The writes also measured with one client (latency without company: group commit's cost). */
const SINGLE_CLIENT = [
  "bodyPut",
  "gspPut",
  "embeddedCreate",
  "embeddedUpdate",
  "sparqlCreate",
  "sparqlUpdate",
] as const;
type SingleClientKey = typeof SINGLE_CLIENT[number];

/** One scenario's median round. */
export interface ScenarioResult {
  load: LoadResult;
  /** Requests per second of every round, in run order. */
  rounds: number[];
  /** CPU milliseconds per request of the service process, when it ran one. */
  serviceCpuMs?: number;
  /** CPU milliseconds per request of the Fuseki process, when it runs on this machine. */
  fusekiCpuMs?: number;
}

/** What one run measured, by scenario; `single`: the writes with one client. */
export type SparqlBenchResult = Record<ScenarioKey, ScenarioResult> & {
  single?: Record<SingleClientKey, ScenarioResult>;
};

/** Two versions of the item, so that successive writes really change the graph. */
function itemVersion(uri: string, n: number): string {
  return fiftyTripleItem(uri).replace("Example Press", `Example Press ${n % 2}`);
}

const DEFAULT_OPTIONS: SparqlBenchOptions = {
  durationMs: 5000,
  concurrency: 16,
  rounds: 3,
  warmupMs: 2000,
  singleClientRounds: 3,
};

/**
 * The `Authorization` header of a request straight to the store: basic, or digest with
 * `SERVICE_SPARQL_AUTH=digest` (Virtuoso's authenticated endpoints), after one request
 * for the challenge.
 */
async function storeAuthorization(
  endpoints: { username?: string; password?: string },
  url: string,
): Promise<(method: string, url: string) => Record<string, string>> {
  if (!endpoints.username) return () => ({});
  if (Deno.env.get("SERVICE_SPARQL_AUTH") !== "digest") {
    const basic = basicAuthorization(endpoints.username, endpoints.password ?? "");
    return () => ({ Authorization: basic });
  }
  const digest = new DigestCredentials(endpoints.username, endpoints.password ?? "");
  const challenge = await fetch(url);
  await challenge.body?.cancel();
  if (!digest.accept(challenge.headers.get("WWW-Authenticate"))) {
    throw new Error(`${url} did not answer with a digest challenge`);
  }
  return (method, target) => ({ Authorization: digest.authorization(method, target)! });
}

/** Runs every scenario; undefined when no Fuseki is configured. */
export async function benchSparql(
  options: SparqlBenchOptions = DEFAULT_OPTIONS,
): Promise<SparqlBenchResult | undefined> {
  const endpoints = sparqlEndpointsFromEnv();
  if (!endpoints) return undefined;
  const run = crypto.randomUUID();
  const uri = `https://data.example.org/id/document/sparql-bench-${run}`;
  const graphIri = `urn:rcs-bench:${run}`;
  const graph = `${endpoints.graphStoreUrl}?graph=${encodeURIComponent(graphIri)}`;
  const authFor = await storeAuthorization(endpoints, graph);
  const dataDirs = [
    await Deno.makeTempDir({ prefix: "rcs-bench-" }),
    await Deno.makeTempDir({ prefix: "rcs-bench-" }),
    await Deno.makeTempDir({ prefix: "rcs-bench-" }),
  ];
  // The embedded store with 2 worker threads and with 1: the scaling of new-item PUTs.
  const embedded = await startServiceProcess({
    SERVICE_DATA_DIR: dataDirs[0],
    SERVICE_STORE_BACKEND: "embedded",
    SERVICE_WORKERS: "2",
    SERVICE_INDEXING_WORKERS: "2",
  });
  const embedded1 = await startServiceProcess({
    SERVICE_DATA_DIR: dataDirs[2],
    SERVICE_STORE_BACKEND: "embedded",
    SERVICE_WORKERS: "1",
    SERVICE_INDEXING_WORKERS: "1",
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
  const fusekiPid = localFusekiPid(endpoints.queryUrl);
  let baseline: Awaited<ReturnType<typeof startBaseline>> | undefined;
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
      headers: { "Content-Type": "text/turtle", ...authFor("PUT", graph) },
      body: itemVersion(uri, 0),
    });
    if (!put.ok) throw new Error(`Graph Store PUT failed: ${await put.text()}`);
    await put.body?.cancel();

    baseline = await startBaseline("", "");
    let created = 0;
    const bodyPutUrl = `${baseline.url}/put`;
    const turtle = { Accept: "text/turtle" };
    const getItem = (url: string): RequestFactory => () => ({
      url: `${url}/api/item?${itemQuery(uri)}`,
      init: { headers: turtle },
    });
    // A fresh item every time, across warm-up and rounds alike.
    const createItem = (url: string): RequestFactory => (worker) => ({
      url: `${url}/api/item?collection=${C}`,
      init: {
        method: "PUT",
        headers: { "Content-Type": "application/n-triples" },
        body: fiftyTripleItem(
          `https://data.example.org/id/document/new-${run}-${worker}-${created++}`,
        ),
      },
    });
    const updateItem = (url: string): RequestFactory => (_worker, n) => ({
      url: `${url}/api/item?${itemQuery(uri)}`,
      init: {
        method: "POST",
        headers: { "Content-Type": "application/n-triples" },
        body: itemVersion(uri, n),
      },
    });
    const scenarios: Record<ScenarioKey, { make: RequestFactory; servicePid?: number }> = {
      gspGet: {
        make: () => ({ url: graph, init: { headers: { ...turtle, ...authFor("GET", graph) } } }),
      },
      embeddedGet: { make: getItem(embedded.url), servicePid: embedded.pid },
      sparqlGet: { make: getItem(sparql.url), servicePid: sparql.pid },
      bodyPut: {
        make: (_worker, n) => ({
          url: bodyPutUrl,
          init: { method: "PUT", body: itemVersion(uri, n) },
        }),
      },
      gspPut: {
        make: (_worker, n) => ({
          url: graph,
          init: {
            method: "PUT",
            headers: { "Content-Type": "text/turtle", ...authFor("PUT", graph) },
            body: itemVersion(uri, n),
          },
        }),
      },
      updateRequest: {
        make: (_worker, n) => ({
          url: endpoints.updateUrl,
          init: {
            method: "POST",
            headers: {
              "Content-Type": "application/sparql-update",
              ...authFor("POST", endpoints.updateUrl),
            },
            body: `DROP SILENT GRAPH <${graphIri}> ;\nINSERT DATA { GRAPH <${graphIri}> {\n${
              itemVersion(uri, n)
            }} }`,
          },
        }),
      },
      embeddedCreate1: { make: createItem(embedded1.url), servicePid: embedded1.pid },
      embeddedCreate: { make: createItem(embedded.url), servicePid: embedded.pid },
      sparqlCreate: { make: createItem(sparql.url), servicePid: sparql.pid },
      embeddedUpdate: { make: updateItem(embedded.url), servicePid: embedded.pid },
      sparqlUpdate: { make: updateItem(sparql.url), servicePid: sparql.pid },
    };

    for (const key of SCENARIOS) {
      await runLoad(scenarios[key].make, {
        concurrency: options.concurrency,
        durationMs: options.warmupMs,
        warmupMs: 0,
      });
    }
    const measure = async <K extends ScenarioKey>(
      keys: readonly K[],
      count: number,
      concurrency: number,
    ) => {
      const rounds = new Map<K, RoundResult[]>(keys.map((key) => [key, []]));
      for (let round = 0; round < count; round++) {
        for (const key of keys) {
          const { make, servicePid } = scenarios[key];
          const meter = new CpuMeter([servicePid, fusekiPid]);
          let cpu: (number | undefined)[] = [];
          const load = await runLoad(make, {
            concurrency,
            durationMs: options.durationMs,
            onMeasure: { start: () => meter.start(), stop: () => void (cpu = meter.stop()) },
          });
          rounds.get(key)!.push({ load, serviceCpu: cpu[0], fusekiCpu: cpu[1] });
        }
      }
      return Object.fromEntries(keys.map((key) => [key, medianRound(rounds.get(key)!)])) as Record<
        K,
        ScenarioResult
      >;
    };
    const result: SparqlBenchResult = await measure(SCENARIOS, options.rounds, options.concurrency);
    if (options.singleClientRounds) {
      result.single = await measure(SINGLE_CLIENT, options.singleClientRounds, 1);
    }
    return result;
  } finally {
    await baseline?.stop();
    const removed = await fetch(`${sparql.url}/api/item?${itemQuery(uri)}`, { method: "DELETE" })
      .catch(() => undefined);
    await removed?.body?.cancel();
    const dropped = await fetch(graph, { method: "DELETE", headers: authFor("DELETE", graph) })
      .catch(() => undefined);
    await dropped?.body?.cancel();
    await embedded.stop();
    await embedded1.stop();
    await sparql.stop();
    for (const dir of dataDirs) await Deno.remove(dir, { recursive: true });
  }
}

interface RoundResult {
  load: LoadResult;
  serviceCpu?: number;
  fusekiCpu?: number;
}

/** The round with the median throughput, with the CPU it used per request. */
function medianRound(rounds: RoundResult[]): ScenarioResult {
  const sorted = [...rounds].sort((a, b) => a.load.perSecond - b.load.perSecond);
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  const perRequest = (seconds?: number) =>
    seconds === undefined || median.load.requests === 0
      ? undefined
      : seconds * 1000 / median.load.requests;
  return {
    load: median.load,
    rounds: rounds.map((round) => round.load.perSecond),
    serviceCpuMs: perRequest(median.serviceCpu),
    fusekiCpuMs: perRequest(median.fusekiCpu),
  };
}

/** The Fuseki started by scripts/fuseki.sh for this endpoint's port, when it runs here. */
function localFusekiPid(queryUrl: string): number | undefined {
  const url = new URL(queryUrl);
  if (!["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)) return undefined;
  return findProcess(`fuseki.*--port=${url.port || "80"}( |$)`);
}

/** Markdown table lines: every scenario with its ratio to Fuseki's own request. */
export function formatSparqlBench(result: SparqlBenchResult): string[] {
  const names: Record<ScenarioKey, [string, ScenarioKey | undefined]> = {
    gspGet: ["Fuseki Graph Store GET (Turtle)", undefined],
    embeddedGet: ["GET /api/item (Turtle), embedded store", "gspGet"],
    sparqlGet: ["GET /api/item (Turtle), SPARQL store", "gspGet"],
    bodyPut: ["Baseline: PUT that only reads the body (same HTTP stack)", undefined],
    gspPut: ["Fuseki Graph Store PUT (Turtle)", undefined],
    updateRequest: ["Fuseki SPARQL Update (DROP + INSERT DATA)", "gspPut"],
    embeddedCreate1: ["PUT /api/item (new items), embedded store, 1 worker", "gspPut"],
    embeddedCreate: ["PUT /api/item (new items), embedded store, 2 workers", "gspPut"],
    embeddedUpdate: ["POST /api/item (update), embedded store, 2 workers", "gspPut"],
    sparqlCreate: ["PUT /api/item (new items), SPARQL store", "updateRequest"],
    sparqlUpdate: ["POST /api/item (update), SPARQL store", "updateRequest"],
  };
  const ms = (value?: number) => value === undefined ? "–" : value.toFixed(2);
  const lines = [
    "| scenario | req/s (rounds) | p50 ms | p99 ms | CPU ms/req service | CPU ms/req Fuseki | ratio to Fuseki's own request |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const key of SCENARIOS) {
    const [name, baseline] = names[key];
    const { load, rounds, serviceCpuMs, fusekiCpuMs } = result[key];
    const ratio = baseline ? load.perSecond / result[baseline].load.perSecond : 1;
    const bad = Object.keys(load.statuses).length || load.errors
      ? ` (errors ${load.errors}, statuses ${JSON.stringify(load.statuses)})`
      : "";
    lines.push(
      `| ${name} | ${load.perSecond.toFixed(0)} (${rounds.map((r) => r.toFixed(0)).join(", ")}) | ${
        load.p50Ms.toFixed(2)
      } | ${load.p99Ms.toFixed(2)} | ${ms(serviceCpuMs)} | ${ms(fusekiCpuMs)} | ${
        ratio.toFixed(2)
      }${bad} |`,
    );
  }
  const create = result.embeddedCreate.load.perSecond;
  lines.push(
    "",
    `Embedded PUT (new items) / PUT that reads the body: ${
      (create / result.bodyPut.load.perSecond).toFixed(2)
    } (goal ≥ 0.25); / Fuseki Graph Store PUT: ${
      (create / result.gspPut.load.perSecond).toFixed(2)
    } (goal ≥ 1.5). 1 → 2 workers: ${
      (create / result.embeddedCreate1.load.perSecond).toFixed(2)
    }× (goal ≥ 1.6). SPARQL-store update / Fuseki's own SPARQL Update of the graph: ${
      (result.sparqlUpdate.load.perSecond / result.updateRequest.load.perSecond).toFixed(2)
    }, create: ${
      (result.sparqlCreate.load.perSecond / result.updateRequest.load.perSecond).toFixed(2)
    } (goal ≥ 0.7 each). Load average when done: ${loadAverage()}.`,
  );
  if (result.single) {
    lines.push(
      "",
      "One client (median round):",
      "",
      "| scenario | req/s | p50 ms | p99 ms | CPU ms/req service | CPU ms/req Fuseki |",
      "|---|---|---|---|---|---|",
    );
    for (const key of SINGLE_CLIENT) {
      const { load, serviceCpuMs, fusekiCpuMs } = result.single[key];
      lines.push(
        `| ${names[key][0]} | ${load.perSecond.toFixed(0)} | ${load.p50Ms.toFixed(2)} | ${
          load.p99Ms.toFixed(2)
        } | ${ms(serviceCpuMs)} | ${ms(fusekiCpuMs)} |`,
      );
    }
  }
  const overhead = (service: ScenarioKey, raw: ScenarioKey) =>
    `${((result[raw].load.perSecond / result[service].load.perSecond - 1) * 100).toFixed(0)}%`;
  lines.push(
    "",
    `Goal: embedded GET / Graph Store GET ≥ 1.00; SPARQL-store overhead over raw Fuseki ` +
      `< 30% (here: GET ${overhead("sparqlGet", "gspGet")}, update ` +
      `${overhead("sparqlUpdate", "updateRequest")} over Fuseki's own SPARQL Update, as extra ` +
      `time per request at equal load).`,
  );
  return lines;
}

if (import.meta.main) {
  const durationMs = Number(Deno.args[0] ?? DEFAULT_OPTIONS.durationMs);
  const result = await benchSparql({ ...DEFAULT_OPTIONS, durationMs });
  if (!result) {
    console.log("SPARQL bench skipped: set SERVICE_SPARQL_QUERY_URL, _UPDATE_URL, _GSP_URL");
  } else for (const line of formatSparqlBench(result)) console.log(line);
}
