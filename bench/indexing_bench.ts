/**
 * Indexing throughput and search latency, side by side in one run.
 *
 * 20k items of about 20 triples are written straight through the embedded store API. Then:
 * an indexing job of the collection into OpenSearch (items/s) beside a raw `_bulk` of the
 * same documents, precomputed, with the same client library and batch size (items/s): the
 * ratio is what the job's reading, document building and bookkeeping cost (goal ≥ 0.7).
 * The same job into the embedded engine, with its batches on this thread and on one and two
 * worker threads (`service.search.indexing.workers`; CPU per item and cores used), and search latency (p50/p99) on both engines,
 * with and without facets. OpenSearch parts run only when `SERVICE_OPENSEARCH_URL` is set.
 *
 * With `--linked`, every item also points to one of 50 concepts and one of 500 people
 * (items of two other collections), and the collection declares two search fields whose
 * paths leave the item (`schema:about/skos:prefLabel`, `schema:author/foaf:name`): the
 * job then reads the linked graphs too, and the raw `_bulk` indexes the same documents.
 *
 *   SERVICE_OPENSEARCH_URL=http://127.0.0.1:9200 deno run -A bench/indexing_bench.ts [items] [--linked]
 */
import { join } from "node:path";
import process from "node:process";
import type { DatabaseSync } from "node:sqlite";
import { Client } from "@opensearch-project/opensearch";
import { DataFactory, type Quad } from "n3";
import { parseConfigText } from "../src/config/load.ts";
import type { ServiceConfig } from "../src/config/schema.ts";
import { Catalog } from "../src/catalog/catalog.ts";
import { LOCAL_DB_FILE } from "../src/sqlite/local_db.ts";
import { openLocalDatabase } from "../src/local_database.ts";
import { EmbeddedTripleStore } from "../src/store_embedded/embedded_triple_store.ts";
import { EmbeddedSearchEngine } from "../src/search_embedded/embedded_search_engine.ts";
import { OpenSearchEngine } from "../src/search_opensearch/opensearch_engine.ts";
import { indexCreationBody } from "../src/search_opensearch/mappings.ts";
import type { SearchDocument, SearchEngine, SearchRequest } from "../src/search/search_engine.ts";
import { collectionResolver, readItemDocument } from "../src/indexing/index_item.ts";
import { SqliteJobStore } from "../src/job_stores/sqlite_job_store.ts";
import { IndexJobRunner } from "../src/indexing/job_runner.ts";
import { IndexBatchPool } from "../src/indexing/index_batch_pool.ts";
import type { IndexBatchWorkerSetup } from "../src/index_batch_worker.ts";

const { namedNode, literal, blankNode, quad } = DataFactory;

const COLLECTION = "https://data.example.org/collection/bench";
const CONCEPTS = "https://data.example.org/collection/bench-concepts";
const PEOPLE = "https://data.example.org/collection/bench-people";
const LINKED_CONCEPTS = 50;
const LINKED_PEOPLE = 500;
const SKOS = "http://www.w3.org/2004/02/skos/core#";
const FOAF = "http://xmlns.com/foaf/0.1/";
const DCT = "http://purl.org/dc/terms/";
const SCHEMA = "https://schema.org/";
const XSD_INTEGER = "http://www.w3.org/2001/XMLSchema#integer";
const WORDS = (
  "river mountain forest ocean desert valley island canyon glacier meadow harbor bridge " +
  "castle garden library market temple tower village city station museum theatre school " +
  "history science poetry music painting travel cooking medicine law economy language"
).split(" ");

/** Options of {@link benchIndexing}. */
export interface IndexingBenchOptions {
  items: number;
  /** Searches per engine for the latency figures. */
  searches: number;
  /** OpenSearch base URL; the OpenSearch rows are skipped without it. */
  openSearchUrl?: string;
  /** Items link to concepts and people read by two search fields (see the module comment). */
  linked?: boolean;
}

/** One measured row. */
export interface IndexingBenchRow {
  name: string;
  itemsPerSecond?: number;
  seconds?: number;
  p50Ms?: number;
  p99Ms?: number;
  note?: string;
}

/** Runs the benchmark; returns its rows (see the module comment). */
export async function benchIndexing(options: IndexingBenchOptions): Promise<IndexingBenchRow[]> {
  const dir = await Deno.makeTempDir({ prefix: "rcs-indexing-bench-" });
  const prefix = `rcs-bench-${Date.now().toString(36)}-`;
  const linked = options.linked ?? false;
  const config = benchConfig(dir, prefix, linked);
  const db = openLocalDatabase(dir);
  const rows: IndexingBenchRow[] = [];
  try {
    const store = new EmbeddedTripleStore(
      db,
      join(dir, LOCAL_DB_FILE),
      config.service.store.groupCommit,
    );
    const started = performance.now();
    await createItems(db, store, options.items, linked);
    rows.push({
      name: `setup: ${options.items} items through the store API`,
      seconds: (performance.now() - started) / 1000,
      note: `${(countTriples(db) / options.items).toFixed(1)} triples per item`,
    });

    const embedded = new EmbeddedSearchEngine(db, { limits: config.service.search.query });
    for (const workers of [0, 1, 2]) {
      const pool = workers === 0 ? undefined : new IndexBatchPool({
        url: new URL("../src/index_batch_worker.ts", import.meta.url),
        workers,
        init: {
          dataDir: dir,
          groupCommit: config.service.store.groupCommit,
          limits: config.service.search.query,
        } satisfies IndexBatchWorkerSetup,
      });
      try {
        const cpuBefore = cpuSeconds();
        // A rebuild each time: every row writes a fresh index, none updates the last one's.
        const seconds = await timeJob(config, db, store, embedded, pool, true);
        const cpu = cpuSeconds() - cpuBefore;
        rows.push({
          name: workers === 0
            ? "embedded engine: collection job, batches on this thread"
            : `embedded engine: collection job, batches on ${workers} worker${
              workers > 1 ? "s" : ""
            }`,
          ...throughput(options.items, seconds),
          note: `${(cpu / options.items * 1e6).toFixed(0)} µs of CPU per item, ${
            (cpu / seconds).toFixed(2)
          } cores`,
        });
      } finally {
        await pool?.close();
      }
    }

    if (options.openSearchUrl) {
      rows.push(...await benchOpenSearch(options, db, store, prefix, dir));
    } else {
      rows.push({ name: "opensearch", note: "skipped: set SERVICE_OPENSEARCH_URL" });
    }
    rows.push(await searchLatency("embedded engine: search", embedded, config, options.searches));
    rows.push(
      await searchLatency(
        "embedded engine: search with 2 facets",
        embedded,
        config,
        options.searches,
        true,
      ),
    );
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
  return rows;
}

/** Rounds of (job, raw `_bulk`), each into fresh indices; the JVM is warmed up first. */
const OPENSEARCH_ROUNDS = 2;

async function benchOpenSearch(
  options: IndexingBenchOptions,
  db: DatabaseSync,
  store: EmbeddedTripleStore,
  prefix: string,
  dir: string,
): Promise<IndexingBenchRow[]> {
  const node = options.openSearchUrl!;
  const client = new Client({ node });
  const engines: OpenSearchEngine[] = [];
  const rows: IndexingBenchRow[] = [];
  try {
    const linked = options.linked ?? false;
    const documents = await precomputeDocuments(benchConfig(dir, prefix, linked), store);
    await timeRawBulk(client, `${prefix}warmup`, documents.slice(0, 5000));
    const job: number[] = [];
    const raw: number[] = [];
    // This process's CPU per item: what the job adds to the engine's own work.
    const jobCpu: number[] = [];
    const rawCpu: number[] = [];
    for (let round = 0; round < OPENSEARCH_ROUNDS; round++) {
      const config = benchConfig(dir, `${prefix}${round}-`, linked);
      const { search } = config.service;
      const engine = new OpenSearchEngine({
        node,
        limits: search.query,
        rawSearchTimeoutMs: search.opensearch.dsl.timeoutMs,
        timeouts: search.opensearch.timeouts,
        failFast: config.service.failFast,
      });
      engines.push(engine);
      let cpu = process.cpuUsage();
      job.push(documents.length / await timeJob(config, db, store, engine));
      jobCpu.push(cpuMsPerItem(cpu, documents.length));
      cpu = process.cpuUsage();
      raw.push(documents.length / await timeRawBulk(client, `${prefix}${round}-raw`, documents));
      rawCpu.push(cpuMsPerItem(cpu, documents.length));
    }
    const ratios = job.map((perSecond, round) => (perSecond / raw[round]).toFixed(2));
    const best = (values: number[]) => Math.max(...values);
    rows.push({
      name: "opensearch: collection job (best round)",
      itemsPerSecond: best(job),
      seconds: documents.length / best(job),
      note: `service CPU ${Math.min(...jobCpu).toFixed(3)} ms/item`,
    });
    rows.push({
      name: "opensearch: raw _bulk of the same documents (best round)",
      itemsPerSecond: best(raw),
      seconds: documents.length / best(raw),
      note: `job/raw ${(best(job) / best(raw)).toFixed(2)}; per round ${ratios.join(", ")}; ` +
        `client CPU ${Math.min(...rawCpu).toFixed(3)} ms/item`,
    });
    const config = benchConfig(dir, `${prefix}0-`, linked);
    rows.push(await searchLatency("opensearch: search", engines[0], config, options.searches));
    rows.push(
      await searchLatency(
        "opensearch: search with 2 facets",
        engines[0],
        config,
        options.searches,
        true,
      ),
    );
  } finally {
    await deleteIndices(client, prefix);
    await client.close();
    for (const engine of engines) await engine.close();
  }
  return rows;
}

function benchConfig(dir: string, prefix: string, linked = false): ServiceConfig {
  const index = linked
    ? `{ name: bench, fields: [
          { name: about, path: "<${SCHEMA}about>/skos:prefLabel" },
          { name: authorName, path: "<${SCHEMA}author>/foaf:name" } ] }`
    : "bench";
  return parseConfigText(
    `service:
  data: { dir: ${JSON.stringify(dir)} }
  search:
    opensearch: { indexPrefix: ${prefix} }
workspaces:
  - uri: https://data.example.org/workspace/bench
    name: Bench
    collections:
      - { uri: ${COLLECTION}, name: Bench, index: ${index} }
      - { uri: ${CONCEPTS}, name: Concepts, index: bench-concepts }
      - { uri: ${PEOPLE}, name: People, index: bench-people }
`,
    "bench",
    () => undefined,
  );
}

/** A deterministic pseudo-random sequence, so every run indexes the same data. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function itemQuads(n: number, next: () => number): Quad[] {
  const uri = namedNode(`https://data.example.org/id/bench/${String(n).padStart(6, "0")}`);
  const word = () => WORDS[Math.floor(next() * WORDS.length)];
  const sentence = (length: number) => Array.from({ length }, word).join(" ");
  const creator = blankNode(`creator${n}`);
  const quads = [
    quad(
      uri,
      namedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
      namedNode(`${SCHEMA}Book`),
    ),
    quad(uri, namedNode(`${DCT}title`), literal(`${sentence(3)} ${n}`)),
    quad(uri, namedNode(`${DCT}description`), literal(sentence(25), "en")),
    quad(uri, namedNode(`${DCT}identifier`), literal(String(n))),
    quad(
      uri,
      namedNode(`${SCHEMA}datePublished`),
      literal(String(1900 + n % 120), namedNode(XSD_INTEGER)),
    ),
    quad(
      uri,
      namedNode(`${SCHEMA}numberOfPages`),
      literal(String(50 + n % 700), namedNode(XSD_INTEGER)),
    ),
    quad(uri, namedNode(`${SCHEMA}genre`), literal(WORDS[n % 12])),
    quad(uri, namedNode(`${DCT}creator`), creator),
    quad(creator, namedNode("http://xmlns.com/foaf/0.1/name"), literal(`Author ${n % 500}`)),
    quad(
      creator,
      namedNode("http://xmlns.com/foaf/0.1/mbox"),
      namedNode(`mailto:author${n % 500}@example.org`),
    ),
  ];
  for (let k = 0; quads.length < 20; k++) {
    quads.push(quad(uri, namedNode(`${DCT}subject`), literal(`${word()} ${k}`)));
  }
  return quads;
}

async function createItems(
  db: DatabaseSync,
  store: EmbeddedTripleStore,
  count: number,
  linked: boolean,
) {
  // Durability per write is the store's business, not this benchmark's.
  db.exec("PRAGMA synchronous = OFF");
  const next = random(42);
  if (linked) await createLinkedResources(store);
  for (let n = 0; n < count; n++) {
    const quads = itemQuads(n, next);
    if (linked) {
      const uri = quads[0].subject;
      quads.push(
        quad(uri, namedNode(`${SCHEMA}about`), namedNode(conceptUri(n % LINKED_CONCEPTS))),
      );
      quads.push(quad(uri, namedNode(`${SCHEMA}author`), namedNode(personUri(n % LINKED_PEOPLE))));
    }
    await store.createItem({
      collection: COLLECTION,
      uri: quads[0].subject.value,
      quads,
      hash: n.toString(16).padStart(64, "0"),
    });
  }
  db.exec("DELETE FROM index_outbox");
  db.exec("PRAGMA synchronous = FULL");
}

function conceptUri(n: number): string {
  return `https://data.example.org/id/concept/${n}`;
}

function personUri(n: number): string {
  return `https://data.example.org/id/person/${n}`;
}

/** The concepts and people the items of a `--linked` run point to. */
async function createLinkedResources(store: EmbeddedTripleStore): Promise<void> {
  for (let n = 0; n < LINKED_CONCEPTS; n++) {
    const uri = namedNode(conceptUri(n));
    await store.createItem({
      collection: CONCEPTS,
      uri: uri.value,
      quads: [
        quad(uri, namedNode(`${SKOS}prefLabel`), literal(`${WORDS[n % WORDS.length]} ${n}`, "en")),
      ],
      hash: `c${n}`.padStart(64, "0"),
    });
  }
  for (let n = 0; n < LINKED_PEOPLE; n++) {
    const uri = namedNode(personUri(n));
    await store.createItem({
      collection: PEOPLE,
      uri: uri.value,
      quads: [quad(uri, namedNode(`${FOAF}name`), literal(`Person ${n}`))],
      hash: `p${n}`.padStart(64, "0"),
    });
  }
}

function countTriples(db: DatabaseSync): number {
  return (db.prepare("SELECT count(*) AS n FROM quads").get() as { n: number }).n;
}

/** CPU time of the whole process (its worker threads too), in seconds. */
function cpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

async function timeJob(
  config: ServiceConfig,
  db: DatabaseSync,
  store: EmbeddedTripleStore,
  engine: SearchEngine,
  pool?: IndexBatchPool,
  clear = false,
): Promise<number> {
  const catalog = new Catalog(config.workspaces);
  const runner = new IndexJobRunner({
    jobs: new SqliteJobStore(db),
    store,
    engine,
    catalog,
    resolve: collectionResolver(config, catalog),
    // As the service wires it on the embedded store: the job's closing re-queue is timed too.
    outbox: store.outbox,
    batchSize: config.service.search.indexing.batchSize,
    leaseMs: config.service.cluster.leaseMs,
    clockAllowanceMs: 0,
    indexBatch: pool?.run,
  });
  const started = performance.now();
  const job = await runner.start({ type: "collection", uri: COLLECTION }, { clear });
  const finished = await runner.wait(job.id);
  const seconds = (performance.now() - started) / 1000;
  if (finished?.state !== "succeeded" || finished.failed > 0) {
    throw new Error(`the job did not succeed: ${JSON.stringify(finished?.errors.slice(0, 3))}`);
  }
  return seconds;
}

async function precomputeDocuments(
  config: ServiceConfig,
  store: EmbeddedTripleStore,
): Promise<SearchDocument[]> {
  const collection = collectionResolver(config, new Catalog(config.workspaces))(COLLECTION);
  const documents: SearchDocument[] = [];
  for await (const record of store.listItems(COLLECTION)) {
    const result = await readItemDocument(store, collection, record.uri);
    if (result.outcome === "document") documents.push(result.document);
  }
  return documents;
}

/** `_bulk` in batches of 500 (the engine's default) into a fresh index, then a refresh. */
async function timeRawBulk(client: Client, index: string, documents: SearchDocument[]) {
  await client.indices.create({
    index,
    body: indexCreationBody({ maxResultsLimit: 10000, maxWindow: 10000 }),
  });
  const started = performance.now();
  for (let start = 0; start < documents.length; start += 500) {
    const body = documents.slice(start, start + 500).flatMap((document) => [
      { index: { _index: index, _id: document.uri } },
      document,
    ]);
    const response = await client.bulk({ body });
    if (response.body.errors) throw new Error("raw _bulk reported errors");
  }
  await client.indices.refresh({ index });
  return (performance.now() - started) / 1000;
}

async function searchLatency(
  name: string,
  engine: SearchEngine,
  config: ServiceConfig,
  count: number,
  faceted = false,
): Promise<IndexingBenchRow> {
  const ref = collectionResolver(config, new Catalog(config.workspaces))(COLLECTION).ref;
  const next = random(7);
  const requests: SearchRequest[] = Array.from({ length: count }, (_, n): SearchRequest => {
    const word = WORDS[Math.floor(next() * WORDS.length)];
    switch (n % 4) {
      case 0:
        return { q: word };
      case 1:
        return { q: `${word} ${WORDS[n % WORDS.length]}`, size: 20 };
      case 2:
        return {
          filters: [{ field: "genre", value: WORDS[n % 12] }],
          sort: [{ field: "datePublished", order: "desc" }],
        };
      default:
        return { q: word, filters: [{ field: "datePublished", value: String(1900 + n % 120) }] };
    }
  });
  if (faceted) {
    for (const request of requests) request.facets = ["genre", "datePublished"];
  }
  for (const request of requests.slice(0, 20)) await engine.search(ref, request);
  const times: number[] = [];
  for (const request of requests) {
    const started = performance.now();
    await engine.search(ref, request);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
  return { name: `${name} (${count} queries)`, p50Ms: at(0.5), p99Ms: at(0.99) };
}

async function deleteIndices(client: Client, prefix: string): Promise<void> {
  const { body } = await client.cat.indices({ index: `${prefix}*`, format: "json", h: ["index"] });
  const names = (body as { index: string }[]).map((row) => row.index);
  if (names.length > 0) await client.indices.delete({ index: names });
}

function cpuMsPerItem(since: NodeJS.CpuUsage, items: number): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000 / items;
}

function throughput(items: number, seconds: number) {
  return { itemsPerSecond: items / seconds, seconds };
}

/** The rows as a markdown table. */
export function formatIndexingBench(rows: IndexingBenchRow[]): string {
  const number = (value: number | undefined, digits: number) =>
    value === undefined ? "" : value.toFixed(digits);
  return [
    "| measurement | items/s | seconds | p50 ms | p99 ms | note |",
    "|---|---:|---:|---:|---:|---|",
    ...rows.map((row) =>
      `| ${row.name} | ${number(row.itemsPerSecond, 0)} | ${number(row.seconds, 2)} | ${
        number(row.p50Ms, 2)
      } | ${number(row.p99Ms, 2)} | ${row.note ?? ""} |`
    ),
  ].join("\n");
}

if (import.meta.main) {
  const numbers = Deno.args.filter((arg) => !arg.startsWith("--"));
  const items = Number(numbers[0] ?? 20_000);
  const rows = await benchIndexing({
    items,
    searches: 500,
    openSearchUrl: Deno.env.get("SERVICE_OPENSEARCH_URL") || undefined,
    linked: Deno.args.includes("--linked"),
  });
  console.log(formatIndexingBench(rows));
}
