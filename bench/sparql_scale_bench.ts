/**
 * SPARQL on the embedded store at scale: generated 50-triple items of a realistic shape
 * (10 classes, Zipf-distributed words from a 5,000-word vocabulary in titles and
 * descriptions, language-tagged labels, dates, links to 1,000 shared concepts, a blank-node
 * creator) written straight into the store's API, then the service started over that file:
 *
 * - the file: size, and each table's and index's bytes (SQLite's dbstat), per triple (the
 *   outbox is emptied after the generation: search indexing is not measured here);
 * - the first query after a start (the service just answered /health);
 * - `COUNT(*)` over every graph and a one-subject query: p50 and p99 of `--rounds` runs;
 * - the service's RSS after them (and its peak).
 *
 *   deno run -A bench/sparql_scale_bench.ts --items 250000 --dir /tmp/scale-250k
 *
 * The file is generated once per `--dir` and reused. `--src <tree>` runs another checkout
 * of the service (its store writes the file and its `src/main.ts` serves it): the "before"
 * column of bench/RESULTS.md was measured from the commit before the quad tables.
 */
import { parseArgs } from "node:util";
import { join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { DataFactory } from "n3";
import type { Quad } from "n3";

const args = parseArgs({
  options: {
    items: { type: "string", default: "20000" },
    dir: { type: "string" },
    src: { type: "string", default: new URL("..", import.meta.url).pathname },
    rounds: { type: "string", default: "20" },
  },
}).values;
const ITEMS = Number(args.items);
const DIR = resolve(args.dir ?? `/tmp/rcs-sparql-scale-${ITEMS}`);
const SRC = resolve(args.src!);
const ROUNDS = Number(args.rounds);
const COLLECTION = "https://data.example.org/collection/documents";
const DB_FILE = "rdf-content-service.db";

const { namedNode, literal, blankNode, quad } = DataFactory;
const RDF_TYPE = namedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type");
const DCT = "http://purl.org/dc/terms/";
const EX = "https://data.example.org/vocab/";
const XSD = "http://www.w3.org/2001/XMLSchema#";

/** A deterministic generator (mulberry32), so every run writes the same items. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VOCABULARY = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}x${(i * 7919) % 97}`);
/** Cumulative Zipf weights (s = 1) over the vocabulary. */
const ZIPF = (() => {
  const weights = VOCABULARY.map((_, i) => 1 / (i + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  let sum = 0;
  return weights.map((w) => sum += w / total);
})();

function words(next: () => number, count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const r = next();
    let lo = 0;
    let hi = ZIPF.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ZIPF[mid] < r) lo = mid + 1;
      else hi = mid;
    }
    out.push(VOCABULARY[lo]);
  }
  return out.join(" ");
}

/** Item `n`'s URI. */
export function itemUri(n: number): string {
  return `https://data.example.org/id/scale/${n}`;
}

/** Item `n`: 50 triples. */
export function scaleItem(n: number): Quad[] {
  const next = random(n + 1);
  const s = namedNode(itemUri(n));
  const quads: Quad[] = [
    quad(s, RDF_TYPE, namedNode(`${EX}Class${n % 10}`)),
    quad(s, namedNode(`${DCT}title`), literal(words(next, 6), "en")),
    quad(s, namedNode(`${DCT}description`), literal(words(next, 30), "en")),
    quad(s, namedNode("http://www.w3.org/2000/01/rdf-schema#label"), literal(words(next, 3), "de")),
    quad(s, namedNode("http://www.w3.org/2000/01/rdf-schema#label"), literal(words(next, 3), "fr")),
    quad(
      s,
      namedNode(`${DCT}created`),
      literal(`20${10 + (n % 15)}-0${1 + (n % 9)}-1${n % 10}`, namedNode(`${XSD}date`)),
    ),
    quad(s, namedNode(`${DCT}identifier`), literal(`ID-${n}`)),
  ];
  const creator = blankNode("creator");
  quads.push(quad(s, namedNode(`${DCT}creator`), creator));
  quads.push(quad(creator, namedNode("http://xmlns.com/foaf/0.1/name"), literal(words(next, 2))));
  for (let i = 0; quads.length < 20; i++) {
    quads.push(
      quad(s, namedNode(`${DCT}subject`), namedNode(`${EX}concept/${Math.floor(next() * 1000)}`)),
    );
  }
  for (let i = 0; quads.length < 50; i++) {
    quads.push(
      i % 2 ? quad(s, namedNode(`${EX}field${i}`), literal(words(next, 2), "en")) : quad(
        s,
        namedNode(`${EX}count${i}`),
        literal(String(Math.floor(next() * 1000)), namedNode(`${XSD}integer`)),
      ),
    );
  }
  return quads;
}

/** Writes the items through the store's API of the tree `SRC`, in concurrent groups. */
async function generate(): Promise<number> {
  await Deno.mkdir(DIR, { recursive: true });
  const { openLocalDatabase } = await import(`${SRC}/src/local_database.ts`);
  const { EmbeddedTripleStore } = await import(`${SRC}/src/store/sqlite/sqlite_store.ts`);
  const db = openLocalDatabase(DIR);
  const store = EmbeddedTripleStore.open(db, join(DIR, DB_FILE));
  const started = performance.now();
  const inFlight = 256;
  for (let start = 0; start < ITEMS; start += inFlight) {
    const writes = [];
    for (let n = start; n < Math.min(ITEMS, start + inFlight); n++) {
      writes.push(store.createItem({
        collection: COLLECTION,
        uri: itemUri(n),
        quads: scaleItem(n),
        hash: `h${n}`,
      }));
    }
    await Promise.all(writes);
    if (start % 20_000 === 0) console.error(`generated ${start} items`);
  }
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  // Search indexing is not measured here: the service must not start by indexing every item.
  db.exec("DELETE FROM index_outbox");
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  return seconds;
}

/** The file's bytes and each table's and index's bytes (dbstat). */
function sizes(): { file: number; objects: Record<string, number> } {
  const db = new DatabaseSync(join(DIR, DB_FILE));
  const objects: Record<string, number> = {};
  try {
    const rows = db.prepare(
      "SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC",
    ).all() as { name: string; bytes: number }[];
    for (const row of rows) objects[row.name] = row.bytes;
  } catch (error) {
    console.error(`dbstat not available: ${(error as Error).message}`);
  } finally {
    db.close();
  }
  return { file: Deno.statSync(join(DIR, DB_FILE)).size, objects };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

async function sparql(url: string, query: string): Promise<{ ms: number; body: string }> {
  const started = performance.now();
  const response = await fetch(`${url}/sparql`, {
    method: "POST",
    headers: {
      "Content-Type": "application/sparql-query",
      Accept: "application/sparql-results+json",
    },
    body: query,
  });
  const body = await response.text();
  const ms = performance.now() - started;
  if (!response.ok) throw new Error(`${response.status} after ${Math.round(ms)} ms: ${body}`);
  return { ms, body };
}

function rss(pid: number): { rss: number; peak: number } {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = (name: string) => Number(status.match(new RegExp(`^${name}:\\s+(\\d+) kB`, "m"))![1]);
  return { rss: kb("VmRSS") * 1024, peak: kb("VmHWM") * 1024 };
}

/** Starts `SRC`'s service over `DIR` and measures the queries. */
async function measureQueries() {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const url = `http://127.0.0.1:${port}`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--v8-flags=--max-old-space-size=1024", `${SRC}/src/main.ts`],
    cwd: SRC,
    env: {
      LOG_LEVEL: "warn",
      SERVICE_HTTP_PORT: String(port),
      SERVICE_DATA_DIR: DIR,
    },
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const started = performance.now();
  try {
    while (true) {
      try {
        const response = await fetch(`${url}/health`);
        await response.body?.cancel();
        if (response.ok) break;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const healthMs = performance.now() - started;
    const subject = itemUri(Math.floor(ITEMS / 2));
    const oneSubject = `SELECT * WHERE { GRAPH ?g { <${subject}> ?p ?o } }`;
    const count = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }";
    const typed = `SELECT ?s ?title WHERE { ?s a <${EX}Class3> ; <${DCT}title> ?title } LIMIT 10`;
    const first = await sparql(url, oneSubject);
    const counted = await sparql(url, count);
    const n = JSON.parse(counted.body).results.bindings[0].n.value;
    const countMs: number[] = [counted.ms];
    const subjectMs: number[] = [];
    const typedMs: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      subjectMs.push((await sparql(url, oneSubject)).ms);
      typedMs.push((await sparql(url, typed)).ms);
    }
    for (let i = 1; i < Math.min(ROUNDS, 5); i++) countMs.push((await sparql(url, count)).ms);
    const memory = rss(child.pid);
    return {
      healthMs,
      firstQueryMs: first.ms,
      countFirstMs: counted.ms,
      count: n,
      countP50: percentile(countMs, 0.5),
      oneSubjectP50: percentile(subjectMs, 0.5),
      oneSubjectP99: percentile(subjectMs, 0.99),
      typedJoinP50: percentile(typedMs, 0.5),
      rssMB: Math.round(memory.rss / 2 ** 20),
      peakRssMB: Math.round(memory.peak / 2 ** 20),
    };
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
}

if (import.meta.main) {
  let generatedSeconds: number | undefined;
  try {
    Deno.statSync(join(DIR, DB_FILE));
  } catch {
    generatedSeconds = await generate();
  }
  const size = sizes();
  const triples = ITEMS * 50;
  const store = ["terms", "terms_by_hash", "quads", "quads_spo", "quads_pos", "quads_osp"]
    .concat(["triples", "triples_by_item", "items", "sqlite_autoindex_items_1"])
    .concat(["items_by_collection"]);
  const storeBytes = store.reduce((sum, name) => sum + (size.objects[name] ?? 0), 0);
  const queries = await measureQueries();
  console.log(JSON.stringify(
    {
      items: ITEMS,
      src: SRC,
      generatedSeconds,
      fileMB: Math.round(size.file / 2 ** 20),
      storeMB: Math.round(storeBytes / 2 ** 20),
      storeBytesPerTriple: Math.round(storeBytes / triples),
      objectsMB: Object.fromEntries(
        Object.entries(size.objects).map(([name, bytes]) => [name, Math.round(bytes / 2 ** 20)]),
      ),
      ...queries,
    },
    null,
    2,
  ));
}
