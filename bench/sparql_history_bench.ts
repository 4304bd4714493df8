/**
 * Item history's cost on the SPARQL store (issue 41), on the endpoint `SERVICE_SPARQL_*` names
 * (Fuseki in the test environment), in graphs of the run's own, dropped afterwards:
 *
 * - growth: the metadata graph's triples and N-Triples bytes per version of one 50-triple
 *   item (`bench/history_bench.ts`'s item: a fifth of its literals change per version),
 *   written 200 times;
 * - throughput: replaces of 50-triple items through the store (group commit as configured by
 *   default), 16 writers each rewriting an item of its own for `seconds` (default 10).
 *
 * The throughput part runs on a store without history too (the code before it: run this file
 * from a checkout of that commit), for the side-by-side in bench/RESULTS.md.
 *
 * `deno run -A bench/sparql_history_bench.ts [seconds]`; prints markdown lines.
 */
import { SparqlHttpClient } from "../src/sparql_protocol/client.ts";
import { SparqlTripleStore } from "../src/store_sparql/sparql_triple_store.ts";
import { fiftyTriples } from "./history_bench.ts";
import { SPARQL_STORE_DEFAULTS } from "../tests/support/config_defaults.ts";
import { sparqlEndpointsFromEnv } from "../tests/support/fuseki.ts";

const COLLECTION = "https://data.example.org/collection/documents";
const RCS = "urn:rdf-content-service:";
const WRITERS = 16;
const VERSIONS = 200;

const endpoints = sparqlEndpointsFromEnv();
if (!endpoints) throw new Error("set SERVICE_SPARQL_QUERY_URL, _UPDATE_URL and _GSP_URL");
const seconds = Number(Deno.args[0] ?? 10);
const run = `urn:rcs-bench:history:${crypto.randomUUID()}:`;
const meta = `${run}meta`;
const client = new SparqlHttpClient({ ...endpoints, timeoutMs: 120_000, retries: 0 });
const store = new SparqlTripleStore({
  ...SPARQL_STORE_DEFAULTS,
  ...endpoints,
  timeoutMs: 60_000,
  retries: 2,
  metadataGraph: meta,
  graphTemplate: `${run}{item}`,
});

/** The N-Triples answer of a CONSTRUCT: its triples and bytes. */
async function constructed(query: string): Promise<{ triples: number; bytes: number }> {
  const response = await client.query(query, "application/n-triples");
  const text = await response.text();
  return {
    triples: text.split("\n").filter((line) => line.trim() !== "").length,
    bytes: new TextEncoder().encode(text).length,
  };
}

/** The metadata graph's version nodes, and the whole graph, as N-Triples. */
async function metadataSize() {
  return {
    versions: await constructed(`CONSTRUCT { ?v ?p ?o } WHERE { GRAPH <${meta}> {
      ?v <${RCS}versionOf> ?head ; ?p ?o } }`),
    all: await constructed(`CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <${meta}> { ?s ?p ?o } }`),
  };
}

async function growth(): Promise<string[]> {
  const uri = "https://data.example.org/id/bench/sparql-history";
  const write = (v: number) => ({
    collection: COLLECTION,
    uri,
    quads: fiftyTriples(v),
    hash: `h${v}`,
  });
  await store.createItem(write(1));
  const first = await metadataSize();
  for (let v = 2; v <= VERSIONS + 1; v++) await store.replaceItem(write(v));
  const last = await metadataSize();
  const per = (a: number, b: number) => ((b - a) / VERSIONS).toFixed(1);
  return [
    `| metadata graph per version of a 50-triple item (${VERSIONS} versions) | ` +
    `${per(first.all.triples, last.all.triples)} triples, ` +
    `${per(first.all.bytes, last.all.bytes)} B as N-Triples |`,
    `| of which the version node | ${per(first.versions.triples, last.versions.triples)} ` +
    `triples, ${per(first.versions.bytes, last.versions.bytes)} B as N-Triples |`,
  ];
}

async function throughput(): Promise<string> {
  const uri = (writer: number) => `https://data.example.org/id/bench/sparql-writer-${writer}`;
  for (let w = 0; w < WRITERS; w++) {
    await store.createItem({
      collection: COLLECTION,
      uri: uri(w),
      quads: fiftyTriples(0),
      hash: "h0",
    });
  }
  let done = 0;
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  await Promise.all(Array.from({ length: WRITERS }, async (_, w) => {
    for (let v = 1; performance.now() < until; v++) {
      const start = performance.now();
      await store.replaceItem({
        collection: COLLECTION,
        uri: uri(w),
        quads: fiftyTriples(v),
        hash: `h${v}`,
      });
      latencies.push(performance.now() - start);
      done++;
    }
  }));
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.floor(q * (latencies.length - 1))].toFixed(1);
  const kind = "history" in store ? "with versions" : "without versions";
  return `| replace a 50-triple item, ${WRITERS} writers, ${seconds} s (${kind}) | ` +
    `${(done / seconds).toFixed(0)} writes/s, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms |`;
}

try {
  await store.checkCapabilities();
  console.log("| measure | value |");
  console.log("|---|---|");
  if ("history" in store) { for (const line of await growth()) console.log(line); }
  console.log(await throughput());
} finally {
  await store.close();
  await client.update(`DELETE { GRAPH ?g { ?s ?p ?o } } WHERE { GRAPH ?g { ?s ?p ?o }
    FILTER(STRSTARTS(STR(?g), "${run}")) }`).catch(() => {});
  client.close();
}
