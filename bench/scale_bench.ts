/**
 * `deno task bench scale [--sizes 20000,100000,250000] [--million] [--searches 40]`: the
 * embedded default grown as a user grows it (issue 27). Per size, on a fresh data directory,
 * one service process (embedded store, embedded search):
 *
 * - the generated items (bench/lib/scale_data.ts; the TriG file is kept in bench/data/)
 *   imported in one request by the CLI (`src/bulk/cli.ts import`), then the index outbox
 *   drained;
 * - each search class of the issue through `GET /api/search` (p50, p99);
 * - SPARQL through `GET /sparql` after a restart: the first query, the service's RSS after a
 *   `COUNT(*)` over every item graph, that `COUNT(*)` (p50) and a one-subject query (p50) —
 *   whatever engine answers `/sparql` underneath;
 * - a collection indexing job with `clear=true` (items/s), and the file size before and after;
 * - item `GET` (Turtle): p50 with one client, requests/s with 16;
 * - a restart until `/ready` answers 200.
 *
 * At the largest size, beside it: OpenSearch (search classes through the same service, its
 * index filled by an indexing job; needs SERVICE_OPENSEARCH_URL) and a private Fuseki TDB2 on
 * another port (scripts/fuseki.sh; the same TriG loaded by its Graph Store Protocol, then
 * `COUNT(*)`, the one-subject query and the graph `GET`; `--no-fuseki` skips it).
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { type ServiceProcess, startServiceProcess } from "../tests/support/process.ts";
import { DEMO_COLLECTION } from "../tests/support/service.ts";
import { FusekiInstance } from "../tests/support/fuseki.ts";
import { freePort } from "../tests/support/ports.ts";
import { deleteIndicesWithPrefix } from "../tests/support/opensearch.ts";
import { runLoad } from "./lib/load.ts";
import { percentiles } from "./search_scale_bench.ts";
import {
  ntTerm,
  scaleItem,
  scaleItemUri,
  type ScaleQueries,
  WordFrequencies,
} from "./lib/scale_data.ts";

const C = encodeURIComponent(DEMO_COLLECTION);
const CLI = new URL("../src/bulk/cli.ts", import.meta.url).pathname;
const DB_FILE = "rdf-content-service.db";

/** A column's rows, each also written to stderr as it is measured (a long run keeps its figures). */
class LoggedRows extends Map<string, string> {
  constructor(private readonly label: string) {
    super();
  }
  override set(key: string, value: string): this {
    console.error(`# ${this.label}: ${key}: ${value}`);
    return super.set(key, value);
  }
}

/** The most memory a process has held (VmHWM): what a bounded run must keep flat. */
function peakRss(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(status.match(/VmHWM:\s+(\d+)/)![1]) * 1024;
}

/** One column of the results table. */
interface Column {
  label: string;
  rows: Map<string, string>;
}

const ms = (value: number) => value < 10 ? value.toFixed(1) : value.toFixed(0);
const mb = (bytes: number) =>
  `${(bytes / 1e6).toLocaleString("en", { maximumFractionDigits: 0 })} MB`;
const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));

/** The search classes, as query strings of `GET /api/search`. */
function searchClasses(queries: ScaleQueries): [string, string][] {
  const q = (word: string) => `q=${encodeURIComponent(word)}`;
  return [
    ["search, a common word (~half the items)", q(queries.common)],
    ["search, a common word + `facet=types`", `${q(queries.common)}&facet=types`],
    ["search, the most frequent word", q(queries.mostFrequent)],
    ["search, two words", q(queries.twoWords)],
    ["search, a rare word (~0.1%)", q(queries.rare)],
    ["search, a type filter only", `filter=${encodeURIComponent(`types:${queries.type}`)}`],
  ];
}

/** The TriG file of `items` items (written once, kept) and the words to search for. */
async function scaleFile(items: number): Promise<{ path: string; queries: ScaleQueries }> {
  const dir = new URL("./data/", import.meta.url).pathname;
  await Deno.mkdir(dir, { recursive: true });
  const path = `${dir}scale-${items}.trig`;
  const queriesPath = `${dir}scale-${items}.json`;
  try {
    await Deno.stat(path);
    return { path, queries: JSON.parse(await Deno.readTextFile(queriesPath)) };
  } catch {
    // not made yet
  }
  const file = await Deno.open(`${path}.partial`, { write: true, create: true, truncate: true });
  const writer = file.writable.getWriter();
  const encoder = new TextEncoder();
  const frequencies = new WordFrequencies();
  let batch = "";
  for (let n = 0; n < items; n++) {
    const item = scaleItem(n);
    frequencies.add(item.words);
    batch += `<${item.uri}> {\n`;
    for (const quad of item.quads) {
      batch += `${ntTerm(quad.subject)} <${quad.predicate.value}> ${ntTerm(quad.object)} .\n`;
    }
    batch += "}\n";
    if (batch.length > 1 << 20) {
      await writer.write(encoder.encode(batch));
      batch = "";
    }
  }
  await writer.write(encoder.encode(batch));
  await writer.close();
  await Deno.rename(`${path}.partial`, path);
  const queries = frequencies.queries();
  await Deno.writeTextFile(queriesPath, JSON.stringify(queries));
  return { path, queries };
}

/** The CLI's import of `path`; seconds. */
async function importWithCli(url: string, path: string): Promise<number> {
  const started = performance.now();
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "import", path, "--collection", DEMO_COLLECTION, "--url", url],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(`import failed: ${new TextDecoder().decode(output.stderr).slice(-2000)}`);
  }
  return (performance.now() - started) / 1000;
}

async function outboxEmpty(url: string): Promise<void> {
  while (true) {
    const body = await (await fetch(`${url}/ready`)).json();
    if (body.checks?.outbox?.detail === 0) return;
    await sleep(500);
  }
}

/** p50 and p99 of `count` sequential GETs of `url` (after one unmeasured). */
async function timeGets(url: string, count: number, accept = "application/json") {
  const samples: number[] = [];
  let status = 0;
  for (let n = -1; n < count; n++) {
    const started = performance.now();
    const response = await fetch(url, { headers: { Accept: accept } });
    await response.arrayBuffer();
    status = response.status;
    if (n >= 0) samples.push(performance.now() - started);
  }
  return { ...percentiles(samples), status };
}

const COUNT_QUERY = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }";
const subjectQuery = (uri: string) => `SELECT ?p ?o WHERE { GRAPH ?g { <${uri}> ?p ?o } }`;

async function startService(dataDir: string, env: Record<string, string> = {}) {
  return await startServiceProcess(
    { SERVICE_DATA_DIR: dataDir, LOG_LEVEL: "warn", ...env },
    { timeoutMs: 600_000 },
  );
}

/** Stops and starts the service; seconds until `/ready` answers 200. */
async function restart(
  service: ServiceProcess,
  dataDir: string,
  env: Record<string, string> = {},
): Promise<{ service: ServiceProcess; seconds: number }> {
  await service.stop();
  const started = performance.now();
  const next = await startService(dataDir, env);
  while (
    (await fetch(`${next.url}/ready`).then((r) => r.body?.cancel().then(() => r.status))) !== 200
  ) {
    await sleep(20);
  }
  return { service: next, seconds: (performance.now() - started) / 1000 };
}

async function searchRows(
  url: string,
  queries: ScaleQueries,
  searches: number,
  rows: Map<string, string>,
): Promise<void> {
  for (const [label, query] of searchClasses(queries)) {
    const result = await timeGets(`${url}/api/search?collection=${C}&${query}`, searches);
    if (result.status !== 200) throw new Error(`${label}: ${result.status}`);
    rows.set(`${label}, p50 / p99`, `${ms(result.p50)} / ${ms(result.p99)} ms`);
  }
}

/** Every measurement of one size on the embedded default. */
async function benchSize(
  items: number,
  searches: number,
  openSearchUrl: string | undefined,
): Promise<Column[]> {
  const { path, queries } = await scaleFile(items);
  console.error(`# ${items} items: ${JSON.stringify(queries)}`);
  const rows = new LoggedRows(`${items} items`);
  const columns: Column[] = [{ label: `${items.toLocaleString("en")} items`, rows }];
  const dataDir = await Deno.makeTempDir({ prefix: "rcs-bench-scale-" });
  let service = await startService(dataDir);
  try {
    const importSeconds = await importWithCli(service.url, path);
    rows.set(
      "import (CLI, TriG, one request)",
      `${((items * 50) / importSeconds / 1000).toFixed(1)}k triples/s`,
    );
    const drainStarted = performance.now();
    await outboxEmpty(service.url);
    rows.set(
      "index outbox after the import",
      `${
        (items / ((performance.now() - drainStarted) / 1000 + importSeconds)).toFixed(0)
      } items/s (import + drain)`,
    );
    console.error(`# imported in ${importSeconds.toFixed(0)} s`);
    await searchRows(service.url, queries, searches, rows);
    rows.set("service peak RSS: import, drain, searches", mb(peakRss(service.pid)));
    const dbPath = join(dataDir, DB_FILE);

    // SPARQL, from a start.
    let restarted = await restart(service, dataDir);
    service = restarted.service;
    // Measured after a stop: the WAL is then copied back into the file.
    const sizeBefore = (await Deno.stat(dbPath)).size;
    const sparql = (query: string) => `${service.url}/sparql?query=${encodeURIComponent(query)}`;
    const first = performance.now();
    const firstAnswer = await fetch(sparql(COUNT_QUERY), {
      headers: { Accept: "application/sparql-results+json" },
    });
    await firstAnswer.arrayBuffer();
    const firstSeconds = (performance.now() - first) / 1000;
    rows.set(
      "SPARQL: first `COUNT(*)` after a start",
      `${firstSeconds.toFixed(2)} s (${firstAnswer.status})`,
    );
    rows.set("SPARQL: service RSS after it", mb(service.rss()));
    const count = await timeGets(sparql(COUNT_QUERY), 3, "application/sparql-results+json");
    rows.set(
      "SPARQL: `COUNT(*)` over all item graphs, p50",
      `${ms(count.p50)} ms (${count.status})`,
    );
    const subject = await timeGets(
      sparql(subjectQuery(scaleItemUri(items >> 1))),
      20,
      "application/sparql-results+json",
    );
    rows.set("SPARQL: one-subject query, p50", `${ms(subject.p50)} ms (${subject.status})`);

    // Item GET.
    const itemUrl = (n: number) =>
      `${service.url}/api/item?collection=${C}&item=${encodeURIComponent(scaleItemUri(n))}`;
    const one = await runLoad(
      (_, n) => ({
        url: itemUrl((n * 7919) % items),
        init: { headers: { Accept: "text/turtle" } },
      }),
      { concurrency: 1, durationMs: 3000 },
    );
    const many = await runLoad(
      (w, n) => ({
        url: itemUrl((w * 104729 + n * 7919) % items),
        init: { headers: { Accept: "text/turtle" } },
      }),
      { concurrency: 16, durationMs: 5000 },
    );
    rows.set(
      "item `GET`, p50 / 16 clients",
      `${ms(one.p50Ms)} ms / ${many.perSecond.toFixed(0)} per s`,
    );

    // A rebuild.
    const jobStarted = performance.now();
    const job = await (await fetch(
      `${service.url}/api/admin/index/collection?collection=${C}&clear=true&wait=true`,
      { method: "POST" },
    )).json();
    const jobSeconds = (performance.now() - jobStarted) / 1000;
    if (job.state !== "succeeded") {
      throw new Error(`indexing job: ${JSON.stringify(job).slice(0, 500)}`);
    }
    rows.set(
      "collection indexing job (`clear=true`)",
      `${(job.processed / jobSeconds).toFixed(0)} items/s`,
    );
    rows.set("service peak RSS: SPARQL, `GET`, the job", mb(peakRss(service.pid)));
    restarted = await restart(service, dataDir);
    service = restarted.service;
    const sizeAfter = (await Deno.stat(dbPath)).size;
    rows.set(
      "SQLite file on disk / after one `clear=true` rebuild",
      `${mb(sizeBefore)} / ${mb(sizeAfter)}`,
    );
    rows.set("restart to `/ready`", `${restarted.seconds.toFixed(2)} s`);

    if (openSearchUrl) {
      const prefix = `bench-scale-${crypto.randomUUID().slice(0, 8)}-`;
      const env = {
        SERVICE_SEARCH_BACKEND: "opensearch",
        SERVICE_OPENSEARCH_URL: openSearchUrl,
        SERVICE_SEARCH_INDEX_PREFIX: prefix,
      };
      await service.stop();
      service = await startService(dataDir, env);
      try {
        const osRows = new LoggedRows(`OpenSearch, ${items}`);
        const started = performance.now();
        const filled = await (await fetch(
          `${service.url}/api/admin/index/collection?collection=${C}&clear=true&wait=true`,
          { method: "POST" },
        )).json();
        const seconds = (performance.now() - started) / 1000;
        osRows.set(
          "collection indexing job (`clear=true`)",
          `${(filled.processed / seconds).toFixed(0)} items/s`,
        );
        await searchRows(service.url, queries, searches, osRows);
        columns.push({ label: `OpenSearch, ${items.toLocaleString("en")}`, rows: osRows });
      } finally {
        await deleteIndicesWithPrefix(openSearchUrl, prefix);
      }
    }
  } finally {
    await service.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
  return columns;
}

function rssOf(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(status.match(/VmRSS:\s+(\d+)/)![1]) * 1024;
}

/** Fuseki TDB2 on the same TriG: GSP load, `COUNT(*)`, one-subject query, graph GET. */
async function benchFuseki(items: number): Promise<Column> {
  const { path } = await scaleFile(items);
  const rows = new Map<string, string>();
  const tdb2Dir = await Deno.makeTempDir({ prefix: "rcs-bench-tdb2-" });
  const runDir = await Deno.makeTempDir({ prefix: "rcs-bench-fuseki-" });
  const fuseki = new FusekiInstance({ port: freePort(), runDir, tdb2Dir });
  await fuseki.start();
  try {
    const { queryUrl, graphStoreUrl } = fuseki.endpoints;
    const started = performance.now();
    const file = await Deno.open(path);
    const loaded = await fetch(graphStoreUrl, {
      method: "POST",
      headers: { "Content-Type": "application/trig" },
      body: file.readable,
    });
    await loaded.arrayBuffer();
    if (!loaded.ok) throw new Error(`Fuseki load: ${loaded.status}`);
    const seconds = (performance.now() - started) / 1000;
    rows.set(
      "import (CLI, TriG, one request)",
      `${((items * 50) / seconds / 1000).toFixed(1)}k triples/s (GSP POST)`,
    );
    const query = (text: string) => `${queryUrl}?query=${encodeURIComponent(text)}`;
    const count = await timeGets(query(COUNT_QUERY), 3, "application/sparql-results+json");
    rows.set(
      "SPARQL: `COUNT(*)` over all item graphs, p50",
      `${ms(count.p50)} ms (${count.status})`,
    );
    const subject = await timeGets(
      query(subjectQuery(scaleItemUri(items >> 1))),
      20,
      "application/sparql-results+json",
    );
    rows.set("SPARQL: one-subject query, p50", `${ms(subject.p50)} ms (${subject.status})`);
    const pid = Number((await Deno.readTextFile(`${runDir}/fuseki.pid`)).trim());
    rows.set("SPARQL: service RSS after it", mb(rssOf(pid)));
    const graphUrl = (n: number) => `${graphStoreUrl}?graph=${encodeURIComponent(scaleItemUri(n))}`;
    const one = await runLoad(
      (_, n) => ({
        url: graphUrl((n * 7919) % items),
        init: { headers: { Accept: "text/turtle" } },
      }),
      { concurrency: 1, durationMs: 3000 },
    );
    const many = await runLoad(
      (w, n) => ({
        url: graphUrl((w * 104729 + n * 7919) % items),
        init: { headers: { Accept: "text/turtle" } },
      }),
      { concurrency: 16, durationMs: 5000 },
    );
    rows.set(
      "item `GET`, p50 / 16 clients",
      `${ms(one.p50Ms)} ms / ${many.perSecond.toFixed(0)} per s (GSP GET)`,
    );
    let bytes = 0;
    for await (const entry of Deno.readDir(join(tdb2Dir))) {
      if (entry.isDirectory) {
        for await (const inner of Deno.readDir(join(tdb2Dir, entry.name))) {
          bytes += (await Deno.stat(join(tdb2Dir, entry.name, inner.name))).size;
        }
      }
    }
    rows.set(
      "SQLite file on disk / after one `clear=true` rebuild",
      `${mb(bytes)} (TDB2 directory)`,
    );
  } finally {
    await fuseki.stop();
    await Deno.remove(tdb2Dir, { recursive: true });
    await Deno.remove(runDir, { recursive: true });
  }
  return { label: `Fuseki TDB2, ${items.toLocaleString("en")}`, rows };
}

/** The markdown table of `columns`, rows in first-seen order. */
export function formatScaleBench(columns: Column[]): string {
  const labels: string[] = [];
  for (const column of columns) {
    for (const label of column.rows.keys()) if (!labels.includes(label)) labels.push(label);
  }
  return [
    `| measured | ${columns.map((column) => column.label).join(" | ")} |`,
    `| --- | ${columns.map(() => "---:").join(" | ")} |`,
    ...labels.map((label) =>
      `| ${label} | ${columns.map((column) => column.rows.get(label) ?? "—").join(" | ")} |`
    ),
  ].join("\n");
}

/** Runs the scenario from command-line arguments (see the module comment). */
export async function benchScale(args: string[]): Promise<string> {
  const { values } = parseArgs({
    args,
    options: {
      sizes: { type: "string", default: "20000,100000,250000" },
      million: { type: "boolean", default: false },
      searches: { type: "string", default: "40" },
      "no-fuseki": { type: "boolean", default: false },
    },
  });
  const sizes = values.sizes!.split(",").map(Number).filter((n) => n > 0);
  if (values.million) sizes.push(1_000_000);
  const largest = Math.max(...sizes);
  const openSearchUrl = Deno.env.get("SERVICE_OPENSEARCH_URL") || undefined;
  const columns: Column[] = [];
  for (const size of sizes) {
    columns.push(
      ...await benchSize(
        size,
        Number(values.searches),
        size === largest ? openSearchUrl : undefined,
      ),
    );
    console.error(formatScaleBench(columns));
  }
  if (!values["no-fuseki"]) columns.push(await benchFuseki(largest));
  const load = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
  return `${formatScaleBench(columns)}\n\nLoad average at the end: ${load}.`;
}

if (import.meta.main) console.log(await benchScale(Deno.args));
