/**
 * Write-to-searchable latency across service instances: two service processes (each with its
 * own data directory) on one Fuseki and one OpenSearch, as behind a load balancer.
 *
 * Writes go to the instances in turn at a modest, fixed rate: creates and whole-graph
 * updates, each carrying a fresh unique word. From the moment a write is acknowledged, the
 * word is searched for (`GET /api/search?collection=…&q=<word>`) on ANOTHER instance and on
 * the SAME instance, each polled every `pollMs`, until the item is found: the latency from
 * acknowledgement to searchable, p50, p99 and max, on either side. The same-instance row is
 * the baseline beside it: both wait for the search engine's next refresh (OpenSearch: every
 * 1 s by default) after the index outbox has applied the write; the gap between them is what
 * the other instance costs. A word not found within `timeoutMs` is counted as missed, not as a time.
 *
 * Uses the multi-instance test harness (tests/support/cluster.ts): a run of its own (metadata
 * graph, graph template, index prefix), removed afterwards. Needs SERVICE_SPARQL_QUERY_URL,
 * _UPDATE_URL, _GSP_URL and SERVICE_OPENSEARCH_URL.
 *
 *   deno run -A bench/cluster_bench.ts [writes] [writes per second]
 */
import {
  Cluster,
  type ClusterEngines,
  etagValue,
  itemBody,
  runWriteLoad,
  sleep,
  startWarmCluster,
  waitForDrain,
  WriteLedger,
} from "../tests/support/cluster.ts";
import { sparqlEndpointsFromEnv } from "../tests/support/fuseki.ts";
import { openSearchUrl } from "../tests/support/opensearch.ts";

/** Options of {@link benchCluster}. */
export interface ClusterBenchOptions {
  /** Service processes (2 or more). */
  instances: number;
  /** Measured writes, half creates, half updates. */
  writes: number;
  /** Writes started per second. */
  ratePerSecond: number;
  /** Interval of the search polls, the resolution of every latency. */
  pollMs: number;
  /** A word not found this long after its write is counted as missed. */
  timeoutMs: number;
  /** Items created before measuring, for the updates to pick from. */
  seeded: number;
}

/** The defaults: 300 writes at 5/s over 2 instances, polled every 50 ms. */
export const DEFAULT_CLUSTER_BENCH: ClusterBenchOptions = {
  instances: 2,
  writes: 300,
  ratePerSecond: 5,
  pollMs: 50,
  timeoutMs: 15_000,
  seeded: 50,
};

/** Latencies of one side, in ms. */
export interface LatencyStats {
  found: number;
  missed: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** What one run measured. */
export interface ClusterBenchResult {
  options: ClusterBenchOptions;
  /** Searched on another instance than the one that took the write. */
  other: LatencyStats;
  /** Searched on the instance that took the write. */
  same: LatencyStats;
  creates: number;
  updates: number;
  /** Writes not acknowledged (any answer but 201/204, or none). */
  failedWrites: number;
  /** Search answers other than 200. */
  failedSearches: number;
}

function engines(): ClusterEngines | undefined {
  const sparql = sparqlEndpointsFromEnv();
  const url = openSearchUrl();
  return sparql && url ? { sparql, openSearchUrl: url } : undefined;
}

/** Runs the bench; undefined when an engine is not configured. */
export async function benchCluster(
  options: ClusterBenchOptions = DEFAULT_CLUSTER_BENCH,
): Promise<ClusterBenchResult | undefined> {
  const configured = engines();
  if (!configured) return undefined;
  const cluster = await Cluster.create(configured);
  try {
    const ledger = new WriteLedger();
    const instances = await startWarmCluster(cluster, ledger, Math.max(2, options.instances));
    await runWriteLoad(cluster, ledger, {
      targets: () => instances.map((instance) => instance.url),
      writes: options.seeded,
      maxMs: 60_000,
      concurrency: 4,
      label: "seed",
      word: `seed${cluster.run.replaceAll("-", "")}`,
    });
    await waitForDrain(cluster, 60_000);
    const items = [...ledger.entries.values()].filter((entry) => entry.exists === true);
    const busy = new Set<string>();
    const other: number[] = [];
    const same: number[] = [];
    let missedOther = 0;
    let missedSame = 0;
    let creates = 0;
    let updates = 0;
    let failedWrites = 0;
    let failedSearches = 0;
    const collection = encodeURIComponent(cluster.collection);

    /** Ms from `since` until a search for `word` on `baseUrl` finds `uri`; undefined if never. */
    const searchable = async (baseUrl: string, word: string, uri: string, since: number) => {
      while (performance.now() - since < options.timeoutMs) {
        try {
          const response = await fetch(
            `${baseUrl}/api/search?collection=${collection}&q=${word}&size=5`,
          );
          const text = await response.text();
          if (response.status !== 200) failedSearches++;
          else {
            const { hits } = JSON.parse(text) as { hits: { uri: string }[] };
            if (hits.some((hit) => hit.uri === uri)) return performance.now() - since;
          }
        } catch {
          failedSearches++;
        }
        await sleep(options.pollMs);
      }
      return undefined;
    };

    const write = async (n: number) => {
      const writer = instances[n % instances.length];
      const reader = instances[(n + 1) % instances.length];
      const word = `cw${cluster.run.replaceAll("-", "")}n${n}`;
      const idle = items.filter((entry) => !busy.has(entry.uri));
      const update = n % 2 === 1 && idle.length > 0;
      const entry = update ? idle[Math.floor(Math.random() * idle.length)] : undefined;
      const uri = entry?.uri ?? cluster.itemUri(`bench-${n}`);
      busy.add(uri);
      try {
        const { contentType, body } = itemBody(uri, word, n, n % 4 < 2 ? "turtle" : "jsonld");
        const response = await fetch(`${writer.url}${cluster.itemPath(uri)}`, {
          method: update ? "POST" : "PUT",
          headers: { "Content-Type": contentType },
          body,
        });
        await response.body?.cancel();
        const acknowledgedAt = performance.now();
        if (response.status !== (update ? 204 : 201)) {
          failedWrites++;
          return;
        }
        if (update) updates++;
        else {
          creates++;
          items.push({ uri, exists: true, hash: etagValue(response), version: n, busy: false });
        }
        const [there, here] = await Promise.all([
          searchable(reader.url, word, uri, acknowledgedAt),
          searchable(writer.url, word, uri, acknowledgedAt),
        ]);
        if (there === undefined) missedOther++;
        else other.push(there);
        if (here === undefined) missedSame++;
        else same.push(here);
      } catch {
        failedWrites++;
      } finally {
        busy.delete(uri);
      }
    };

    const started = performance.now();
    const pending: Promise<void>[] = [];
    for (let n = 0; n < options.writes; n++) {
      const due = started + n * 1000 / options.ratePerSecond;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      pending.push(write(n));
    }
    await Promise.all(pending);
    return {
      options,
      other: stats(other, missedOther),
      same: stats(same, missedSame),
      creates,
      updates,
      failedWrites,
      failedSearches,
    };
  } finally {
    await cluster.close();
  }
}

function stats(latencies: number[], missed: number): LatencyStats {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return {
    found: sorted.length,
    missed,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: sorted.at(-1) ?? 0,
  };
}

/** Markdown table lines. */
export function formatClusterBench(result: ClusterBenchResult): string[] {
  const { options } = result;
  const row = (name: string, stats: LatencyStats, ratio: string) =>
    `| ${name} | ${stats.found} | ${stats.missed} | ${stats.p50Ms.toFixed(0)} | ${
      stats.p99Ms.toFixed(0)
    } | ${stats.maxMs.toFixed(0)} | ${ratio} |`;
  const ratio = result.same.p50Ms > 0 ? (result.other.p50Ms / result.same.p50Ms).toFixed(2) : "–";
  return [
    `${options.instances} instances, ${options.writes} writes at ${options.ratePerSecond}/s ` +
    `(${result.creates} creates, ${result.updates} updates), search polled every ` +
    `${options.pollMs} ms (the resolution), missed = not found within ${options.timeoutMs} ms.`,
    "",
    "| searched on | found | missed | p50 ms | p99 ms | max ms | p50 ratio to same instance |",
    "|---|---|---|---|---|---|---|",
    row("the instance that took the write", result.same, "1.00"),
    row("another instance", result.other, ratio),
    ...(result.failedWrites || result.failedSearches
      ? ["", `Failed writes: ${result.failedWrites}; failed searches: ${result.failedSearches}.`]
      : []),
  ];
}

if (import.meta.main) {
  const writes = Number(Deno.args[0] ?? DEFAULT_CLUSTER_BENCH.writes);
  const ratePerSecond = Number(Deno.args[1] ?? DEFAULT_CLUSTER_BENCH.ratePerSecond);
  const result = await benchCluster({ ...DEFAULT_CLUSTER_BENCH, writes, ratePerSecond });
  if (!result) {
    console.log(
      "Cluster bench skipped: set SERVICE_SPARQL_QUERY_URL, _UPDATE_URL, _GSP_URL and " +
        "SERVICE_OPENSEARCH_URL",
    );
  } else for (const line of formatClusterBench(result)) console.log(line);
}
