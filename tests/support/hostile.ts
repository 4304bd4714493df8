/**
 * The hostile-input suites' harness: the service as its own OS process (so that a crash, a
 * hang or a memory blow-up is visible), a private collection, and one assertion that says
 * everything the issue asks of a refused request — the exact status and problem type,
 * within bounded time and memory, nothing written, and the service still serving.
 */
import { strict as assert } from "node:assert";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { LOCAL_DB_FILE } from "../../src/sqlite/local_db.ts";
import { METADATA_NAMESPACE } from "../../src/store_sparql/sparql_triple_store.ts";
import { CONFIG_DEFAULTS } from "./config_defaults.ts";
import { type ServiceProcess, startServiceProcess } from "./process.ts";
import { expectProblem } from "./problems.ts";
import { DEMO_COLLECTION, DEMO_WORKSPACE, type StoreBackend } from "./service.ts";
import type { RawResponse } from "./raw_http.ts";

const DCT_TITLE = "http://purl.org/dc/terms/title";
const SHIPPED = Deno.readTextFileSync(new URL("../../customer.yml", import.meta.url));

/**
 * Wall-clock bound of a refused request. Each one is answered in milliseconds on an idle
 * machine; the bound is far above that because these machines run several suites at once
 * on two cores, and what it must catch is a hang or a runaway parse, not a slow answer.
 */
export const REFUSAL_TIME_LIMIT_MS = 10_000;

/** A running service process with its own data directory and its own collection. */
export interface HostileService {
  process: ServiceProcess;
  url: string;
  backend: StoreBackend["name"];
  dataDir: string;
  workspace: string;
  collection: string;
  /** An item created at start-up that every case checks is still there, unchanged. */
  canary: { uri: string; etag: string; body: string };
  fetch(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Starts the service on `backend` with a workspace and collection unique to this run (so
 * that counting the collection's items on a shared Fuseki counts only ours), and creates
 * the canary item.
 */
export async function startHostileService(
  backend: StoreBackend,
  env: Record<string, string> = {},
): Promise<HostileService> {
  const dataDir = await Deno.makeTempDir({ prefix: "rcs-hostile-" });
  const run = crypto.randomUUID();
  const workspace = `https://data.example.org/workspace/hostile-${run}`;
  const collection = `https://data.example.org/collection/hostile-${run}`;
  const configPath = join(dataDir, "customer.yml");
  await Deno.writeTextFile(
    configPath,
    SHIPPED.replaceAll(DEMO_WORKSPACE, workspace).replaceAll(DEMO_COLLECTION, collection),
  );
  const process = await startServiceProcess({
    CUSTOMER_YML: configPath,
    SERVICE_DATA_DIR: join(dataDir, "data"),
    ...backend.env,
    ...env,
  });
  const service: HostileService = {
    process,
    url: process.url,
    backend: backend.name,
    dataDir: join(dataDir, "data"),
    workspace,
    collection,
    canary: { uri: "", etag: "", body: "" },
    fetch: (path, init) => fetch(process.url + path, init),
    close: async () => {
      await process.stop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
  try {
    const uri = `https://data.example.org/id/hostile/canary-${run}`;
    await createItem(service, uri, "Canary: must survive every hostile request");
    const read = await service.fetch(`/api/item?${itemParams(service, uri)}`, {
      headers: { Accept: "application/n-triples" },
    });
    assert.equal(read.status, 200);
    service.canary = { uri, etag: read.headers.get("etag") ?? "", body: await read.text() };
  } catch (error) {
    await service.close();
    throw error;
  }
  return service;
}

/** `collection=…&item=…` for the service's own collection. */
export function itemParams(service: HostileService, item: string): string {
  return `collection=${encodeURIComponent(service.collection)}&item=${encodeURIComponent(item)}`;
}

/** A small JSON-LD item body about `uri`. */
export function itemBody(uri: string, title = "A normal item"): string {
  return JSON.stringify({ "@id": uri, [DCT_TITLE]: title });
}

/** Creates a small item and asserts 201. */
export async function createItem(
  service: HostileService,
  uri: string,
  title?: string,
): Promise<void> {
  const response = await service.fetch(`/api/item?${itemParams(service, uri)}`, {
    method: "PUT",
    headers: { "Content-Type": "application/ld+json" },
    body: itemBody(uri, title),
  });
  const text = await response.text();
  assert.equal(response.status, 201, text);
}

/** A fresh item URI for one case. */
export function hostileItemUri(label: string): string {
  return `https://data.example.org/id/hostile/${label}-${crypto.randomUUID()}`;
}

/** What "nothing was written" compares: the collection's items and the indexing jobs. */
export interface StoreSnapshot {
  items: number;
  triples: number;
  lastModified: string;
  jobs: number;
}

/**
 * The collection's item count, triple count and latest modification, read behind the
 * service's back (the SQLite file read-only, or the SPARQL endpoint directly), plus the
 * number of indexing jobs on this run's workspace or collection as the API lists them.
 */
export async function storeSnapshot(service: HostileService): Promise<StoreSnapshot> {
  const jobsResponse = await service.fetch("/api/admin/index/jobs?limit=1000");
  assert.equal(jobsResponse.status, 200);
  // Only this run's jobs: on a shared Fuseki the list holds every test file's jobs, and
  // another file starting one between two snapshots says nothing about this request.
  const ours = new Set([service.workspace, service.collection]);
  const jobs = (await jobsResponse.json() as { scope: { uri: string } }[])
    .filter((job) => ours.has(job.scope.uri)).length;
  if (service.backend === "embedded") {
    const db = new DatabaseSync(join(service.dataDir, LOCAL_DB_FILE), { readOnly: true });
    try {
      const row = db.prepare(
        `SELECT count(*) AS items, coalesce(sum(triple_count), 0) AS triples,
                coalesce(max(modified), '') AS lastModified
           FROM items WHERE collection = ?`,
      ).get(service.collection) as { items: number; triples: number; lastModified: string };
      return { ...row, jobs };
    } finally {
      db.close();
    }
  }
  const queryUrl = Deno.env.get("SERVICE_SPARQL_QUERY_URL")!;
  const query = `SELECT (COUNT(?item) AS ?items) (SUM(?count) AS ?triples)
    (MAX(STR(?modified)) AS ?lastModified) WHERE {
      GRAPH <${CONFIG_DEFAULTS.store.sparql.metadataGraph}> {
        ?item <${METADATA_NAMESPACE}collection> "${service.collection}" ;
          <${METADATA_NAMESPACE}tripleCount> ?count ; <${METADATA_NAMESPACE}modified> ?modified
      } }`;
  const response = await fetch(queryUrl, {
    method: "POST",
    headers: {
      "Content-Type": "application/sparql-query",
      Accept: "application/sparql-results+json",
    },
    body: query,
  });
  assert.equal(response.status, 200);
  const binding = (await response.json()).results.bindings[0] ?? {};
  return {
    items: Number(binding.items?.value ?? 0),
    triples: Number(binding.triples?.value ?? 0),
    lastModified: binding.lastModified?.value ?? "",
    jobs,
  };
}

/**
 * Resolves once the service's index outbox is empty: the indexing of what was written before
 * (on worker threads of the same process) is over, and a memory measurement that follows
 * counts only the request it measures.
 */
export async function outboxDrained(service: HostileService, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const ready = await service.fetch("/ready");
    const body = await ready.json();
    if (body.checks?.outbox?.detail === 0) return;
    assert.ok(Date.now() < deadline, `the index outbox still holds ${body.checks?.outbox?.detail}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Asserts the service still serves: `/health` answers, and the canary item reads back
 * byte for byte with its ETag (nothing dropped or changed it).
 */
export async function assertStillServing(service: HostileService): Promise<void> {
  const health = await service.fetch("/health");
  assert.equal(health.status, 200, "the service stopped serving /health");
  await health.body?.cancel();
  const read = await service.fetch(`/api/item?${itemParams(service, service.canary.uri)}`, {
    headers: { Accept: "application/n-triples" },
  });
  assert.equal(read.status, 200, "the canary item can no longer be read");
  assert.equal(read.headers.get("etag"), service.canary.etag, "the canary item changed");
  assert.equal(await read.text(), service.canary.body, "the canary item changed");
}

/** Asserts a full write cycle still works: create, read and delete a fresh item. */
export async function assertStillWrites(service: HostileService): Promise<void> {
  const uri = hostileItemUri("after");
  await createItem(service, uri, "Written after hostile input");
  const read = await service.fetch(`/api/item?${itemParams(service, uri)}`);
  assert.equal(read.status, 200);
  assert.match(await read.text(), /Written after hostile input/);
  const removed = await service.fetch(`/api/item?${itemParams(service, uri)}`, {
    method: "DELETE",
  });
  assert.equal(removed.status, 204);
}

/** One hostile request and what its refusal must look like. */
export interface HostileCase {
  /** Sends the request; a raw-socket answer is accepted too (GET with a body). */
  send(service: HostileService): Promise<Response | RawResponse>;
  status: number;
  /** Problem type slug: `/problems/<slug>`. */
  slug: string;
  /** Wall-clock bound; {@link REFUSAL_TIME_LIMIT_MS} unless the case says why it needs more. */
  withinMs?: number;
  /** Bound on the service's resident memory growth (peak during the request), in bytes. */
  maxGrowthBytes?: number;
  /** Item URIs the request names or whose creation it attempts: they must not exist after. */
  absent?: string[];
  /**
   * False when the caller compares the store before and after a whole series of cases
   * itself (hundreds of cases: two store queries each would be most of the suite's time).
   */
  snapshot?: boolean;
}

/** What {@link expectRefused} measured, and the problem body. */
export interface Refusal {
  problem: Record<string, unknown>;
  elapsedMs: number;
  growthBytes: number;
}

/**
 * Sends a hostile request and asserts every property the issue asks of it: status, problem
 * type, problem+json, wall time, memory (when bounded), nothing written (item count and
 * jobs unchanged, named items absent), the canary intact and the service serving.
 */
export async function expectRefused(
  service: HostileService,
  hostile: HostileCase,
): Promise<Refusal> {
  const snapshot = hostile.snapshot !== false;
  const before = snapshot ? await storeSnapshot(service) : undefined;
  const memory = peakMemoryProbe(service.process);
  const started = performance.now();
  const answer = await hostile.send(service);
  const response = answer instanceof Response ? answer : rawToResponse(answer);
  const problem = await expectProblem(response, hostile.status, hostile.slug);
  const elapsedMs = performance.now() - started;
  const growthBytes = memory.growth();
  const limit = hostile.withinMs ?? REFUSAL_TIME_LIMIT_MS;
  assert.ok(elapsedMs < limit, `answered in ${Math.round(elapsedMs)} ms, limit ${limit} ms`);
  if (hostile.maxGrowthBytes !== undefined) {
    assert.ok(
      growthBytes < hostile.maxGrowthBytes,
      `resident memory grew ${mb(growthBytes)}, limit ${mb(hostile.maxGrowthBytes)}`,
    );
  }
  for (const uri of hostile.absent ?? []) {
    const read = await service.fetch(`/api/item?${itemParams(service, uri)}`);
    assert.equal(read.status, 404, `${uri} exists after a refused request`);
    await read.body?.cancel();
  }
  if (snapshot) {
    assert.deepEqual(await storeSnapshot(service), before, "a refused request wrote something");
  }
  await assertStillServing(service);
  return { problem, elapsedMs, growthBytes };
}

/** A raw-socket answer as a fetch Response, so both go through one assertion. */
export function rawToResponse(raw: RawResponse): Response {
  return new Response(raw.body, { status: raw.status, headers: raw.headers });
}

/**
 * The process's peak resident memory from now on, minus its current RSS. The kernel's
 * high-water mark (VmHWM) is reset first through /proc/<pid>/clear_refs, so a short spike
 * between two samples is not missed; where that is not allowed, RSS is sampled instead.
 */
export function peakMemoryProbe(process: ServiceProcess): { growth(): number } {
  const baseline = process.rss();
  let resettable = true;
  try {
    Deno.writeTextFileSync(`/proc/${process.pid}/clear_refs`, "5");
  } catch {
    resettable = false;
  }
  let sampledPeak = baseline;
  const sampler = resettable
    ? undefined
    : setInterval(() => sampledPeak = Math.max(sampledPeak, process.rss()), 10);
  return {
    growth: () => {
      if (sampler !== undefined) clearInterval(sampler);
      const peak = resettable ? highWaterMark(process.pid) : Math.max(sampledPeak, process.rss());
      return Math.max(0, peak - baseline);
    },
  };
}

function highWaterMark(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const match = status.match(/^VmHWM:\s+(\d+) kB/m);
  return match ? Number(match[1]) * 1024 : 0;
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * A loopback TCP listener that only counts connections: pointed at by a remote context or
 * an external entity, it proves the service never tried to fetch it (any attempt, HTTP or
 * not, is a connection).
 */
export interface ConnectionCounter {
  url: string;
  connections(): number;
  close(): void;
}

/** Starts a {@link ConnectionCounter} on a free loopback port. */
export function startConnectionCounter(): ConnectionCounter {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  let count = 0;
  (async () => {
    for await (const connection of listener) {
      count++;
      connection.close();
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${port}/`,
    connections: () => count,
    close: () => listener.close(),
  };
}

/**
 * A request over a raw socket that keeps reading while it writes: a server may answer (a
 * 413) and close before a large body is sent, which `rawRequest` (write all, then read)
 * turns into a broken pipe. Also the only way to send a large GET body. The answer is
 * parsed by its Content-Length.
 */
export async function rawUpload(
  url: string,
  options: { method: string; headers?: Record<string, string>; body: string; chunked?: boolean },
): Promise<Response> {
  const target = new URL(url);
  const connection = await Deno.connect({ hostname: target.hostname, port: Number(target.port) });
  const encoder = new TextEncoder();
  const body = encoder.encode(options.body);
  const head = [`${options.method} ${target.pathname}${target.search} HTTP/1.1`];
  head.push(`Host: ${target.host}`, "Connection: close");
  for (const [name, value] of Object.entries(options.headers ?? {})) head.push(`${name}: ${value}`);
  head.push(options.chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${body.length}`);
  const writing = (async () => {
    const write = async (data: Uint8Array) => {
      for (let done = 0; done < data.length;) done += await connection.write(data.subarray(done));
    };
    await write(encoder.encode(head.join("\r\n") + "\r\n\r\n"));
    const step = 64 * 1024;
    for (let offset = 0; offset < body.length; offset += step) {
      const slice = body.subarray(offset, offset + step);
      if (options.chunked) await write(encoder.encode(`${slice.length.toString(16)}\r\n`));
      await write(slice);
      if (options.chunked) await write(encoder.encode("\r\n"));
    }
    if (options.chunked) await write(encoder.encode("0\r\n\r\n"));
  })().catch(() => {}); // the server closed early: its answer is what counts
  const received: Uint8Array[] = [];
  const buffer = new Uint8Array(64 * 1024);
  try {
    for (
      let read = await connection.read(buffer);
      read !== null;
      read = await connection.read(buffer)
    ) {
      received.push(buffer.slice(0, read));
    }
  } catch {
    // a reset after the answer arrived
  }
  await writing;
  connection.close();
  const bytes = concatBytes(received);
  // The head is ASCII, so its length in characters is its length in bytes.
  const split = new TextDecoder("latin1").decode(bytes).indexOf("\r\n\r\n");
  if (split < 0) throw new Error(`no HTTP answer to ${options.method} ${url}`);
  const lines = new TextDecoder().decode(bytes.subarray(0, split)).split("\r\n");
  const headers = new Headers();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const length = Number(headers.get("content-length") ?? NaN);
  const rest = bytes.slice(split + 4);
  return new Response(Number.isFinite(length) ? rest.slice(0, length) : rest, {
    status: Number(lines[0].split(" ")[1]),
    headers,
  });
}

function concatBytes(parts: Uint8Array[]): Uint8Array {
  const result = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    result.set(part, offset);
    offset += part.length;
  }
  return result;
}
