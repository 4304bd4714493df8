/**
 * Bulk import and export of a generated TriG file (20k items of 50 triples: 1M triples),
 * with the service as its own process so that its memory can be measured (peak RSS over the
 * RSS before, sampled every 50 ms):
 *
 * - import on the embedded store, and its export streamed back (bytes discarded);
 * - the same items PUT one by one by one client (a prefix of the file, `putItems` items);
 * - with a SPARQL store configured: the import on the SPARQL store, and the same file loaded by
 *   Fuseki's own Graph Store Protocol (`POST` of the TriG to the dataset), the baseline; and
 *   Fuseki's own SPARQL Update of the first `putItems` items (`DROP SILENT GRAPH` +
 *   `INSERT DATA` per item, 16 clients), the anchor of the SPARQL-store import.
 *
 * The embedded import runs with 1 and with 2 worker threads (`service.workers.count` for
 * parsing and hashing, `service.search.indexing.workers` for the outbox's indexing); every
 * run reports the CPU seconds of the service (and of a local Fuseki), so triples per
 * CPU-second show what one core does.
 *
 * The SPARQL runs write 1M triples into the dataset and `DROP ALL` it before and after: point
 * SERVICE_SPARQL_* at a private Fuseki (`FUSEKI_PORT=3131 scripts/fuseki.sh start`), never
 * at a shared one.
 */
import { startServiceProcess } from "../tests/support/process.ts";
import { DEMO_COLLECTION } from "../tests/support/service.ts";
import { sparqlEndpointsFromEnv } from "../tests/support/fuseki.ts";
import { fiftyTripleItem, loadAverage } from "./items_bench.ts";
import { CpuMeter, findProcess } from "./lib/process_cpu.ts";
import { runLoad } from "./lib/load.ts";

const C = encodeURIComponent(DEMO_COLLECTION);
const TRIPLES_PER_ITEM = 50;

/** What to run. */
export interface ImportBenchOptions {
  items: number;
  /** Items PUT one by one for the baseline (a prefix of the file). */
  putItems: number;
  /** Worker counts the embedded import runs with, one run each (1 and 2). */
  workers?: number[];
}

/** One measured run. */
export interface ImportRun {
  label: string;
  triples: number;
  seconds: number;
  /** Peak RSS growth of the service process, bytes; undefined for Fuseki's own load. */
  rssGrowth?: number;
  /** CPU seconds of the service process during the run. */
  serviceCpu?: number;
  /** CPU seconds of a local Fuseki during the run. */
  fusekiCpu?: number;
}

/** Writes the bench file (once per size) and returns its path. */
async function benchFile(items: number): Promise<string> {
  const dir = new URL("./data/", import.meta.url).pathname;
  await Deno.mkdir(dir, { recursive: true });
  const path = `${dir}import-${items}.trig`;
  try {
    await Deno.stat(path);
    return path;
  } catch {
    // not made yet
  }
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const writer = file.writable.getWriter();
  const encoder = new TextEncoder();
  let batch = "";
  for (let n = 0; n < items; n++) {
    const uri = `https://data.example.org/id/bulk/${String(n).padStart(6, "0")}`;
    // Blank node labels are document-wide in TriG: one set per item.
    const body = fiftyTripleItem(uri).replaceAll("_:a", `_:a${n}`).replaceAll("_:b", `_:b${n}`);
    batch += `<${uri}> {\n${body}}\n`;
    if (batch.length > 1 << 20) {
      await writer.write(encoder.encode(batch));
      batch = "";
    }
  }
  await writer.write(encoder.encode(batch));
  await writer.close();
  return path;
}

/** Samples a process's RSS until stopped; the peak over the first sample. */
function rssSampler(rss: () => number) {
  const base = rss();
  let peak = base;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rss());
    } catch {
      // the process is gone
    }
  }, 50);
  return () => {
    clearInterval(timer);
    peak = Math.max(peak, rss());
    return peak - base;
  };
}

async function importFile(url: string, path: string): Promise<number> {
  const started = performance.now();
  const file = await Deno.open(path);
  const response = await fetch(`${url}/api/admin/import?collection=${C}&wait=true`, {
    method: "POST",
    headers: {
      "Content-Type": "application/trig",
      "Content-Length": String((await Deno.stat(path)).size),
    },
    body: file.readable,
  });
  const job = await response.json();
  if (response.status !== 200 || job.state !== "succeeded" || job.refused !== 0) {
    throw new Error(`import did not succeed: ${JSON.stringify(job).slice(0, 2000)}`);
  }
  return (performance.now() - started) / 1000;
}

async function exportAll(url: string): Promise<{ seconds: number; bytes: number }> {
  const started = performance.now();
  const response = await fetch(`${url}/api/admin/export?collection=${C}`, {
    headers: { Accept: "application/trig" },
  });
  let bytes = 0;
  for await (const chunk of response.body!) bytes += chunk.byteLength;
  return { seconds: (performance.now() - started) / 1000, bytes };
}

/** A small import first, so that code paths are compiled before the RSS baseline. */
async function warmUp(url: string): Promise<void> {
  const body = fiftyTripleItem("https://data.example.org/id/bulk-warm-up");
  await (await fetch(`${url}/api/admin/import?collection=${C}&wait=true`, {
    method: "POST",
    headers: { "Content-Type": "application/trig" },
    body: `<https://data.example.org/id/bulk-warm-up> {\n${body}}\n`,
  })).body?.cancel();
}

async function onService<T>(
  env: Record<string, string>,
  fn: (url: string, rss: () => number, pid: number) => Promise<T>,
): Promise<T> {
  const dataDir = await Deno.makeTempDir({ prefix: "rcs-bench-import-" });
  const service = await startServiceProcess({ SERVICE_DATA_DIR: dataDir, ...env });
  try {
    await warmUp(service.url);
    return await fn(service.url, service.rss, service.pid);
  } finally {
    await service.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
}

/** PUTs the first `count` items of the file one after the other; seconds taken. */
async function putOneByOne(url: string, count: number): Promise<number> {
  const started = performance.now();
  for (let n = 0; n < count; n++) {
    const uri = `https://data.example.org/id/bulk/${String(n).padStart(6, "0")}`;
    const response = await fetch(
      `${url}/api/item?collection=${C}&item=${encodeURIComponent(uri)}`,
      {
        method: "PUT",
        headers: { "Content-Type": "application/n-triples" },
        body: fiftyTripleItem(uri),
      },
    );
    await response.body?.cancel();
    if (response.status !== 201) throw new Error(`PUT answered ${response.status}`);
  }
  return (performance.now() - started) / 1000;
}

/** Runs the scenario; see the module comment. */
export async function benchImport(options: ImportBenchOptions): Promise<ImportRun[]> {
  const path = await benchFile(options.items);
  const triples = options.items * TRIPLES_PER_ITEM;
  const runs: ImportRun[] = [];
  const sparql = sparqlEndpointsFromEnv();
  const fusekiPid = sparql ? localFusekiPid(sparql.queryUrl) : undefined;
  const counts = options.workers ?? [1, 2];
  for (const workers of counts) {
    const pools = { SERVICE_WORKERS: String(workers), SERVICE_INDEXING_WORKERS: String(workers) };
    await onService(pools, async (url, rss, pid) => {
      let stop = rssSampler(rss);
      const meter = new CpuMeter([pid]);
      meter.start();
      const seconds = await importFile(url, path);
      const [serviceCpu] = meter.stop();
      runs.push({
        label: `import, embedded store, ${workers} worker${workers === 1 ? "" : "s"}`,
        triples,
        seconds,
        rssGrowth: stop(),
        serviceCpu,
      });
      if (workers !== counts[counts.length - 1]) return;
      stop = rssSampler(rss);
      const exported = await exportAll(url);
      runs.push({
        label: `export, embedded store (${(exported.bytes / 1e6).toFixed(0)} MB of TriG)`,
        triples,
        seconds: exported.seconds,
        rssGrowth: stop(),
      });
    });
  }
  await onService({}, async (url) => {
    const seconds = await putOneByOne(url, options.putItems);
    runs.push({
      label: `PUT one by one, embedded store (first ${options.putItems} items)`,
      triples: options.putItems * TRIPLES_PER_ITEM,
      seconds,
    });
  });
  if (!sparql) return runs;
  const update = (text: string) =>
    fetch(sparql.updateUrl, {
      method: "POST",
      headers: { "Content-Type": "application/sparql-update" },
      body: text,
    }).then((response) => response.body?.cancel());
  await update("DROP ALL");
  const fusekiMeter = new CpuMeter([fusekiPid]);
  fusekiMeter.start();
  const started = performance.now();
  const loaded = await fetch(sparql.graphStoreUrl, {
    method: "POST",
    headers: { "Content-Type": "application/trig" },
    body: (await Deno.open(path)).readable,
  });
  await loaded.body?.cancel();
  if (!loaded.ok) throw new Error(`Fuseki GSP POST answered ${loaded.status}`);
  runs.push({
    label: "Fuseki Graph Store POST of the file (baseline)",
    triples,
    seconds: (performance.now() - started) / 1000,
    fusekiCpu: fusekiMeter.stop()[0],
  });
  await update("DROP ALL");
  runs.push(await fusekiUpdates(sparql.updateUrl, options.putItems, fusekiPid));
  await update("DROP ALL");
  const env = {
    SERVICE_STORE_BACKEND: "sparql",
    SERVICE_SPARQL_QUERY_URL: sparql.queryUrl,
    SERVICE_SPARQL_UPDATE_URL: sparql.updateUrl,
    SERVICE_SPARQL_GSP_URL: sparql.graphStoreUrl,
  };
  await onService(env, async (url, rss, pid) => {
    let stop = rssSampler(rss);
    const meter = new CpuMeter([pid, fusekiPid]);
    meter.start();
    const seconds = await importFile(url, path);
    const [serviceCpu, fusekiCpu] = meter.stop();
    runs.push({
      label: "import, SPARQL store (Fuseki)",
      triples,
      seconds,
      rssGrowth: stop(),
      serviceCpu,
      fusekiCpu,
    });
    stop = rssSampler(rss);
    const exported = await exportAll(url);
    runs.push({
      label: "export, SPARQL store (Fuseki)",
      triples,
      seconds: exported.seconds,
      rssGrowth: stop(),
    });
  });
  await update("DROP ALL");
  await onService({ ...env }, async (url) => {
    const seconds = await putOneByOne(url, options.putItems);
    runs.push({
      label: `PUT one by one, SPARQL store (first ${options.putItems} items)`,
      triples: options.putItems * TRIPLES_PER_ITEM,
      seconds,
    });
  });
  await update("DROP ALL");
  return runs;
}

/**
 * Fuseki's own SPARQL Update of the first `count` items of the file, each replacing its graph
 * (`DROP SILENT GRAPH` + `INSERT DATA`), 16 clients: what a SPARQL-store import starts from.
 */
async function fusekiUpdates(
  updateUrl: string,
  count: number,
  fusekiPid: number | undefined,
): Promise<ImportRun> {
  let next = 0;
  const meter = new CpuMeter([fusekiPid]);
  let cpu: (number | undefined)[] = [];
  // The items over and over, each time replacing its graph, for a fixed time.
  const load = await runLoad(() => {
    const n = next++ % count;
    const uri = `https://data.example.org/id/bulk/${String(n).padStart(6, "0")}`;
    return {
      url: updateUrl,
      init: {
        method: "POST",
        headers: { "Content-Type": "application/sparql-update" },
        body: `DROP SILENT GRAPH <${uri}> ;\nINSERT DATA { GRAPH <${uri}> {\n${
          fiftyTripleItem(uri)
        }} }`,
      },
    };
  }, {
    concurrency: 16,
    durationMs: 10_000,
    warmupMs: 1000,
    onMeasure: { start: () => meter.start(), stop: () => void (cpu = meter.stop()) },
  });
  return {
    label: "Fuseki SPARQL Update, DROP + INSERT DATA per item, 16 clients (anchor)",
    triples: load.requests * TRIPLES_PER_ITEM,
    seconds: load.seconds,
    fusekiCpu: cpu[0],
  };
}

/** The Fuseki started by scripts/fuseki.sh for this endpoint's port, when it runs here. */
function localFusekiPid(queryUrl: string): number | undefined {
  const url = new URL(queryUrl);
  if (!["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)) return undefined;
  return findProcess(`fuseki.*--port=${url.port || "80"}( |$)`);
}

/** The runs as a markdown table, with triples/s and the ratios the issue asks for. */
export function formatImportBench(runs: ImportRun[]): string {
  const rate = (run: ImportRun) => run.triples / run.seconds;
  const find = (prefix: string) => runs.find((run) => run.label.startsWith(prefix));
  const gsp = find("Fuseki Graph Store POST");
  const perCpu = (cpu?: number, run?: ImportRun) =>
    cpu === undefined || !run ? "–" : Math.round(run.triples / cpu).toLocaleString("en");
  const lines = [
    "| run | triples | seconds | triples/s | service RSS growth | service triples per CPU-second | Fuseki triples per CPU-second |",
    "|---|---|---|---|---|---|---|",
    ...runs.map((run) =>
      `| ${run.label} | ${run.triples.toLocaleString("en")} | ${run.seconds.toFixed(1)} | ${
        Math.round(rate(run)).toLocaleString("en")
      } | ${run.rssGrowth === undefined ? "–" : `${(run.rssGrowth / 2 ** 20).toFixed(0)} MiB`} | ${
        perCpu(run.serviceCpu, run)
      } | ${perCpu(run.fusekiCpu, run)} |`
    ),
    "",
  ];
  const one = find("import, embedded store, 1 worker");
  const two = find("import, embedded store, 2 workers");
  if (one && two) {
    lines.push(
      `- embedded import, 1 → 2 workers: ${(rate(two) / rate(one)).toFixed(2)}× (goal ≥ 1.6)`,
    );
  }
  const anchor = find("Fuseki SPARQL Update");
  const sparqlImport = find("import, SPARQL store");
  if (anchor && sparqlImport) {
    lines.push(
      `- SPARQL store: import / Fuseki's own SPARQL Update of the items = ${
        (rate(sparqlImport) / rate(anchor)).toFixed(2)
      }× (goal ≥ 0.7)`,
    );
  }
  for (const store of ["embedded store", "SPARQL store"]) {
    const imported = store === "embedded store" ? two : find(`import, ${store}`);
    const put = find(`PUT one by one, ${store}`);
    if (imported && put) {
      lines.push(
        `- ${store}: import / one-by-one PUT = ${(rate(imported) / rate(put)).toFixed(1)}×`,
      );
    }
    if (imported && gsp) {
      lines.push(
        `- ${store}: import / Fuseki GSP POST = ${(rate(imported) / rate(gsp)).toFixed(2)}×`,
      );
    }
  }
  lines.push(`- load average when done: ${loadAverage()}`);
  return lines.join("\n");
}
