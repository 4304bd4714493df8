/**
 * Item history's cost on the SPARQL store (issue 41), on the endpoint `SERVICE_SPARQL_*` names
 * (Fuseki in the test environment), in graphs of the run's own, dropped afterwards:
 *
 * - growth: the metadata graph's triples and N-Triples bytes per version of one 50-triple
 *   item (`bench/history_bench.ts`'s item: a fifth of its literals change per version),
 *   written 200 times through the store;
 * - throughput: updates of 50-triple items through the service over HTTP (in this process,
 *   its store isolated as the API tests' are), 16 clients each rewriting an item of its own,
 *   and `PUT`s of new 50-triple items, in `rounds` rounds of `seconds` that alternate the
 *   version's operations on and off.
 *
 * `deno run -A bench/sparql_history_bench.ts [seconds=5] [rounds=4]`; prints markdown lines.
 */
import { type LoadResult, type RequestFactory, runLoad } from "./lib/load.ts";
import { fiftyTripleItem } from "./items_bench.ts";
import { SparqlHttpClient } from "../src/sparql_protocol/client.ts";
import type { SparqlItemHistory } from "../src/store_sparql/sparql_item_history.ts";
import { SparqlTripleStore } from "../src/store_sparql/sparql_triple_store.ts";
import { fiftyTriples } from "./history_bench.ts";
import { SPARQL_STORE_DEFAULTS } from "../tests/support/config_defaults.ts";
import { sparqlEndpointsFromEnv } from "../tests/support/fuseki.ts";
import { itemQuery, startTestService } from "../tests/support/service.ts";

const COLLECTION = "https://data.example.org/collection/documents";
const RCS = "urn:rdf-content-service:";
const WRITERS = 16;
const VERSIONS = 200;

const endpoints = sparqlEndpointsFromEnv();
if (!endpoints) throw new Error("set SERVICE_SPARQL_QUERY_URL, _UPDATE_URL and _GSP_URL");
const seconds = Number(Deno.args[0] ?? 5);
const rounds = Number(Deno.args[1] ?? 4);
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

/**
 * Updates of 50-triple items through the service (HTTP, on the SPARQL store, in graphs of
 * its own), {@link WRITERS} clients each rewriting an item of its own, and `PUT`s of new
 * items by as many clients, in rounds that alternate the version's operations on and off (the same code, the same store, the same
 * moment of a shared machine): what writing the version costs a write.
 */
async function serviceThroughput(rounds: number): Promise<string[]> {
  const service = await startTestService({
    env: {
      SERVICE_STORE_BACKEND: "sparql",
      SERVICE_SPARQL_QUERY_URL: endpoints!.queryUrl,
      SERVICE_SPARQL_UPDATE_URL: endpoints!.updateUrl,
      SERVICE_SPARQL_GSP_URL: endpoints!.graphStoreUrl,
    },
  });
  const history = service.services.deps.store.history as SparqlItemHistory;
  const operations = history.operations.bind(history);
  const results: Record<string, LoadResult[]> = {};
  try {
    const uri = (writer: number) => `https://data.example.org/id/bench/service-writer-${writer}`;
    for (let w = 0; w < WRITERS; w++) {
      const created = await service.fetch(`/api/item?${itemQuery(uri(w))}`, {
        method: "PUT",
        headers: { "Content-Type": "application/n-triples" },
        body: fiftyTripleItem(uri(w)),
      });
      if (created.status !== 201) throw new Error(`setup: ${await created.text()}`);
    }
    const update: RequestFactory = (worker, n) => ({
      url: `${service.url}/api/item?${itemQuery(uri(worker))}`,
      init: {
        method: "POST",
        headers: { "Content-Type": "application/n-triples" },
        body: fiftyTripleItem(uri(worker)).replace(" with some words", ` round ${n}`),
      },
    });
    let created = 0;
    const create: RequestFactory = (worker) => {
      const item = `https://data.example.org/id/bench/service-new-${worker}-${created++}`;
      return {
        url: `${service.url}/api/item?${itemQuery(item)}`,
        init: {
          method: "PUT",
          headers: { "Content-Type": "application/n-triples" },
          body: fiftyTripleItem(item),
        },
      };
    };
    for (let round = 0; round < rounds; round++) {
      for (const [kind, load] of [["POST", update], ["PUT", create]] as const) {
        for (const side of ["with", "without"] as const) {
          history.operations = side === "with" ? operations : () => [];
          (results[`${kind} ${side}`] ??= []).push(
            await runLoad(load, { concurrency: WRITERS, durationMs: seconds * 1000 }),
          );
        }
      }
    }
  } finally {
    history.operations = operations;
    await service.close();
  }
  const line = (kind: string, side: string) => {
    const runs = results[`${kind} ${side}`];
    const mean = runs.reduce((sum, run) => sum + run.perSecond, 0) / runs.length;
    const errors = runs.reduce(
      (sum, run) => sum + run.errors + Object.keys(run.statuses).length,
      0,
    );
    const what = kind === "POST" ? "POST /api/item (update)" : "PUT /api/item (new item)";
    return `| ${what}, 50 triples, ${WRITERS} clients, ${seconds} s × ${rounds} (${side} ` +
      `versions) | ${runs.map((run) => run.perSecond.toFixed(1)).join(", ")} writes/s ` +
      `(mean ${mean.toFixed(1)}), p50 ${runs.map((run) => run.p50Ms.toFixed(0)).join(", ")} ms` +
      `${errors ? `, ${errors} errors` : ""} |`;
  };
  return [
    line("POST", "with"),
    line("POST", "without"),
    line("PUT", "with"),
    line("PUT", "without"),
  ];
}

try {
  await store.checkCapabilities();
  console.log("| measure | value |");
  console.log("|---|---|");
  for (const line of await growth()) console.log(line);
  for (const line of await serviceThroughput(rounds)) console.log(line);
} finally {
  await store.close();
  await client.update(`DELETE { GRAPH ?g { ?s ?p ?o } } WHERE { GRAPH ?g { ?s ?p ?o }
    FILTER(STRSTARTS(STR(?g), "${run}")) }`).catch(() => {});
  client.close();
}
