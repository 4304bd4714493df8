/**
 * The change feed's price and latency (issue 42: "the feed adds ≤ 10% to PUT throughput; a
 * change reaches an SSE client within 100 ms p99 at 200 writes/s"), through the service over
 * HTTP (in this process, its store isolated as the API tests' are), on the embedded store and,
 * when `SERVICE_SPARQL_*` is set, on that SPARQL store (Fuseki in the test environment):
 *
 * - throughput: `PUT` of new 50-triple items, 16 clients, in rounds of `seconds` that
 *   alternate the feed's write on and off (the same code, the same store, the same moment of
 *   a shared machine; off: the store's change record swapped for nothing);
 * - latency: an event stream open on the collection while a paced writer sends `rate`
 *   creates per second for `seconds`; for each, the time from the write's answer (it is
 *   committed then) to its event on the stream.
 *
 * `deno run -A bench/change_feed_bench.ts [seconds=5] [rounds=3] [rate=200] [sparqlRate=20]`;
 * prints markdown lines.
 */
import { type LoadResult, type RequestFactory, runLoad } from "./lib/load.ts";
import { putFiftyTriples } from "./items_bench.ts";
import type { SqliteChangeFeed } from "../src/store_embedded/sqlite_change_feed.ts";
import type { SparqlChangeFeed } from "../src/store_sparql/sparql_change_feed.ts";
import { EventReader } from "../tests/support/event_stream.ts";
import { sparqlEndpointsFromEnv } from "../tests/support/fuseki.ts";
import { DEMO_COLLECTION, startTestService, type TestService } from "../tests/support/service.ts";

const WRITERS = 16;
const seconds = Number(Deno.args[0] ?? 5);
const rounds = Number(Deno.args[1] ?? 3);
const rate = Number(Deno.args[2] ?? 200);
const sparqlRate = Number(Deno.args[3] ?? 20);
const C = encodeURIComponent(DEMO_COLLECTION);

/** Swaps the store's write of a change for nothing, and back. */
interface FeedSwitch {
  on(): void;
  off(): void;
}

function feedSwitch(service: TestService): FeedSwitch {
  const feed = service.services.deps.store.changes!;
  if ("record" in feed) {
    const sqlite = feed as SqliteChangeFeed;
    const record = sqlite.record.bind(sqlite);
    return { on: () => sqlite.record = record, off: () => sqlite.record = () => 0 };
  }
  const sparql = feed as SparqlChangeFeed;
  const operations = sparql.operations.bind(sparql);
  return { on: () => sparql.operations = operations, off: () => sparql.operations = () => [] };
}

const put = (service: TestService, label: string): RequestFactory => (worker, n) => {
  const uri = `https://data.example.org/id/bench/feed-${label}-${worker}-${n}`;
  return putFiftyTriples(
    `${service.url}/api/item?collection=${C}&item=${encodeURIComponent(uri)}`,
    uri,
  );
};

async function throughput(service: TestService, store: string): Promise<string[]> {
  const feed = feedSwitch(service);
  const results: Record<"with" | "without", LoadResult[]> = { with: [], without: [] };
  try {
    for (let round = 0; round < rounds; round++) {
      for (const side of ["with", "without"] as const) {
        if (side === "with") feed.on();
        else feed.off();
        results[side].push(
          await runLoad(put(service, `${side}${round}`), {
            concurrency: WRITERS,
            durationMs: seconds * 1000,
          }),
        );
      }
    }
  } finally {
    feed.on();
  }
  const mean = (runs: LoadResult[]) =>
    runs.reduce((sum, run) => sum + run.perSecond, 0) / runs.length;
  const line = (side: "with" | "without") => {
    const runs = results[side];
    const errors = runs.reduce((sum, r) => sum + r.errors + Object.keys(r.statuses).length, 0);
    return `| ${store}: PUT new 50-triple items, ${WRITERS} clients, ${seconds} s × ${rounds}, ` +
      `feed ${side === "with" ? "on" : "off"} | ${
        runs.map((r) => r.perSecond.toFixed(0)).join(", ")
      } writes/s (mean ${mean(runs).toFixed(1)}), p50 ${
        runs.map((r) => r.p50Ms.toFixed(0)).join(", ")
      } ms${errors ? `, ${errors} errors` : ""} |`;
  };
  return [
    line("with"),
    line("without"),
    `| ${store}: throughput with the feed / without | ${
      (mean(results.with) / mean(results.without)).toFixed(2)
    }× |`,
  ];
}

/** Paced creates at `perSecond` for `seconds`; each write's answer time against its event's. */
async function latency(service: TestService, store: string, perSecond: number): Promise<string> {
  const end = await (await service.fetch(`/api/changes?collection=${C}&limit=1000`)).json() as {
    next: string;
  };
  // From the end: read pages until one is empty, so the stream starts after every change.
  let after = end.next;
  for (;;) {
    const page =
      await (await service.fetch(`/api/changes?collection=${C}&after=${after}&limit=1000`))
        .json() as { changes: unknown[]; next: string };
    if (page.changes.length === 0) break;
    after = page.next;
  }
  const stream = await service.fetch(`/api/changes?collection=${C}&after=${after}`, {
    headers: { Accept: "text/event-stream" },
  });
  const events = new EventReader(stream);
  const answered = new Map<string, number>();
  const arrived = new Map<string, number>();
  const total = Math.round(perSecond * seconds);
  const reading = (async () => {
    while (arrived.size < total) {
      const event = await events.within(30_000);
      if (event === "timeout" || event === undefined) return;
      if (event.event !== "change") continue;
      arrived.set((JSON.parse(event.data!) as { item: string }).item, performance.now());
    }
  })();
  const started = performance.now();
  const writes: Promise<void>[] = [];
  for (let n = 0; n < total; n++) {
    const due = started + (n * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const { url, init } = put(service, `latency-${store}`)(0, n);
    const uri = decodeURIComponent(new URL(url).searchParams.get("item")!);
    writes.push(
      fetch(url, init).then(async (response) => {
        await response.body?.cancel();
        if (response.status === 201) answered.set(uri, performance.now());
      }),
    );
  }
  await Promise.all(writes);
  const sentFor = (performance.now() - started) / 1000;
  await reading;
  await events.close();
  const delays = [...answered].map(([uri, at]) => Math.max(0, (arrived.get(uri) ?? Infinity) - at))
    .sort((a, b) => a - b);
  const at = (q: number) => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))];
  const missing = delays.filter((d) => d === Infinity).length;
  return `| ${store}: a change's event after its write's answer, ${perSecond} writes/s for ` +
    `${seconds} s (sent in ${sentFor.toFixed(1)} s, ${answered.size} answered) | p50 ${
      at(0.5).toFixed(1)
    } ms, p99 ${at(0.99).toFixed(1)} ms, max ${at(1).toFixed(1)} ms${
      missing ? `, ${missing} never arrived` : ""
    } |`;
}

async function measure(store: string, env: Record<string, string>, perSecond: number) {
  const service = await startTestService({ env });
  try {
    for (const line of await throughput(service, store)) console.log(line);
    console.log(await latency(service, store, perSecond));
  } finally {
    await service.close();
  }
}

console.log("| measure | value |");
console.log("|---|---|");
await measure("embedded", {}, rate);
const endpoints = sparqlEndpointsFromEnv();
if (endpoints) {
  await measure("fuseki", {
    SERVICE_STORE_BACKEND: "sparql",
    SERVICE_SPARQL_QUERY_URL: endpoints.queryUrl,
    SERVICE_SPARQL_UPDATE_URL: endpoints.updateUrl,
    SERVICE_SPARQL_GSP_URL: endpoints.graphStoreUrl,
  }, sparqlRate);
}
