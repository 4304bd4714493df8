/**
 * `deno task bench`: runs the benchmarks and prints markdown tables to paste into
 * bench/RESULTS.md. Pick scenarios by name: `deno task bench items hash`.
 * Engines: the OpenSearch scenario needs SERVICE_OPENSEARCH_URL (scripts/opensearch.sh), the
 * sparql one SERVICE_SPARQL_QUERY_URL, _UPDATE_URL and _GSP_URL (scripts/fuseki.sh).
 * `load` needs wrk on PATH and takes LOAD_SECONDS (60); it fails the run on a 5xx or a lost write.
 * `cluster` needs both engines (SPARQL and OpenSearch) and takes CLUSTER_WRITES (300) and
 * CLUSTER_RATE (writes per second, 5).
 * `import` takes IMPORT_ITEMS (20000 items of 50 triples), IMPORT_PUT_ITEMS (2000) and
 * IMPORT_WORKERS (the embedded import's worker counts, "1,2"); its SPARQL
 * rows DROP ALL the configured dataset: point SERVICE_SPARQL_* at a private Fuseki.
 * `scale [--sizes 20000,100000,250000] [--million] [--searches 40] [--no-fuseki]` (only by
 * name, first) grows the embedded default to those sizes (scale_bench.ts); OpenSearch beside it
 * at the largest with SERVICE_OPENSEARCH_URL, a private Fuseki TDB2 unless --no-fuseki.
 */
import { benchItems, benchWorkerScaling, formatWorkerScaling } from "./items_bench.ts";
import { benchHash } from "./hash_bench.ts";
import { benchShaclGeneration } from "./shacl_generation.ts";
import { benchIndexing, formatIndexingBench } from "./indexing_bench.ts";
import { benchSparql, formatSparqlBench } from "./sparql_bench.ts";
import { benchTextAnchor } from "./text_anchor_bench.ts";
import { benchMixedLoad, mixedLoadOptionsFromEnv } from "./load_mixed.ts";
import { benchCluster, DEFAULT_CLUSTER_BENCH, formatClusterBench } from "./cluster_bench.ts";
import { benchImport, formatImportBench } from "./import_bench.ts";
import { benchScale } from "./scale_bench.ts";

const scenarios: Record<string, () => Promise<void>> = {
  items: async () => {
    console.log("\n## Item GET and PUT, 50-triple item, embedded store\n");
    console.log("| scenario | req/s | p50 ms | p99 ms | ratio to baseline |");
    console.log("|---|---|---|---|---|");
    for (const row of await benchItems()) console.log(row);
    console.log("\n### PUT of new items by worker threads (`service.workers.count`)\n");
    for (const row of formatWorkerScaling(await benchWorkerScaling([0, 1, 2]))) console.log(row);
  },
  hash: async () => {
    console.log("\n## Hash of a JSON-LD body\n");
    console.log("| triples | body | bare pipeline ms | HTTP end to end ms | ratio |");
    console.log("|---|---|---|---|---|");
    for (const row of await benchHash()) console.log(row);
  },
  indexing: async () => {
    console.log("\n## Indexing 20k items, and search latency\n");
    const openSearchUrl = Deno.env.get("SERVICE_OPENSEARCH_URL") || undefined;
    if (!openSearchUrl) console.log("(OpenSearch rows skipped: set SERVICE_OPENSEARCH_URL)\n");
    const rows = await benchIndexing({ items: 20_000, searches: 500, openSearchUrl });
    console.log(formatIndexingBench(rows));
  },
  sparql: async () => {
    console.log("\n## Item GET and update, 50-triple item, on both stores and on Fuseki itself\n");
    const result = await benchSparql();
    if (!result) console.log("(skipped: set SERVICE_SPARQL_QUERY_URL, _UPDATE_URL, _GSP_URL)");
    else console.log(formatSparqlBench(result).join("\n"));
  },
  anchor: async () => {
    console.log("\n## New-item PUT against Fuseki with a full-text index of its own (issue 44)\n");
    for (const line of await benchTextAnchor()) console.log(line);
  },
  shacl: async () => {
    console.log("\n## SHACL generation\n");
    console.log("| triples | generate ms |");
    console.log("|---|---|");
    for (const size of [100_000, 1_000_000]) {
      const result = await benchShaclGeneration(size);
      console.log(`| ${result.triples.toLocaleString("en")} | ${result.generateMs.toFixed(0)} |`);
    }
  },
  load: async () => {
    const options = mixedLoadOptionsFromEnv();
    console.log(`\n## Mixed load, ${options.seconds} s, wrk\n`);
    const report = await benchMixedLoad(options);
    console.log(report.markdown);
    if (!report.ok) Deno.exitCode = 1;
  },
  import: async () => {
    const items = Number(Deno.env.get("IMPORT_ITEMS") ?? 20_000);
    const putItems = Number(Deno.env.get("IMPORT_PUT_ITEMS") ?? 2_000);
    console.log(`\n## Bulk import and export, ${items} items of 50 triples (TriG)\n`);
    if (!Deno.env.get("SERVICE_SPARQL_QUERY_URL")) {
      console.log("(SPARQL rows skipped: set SERVICE_SPARQL_QUERY_URL, _UPDATE_URL, _GSP_URL)\n");
    }
    const workers = (Deno.env.get("IMPORT_WORKERS") ?? "1,2").split(",").map(Number);
    console.log(formatImportBench(await benchImport({ items, putItems, workers })));
  },
  cluster: async () => {
    console.log("\n## Write to searchable, on another instance and on the same one\n");
    const result = await benchCluster({
      ...DEFAULT_CLUSTER_BENCH,
      writes: Number(Deno.env.get("CLUSTER_WRITES") ?? DEFAULT_CLUSTER_BENCH.writes),
      ratePerSecond: Number(Deno.env.get("CLUSTER_RATE") ?? DEFAULT_CLUSTER_BENCH.ratePerSecond),
    });
    if (!result) {
      console.log(
        "(skipped: set SERVICE_SPARQL_QUERY_URL, _UPDATE_URL, _GSP_URL and " +
          "SERVICE_OPENSEARCH_URL)",
      );
    } else console.log(formatClusterBench(result).join("\n"));
  },
};

const USAGE = `usage: deno task bench [SCENARIO …]

Runs the benchmarks (all, or the scenarios named) and prints markdown tables for
bench/RESULTS.md. Scenarios: ${Object.keys(scenarios).join(", ")}; and scale, run only
by name, with its own flags: --sizes N,N,… --million --searches N --no-fuseki.

environment: SERVICE_OPENSEARCH_URL (indexing), SERVICE_SPARQL_QUERY_URL, _UPDATE_URL,
_GSP_URL (sparql, import, cluster), LOAD_SECONDS (load), CLUSTER_WRITES, CLUSTER_RATE
(cluster), IMPORT_ITEMS, IMPORT_PUT_ITEMS (import); see bench/README.md.

exit status: 0 done; 1 a scenario failed its checks; 2 an unknown scenario or option.`;

if (Deno.args.includes("--help") || Deno.args.includes("-h")) {
  console.log(USAGE);
  Deno.exit(0);
}
// `scale` takes flags (scale_bench.ts) and runs for hours at its full sizes: only by name.
if (Deno.args[0] === "scale") {
  console.log("\n## The embedded default at scale (issue 27)\n");
  console.log(await benchScale(Deno.args.slice(1)));
  Deno.exit(0);
}
const option = Deno.args.find((arg) => arg.startsWith("-"));
if (option) {
  console.error(`Unknown option ${option}\n\n${USAGE}`);
  Deno.exit(2);
}
const wanted = Deno.args.length > 0 ? Deno.args : Object.keys(scenarios);
for (const name of wanted) {
  const run = scenarios[name];
  if (!run) {
    console.error(`unknown scenario ${name}; known: ${Object.keys(scenarios).join(", ")}`);
    Deno.exit(2);
  }
  await run();
}
