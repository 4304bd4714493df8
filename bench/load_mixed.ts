/**
 * Mixed load from outside the process: `wrk` drives reads, downloads, creates, updates and
 * searches (bench/wrk/mixed.lua) against the service running as its own OS process, then
 * every acknowledged write is checked. Passes only with zero 5xx, zero socket errors, every
 * acknowledged create readable, every item holding its last acknowledged update, and the
 * SQLite `items` table holding exactly the items that should exist.
 *
 * `deno task bench load` (60 s), or `LOAD_SECONDS=10 deno task bench load`. Also
 * `LOAD_THREADS` (2), `LOAD_CONNECTIONS` (32), `LOAD_SEEDED` (200).
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { startServiceProcess } from "../tests/support/process.ts";
import { LOCAL_DB_FILE } from "../src/sqlite/local_db.ts";

const SCRIPT = new URL("./wrk/mixed.lua", import.meta.url).pathname;
const ITEM_BASE = "https://data.example.org/id/load/";
// The shipped customer.yml's demo collection. Not imported from tests/support/service.ts:
// that module loads the whole app, and here the service runs only in its own process.
const DEMO_COLLECTION = "https://data.example.org/collection/documents";
const itemQuery = (item: string) =>
  `collection=${encodeURIComponent(DEMO_COLLECTION)}&item=${encodeURIComponent(item)}`;
const VERSION = "http://example.org/load#version";

/** How the run is shaped. */
export interface MixedLoadOptions {
  seconds: number;
  threads: number;
  connections: number;
  seeded: number;
}

/** Options from LOAD_* environment variables. */
export function mixedLoadOptionsFromEnv(): MixedLoadOptions {
  const number = (name: string, fallback: number) => {
    const value = Number(Deno.env.get(name) ?? fallback);
    if (!Number.isInteger(value) || value <= 0) {
      throw new Error(`${name} must be a positive integer`);
    }
    return value;
  };
  return {
    seconds: number("LOAD_SECONDS", 60),
    threads: number("LOAD_THREADS", 2),
    connections: number("LOAD_CONNECTIONS", 32),
    seeded: number("LOAD_SEEDED", 200),
  };
}

/** What wrk's `done()` in mixed.lua prints after `LOAD_RESULT `. */
interface WrkResult {
  duration_us: number;
  requests: number;
  bytes: number;
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  latency_us: { p50: number; p90: number; p99: number; max: number; mean: number };
  /** "kind status" → responses. */
  counts: Record<string, number>;
}

/** What the write logs and the checks after the run found. */
interface Verification {
  createsSent: number;
  createsAcknowledged: number;
  acknowledgedPresent: number;
  acknowledgedMissing: string[];
  /** Sent, never answered (in flight when wrk stopped) or failed, yet stored. */
  unacknowledgedPresent: number;
  updatesAcknowledged: number;
  itemsChecked: number;
  staleItems: string[];
  presentByGet: number;
  expectedItems: number;
  sqliteItems: number;
  unexpectedInSqlite: string[];
}

/** The outcome: markdown to print and whether every check held. */
export interface MixedLoadReport {
  markdown: string;
  ok: boolean;
}

/** Exits with a message when wrk is not installed (the bench installs nothing itself). */
async function requireWrk(): Promise<void> {
  try {
    await new Deno.Command("wrk", { args: ["-v"], stdout: "null", stderr: "null" }).output();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    console.error(
      "The load scenario needs the wrk load generator, which is not on PATH.\n" +
        "Install it with `apt-get install wrk` (Debian/Ubuntu) or your system's package manager.",
    );
    Deno.exit(2);
  }
}

/** The N-Triples of a load item; the same shape as `item_body` in mixed.lua. */
function loadItem(uri: string, version: string, n: number): string {
  const s = `<${uri}>`;
  return [
    `${s} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Document> .`,
    `${s} <http://purl.org/dc/terms/title> "Seeded item ${n}"@en .`,
    `${s} <http://purl.org/dc/terms/description> "Seeded before the load run" .`,
    `${s} <http://example.org/load#n> "${n}"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
    `${s} <${VERSION}> "${version}" .`,
    "",
  ].join("\n");
}

/** Runs `work` over `inputs` with `concurrency` workers. */
async function inParallel<T>(inputs: T[], concurrency: number, work: (input: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < inputs.length) await work(inputs[next++]);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** The item's `load#version` literal, or undefined when the item is not there. */
async function readVersion(url: string, uri: string): Promise<string | undefined> {
  const response = await fetch(`${url}/api/item?${itemQuery(uri)}`, {
    headers: { Accept: "application/n-triples" },
  });
  const text = await response.text();
  if (response.status === 404) return undefined;
  if (response.status !== 200) throw new Error(`GET ${uri}: ${response.status} ${text}`);
  return text.match(new RegExp(`<${VERSION}> "([^"]*)"`))?.[1] ?? "(no version)";
}

/** Replays the per-thread write logs. */
function readWriteLogs(dir: string) {
  const creates = new Map<string, "sent" | "ack" | "failed">();
  // Per seeded item, the versions it may hold now: the last acknowledged update, plus any
  // update sent after it whose outcome is unknown (no answer, or a 5xx).
  const possible = new Map<string, Set<string>>();
  let updatesAcknowledged = 0;
  for (const entry of Deno.readDirSync(dir)) {
    const lines = Deno.readTextFileSync(join(dir, entry.name)).split("\n");
    for (const line of lines) {
      const [event, uri, tag, status] = line.split(" ");
      if (event === "C-SENT") creates.set(uri, "sent");
      else if (event === "C-ACK") creates.set(uri, "ack");
      else if (event === "C-FAIL") creates.set(uri, Number(tag) >= 500 ? "sent" : "failed");
      else if (event === "U-SENT") {
        const versions = possible.get(uri) ?? new Set(["seed"]);
        possible.set(uri, versions.add(tag));
      } else if (event === "U-ACK") {
        possible.set(uri, new Set([tag]));
        updatesAcknowledged++;
      } else if (event === "U-FAIL" && Number(status) < 500) possible.get(uri)?.delete(tag);
    }
  }
  return { creates, possible, updatesAcknowledged };
}

async function verify(
  url: string,
  dataDir: string,
  logDir: string,
  options: MixedLoadOptions,
  stop: () => Promise<void>,
): Promise<Verification> {
  const { creates, possible, updatesAcknowledged } = readWriteLogs(logDir);
  const seededUris = Array.from({ length: options.seeded }, (_, i) => `${ITEM_BASE}seed-${i}`);
  const present = new Set<string>();
  const acknowledgedMissing: string[] = [];
  const staleItems: string[] = [];
  let unacknowledgedPresent = 0;
  await inParallel([...creates.keys()], 8, async (uri) => {
    const version = await readVersion(url, uri);
    if (version !== undefined) present.add(uri);
    if (creates.get(uri) === "ack" && version === undefined) acknowledgedMissing.push(uri);
    if (creates.get(uri) !== "ack" && version !== undefined) unacknowledgedPresent++;
  });
  await inParallel(seededUris, 8, async (uri) => {
    const version = await readVersion(url, uri);
    if (version === undefined) return void acknowledgedMissing.push(uri);
    present.add(uri);
    const allowed = possible.get(uri) ?? new Set(["seed"]);
    if (!allowed.has(version)) staleItems.push(`${uri}: ${version} ∉ {${[...allowed]}}`);
  });
  await stop();
  // Read-only, after the service has stopped: the system of record, not the HTTP view of it.
  const db = new DatabaseSync(join(dataDir, LOCAL_DB_FILE), { readOnly: true });
  const rows = db.prepare("SELECT uri FROM items WHERE collection = ?").all(DEMO_COLLECTION) as {
    uri: string;
  }[];
  db.close();
  const acknowledged = [...creates.values()].filter((state) => state === "ack").length;
  return {
    createsSent: creates.size,
    createsAcknowledged: acknowledged,
    acknowledgedPresent: acknowledged - acknowledgedMissing.filter((u) => creates.has(u)).length,
    acknowledgedMissing,
    unacknowledgedPresent,
    updatesAcknowledged,
    itemsChecked: seededUris.length,
    staleItems,
    presentByGet: present.size,
    expectedItems: options.seeded + acknowledged + unacknowledgedPresent,
    sqliteItems: rows.length,
    unexpectedInSqlite: rows.map((row) => row.uri).filter((uri) => !present.has(uri)),
  };
}

async function runWrk(url: string, logDir: string, options: MixedLoadOptions): Promise<WrkResult> {
  const args = [
    `-t${options.threads}`,
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    "--timeout",
    "10s",
    "--latency",
    "-s",
    SCRIPT,
    url,
    "--",
    DEMO_COLLECTION,
    String(options.seeded),
    String(options.threads),
    logDir,
  ];
  const output = await new Deno.Command("wrk", { args, stdout: "piped", stderr: "piped" })
    .output();
  const stdout = new TextDecoder().decode(output.stdout);
  if (!output.success) {
    throw new Error(`wrk failed: ${stdout}${new TextDecoder().decode(output.stderr)}`);
  }
  console.error(stdout.replace(/^LOAD_RESULT .*$/m, "").trimEnd());
  const line = stdout.match(/^LOAD_RESULT (.*)$/m);
  if (!line) throw new Error(`no LOAD_RESULT line in wrk output:\n${stdout}`);
  return JSON.parse(line[1]) as WrkResult;
}

const KINDS = ["read", "download", "create", "update", "search"] as const;
const SHARES: Record<string, string> = {
  read: "50%",
  download: "20%",
  create: "15%",
  update: "10%",
  search: "5%",
};

function formatReport(wrk: WrkResult, check: Verification, options: MixedLoadOptions): string {
  const seconds = wrk.duration_us / 1e6;
  const ms = (us: number) => (us / 1000).toFixed(1);
  const byClass = (kind: string | undefined) => {
    const classes: Record<string, number> = { "2xx": 0, "3xx": 0, "4xx": 0, "5xx": 0 };
    const statuses: Record<string, number> = {};
    let total = 0;
    for (const [key, n] of Object.entries(wrk.counts)) {
      const [k, status] = key.split(" ");
      if (kind && k !== kind) continue;
      total += n;
      classes[`${status[0]}xx`] = (classes[`${status[0]}xx`] ?? 0) + n;
      if (!status.startsWith("2")) statuses[status] = (statuses[status] ?? 0) + n;
    }
    const detail = Object.entries(statuses).map(([s, n]) => `${s}×${n}`).join(", ");
    return { total, classes, detail };
  };
  const errors = Object.entries(wrk.errors).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`);
  const lines = [
    `wrk ${options.threads} threads, ${options.connections} connections, ${
      seconds.toFixed(1)
    } s; ${options.seeded} seeded items; embedded store and search; socket errors: ${
      errors.length ? errors.join(", ") : "none"
    }`,
    "",
    "| kind | share | responses | req/s | 2xx | 4xx | 5xx | non-2xx by status |",
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const kind of [...KINDS, undefined]) {
    const { total, classes, detail } = byClass(kind);
    if (kind && total === 0) continue;
    lines.push(
      `| ${kind ?? "**all**"} | ${kind ? SHARES[kind] : "100%"} | ${total} | ${
        (total / seconds).toFixed(0)
      } | ${classes["2xx"]} | ${classes["4xx"]} | ${classes["5xx"]} | ${detail || "—"} |`,
    );
  }
  lines.push(
    "",
    "| latency p50 | p90 | p99 | max |",
    "|---|---|---|---|",
    `| ${ms(wrk.latency_us.p50)} ms | ${ms(wrk.latency_us.p90)} ms | ${
      ms(wrk.latency_us.p99)
    } ms | ${ms(wrk.latency_us.max)} ms |`,
    "",
    "| check | count |",
    "|---|---|",
    `| creates sent | ${check.createsSent} |`,
    `| creates acknowledged (201) | ${check.createsAcknowledged} |`,
    `| acknowledged creates readable afterwards (GET 200) | ${check.acknowledgedPresent} |`,
    `| **acknowledged writes missing** | **${check.acknowledgedMissing.length}** |`,
    `| unacknowledged creates stored anyway (in flight when wrk stopped) | ${check.unacknowledgedPresent} |`,
    `| updates acknowledged (204) | ${check.updatesAcknowledged} |`,
    `| seeded items not holding their last acknowledged update | ${check.staleItems.length} |`,
    `| items present by GET / expected (seeded + acknowledged + stored unacknowledged) | ${check.presentByGet} / ${check.expectedItems} |`,
    `| rows in SQLite \`items\` (read-only, after stop) | ${check.sqliteItems} |`,
    `| SQLite rows for items never written | ${check.unexpectedInSqlite.length} |`,
  );
  return lines.join("\n");
}

/** Seeds, runs wrk, verifies; the service runs as its own process on a temp data dir. */
export async function benchMixedLoad(
  options: MixedLoadOptions = mixedLoadOptionsFromEnv(),
): Promise<MixedLoadReport> {
  await requireWrk();
  const dataDir = await Deno.makeTempDir({ prefix: "rcs-load-" });
  const logDir = await Deno.makeTempDir({ prefix: "rcs-load-log-" });
  const service = await startServiceProcess({ SERVICE_DATA_DIR: dataDir });
  let stopped = false;
  const stop = async () => {
    if (!stopped) await service.stop();
    stopped = true;
  };
  try {
    await inParallel([...Array(options.seeded).keys()], 8, async (i) => {
      const uri = `${ITEM_BASE}seed-${i}`;
      const response = await fetch(`${service.url}/api/item?${itemQuery(uri)}`, {
        method: "PUT",
        headers: { "Content-Type": "application/n-triples" },
        body: loadItem(uri, "seed", i),
      });
      if (response.status !== 201) throw new Error(`seeding ${uri}: ${await response.text()}`);
      await response.body?.cancel();
    });
    const wrk = await runWrk(service.url, logDir, options);
    const check = await verify(service.url, dataDir, logDir, options, stop);
    const fiveHundreds = Object.entries(wrk.counts)
      .filter(([key]) => key.split(" ")[1].startsWith("5"))
      .reduce((sum, [, n]) => sum + n, 0);
    const socketErrors = wrk.errors.connect + wrk.errors.read + wrk.errors.write +
      wrk.errors.timeout;
    const problems = [
      fiveHundreds ? `${fiveHundreds} responses with a 5xx status` : "",
      socketErrors ? `${socketErrors} socket errors or timeouts` : "",
      ...check.acknowledgedMissing.map((uri) => `acknowledged write missing: ${uri}`),
      ...check.staleItems.map((text) => `stale item ${text}`),
      check.presentByGet !== check.expectedItems
        ? `${check.presentByGet} items present, ${check.expectedItems} expected`
        : "",
      check.sqliteItems !== check.expectedItems
        ? `${check.sqliteItems} rows in SQLite, ${check.expectedItems} expected`
        : "",
      ...check.unexpectedInSqlite.map((uri) => `SQLite holds an item never written: ${uri}`),
    ].filter(Boolean);
    let markdown = formatReport(wrk, check, options);
    if (problems.length) markdown += `\n\nFAILED:\n- ${problems.slice(0, 20).join("\n- ")}`;
    return { markdown, ok: problems.length === 0 };
  } finally {
    await stop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    await Deno.remove(logDir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  const seconds = Deno.args[0];
  if (seconds) Deno.env.set("LOAD_SECONDS", seconds);
  const report = await benchMixedLoad();
  console.log(report.markdown);
  if (!report.ok) Deno.exit(1);
}
