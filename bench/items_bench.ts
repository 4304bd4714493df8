/**
 * Item GET (JSON-LD, Turtle) and PUT of a 50-triple item on the embedded store, beside the
 * bare HTTP stack serving the same bytes (bench/baseline_server.ts), in one run.
 *
 * Then the PUT of new items with 1 and with 2 worker threads (`service.workers.count` for
 * parsing and hashing, `service.search.indexing.workers` for the search index's writes), and
 * with none (all on the request thread, as before the pools): throughput, the service's CPU
 * time per write and its request thread's, counted until the index outbox is drained, and
 * writes per CPU-second ("per core"), so the scaling shows on this machine and can be carried
 * over to larger ones; and the same PUTs with one client, for latency.
 */
import { formatLoad, type LoadResult, runLoad } from "./lib/load.ts";
import { CpuMeter } from "./lib/process_cpu.ts";
import { startServiceProcess } from "../tests/support/process.ts";
import { DEMO_COLLECTION, itemQuery } from "../tests/support/service.ts";

const TRIPLES = 50;
const C = encodeURIComponent(DEMO_COLLECTION);

/** A 50-triple item: typed, with literals of several kinds and two blank nodes. */
export function fiftyTripleItem(uri: string): string {
  const lines = [
    `<${uri}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Document> .`,
  ];
  lines.push(`<${uri}> <http://purl.org/dc/terms/creator> _:a .`);
  lines.push(`_:a <http://xmlns.com/foaf/0.1/name> "Ada Lovelace"@en .`);
  lines.push(`<${uri}> <http://purl.org/dc/terms/publisher> _:b .`);
  lines.push(`_:b <http://xmlns.com/foaf/0.1/name> "Example Press" .`);
  for (let i = lines.length; i < TRIPLES; i++) {
    lines.push(
      i % 2
        ? `<${uri}> <http://example.org/vocab#field${i}> "value ${i} with some words"@en .`
        : `<${uri}> <http://example.org/vocab#count${i}> "${i}"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
    );
  }
  return lines.join("\n") + "\n";
}

/** A `PUT` of {@link fiftyTripleItem}`(uri)` as N-Triples to `url`. */
export function putFiftyTriples(url: string, uri: string): { url: string; init: RequestInit } {
  return {
    url,
    init: {
      method: "PUT",
      headers: { "Content-Type": "application/n-triples" },
      body: fiftyTripleItem(uri),
    },
  };
}

/** The bare HTTP stack (`baseline_server.ts`) serving these bodies, as its own process. */
export async function startBaseline(turtle: string, jsonld: string) {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/item.ttl`, turtle);
  await Deno.writeTextFile(`${dir}/item.jsonld`, jsonld);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("./baseline_server.ts", import.meta.url).pathname,
      "0",
      `${dir}/item.ttl`,
      `${dir}/item.jsonld`,
    ],
    stdout: "piped",
  }).spawn();
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  reader.releaseLock();
  child.stdout.cancel().catch(() => {});
  const port = Number(new TextDecoder().decode(value).match(/listening (\d+)/)![1]);
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.kill("SIGTERM");
      await child.status;
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Runs the item scenarios; returns markdown table lines. */
export async function benchItems(options = { durationMs: 5000, concurrency: 16 }) {
  const dataDir = await Deno.makeTempDir({ prefix: "rcs-bench-" });
  const service = await startServiceProcess({ SERVICE_DATA_DIR: dataDir });
  const uri = "https://data.example.org/id/document/bench";
  const body = fiftyTripleItem(uri);
  const created = await fetch(`${service.url}/api/item?collection=${C}`, {
    method: "PUT",
    headers: { "Content-Type": "application/n-triples" },
    body,
  });
  if (created.status !== 201) throw new Error(`setup failed: ${await created.text()}`);
  await created.body?.cancel();
  const read = (accept: string) =>
    fetch(`${service.url}/api/item?${itemQuery(uri)}`, { headers: { Accept: accept } })
      .then((r) => r.text());
  const baseline = await startBaseline(
    await read("text/turtle"),
    await read("application/ld+json"),
  );
  const rows: string[] = [];
  try {
    const load = (make: Parameters<typeof runLoad>[0]) => runLoad(make, options);
    const base: Record<string, LoadResult> = {
      jsonld: await load(() => ({ url: `${baseline.url}/jsonld` })),
      turtle: await load(() => ({ url: `${baseline.url}/turtle` })),
      put: await load(() => ({ url: `${baseline.url}/put`, init: { method: "PUT", body } })),
    };
    const getJson = await load(() => ({
      url: `${service.url}/api/item?${itemQuery(uri)}`,
      init: { headers: { Accept: "application/ld+json" } },
    }));
    const getTurtle = await load(() => ({
      url: `${service.url}/api/item?${itemQuery(uri)}`,
      init: { headers: { Accept: "text/turtle" } },
    }));
    const put = await load((worker, n) => {
      const fresh = `https://data.example.org/id/document/bench-${worker}-${n}-${Date.now()}`;
      return {
        url: `${service.url}/api/item?collection=${C}`,
        init: {
          method: "PUT",
          headers: { "Content-Type": "application/n-triples" },
          body: fiftyTripleItem(fresh),
        },
      };
    });
    rows.push(formatLoad("baseline: static JSON-LD body", base.jsonld));
    rows.push(formatLoad("GET /api/item (JSON-LD)", getJson, base.jsonld));
    rows.push(formatLoad("baseline: static Turtle body", base.turtle));
    rows.push(formatLoad("GET /api/item (Turtle)", getTurtle, base.turtle));
    rows.push(formatLoad("baseline: PUT that reads the body", base.put));
    rows.push(formatLoad("PUT /api/item (new item, N-Triples)", put, base.put));
  } finally {
    await baseline.stop();
    await service.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
  return rows;
}

/** One worker setting's PUT of new items, 16 clients and 1. */
export interface WorkerScaling {
  workers: number;
  load: LoadResult;
  /** Service CPU milliseconds per write, its index writes included. */
  cpuMs: number;
  /** The request thread's share of {@link cpuMs}. */
  requestThreadMs: number;
  single: LoadResult;
}

/** PUTs of new items on services with each worker count in `workers`; see the module comment. */
export async function benchWorkerScaling(
  workers: number[],
  options = { durationMs: 5000, concurrency: 16 },
): Promise<WorkerScaling[]> {
  const results: WorkerScaling[] = [];
  for (const count of workers) {
    const dataDir = await Deno.makeTempDir({ prefix: "rcs-bench-" });
    const service = await startServiceProcess({
      SERVICE_DATA_DIR: dataDir,
      SERVICE_WORKERS: String(count),
      SERVICE_INDEXING_WORKERS: String(count),
    });
    try {
      const put = (label: string) => (worker: number, n: number) => ({
        url: `${service.url}/api/item?collection=${C}`,
        init: {
          method: "PUT",
          headers: { "Content-Type": "application/n-triples" },
          body: fiftyTripleItem(
            `https://data.example.org/id/document/${label}-${count}-${worker}-${n}-${Date.now()}`,
          ),
        },
      });
      const meter = new CpuMeter([service.pid, { pid: service.pid, thread: service.pid }]);
      const load = await runLoad(put("many"), {
        ...options,
        warmupMs: 1500,
        onMeasure: { start: () => meter.start(), stop: () => {} },
      });
      // The writes' index updates are part of their cost, whenever the outbox makes them.
      await outboxDrained(service.url);
      const [cpu, requestThread] = meter.stop();
      const single = await runLoad(put("one"), { ...options, concurrency: 1 });
      results.push({
        workers: count,
        load,
        cpuMs: (cpu ?? NaN) * 1000 / load.requests,
        requestThreadMs: (requestThread ?? NaN) * 1000 / load.requests,
        single,
      });
    } finally {
      await service.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  }
  return results;
}

/** Resolves once `/ready` reports an empty index outbox. */
async function outboxDrained(url: string): Promise<void> {
  while (true) {
    const body = await (await fetch(`${url}/ready`)).json();
    if (body.checks?.outbox?.detail === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The scaling runs as markdown: one row per worker count, then the 1 → 2 ratio. */
export function formatWorkerScaling(results: WorkerScaling[]): string[] {
  const lines = [
    "| workers | PUT req/s, 16 clients | p50 ms | service CPU ms/write | request thread CPU ms/write | writes per CPU-second | cores busy | 1 client req/s | 1 client p50 ms |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const { workers, load, cpuMs, requestThreadMs, single } of results) {
    lines.push(
      `| ${workers === 0 ? "0 (request thread)" : workers} | ${load.perSecond.toFixed(0)} | ${
        load.p50Ms.toFixed(1)
      } | ${cpuMs.toFixed(2)} | ${requestThreadMs.toFixed(2)} | ${(1000 / cpuMs).toFixed(0)} | ${
        (load.perSecond * cpuMs / 1000).toFixed(2)
      } | ${single.perSecond.toFixed(0)} | ${single.p50Ms.toFixed(2)} |`,
    );
  }
  const one = results.find((result) => result.workers === 1);
  const two = results.find((result) => result.workers === 2);
  if (one && two) {
    lines.push(
      "",
      `1 → 2 workers: ${(two.load.perSecond / one.load.perSecond).toFixed(2)}× the PUTs per ` +
        `second (goal ≥ 1.6). Load average when done: ${loadAverage()}.`,
    );
  }
  return lines;
}

/** The machine's 1-minute load average (other work shares it). */
export function loadAverage(): string {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ")[0];
  } catch {
    return "unknown";
  }
}

if (import.meta.main) {
  console.log("| scenario | req/s | p50 ms | p99 ms | ratio to baseline |");
  console.log("|---|---|---|---|---|");
  for (const row of await benchItems()) console.log(row);
  console.log("");
  for (const row of formatWorkerScaling(await benchWorkerScaling([0, 1, 2]))) console.log(row);
}
