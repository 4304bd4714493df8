/**
 * The embedded store's SPARQL evaluator side by side with a baseline checkout's, on one
 * existing data directory (e.g. the access bench's 250k items): the compiled SQL path
 * (`COUNT(*)` of the default graph, of one predicate, grouped by type, one subject) and the
 * fallback (a FILTER over dates, an ORDER BY); then, on this checkout only, the queries the
 * baseline reads otherwise (`FROM <collection>`, the collections graph). Each query runs on the same read-only file in
 * alternation, after a warm-up run each, the median of `--repeats` runs (a fast query: as many
 * as fill about 200 ms) reported with the ratio to the baseline's.
 *
 *   git worktree add /tmp/baseline <commit>
 *   deno run -A bench/sparql_paths_bench.ts --data bench/data/access-250000/data \
 *     --baseline /tmp/baseline [--repeats 7]
 *
 * The baseline is imported through its own deno.json (`--config` is not needed: its modules
 * resolve through this checkout's import map, which names the same packages). The data
 * directory must already be migrated by this checkout (open it once with the service).
 */
import { parseArgs } from "node:util";
import { DatabaseSync } from "node:sqlite";
import { join, resolve } from "node:path";

const { values } = parseArgs({
  options: {
    data: { type: "string" },
    baseline: { type: "string" },
    repeats: { type: "string", default: "7" },
  },
});
if (!values.data || !values.baseline) {
  console.error("usage: --data <data dir> --baseline <checkout of the baseline commit>");
  Deno.exit(2);
}
const repeats = Number(values.repeats);
const file = join(values.data, "rdf-content-service.db");

interface Evaluator {
  evaluate(request: Record<string, unknown>): Promise<{ kind: string }>;
}

async function evaluatorOf(checkout: string): Promise<Evaluator> {
  const module = await import(
    `file://${resolve(checkout)}/src/store_embedded/sparql_evaluator.ts`
  );
  return new module.SparqlEvaluator(new DatabaseSync(file, { readOnly: true }));
}

const db = new DatabaseSync(file, { readOnly: true });
const subject = (db.prepare("SELECT uri FROM items ORDER BY id LIMIT 1 OFFSET 1000").get() as {
  uri: string;
}).uri;
const shared = (db.prepare("SELECT count(*) AS n FROM shared_triples").get() as { n: number }).n;
const collection = db.prepare(
  "SELECT collection, count(*) AS n FROM items GROUP BY collection ORDER BY n DESC LIMIT 1",
).get() as { collection: string; n: number };
db.close();

const DCT = "http://purl.org/dc/terms/";
const QUERIES: [string, string][] = [
  ["`COUNT(*)` of the default graph (SQL)", "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }"],
  ["`COUNT(*)` of `?s a ?type` (SQL)", "SELECT (COUNT(*) AS ?n) { ?s a ?type }"],
  ["count per type, `GROUP BY` (SQL)", "SELECT ?t (COUNT(*) AS ?n) { ?s a ?t } GROUP BY ?t"],
  ["one subject (SQL)", `SELECT * { <${subject}> ?p ?o }`],
  [
    "dates after 2000 (fallback, FILTER)",
    `SELECT (COUNT(*) AS ?n) { ?s <${DCT}created> ?d FILTER(?d > "2000-01-01"^^<http://www.w3.org/2001/XMLSchema#date>) }`,
  ],
  [
    "latest five modified (fallback, ORDER BY)",
    `SELECT ?s ?d { ?s <${DCT}modified> ?d } ORDER BY DESC(?d) LIMIT 5`,
  ],
];

const current = await evaluatorOf(Deno.cwd());
const baseline = await evaluatorOf(values.baseline);

async function time(evaluator: Evaluator, sparql: string): Promise<number> {
  const started = performance.now();
  await evaluator.evaluate({
    sparql,
    form: "bindings",
    unionDefaultGraph: true,
    deadline: Date.now() + 600_000,
    timeoutMs: 600_000,
  });
  return performance.now() - started;
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

console.log(
  `\n${file}: one subject <${subject}>, ${shared} shared triples, median of ${repeats}\n`,
);
console.log("| query | this commit ms | baseline ms | ratio |");
console.log("|---|---|---|---|");
for (const [label, sparql] of QUERIES) {
  // Warm both (JIT, page cache); a fast query runs until about 200 ms of samples.
  const first = Math.max(await time(current, sparql), await time(baseline, sparql), 0.01);
  const runs = Math.max(repeats, Math.min(2_000, Math.ceil(200 / first)));
  const mine: number[] = [];
  const theirs: number[] = [];
  for (let i = 0; i < runs; i++) {
    // Each goes first every other run: neither profits from the other's reads.
    if (i % 2 === 0) mine.push(await time(current, sparql));
    theirs.push(await time(baseline, sparql));
    if (i % 2 === 1) mine.push(await time(current, sparql));
  }
  const [a, b] = [median(mine), median(theirs)];
  console.log(`| ${label} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(a / b).toFixed(2)}× |`);
}

// Queries the baseline reads otherwise (a collection's IRI was a graph name): this commit only.
const NEW_QUERIES: [string, string][] = [
  [
    `\`COUNT(*)\` of \`FROM <collection>\` (${collection.n} items; SQL)`,
    `SELECT (COUNT(*) AS ?n) FROM <${collection.collection}> { ?s ?p ?o }`,
  ],
  [
    "items per collection, collections graph (fallback)",
    `SELECT ?c (COUNT(?g) AS ?n) { GRAPH <urn:rdf-content-service:collections> ` +
    `{ ?g <http://purl.org/dc/terms/isPartOf> ?c } } GROUP BY ?c`,
  ],
];
console.log("\n| query (this commit only) | ms |");
console.log("|---|---|");
for (const [label, sparql] of NEW_QUERIES) {
  await time(current, sparql);
  const runs = Array.from({ length: repeats }, () => 0);
  for (let i = 0; i < runs.length; i++) runs[i] = await time(current, sparql);
  console.log(`| ${label} | ${median(runs).toFixed(1)} |`);
}
