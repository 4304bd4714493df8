/**
 * The embedded search engine alone at scale: `n` generated items (bench/lib/scale_data.ts)
 * indexed straight through the engine's API into a scratch SQLite file (kept in bench/data/
 * and reused by later runs of the same size), then each search class of issue 27 timed.
 * No HTTP and no store: what the engine's SQL and code cost. The service-level figures are
 * `deno task bench scale` (scale_bench.ts).
 *
 *   deno run -A bench/search_scale_bench.ts [items=100000] [repeats=40]
 */
import process from "node:process";
import { openLocalDatabase } from "../src/local_database.ts";
import { buildSearchDocument } from "../src/search/documents.ts";
import { EmbeddedSearchEngine } from "../src/search_embedded/embedded_search_engine.ts";
import type { CollectionIndexRef, SearchRequest } from "../src/search/search_engine.ts";
import { scaleItem, type ScaleQueries, WordFrequencies } from "./lib/scale_data.ts";

const COLLECTION = "https://data.example.org/collection/scale";
const WORKSPACE = "https://data.example.org/workspace/demo";

/** The search classes of the table, as engine requests. */
export function searchClasses(queries: ScaleQueries): [string, SearchRequest][] {
  return [
    ["common word (~50% of items)", { q: queries.common }],
    ["common word + facet=types", { q: queries.common, facets: ["types"] }],
    ["most frequent word", { q: queries.mostFrequent }],
    ["two words", { q: queries.twoWords }],
    ["rare word (~0.1%)", { q: queries.rare }],
    ["type filter only", { filters: [{ field: "types", value: queries.type }] }],
  ];
}

/** p50 and p99 of `samples` (ms). */
export function percentiles(samples: number[]): { p50: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (share: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
  return { p50: at(0.5), p99: at(0.99) };
}

async function main(items: number, repeats: number): Promise<void> {
  const dir = new URL(`./data/search-scale-${items}/`, import.meta.url).pathname;
  const fresh = !(await Deno.stat(dir).then(() => true, () => false));
  const db = openLocalDatabase(dir);
  const engine = new EmbeddedSearchEngine(db, {
    limits: { maxResultsLimit: 10000, maxWindow: 10000, trackTotalHits: 10_000 },
    warn: () => {},
  });
  const ref: CollectionIndexRef = { collection: COLLECTION, indexName: "scale" };
  const frequencies = new WordFrequencies();
  let indexSeconds: number | undefined;
  const started = performance.now();
  const batch = [];
  for (let n = 0; n < items; n++) {
    const item = scaleItem(n);
    frequencies.add(item.words);
    if (!fresh) continue;
    batch.push(buildSearchDocument({
      uri: item.uri,
      collection: COLLECTION,
      workspace: WORKSPACE,
      hash: "0".repeat(64),
      modified: "2025-01-01T00:00:00.000Z",
      quads: item.quads,
    }));
    if (batch.length === 500 || n === items - 1) {
      const result = await engine.upsert(ref, batch.splice(0));
      if (result.failed.length > 0) throw new Error(JSON.stringify(result.failed[0]));
    }
  }
  if (fresh) indexSeconds = (performance.now() - started) / 1000;
  const queries = frequencies.queries();
  console.log(`${items} items; queries ${JSON.stringify(queries)}`);
  if (indexSeconds !== undefined) {
    console.log(`indexed in ${indexSeconds.toFixed(1)} s (${(items / indexSeconds).toFixed(0)}/s)`);
  }
  const file = (await Deno.stat(`${dir}/rdf-content-service.db`)).size;
  console.log(`file ${(file / 1e6).toFixed(0)} MB`);
  console.log(
    "\n| class | total | p50 ms | p99 ms | CPU ms per search |\n|---|---:|---:|---:|---:|",
  );
  for (const [label, request] of searchClasses(queries)) {
    const samples: number[] = [];
    await engine.search(ref, request); // unmeasured: facet values are read on first use
    const cpuStart = process.cpuUsage();
    let total = 0;
    let relation = "";
    for (let i = 0; i < repeats; i++) {
      const t0 = performance.now();
      const response = await engine.search(ref, request);
      samples.push(performance.now() - t0);
      total = response.total;
      relation = (response as { totalRelation?: string }).totalRelation ?? "";
    }
    const cpu = process.cpuUsage(cpuStart);
    const cpuMs = (cpu.user + cpu.system) / 1000 / repeats;
    const { p50, p99 } = percentiles(samples);
    console.log(
      `| ${label} | ${relation === "gte" ? "≥ " : ""}${total} | ${p50.toFixed(1)} | ${
        p99.toFixed(1)
      } | ${cpuMs.toFixed(1)} |`,
    );
  }
  await engine.close();
  db.close();
}

if (import.meta.main) {
  await main(Number(Deno.args[0] ?? 100_000), Number(Deno.args[1] ?? 40));
}
