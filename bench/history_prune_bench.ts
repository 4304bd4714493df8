/**
 * History pruning at scale (issue 41): a collection of 100,000 items × 10 versions (50-triple
 * graphs, about 1 KB each compressed, as `history_bench.ts` measures) pruned to `last:3` by
 * the pruning job through the running service's HTTP API, while a client keeps writing items:
 * the job's duration, the progress updates its `GET` showed, and the writes' latency before
 * and during the pass (pruning deletes in short transactions; writes go between them).
 *
 * The versions are put into the `item_versions` table directly (writing a million versions
 * through the API would take the bench's time, and pruning reads nothing else); the service
 * is then started on that data directory.
 *
 * `deno run -A bench/history_prune_bench.ts [items] [versions]`; prints markdown for
 * bench/RESULTS.md.
 */
import { openLocalDatabase } from "../src/local_database.ts";
import { encodeVersionContent } from "../src/store/version_content.ts";
import { DEMO_COLLECTION, itemQuery, startTestService } from "../tests/support/service.ts";
import { fiftyTriples } from "./history_bench.ts";

const ITEMS = Number(Deno.args[0] ?? 100_000);
const VERSIONS = Number(Deno.args[1] ?? 10);
const KEEP = 3;
/** How often the bench reads the job while it runs. */
const POLL_MS = 250;

/** Fills the history: every item's `VERSIONS` versions, a second apart, long ago. */
function fill(dir: string): number {
  const db = openLocalDatabase(dir);
  // Ten graphs, encoded once: what is stored is about the size a real version is.
  const contents = Array.from({ length: 10 }, (_, v) => encodeVersionContent(fiftyTriples(v)));
  const insert = db.prepare(
    `INSERT INTO item_versions
       (collection, uri, version, hash, triple_count, time, principal, operation, content)
     VALUES (?, ?, ?, ?, 50, ?, 'local', ?, ?)`,
  );
  const started = performance.now();
  const base = Date.parse("2026-01-01T00:00:00Z");
  const perTransaction = 1_000;
  for (let first = 0; first < ITEMS; first += perTransaction) {
    db.exec("BEGIN");
    for (let i = first; i < Math.min(ITEMS, first + perTransaction); i++) {
      const uri = `https://data.example.org/id/bench/prune/${String(i).padStart(7, "0")}`;
      for (let v = 1; v <= VERSIONS; v++) {
        insert.run(
          DEMO_COLLECTION,
          uri,
          v,
          `h${i}-${v}`,
          new Date(base + (i + v) * 1000).toISOString(),
          v === 1 ? "create" : "update",
          contents[v % 10],
        );
      }
    }
    db.exec("COMMIT");
  }
  db.close();
  return (performance.now() - started) / 1000;
}

interface Progress {
  ms: number;
  state: string;
  processed: number;
  pruned: number;
}

/** Sorted latencies' quantile. */
function quantile(sorted: number[], q: number): number {
  return sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function summary(latencies: number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  return `${sorted.length} writes, median ${quantile(sorted, 0.5).toFixed(1)} ms, p99 ${
    quantile(sorted, 0.99).toFixed(1)
  } ms, max ${sorted.at(-1)?.toFixed(1)} ms`;
}

if (import.meta.main) {
  const dir = await Deno.makeTempDir({ prefix: "rcs-prune-bench-" });
  try {
    const fillSeconds = fill(dir);
    const rows = ITEMS * VERSIONS;
    const service = await startTestService({
      dataDir: dir,
      env: { SERVICE_HISTORY_RETENTION: `last:${KEEP}` },
    });
    try {
      let writing = true;
      let n = 0;
      /** Writes items one after the other until told to stop; their latencies. */
      const writer = async (until: () => boolean): Promise<number[]> => {
        const latencies: number[] = [];
        while (until()) {
          const uri = `https://data.example.org/id/bench/prune-writer/${n++}`;
          const started = performance.now();
          const response = await service.fetch(`/api/item?${itemQuery(uri)}`, {
            method: "PUT",
            headers: { "Content-Type": "application/n-triples" },
            body: `<${uri}> <http://purl.org/dc/terms/title> "written during the prune ${n}" .\n`,
          });
          await response.body?.cancel();
          if (response.status !== 201) throw new Error(`write answered ${response.status}`);
          latencies.push(performance.now() - started);
        }
        return latencies;
      };
      let before = 0;
      const baseline = await writer(() => before++ < 200);

      const wallStart = performance.now();
      const started = await service.fetch(
        `/api/admin/history/prune?collection=${encodeURIComponent(DEMO_COLLECTION)}`,
        { method: "POST" },
      );
      if (started.status !== 202) throw new Error(`prune answered ${started.status}`);
      const location = started.headers.get("location")!;
      await started.body?.cancel();
      const during = writer(() => writing);
      const progress: Progress[] = [];
      let job;
      while (true) {
        job = await (await service.fetch(location)).json();
        progress.push({
          ms: performance.now() - wallStart,
          state: job.state,
          processed: job.processed,
          pruned: job.pruned,
        });
        if (job.state !== "running") break;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      writing = false;
      const wallSeconds = (performance.now() - wallStart) / 1000;
      const duringLatencies = await during;
      const jobSeconds = (Date.parse(job.finishedAt) - Date.parse(job.startedAt)) / 1000;
      const updates = new Set(progress.map((p) => p.processed)).size;
      const left = await (await service.fetch(
        `/api/item/history?${itemQuery("https://data.example.org/id/bench/prune/0000007")}`,
      )).json();

      console.log(`| measure | value |`);
      console.log(`|---|---|`);
      console.log(
        `| history filled directly | ${ITEMS.toLocaleString("en")} items × ${VERSIONS} ` +
          `versions = ${rows.toLocaleString("en")} rows, in ${fillSeconds.toFixed(1)} s |`,
      );
      console.log(
        `| job (\`last:${KEEP}\`), state ${job.state} | ${jobSeconds.toFixed(1)} s by its record ` +
          `(${wallSeconds.toFixed(1)} s from POST to the last poll), ${
            job.processed.toLocaleString("en")
          } of ${job.total.toLocaleString("en")} items, ${
            job.pruned.toLocaleString("en")
          } versions removed: ${Math.round(job.pruned / jobSeconds).toLocaleString("en")}/s |`,
      );
      console.log(
        `| progress updates seen (GET every ${POLL_MS} ms) | ${updates} distinct \`processed\` ` +
          `values over ${progress.length} polls |`,
      );
      console.log(`| writes before the pass (PUT, one at a time) | ${summary(baseline)} |`);
      console.log(`| writes during the pass | ${summary(duringLatencies)} |`);
      console.log(
        `| an item's history afterwards | ${
          left.versions.map((v: { version: number }) => v.version).join(", ")
        } |`,
      );
      console.log("\nProgress (ms since POST: processed, pruned):");
      console.log(
        progress.filter((_, i) =>
          i % Math.max(1, Math.floor(progress.length / 12)) === 0 ||
          i === progress.length - 1
        )
          .map((p) => `${Math.round(p.ms)}: ${p.processed}, ${p.pruned}`).join("; "),
      );
    } finally {
      await service.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
