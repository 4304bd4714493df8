/**
 * Several service instances on one Fuseki and one OpenSearch, as a load balancer would put
 * them: the multi-instance acceptance suite (tests/cluster/) and the cluster bench use it.
 *
 * A {@link Cluster} is one test run: a run id, one generated customer.yml that every
 * instance of the run reads (SPARQL store with a metadata graph and graph template of the
 * run's own, OpenSearch with an index prefix of the run's own, `service.cluster.leaseMs`
 * {@link CLUSTER_LEASE_MS}, one workspace with one collection), and instances started from
 * it as real OS processes, each on a data directory of its own. Closing the run stops the
 * instances, removes their data directories, drops every graph of the run on Fuseki and
 * deletes the run's indices.
 *
 * Everything here talks to the service over HTTP and to the engines directly (SPARQL
 * Protocol, OpenSearch REST): nothing reads the service's internals, so the same helpers
 * judge any implementation of the service.
 *
 * - {@link WriteLedger} and {@link runWriteLoad}: a bounded mixed write load spread over
 *   the instances, with every write's outcome recorded: acknowledged, refused, or without
 *   an answer (the connection broke, a 5xx), which is kept apart and never guessed.
 * - {@link verifyCluster}: once the index outbox is drained, the store (read from Fuseki)
 *   against the index (read from OpenSearch): lost, extra, stale and duplicate documents,
 *   and the store against the ledger.
 */
import { Parser } from "n3";
import { canonicalHash } from "../../src/rdf/canonical_hash.ts";
import { SparqlHttpClient } from "../../src/sparql_protocol/client.ts";
import { readSmallSparqlJsonResults } from "../../src/sparql_protocol/results_json.ts";
import { virtuosoServiceEnv } from "./virtuoso.ts";
import { type ServiceProcess, startServiceProcess } from "./process.ts";
import { type SparqlEndpoints, sparqlEndpointsFromEnv } from "./fuseki.ts";
import { deleteIndicesWithPrefix, openSearchUrl } from "./opensearch.ts";
import { auditHistory, type HistoryAudit } from "./cluster_history.ts";

/** `service.cluster.leaseMs` of every cluster run: short, so a dead instance's work moves. */
export const CLUSTER_LEASE_MS = 3000;
/**
 * The lease of runs on Virtuoso. Under the suites' load a Virtuoso update often takes one to
 * three seconds (lock waits, deadlock retries), and a job whose heartbeat lands later than a
 * lease after the one before has lost its claim: 3 s made jobs fail at their first save.
 */
export const VIRTUOSO_CLUSTER_LEASE_MS = 10_000;

/** The lease a cluster run on `engines` uses. */
export function clusterLeaseMs(engines: ClusterEngines): number {
  return engines.store === "virtuoso" ? VIRTUOSO_CLUSTER_LEASE_MS : CLUSTER_LEASE_MS;
}

/** Namespace of the store's metadata predicates (`rcs:collection`, `rcs:hash`, …). */
const RCS = "urn:rdf-content-service:";

/** The engines a cluster runs on. */
export interface ClusterEngines {
  /** The store's name: `fuseki` (when absent) or `virtuoso`. */
  store?: string;
  sparql: SparqlEndpoints & { authScheme?: "digest" };
  openSearchUrl: string;
}

/** The line printed (once) when the cluster suite cannot run here. */
export const CLUSTER_SKIP_MESSAGE =
  "Cluster suite skipped: set SERVICE_SPARQL_QUERY_URL, SERVICE_SPARQL_UPDATE_URL, " +
  "SERVICE_SPARQL_GSP_URL (scripts/fuseki.sh start) and SERVICE_OPENSEARCH_URL " +
  "(scripts/opensearch.sh start)";

let skipPrinted = false;

/**
 * The same engines with Virtuoso as the store (`SERVICE_VIRTUOSO_*`), or undefined when it
 * or OpenSearch is not configured.
 */
export function virtuosoClusterEngines(): ClusterEngines | undefined {
  const env = virtuosoServiceEnv();
  const url = openSearchUrl();
  if (!env || !url) return undefined;
  return {
    store: "virtuoso",
    sparql: {
      queryUrl: env.SERVICE_SPARQL_QUERY_URL,
      updateUrl: env.SERVICE_SPARQL_UPDATE_URL,
      graphStoreUrl: env.SERVICE_SPARQL_GSP_URL,
      username: env.SERVICE_SPARQL_USER,
      password: env.SERVICE_SPARQL_PASSWORD,
      authScheme: "digest",
    },
    openSearchUrl: url,
  };
}

/** The engines from the environment; undefined (and the skip line printed once) if missing. */
export function clusterEngines(): ClusterEngines | undefined {
  const sparql = sparqlEndpointsFromEnv();
  const url = openSearchUrl();
  if (sparql && url) return { store: "fuseki", sparql, openSearchUrl: url };
  if (!skipPrinted) {
    skipPrinted = true;
    console.log(CLUSTER_SKIP_MESSAGE);
  }
  return undefined;
}

/** Options of {@link Cluster.create}. */
export interface ClusterOptions {
  /** `service.search.indexing.batchSize`; the service's default when absent. */
  batchSize?: number;
  /** More environment for every instance (tokens, for instance). */
  env?: Record<string, string>;
  /** The collection's webhooks, and `service.webhooks` settings (retry times). */
  webhooks?: {
    endpoints: { url: string; secret: string }[];
    retryStartMs?: number;
    retryMaxMs?: number;
    /** Each POST's time to answer; below the lease, or every attempt claims it first. */
    timeoutMs?: number;
  };
}

/** One service process of a cluster run. */
export interface ClusterInstance {
  /** `A`, `B`, `C`, … in start order. */
  name: string;
  url: string;
  dataDir: string;
  process: ServiceProcess;
  /** False once killed or stopped. */
  alive: boolean;
}

/** One run: its configuration, its instances, and its names on the engines. */
export class Cluster {
  readonly engines: ClusterEngines;
  /** Lowercase, unique per run: part of every graph, index and item name of the run. */
  readonly run: string;
  /** Every graph of the run starts with this. */
  readonly graphPrefix: string;
  readonly metadataGraph: string;
  readonly graphTemplate: string;
  readonly indexPrefix: string;
  readonly workspace: string;
  readonly collection: string;
  /** The collection's `index`; its alias on OpenSearch is {@link alias}. */
  readonly index = "items";
  readonly alias: string;
  readonly configPath: string;
  /** Every instance started, in start order, dead ones included. */
  readonly instances: ClusterInstance[] = [];
  #closed = false;
  #env: Record<string, string> = {};

  private constructor(engines: ClusterEngines, run: string, configPath: string) {
    this.engines = engines;
    this.run = run;
    this.graphPrefix = `urn:rcs-cluster-test:${run}:`;
    this.metadataGraph = `${this.graphPrefix}meta`;
    this.graphTemplate = `${this.graphPrefix}graph:{item}`;
    this.indexPrefix = `rcs-cluster-${run}-`;
    this.workspace = `https://data.example.org/workspace/cluster-${run}`;
    this.collection = `https://data.example.org/collection/cluster-${run}`;
    this.alias = `${this.indexPrefix}${this.index}`;
    this.configPath = configPath;
  }

  /** A new run: writes its customer.yml; no instance runs yet. */
  static async create(engines: ClusterEngines, options: ClusterOptions = {}): Promise<Cluster> {
    const random = crypto.getRandomValues(new Uint32Array(1))[0].toString(36);
    const run = `${Date.now().toString(36)}-${random}`;
    const configPath = await Deno.makeTempFile({ prefix: "rcs-cluster-", suffix: ".yml" });
    const cluster = new Cluster(engines, run, configPath);
    cluster.#env = options.env ?? {};
    await Deno.writeTextFile(configPath, cluster.#yaml(options));
    return cluster;
  }

  /** The customer.yml every instance of the run reads (port and data dir from the env). */
  #yaml(options: ClusterOptions): string {
    const q = (value: string) => JSON.stringify(value);
    const { sparql, openSearchUrl } = this.engines;
    const credentials = [
      sparql.username ? `      username: ${q(sparql.username)}\n` : "",
      sparql.password ? `      password: ${q(sparql.password)}\n` : "",
      sparql.authScheme ? `      authScheme: ${q(sparql.authScheme)}\n` : "",
    ].join("");
    const indexing = options.batchSize === undefined
      ? ""
      : `    indexing:\n      batchSize: ${options.batchSize}\n`;
    const hooks = options.webhooks;
    const webhookService = hooks
      ? `  webhooks:\n    retryStartMs: ${hooks.retryStartMs ?? 1000}\n` +
        `    retryMaxMs: ${hooks.retryMaxMs ?? 60_000}\n` +
        `    timeoutMs: ${hooks.timeoutMs ?? 10_000}\n`
      : "";
    const webhookCollection = hooks
      ? `        webhooks:\n${
        hooks.endpoints.map((hook) =>
          `          - { url: ${q(hook.url)}, secret: ${q(hook.secret)} }\n`
        ).join("")
      }`
      : "";
    return `# Generated by tests/support/cluster.ts for cluster run ${this.run}.
service:
  http:
    host: 127.0.0.1
    port: \${SERVICE_HTTP_PORT}
  data:
    dir: \${SERVICE_DATA_DIR}
  store:
    backend: sparql
    sparql:
      queryUrl: ${q(sparql.queryUrl)}
      updateUrl: ${q(sparql.updateUrl)}
      graphStoreUrl: ${q(sparql.graphStoreUrl)}
${credentials}      metadataGraph: ${q(this.metadataGraph)}
      graphTemplate: ${q(this.graphTemplate)}
  search:
    backend: opensearch
    opensearch:
      node: ${q(openSearchUrl)}
      indexPrefix: ${q(this.indexPrefix)}
${indexing}  cluster:
    leaseMs: ${clusterLeaseMs(this.engines)}
${webhookService}workspaces:
  - uri: ${q(this.workspace)}
    name: Cluster test
    collections:
      - uri: ${q(this.collection)}
        name: Cluster items
        index: ${this.index}
        itemUriTemplate: ${q(`https://data.example.org/id/cluster/${this.run}/{uuid}`)}
${webhookCollection}`;
  }

  /** Starts one more instance on a new, empty data directory. */
  async startInstance(): Promise<ClusterInstance> {
    const name = String.fromCharCode("A".charCodeAt(0) + this.instances.length);
    const placeholder = { name, url: "", dataDir: "", alive: false } as ClusterInstance;
    this.instances.push(placeholder);
    const dataDir = await Deno.makeTempDir({ prefix: `rcs-cluster-${name}-` });
    placeholder.dataDir = dataDir;
    try {
      placeholder.process = await startServiceProcess({
        ...this.#env,
        CUSTOMER_YML: this.configPath,
        SERVICE_DATA_DIR: dataDir,
      }, { timeoutMs: 60_000 });
    } catch (error) {
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
      throw error;
    }
    placeholder.url = placeholder.process.url;
    placeholder.alive = true;
    return placeholder;
  }

  /** Starts `count` instances at once. */
  async startInstances(count: number): Promise<ClusterInstance[]> {
    const started: Promise<ClusterInstance>[] = [];
    for (let i = 0; i < count; i++) started.push(this.startInstance());
    return await Promise.all(started);
  }

  /** The instances still running. */
  live(): ClusterInstance[] {
    return this.instances.filter((instance) => instance.alive);
  }

  /** SIGKILLs an instance and throws its data directory away. */
  async kill(instance: ClusterInstance): Promise<void> {
    instance.alive = false;
    await instance.process.kill();
    await Deno.remove(instance.dataDir, { recursive: true }).catch(() => {});
  }

  /** A URI for an item of this run. */
  itemUri(label: string): string {
    return `https://data.example.org/id/cluster/${this.run}/${label}`;
  }

  /** `/api/item?collection=…&item=…` of this run's collection. */
  itemPath(uri?: string): string {
    const item = uri === undefined ? "" : `&item=${encodeURIComponent(uri)}`;
    return `/api/item?collection=${encodeURIComponent(this.collection)}${item}`;
  }

  /** The last lines each instance wrote to stderr (for a failure report). */
  logTail(lines = 20): string {
    return this.instances.map((instance) => {
      const text = (instance.process?.stderr().trim().split("\n") ?? []).slice(-lines)
        .map((line) => line.length > 400 ? `${line.slice(0, 400)}…` : line).join("\n");
      return `--- instance ${instance.name} (${instance.alive ? "live" : "dead"}) stderr:\n${
        text || "(nothing)"
      }`;
    }).join("\n");
  }

  /** Stops every instance, removes the data directories, the run's graphs and indices. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all(
      this.live().map(async (instance) => {
        instance.alive = false;
        await instance.process.stop();
      }),
    );
    for (const instance of this.instances) {
      if (!instance.dataDir) continue;
      await Deno.remove(instance.dataDir, { recursive: true }).catch(() => {});
    }
    await Deno.remove(this.configPath).catch(() => {});
    await dropRunGraphs(this).catch((error) =>
      console.log(`cluster ${this.run}: dropping graphs failed: ${error}`)
    );
    await deleteIndicesWithPrefix(this.engines.openSearchUrl, this.indexPrefix).catch((error) =>
      console.log(`cluster ${this.run}: deleting indices failed: ${error}`)
    );
  }
}

// ---------------------------------------------------------------------------------------
// The engines, read and cleaned directly.

/** A client for the store's endpoints (basic or digest auth, as the service uses). */
function storeClient(endpoints: ClusterEngines["sparql"]): SparqlHttpClient {
  return new SparqlHttpClient({ ...endpoints, timeoutMs: 120_000, retries: 2 });
}

/** Runs a SELECT on the store and returns its bindings as plain strings. */
export async function sparqlSelect(
  endpoints: ClusterEngines["sparql"],
  query: string,
): Promise<Record<string, string>[]> {
  const client = storeClient(endpoints);
  try {
    const response = await client.query(query, "application/sparql-results+json");
    const results = await readSmallSparqlJsonResults(response.body!, 256 << 20);
    if (results.kind !== "bindings") throw new Error("a SELECT answered with a boolean");
    return results.rows.map((row) =>
      Object.fromEntries([...row].map(([name, term]) => [name, term.value]))
    );
  } finally {
    client.close();
  }
}

async function sparqlUpdate(endpoints: ClusterEngines["sparql"], update: string): Promise<void> {
  const client = storeClient(endpoints);
  try {
    await client.update(update);
  } finally {
    client.close();
  }
}

/**
 * Drops every graph of the run: the item graphs the metadata graph names, the metadata
 * graph, then any other graph whose name starts with the run's prefix (whatever else an
 * implementation keeps next to its metadata, e.g. shared outbox or job records).
 */
async function dropRunGraphs(cluster: Cluster): Promise<void> {
  const endpoints = cluster.engines.sparql;
  await sparqlUpdate(
    endpoints,
    `DELETE { GRAPH ?g { ?s ?p ?o } } WHERE {
       GRAPH <${cluster.metadataGraph}> { ?item <${RCS}graph> ?g }
       GRAPH ?g { ?s ?p ?o } } ;
     DROP SILENT GRAPH <${cluster.metadataGraph}>`,
  );
  const rows = await sparqlSelect(
    endpoints,
    `SELECT DISTINCT ?g WHERE { GRAPH ?g { } FILTER(STRSTARTS(STR(?g), "${cluster.graphPrefix}")) }`,
  );
  for (let start = 0; start < rows.length; start += 200) {
    const drops = rows.slice(start, start + 200).map((row) => `DROP SILENT GRAPH <${row.g}>`);
    await sparqlUpdate(endpoints, drops.join(" ;\n"));
  }
}

/** Every item of the run's collection in the store, with its hash, read from Fuseki. */
export async function storeItems(cluster: Cluster): Promise<Map<string, string>> {
  const rows = await sparqlSelect(
    cluster.engines.sparql,
    `SELECT ?item ?hash WHERE { GRAPH <${cluster.metadataGraph}> {
       ?item <${RCS}collection> ${JSON.stringify(cluster.collection)} ; <${RCS}hash> ?hash } }`,
  );
  const items = new Map<string, string>();
  for (const row of rows) items.set(row.item, row.hash);
  return items;
}

/** What the collection's alias holds on OpenSearch. */
export interface IndexContents {
  /** False when the alias (or an index of that name) does not exist. */
  exists: boolean;
  /** Every document's `uri` and `hash`, in `uri` order; a URI twice is a duplicate. */
  documents: { uri: string; hash: string }[];
  /** The physical indices behind the alias. */
  aliasIndices: string[];
  /** Every index of the run (behind the alias or not). */
  runIndices: string[];
}

/** Reads every document of the collection's alias (search_after over `uri`). */
export async function indexContents(cluster: Cluster): Promise<IndexContents> {
  const base = cluster.engines.openSearchUrl;
  const aliasResponse = await fetch(`${base}/_alias/${encodeURIComponent(cluster.alias)}`);
  const aliasIndices = aliasResponse.ok ? Object.keys(await aliasResponse.json()) : [];
  if (!aliasResponse.ok) await aliasResponse.body?.cancel();
  const catResponse = await fetch(
    `${base}/_cat/indices/${encodeURIComponent(cluster.indexPrefix)}*?format=json&h=index`,
  );
  const runIndices = catResponse.ok
    ? (await catResponse.json() as { index: string }[]).map((row) => row.index).sort()
    : [];
  if (!catResponse.ok) await catResponse.body?.cancel();
  const documents: { uri: string; hash: string }[] = [];
  let after: unknown[] | undefined;
  while (true) {
    const response = await fetch(`${base}/${encodeURIComponent(cluster.alias)}/_search`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        size: 5000,
        _source: ["uri", "hash"],
        query: { match_all: {} },
        sort: [{ uri: "asc" }, { _id: "asc" }],
        ...(after ? { search_after: after } : {}),
      }),
    });
    const text = await response.text();
    if (response.status === 404) return { exists: false, documents, aliasIndices, runIndices };
    if (!response.ok) throw new Error(`index read failed (${response.status}): ${text}`);
    const hits = JSON.parse(text).hits.hits as {
      _source: { uri: string; hash: string };
      sort: unknown[];
    }[];
    for (const hit of hits) documents.push({ uri: hit._source.uri, hash: hit._source.hash });
    if (hits.length < 5000) break;
    after = hits.at(-1)!.sort;
  }
  return { exists: true, documents, aliasIndices, runIndices };
}

/** `POST <opensearch>/<prefix>*\/_refresh`: every write so far becomes searchable. */
export async function refreshRunIndices(cluster: Cluster): Promise<void> {
  const response = await fetch(
    `${cluster.engines.openSearchUrl}/${encodeURIComponent(cluster.indexPrefix)}*/_refresh`,
    { method: "POST" },
  );
  await response.body?.cancel();
}

// ---------------------------------------------------------------------------------------
// HTTP helpers.

/** A JSON answer (or the text when it is not JSON); status 0 when no answer came. */
export interface Answer {
  status: number;
  body: unknown;
  /** The network error when no answer came. */
  error?: string;
}

/** Fetches and reads a JSON answer; a network failure gives status 0, never a throw. */
export async function call(
  url: string,
  init: RequestInit = {},
  timeoutMs = 15_000,
): Promise<Answer> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text === "" ? null : JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: response.status, body };
  } catch (error) {
    return { status: 0, body: null, error: String(error) };
  }
}

/** An indexing job as the API answers it (the fields the suite reads). */
export interface JobView {
  id: string;
  state: "queued" | "running" | "succeeded" | "failed";
  clear: boolean;
  total: number;
  processed: number;
  indexed: number;
  failed: number;
  errors: { item: string | null; message: string }[];
}

/** `POST /api/admin/index/collection?collection=…&clear=…` on one instance. */
export function startCollectionJob(
  cluster: Cluster,
  baseUrl: string,
  clear: boolean,
): Promise<Answer> {
  return call(
    `${baseUrl}/api/admin/index/collection?collection=${
      encodeURIComponent(cluster.collection)
    }&clear=${clear}`,
    { method: "POST" },
  );
}

/** `GET /api/admin/index/jobs/{id}` on one instance. */
export function readJob(baseUrl: string, id: string): Promise<Answer> {
  return call(`${baseUrl}/api/admin/index/jobs/${encodeURIComponent(id)}`);
}

/** `GET /api/admin/index/is-running` on one instance (the body: true, false, or a problem). */
export async function isRunning(baseUrl: string): Promise<unknown> {
  const answer = await call(`${baseUrl}/api/admin/index/is-running`);
  return answer.status === 200 ? answer.body : `HTTP ${answer.status}`;
}

/** A job's state as one instance reports it: `running`, `failed`, …, or `HTTP 404`. */
export function stateOf(answer: Answer): string {
  if (answer.status === 200) return (answer.body as JobView).state;
  return answer.status === 0 ? `no answer (${answer.error})` : `HTTP ${answer.status}`;
}

/**
 * Polls a job on `baseUrl` until it has ended (succeeded or failed); the last answer is
 * returned at the deadline either way.
 */
export async function waitForJobEnd(
  baseUrl: string,
  id: string,
  timeoutMs: number,
): Promise<Answer> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const answer = await readJob(baseUrl, id);
    const state = stateOf(answer);
    if (state === "succeeded" || state === "failed" || Date.now() > deadline) return answer;
    await sleep(100);
  }
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The unquoted value of an ETag header. */
export function etagValue(response: Response): string {
  return (response.headers.get("etag") ?? "").replace(/^W\//, "").replaceAll('"', "");
}

// ---------------------------------------------------------------------------------------
// Items and the write load.

const TITLE = "http://purl.org/dc/terms/title";
const VERSION = "https://example.org/cluster/version";
const VALUE = "https://example.org/cluster/value";

/** A small graph about `uri` carrying `word` and `version`, as Turtle or JSON-LD. */
export function itemBody(
  uri: string,
  word: string,
  version: number,
  format: "turtle" | "jsonld",
): { contentType: string; body: string } {
  const values = Array.from({ length: 4 }, (_, i) => `${word} v${version} value ${i}`);
  if (format === "jsonld") {
    return {
      contentType: "application/ld+json",
      body: JSON.stringify({
        "@id": uri,
        [TITLE]: `${word} version ${version}`,
        [VERSION]: String(version),
        [VALUE]: values,
      }),
    };
  }
  const literal = (value: string) => JSON.stringify(value);
  return {
    contentType: "text/turtle",
    body: `<${uri}> <${TITLE}> ${
      literal(`${word} version ${version}`)
    } ;\n  <${VERSION}> "${version}" ;\n  <${VALUE}> ${values.map(literal).join(", ")} .\n`,
  };
}

/** The version an item's served N-Triples carry (see {@link itemBody}); -1 if none. */
export function versionOf(ntriples: string): number {
  const match = ntriples.match(/<https:\/\/example\.org\/cluster\/version> "(\d+)"/);
  return match ? Number(match[1]) : -1;
}

/** SHA-256 over RDFC-1.0 of N-Triples text, as the service computes ETags. */
export async function hashNTriples(ntriples: string): Promise<string> {
  const quads = new Parser({ format: "N-Triples" }).parse(ntriples);
  return (await canonicalHash(quads)).hash;
}

/** What the ledger knows of one item. */
export interface LedgerEntry {
  uri: string;
  /** True/false once a write said so; undefined after a write that got no answer. */
  exists: boolean | undefined;
  /** The hash of the last acknowledged write; undefined when unknown. */
  hash?: string;
  /** The last version number sent. */
  version: number;
  /** A write of this item is in flight (one writer per item at a time). */
  busy: boolean;
  /**
   * Every write of the item, in the order sent: what its history must show. Absent for
   * items a scenario wrote otherwise (an import): their history is not audited.
   */
  writes?: LedgerWrite[];
}

/** One write of an item and what its answer said. */
export interface LedgerWrite {
  operation: "create" | "update" | "delete";
  /** acked: 2xx; refused: a 4xx (nothing applied); unknown: no answer or a 5xx. */
  outcome: "acked" | "refused" | "unknown";
  /** The body sent (none for a delete), to find the hash of a write not acknowledged. */
  body?: { contentType: string; text: string };
  /** The ETag an acknowledged create or update answered. */
  etag?: string;
}

/** How a write ended, from its answer. */
function writeOutcome(outcome: WriteOutcome, acked: number): LedgerWrite["outcome"] {
  return outcome.status === acked ? "acked" : outcome.unknown ? "unknown" : "refused";
}

/** Every write of a test and what came of it. */
export class WriteLedger {
  readonly entries = new Map<string, LedgerEntry>();
  acknowledgedCreates = 0;
  acknowledgedUpdates = 0;
  acknowledgedDeletes = 0;
  /** Writes that got no answer, or a 5xx: their outcome is unknown. */
  unanswered = 0;
  /** Answers the load did not expect (e.g. 404 or 412 for an item it owns), in full. */
  readonly unexpected: string[] = [];
  /** Status counts, `create 201`, `update 412`, `delete no answer`, … */
  readonly statuses: Record<string, number> = {};

  /** Items that exist as far as acknowledged writes say. */
  expectedCount(): number {
    let count = 0;
    for (const entry of this.entries.values()) if (entry.exists === true) count++;
    return count;
  }

  /** Items whose existence is unknown (a create or delete without an answer). */
  unknownCount(): number {
    let count = 0;
    for (const entry of this.entries.values()) if (entry.exists === undefined) count++;
    return count;
  }

  count(key: string): void {
    this.statuses[key] = (this.statuses[key] ?? 0) + 1;
  }
}

/** Options of {@link runWriteLoad}. */
export interface WriteLoadOptions {
  /** The base URLs to spread writes over, read for each write (instances come and go). */
  targets: () => string[];
  /** The most writes to send. */
  writes: number;
  /** The longest the load runs, in ms. */
  maxMs: number;
  /** Writes in flight at once. */
  concurrency: number;
  /** Relative weights of creates, updates and deletes (creates only by default). */
  mix?: { create: number; update: number; delete: number };
  /** Share of updates and deletes that carry `If-Match` (0.5). */
  ifMatchShare?: number;
  /** Stops the load early. */
  signal?: AbortSignal;
  /** Label of created item URIs (distinct per load within a run). */
  label: string;
  /** The unique word every body carries. */
  word: string;
}

/** What one load sent. */
export interface WriteLoadResult {
  sent: number;
  ms: number;
}

/**
 * Sends a mixed write load round-robin over the targets and records every outcome in the
 * ledger. Each item has one writer at a time, so its last acknowledged write is what the
 * store must hold. Deletes and updates pick items whose existence and hash are known.
 */
export async function runWriteLoad(
  cluster: Pick<Cluster, "itemUri" | "itemPath">,
  ledger: WriteLedger,
  options: WriteLoadOptions,
): Promise<WriteLoadResult> {
  const mix = options.mix ?? { create: 1, update: 0, delete: 0 };
  const total = mix.create + mix.update + mix.delete;
  const ifMatchShare = options.ifMatchShare ?? 0.5;
  const started = Date.now();
  let sent = 0;
  let created = 0;
  let turn = 0;
  const idle = () =>
    [...ledger.entries.values()].filter((entry) =>
      !entry.busy && entry.exists === true && entry.hash !== undefined
    );
  const stopped = () =>
    sent >= options.writes || Date.now() - started > options.maxMs ||
    options.signal?.aborted === true;
  const worker = async () => {
    while (!stopped()) {
      const targets = options.targets();
      if (targets.length === 0) return;
      const target = targets[turn++ % targets.length];
      sent++;
      const roll = Math.random() * total;
      const kind = roll < mix.create
        ? "create"
        : roll < mix.create + mix.update
        ? "update"
        : "delete";
      const candidates = kind === "create" ? [] : idle();
      if (candidates.length === 0) {
        await create(target, cluster.itemUri(`${options.label}-${created++}`));
        continue;
      }
      const entry = candidates[Math.floor(Math.random() * candidates.length)];
      const ifMatch = Math.random() < ifMatchShare;
      if (kind === "update") await update(target, entry, ifMatch);
      else await remove(target, entry, ifMatch);
    }
  };
  const format = (n: number) => n % 2 === 0 ? "turtle" : "jsonld";

  const create = async (target: string, uri: string) => {
    const writes: LedgerWrite[] = [];
    const entry: LedgerEntry = { uri, exists: false, version: 0, busy: true, writes };
    ledger.entries.set(uri, entry);
    const { contentType, body } = itemBody(uri, options.word, 0, format(sent));
    const outcome = await send(target, cluster.itemPath(uri), "PUT", contentType, body);
    ledger.count(`create ${outcome.key}`);
    writes.push({
      operation: "create",
      outcome: writeOutcome(outcome, 201),
      body: { contentType, text: body },
      etag: outcome.status === 201 ? outcome.etag : undefined,
    });
    if (outcome.status === 201) {
      entry.exists = true;
      entry.hash = outcome.etag;
      ledger.acknowledgedCreates++;
    } else if (outcome.unknown) {
      entry.exists = undefined;
      ledger.unanswered++;
    } else {
      ledger.unexpected.push(`create ${uri} via ${target}: ${outcome.key} ${outcome.text}`);
    }
    entry.busy = false;
  };

  const update = async (target: string, entry: LedgerEntry, ifMatch: boolean) => {
    entry.busy = true;
    entry.version++;
    const { contentType, body } = itemBody(entry.uri, options.word, entry.version, format(sent));
    const headers = ifMatch ? { "If-Match": `"${entry.hash}"` } : undefined;
    const outcome = await send(
      target,
      cluster.itemPath(entry.uri),
      "POST",
      contentType,
      body,
      headers,
    );
    ledger.count(`update${ifMatch ? " (If-Match)" : ""} ${outcome.key}`);
    entry.writes?.push({
      operation: "update",
      outcome: writeOutcome(outcome, 204),
      body: { contentType, text: body },
      etag: outcome.status === 204 ? outcome.etag : undefined,
    });
    if (outcome.status === 204) {
      entry.hash = outcome.etag;
      ledger.acknowledgedUpdates++;
    } else if (outcome.unknown) {
      entry.hash = undefined; // the old version or the new one: never written to again
      ledger.unanswered++;
    } else {
      ledger.unexpected.push(`update ${entry.uri} via ${target}: ${outcome.key} ${outcome.text}`);
    }
    entry.busy = false;
  };

  const remove = async (target: string, entry: LedgerEntry, ifMatch: boolean) => {
    entry.busy = true;
    const headers = ifMatch ? { "If-Match": `"${entry.hash}"` } : undefined;
    const outcome = await send(target, cluster.itemPath(entry.uri), "DELETE", "", "", headers);
    ledger.count(`delete${ifMatch ? " (If-Match)" : ""} ${outcome.key}`);
    entry.writes?.push({ operation: "delete", outcome: writeOutcome(outcome, 204) });
    if (outcome.status === 204) {
      entry.exists = false;
      entry.hash = undefined;
      ledger.acknowledgedDeletes++;
    } else if (outcome.unknown) {
      entry.exists = undefined;
      entry.hash = undefined;
      ledger.unanswered++;
    } else {
      ledger.unexpected.push(`delete ${entry.uri} via ${target}: ${outcome.key} ${outcome.text}`);
    }
    entry.busy = false;
  };

  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return { sent, ms: Date.now() - started };
}

interface WriteOutcome {
  status: number;
  /** `201`, `412`, `no answer`, … */
  key: string;
  etag: string;
  text: string;
  /** No answer, or a 5xx: the write may or may not have been applied. */
  unknown: boolean;
}

async function send(
  target: string,
  path: string,
  method: string,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<WriteOutcome> {
  try {
    const response = await fetch(`${target}${path}`, {
      method,
      headers: contentType ? { "Content-Type": contentType, ...headers } : headers,
      body: body === "" ? undefined : body,
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    return {
      status: response.status,
      key: String(response.status),
      etag: etagValue(response),
      text: text.slice(0, 300),
      unknown: response.status >= 500,
    };
  } catch (error) {
    return { status: 0, key: "no answer", etag: "", text: String(error), unknown: true };
  }
}

/**
 * Starts one instance alone, has it create the collection's index (one create, drained),
 * then `count - 1` more at once. Scenarios other than a fresh deployment start this way so
 * that they measure their own subject, not the race to create the index. The warm-up item
 * is in the ledger.
 */
export async function startWarmCluster(
  cluster: Cluster,
  ledger: WriteLedger,
  count = 3,
): Promise<ClusterInstance[]> {
  const first = await cluster.startInstance();
  const before = ledger.acknowledgedCreates;
  await runWriteLoad(cluster, ledger, {
    targets: () => [first.url],
    writes: 1,
    maxMs: 30_000,
    concurrency: 1,
    label: "warm-up",
    word: `warm${cluster.run.replaceAll("-", "")}`,
  });
  const drain = await waitForDrain(cluster, 30_000);
  const contents = await indexContents(cluster);
  if (
    ledger.acknowledgedCreates !== before + 1 || !drain.drained ||
    contents.aliasIndices.length !== 1
  ) {
    throw new Error(
      `warm-up failed: ${JSON.stringify(ledger.statuses)}, backlog ${
        JSON.stringify(drain.backlog)
      }, alias on [${contents.aliasIndices}]`,
    );
  }
  await cluster.startInstances(count - 1);
  return cluster.live();
}

// ---------------------------------------------------------------------------------------
// Verification.

/** How the outbox drain went. */
export interface DrainResult {
  drained: boolean;
  waitedMs: number;
  /** The backlog each live instance reported last (`checks.outbox.detail`, or why not). */
  backlog: Record<string, unknown>;
}

/**
 * Polls `/ready` on every live instance until all of them report `checks.outbox.detail`
 * 0 in the same round (with a shared outbox they report the same number), or the timeout.
 */
export async function waitForDrain(cluster: Cluster, timeoutMs: number): Promise<DrainResult> {
  const started = Date.now();
  let backlog: Record<string, unknown> = {};
  while (true) {
    backlog = {};
    await Promise.all(
      cluster.live().map(async (instance) => {
        const answer = await call(`${instance.url}/ready`);
        const checks = (answer.body as { checks?: Record<string, { detail?: unknown }> } | null)
          ?.checks;
        backlog[instance.name] = checks?.outbox?.detail ?? `HTTP ${answer.status}`;
      }),
    );
    if (Object.values(backlog).every((value) => value === 0)) {
      return { drained: true, waitedMs: Date.now() - started, backlog };
    }
    if (Date.now() - started > timeoutMs) {
      return { drained: false, waitedMs: Date.now() - started, backlog };
    }
    await sleep(200);
  }
}

/** The store against the index, and against the writes acknowledged. */
export interface ClusterReport {
  drain: DrainResult;
  /** Items in the store (Fuseki). */
  store: number;
  /** Documents in the collection's alias (OpenSearch). */
  index: number;
  indexExists: boolean;
  aliasIndices: string[];
  runIndices: string[];
  /** In the store, not in the index. */
  lost: string[];
  /** In the index, not in the store. */
  extra: string[];
  /** In both, with another hash in the index. */
  stale: string[];
  /** URIs with more than one document. */
  duplicates: string[];
  /** Items that exist by acknowledged writes (creates minus deletes). */
  expected: number;
  /** Items whose existence no answer settled. */
  unknown: number;
  acknowledged: { creates: number; updates: number; deletes: number };
  /** Acknowledged to exist, missing from the store. */
  missingFromStore: string[];
  /** In the store, though acknowledged deleted (or never written by the test). */
  phantomsInStore: string[];
  /** In the store with another hash than the last acknowledged write's. */
  notLastWrite: string[];
  unexpected: string[];
  statuses: Record<string, number>;
  /** The items' histories held against their writes (`cluster_history.ts`). */
  history: HistoryAudit;
}

/**
 * Waits for the outbox to drain, refreshes the run's indices, and compares the store with
 * the index and with the ledger. Measures only: {@link reportProblems} judges.
 *
 * The drain wait is a bound for the comparison, not a speed goal (the time it took is
 * reported): on a quiet machine the outbox drains in seconds, but on two busy cores a
 * Virtuoso backlog of a thousand entries has taken over 30 s.
 */
export async function verifyCluster(
  cluster: Cluster,
  ledger: WriteLedger,
  options: { drainTimeoutMs?: number; history?: boolean } = {},
): Promise<ClusterReport> {
  const { drainTimeoutMs = 120_000, history: auditHistories = true } = options;
  const drain = await waitForDrain(cluster, drainTimeoutMs);
  await refreshRunIndices(cluster);
  const store = await storeItems(cluster);
  const contents = await indexContents(cluster);
  const indexed = new Map<string, string>();
  const duplicates = new Set<string>();
  for (const { uri, hash } of contents.documents) {
    if (indexed.has(uri)) duplicates.add(uri);
    indexed.set(uri, hash);
  }
  const lost = [...store.keys()].filter((uri) => !indexed.has(uri));
  const extra = [...indexed.keys()].filter((uri) => !store.has(uri));
  const stale = [...store].filter(([uri, hash]) => indexed.has(uri) && indexed.get(uri) !== hash)
    .map(([uri]) => uri);
  const missingFromStore: string[] = [];
  const notLastWrite: string[] = [];
  for (const entry of ledger.entries.values()) {
    if (entry.exists !== true) continue;
    if (!store.has(entry.uri)) missingFromStore.push(entry.uri);
    else if (entry.hash !== undefined && store.get(entry.uri) !== entry.hash) {
      notLastWrite.push(entry.uri);
    }
  }
  const phantomsInStore = [...store.keys()].filter((uri) =>
    ledger.entries.get(uri)?.exists === false || !ledger.entries.has(uri)
  );
  // A check in the middle of a scenario may leave the histories to its last check.
  const history = auditHistories
    ? await auditHistory(cluster, ledger)
    : { versions: 0, problems: [], skipped: true };
  return {
    drain,
    store: store.size,
    index: contents.documents.length,
    indexExists: contents.exists,
    aliasIndices: contents.aliasIndices,
    runIndices: contents.runIndices,
    lost,
    extra,
    stale,
    duplicates: [...duplicates],
    expected: ledger.expectedCount(),
    unknown: ledger.unknownCount(),
    acknowledged: {
      creates: ledger.acknowledgedCreates,
      updates: ledger.acknowledgedUpdates,
      deletes: ledger.acknowledgedDeletes,
    },
    missingFromStore,
    phantomsInStore,
    notLastWrite,
    unexpected: ledger.unexpected,
    statuses: ledger.statuses,
    history,
  };
}

const sample = (uris: string[]) =>
  uris.length === 0 ? "" : ` (e.g. ${uris.slice(0, 3).join(", ")})`;

/** One line with every number of a report. */
export function summarizeReport(report: ClusterReport): string {
  return [
    `drained=${report.drain.drained} in ${report.drain.waitedMs} ms (backlog ${
      JSON.stringify(report.drain.backlog)
    })`,
    `store=${report.store} index=${report.index}`,
    `lost=${report.lost.length} extra=${report.extra.length} stale=${report.stale.length} ` +
    `duplicates=${report.duplicates.length}`,
    `expected=${report.expected} (acknowledged creates ${report.acknowledged.creates} − ` +
    `deletes ${report.acknowledged.deletes}; updates ${report.acknowledged.updates}) ` +
    `unknown=${report.unknown}`,
    `missingFromStore=${report.missingFromStore.length} phantoms=${report.phantomsInStore.length} ` +
    `notLastWrite=${report.notLastWrite.length} unexpected=${report.unexpected.length}`,
    `aliasIndices=${report.aliasIndices.length} runIndices=${report.runIndices.length}`,
    report.history.skipped
      ? "history left to the last check"
      : report.history.items === undefined
      ? "history not kept"
      : `history: ${report.history.versions} versions of ${report.history.items} items, ` +
        `${report.history.problems.length} disagreeing with their writes`,
    `statuses ${JSON.stringify(report.statuses)}`,
  ].join("; ");
}

/** What is wrong in a report: empty when store, index and acknowledged writes agree. */
export function reportProblems(report: ClusterReport): string[] {
  const problems: string[] = [];
  if (!report.drain.drained) {
    problems.push(
      `the outbox did not drain within ${report.drain.waitedMs} ms: backlog ${
        JSON.stringify(report.drain.backlog)
      }`,
    );
  }
  if (!report.indexExists) problems.push(`the alias does not exist`);
  if (report.indexExists && report.aliasIndices.length !== 1) {
    problems.push(
      `the alias points at ${report.aliasIndices.length} indices: ${report.aliasIndices}`,
    );
  }
  if (report.lost.length) {
    problems.push(`${report.lost.length} lost (in store, not in index)${sample(report.lost)}`);
  }
  if (report.extra.length) {
    problems.push(`${report.extra.length} extra (in index, not in store)${sample(report.extra)}`);
  }
  if (report.stale.length) {
    problems.push(`${report.stale.length} stale (index hash ≠ store hash)${sample(report.stale)}`);
  }
  if (report.duplicates.length) {
    problems.push(`${report.duplicates.length} duplicated documents${sample(report.duplicates)}`);
  }
  if (report.missingFromStore.length) {
    problems.push(
      `${report.missingFromStore.length} acknowledged items missing from the store${
        sample(report.missingFromStore)
      }`,
    );
  }
  if (report.phantomsInStore.length) {
    problems.push(
      `${report.phantomsInStore.length} items in the store that acknowledged writes deleted${
        sample(report.phantomsInStore)
      }`,
    );
  }
  if (report.notLastWrite.length) {
    problems.push(
      `${report.notLastWrite.length} items not holding their last acknowledged write${
        sample(report.notLastWrite)
      }`,
    );
  }
  // The item count the acknowledged writes imply, give or take the unanswered ones.
  const low = report.expected;
  const high = report.expected + report.unknown;
  if (report.store < low || report.store > high) {
    problems.push(
      `the store holds ${report.store} items; acknowledged writes imply ${low}` +
        (report.unknown ? `..${high} (${report.unknown} unanswered)` : ""),
    );
  }
  if (report.unexpected.length) {
    problems.push(`${report.unexpected.length} unexpected answers: ${report.unexpected[0]}`);
  }
  if (report.history.problems.length) {
    problems.push(
      `${report.history.problems.length} histories disagree with their writes: ${
        report.history.problems.slice(0, 3).join("; ")
      }`,
    );
  }
  return problems;
}

/**
 * Collects a scenario's failed checks instead of stopping at the first, so one run
 * measures everything; {@link Findings.done} then fails the test listing them all.
 */
export class Findings {
  readonly failures: string[] = [];

  constructor(readonly scenario: string) {}

  /** Records a failure unless `ok`; returns `ok`. */
  check(ok: boolean, message: string): boolean {
    if (!ok) this.failures.push(message);
    return ok;
  }

  /** Prints a measurement (passing or not), prefixed with the scenario. */
  measured(line: string): void {
    console.log(`[cluster/${this.scenario}] ${line}`);
  }

  /** Prints the report and records its problems. */
  report(label: string, report: ClusterReport): void {
    this.measured(`${label}: ${summarizeReport(report)}`);
    for (const problem of reportProblems(report)) this.failures.push(`${label}: ${problem}`);
  }

  /** Throws listing every failure, with the instances' last log lines. */
  done(cluster?: Cluster): void {
    if (this.failures.length === 0) return;
    const list = this.failures.map((failure) => `  - ${failure}`).join("\n");
    const logs = cluster ? `\n${cluster.logTail(8)}` : "";
    throw new Error(`${this.scenario}: ${this.failures.length} check(s) failed:\n${list}${logs}`);
  }
}
