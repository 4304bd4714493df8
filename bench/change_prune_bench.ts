/**
 * A pruning pass of the SPARQL store's change feed at scale (issue 42, "at 250k items"): a feed
 * of `changes` change nodes (the nodes the item writes leave, written here directly, 20,000 per
 * request, in graphs of the run's own, dropped afterwards), on the endpoint `SERVICE_SPARQL_*`
 * names (Fuseki in the test environment). Measured, median of `repeats`:
 *
 * - baseline: the query the pass ran before it walked the heads (one `GROUP BY` over every
 *   change node's number and time, however few were due), kept here as text to compare;
 * - a pass with nothing due (the steady state between two passes a quarter of the retention
 *   apart, when every change is younger than the cutoff);
 * - a pass that removes the oldest `due` changes.
 *
 * `deno run -A bench/change_prune_bench.ts [changes=250000] [due=1000] [repeats=5]`; prints
 * markdown lines.
 */
import { SparqlHttpClient } from "../src/sparql_protocol/client.ts";
import { SparqlTripleStore } from "../src/store_sparql/sparql_triple_store.ts";
import { SPARQL_STORE_DEFAULTS } from "../tests/support/config_defaults.ts";
import { sparqlEndpointsFromEnv } from "../tests/support/fuseki.ts";

const RCS = "urn:rdf-content-service:";
const PER_REQUEST = 20_000;

const endpoints = sparqlEndpointsFromEnv();
if (!endpoints) throw new Error("set SERVICE_SPARQL_QUERY_URL, _UPDATE_URL and _GSP_URL");
const changes = Number(Deno.args[0] ?? 250_000);
const due = Number(Deno.args[1] ?? 1000);
const repeats = Number(Deno.args[2] ?? 5);
const run = `urn:rcs-bench:prune:${crypto.randomUUID()}:`;
const meta = `${run}meta`;
const collection = `${run}collection`;
const client = new SparqlHttpClient({ ...endpoints, timeoutMs: 600_000, retries: 0 });
const store = new SparqlTripleStore({
  ...SPARQL_STORE_DEFAULTS,
  ...endpoints,
  metadataGraph: meta,
  graphTemplate: `${run}{item}`,
  timeoutMs: 600_000,
  retries: 0,
});

const head = `<${RCS}changes:${encodeURIComponent(collection)}>`;
const old = new Date(Date.now() - 86_400_000);
const young = new Date();
/** Change `n`, stamped `old` when among the first `due`, else `young`. */
function changeNode(n: number): string {
  const node = `<${RCS}change:${encodeURIComponent(collection)}:${n}>`;
  const time = (n <= due ? old : young).toISOString();
  return `${node} <${RCS}changeOf> ${head} ; <${RCS}changeNumber> ${n} ;
    <${RCS}changeItem> <${run}item/${n}> ; <${RCS}changeOperation> "created" ;
    <${RCS}changeEtag> "${n.toString(16).padStart(64, "0")}" ; <${RCS}changePrincipal> "local" ;
    <${RCS}changeTime> "${time}" .`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

try {
  const seeding = performance.now();
  for (let first = 1; first <= changes; first += PER_REQUEST) {
    const nodes: string[] = [];
    for (let n = first; n < first + PER_REQUEST && n <= changes; n++) nodes.push(changeNode(n));
    await client.update(`INSERT DATA { GRAPH <${meta}> { ${nodes.join("\n")} } }`);
  }
  await client.update(
    `INSERT DATA { GRAPH <${meta}> { ${head} <${RCS}changeCount> ${changes} } }`,
  );
  const seededMs = performance.now() - seeding;

  const baselineQuery = `PREFIX rcs: <${RCS}>
    SELECT ?head (MAX(?n) AS ?through) WHERE { GRAPH <${meta}> {
      ?change rcs:changeOf ?head ; rcs:changeNumber ?n ; rcs:changeTime ?time }
      FILTER(STR(?time) < "${new Date(old.getTime() + 1000).toISOString()}") } GROUP BY ?head`;
  const baseline: number[] = [];
  const idle: number[] = [];
  for (let r = 0; r < repeats; r++) {
    baseline.push(
      await timed(async () => {
        const answer = await client.query(baselineQuery, "application/sparql-results+json");
        await answer.text();
      }),
    );
    idle.push(await timed(() => store.changes.prune(new Date(old.getTime() - 1000))));
  }
  let removed = 0;
  const removing = await timed(async () => {
    removed = await store.changes.prune(new Date(old.getTime() + 1000));
  });
  const after = await timed(() => store.changes.prune(new Date(old.getTime() + 1000)));

  console.log(`| measure (${changes.toLocaleString("en")} changes) | ms |`);
  console.log("|---|---|");
  console.log(
    `| seeding, ${PER_REQUEST.toLocaleString("en")} nodes a request | ${Math.round(seededMs)} |`,
  );
  console.log(
    `| baseline: the former pass's scan of every change, median of ${repeats} | ${
      Math.round(median(baseline))
    } |`,
  );
  console.log(`| a pass with nothing due, median of ${repeats} | ${median(idle).toFixed(1)} |`);
  console.log(
    `| a pass removing the oldest ${removed.toLocaleString("en")} | ${Math.round(removing)} |`,
  );
  console.log(`| the next pass, nothing due | ${after.toFixed(1)} |`);
  if (removed !== due) throw new Error(`removed ${removed}, expected ${due}`);
} finally {
  await client.update(`DROP SILENT GRAPH <${meta}>`).catch(() => {});
  await store.close();
  client.close();
}
