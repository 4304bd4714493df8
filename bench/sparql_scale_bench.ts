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
 *   a typed join (compiled), the one-subject query with a FILTER and the typed join with an
 *   ORDER BY (both answered by the fallback on the embedded store);
 * - the service's RSS after the COUNT and compiled queries, and after all of them (and its peak).
 *
 *   deno run -A bench/sparql_scale_bench.ts --items 250000 --dir /tmp/scale-250k
 *
 * `--fuseki`: the same items also in Fuseki TDB2 (N-Quads written once, `tdb2.tdbloader`, a
 * Fuseki of its own on a free port with the union default graph), the same queries measured.
 *
 * The file is generated once per `--dir` and reused (`--bulk`: see {@link generateBulk}). `--src <tree>` runs another checkout
 * of the service (its store writes the file and its `src/main.ts` serves it): the "before"
 * column of bench/RESULTS.md was measured from the commit before the quad tables.
 */
import { parseArgs } from "node:util";
import { join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { DataFactory } from "n3";
import type { Quad } from "n3";

const args = parseArgs({
  // Lenient: other benches import the item generator.
  strict: false,
  options: {
    items: { type: "string", default: "20000" },
    dir: { type: "string" },
    src: { type: "string", default: new URL("..", import.meta.url).pathname },
    rounds: { type: "string", default: "20" },
    bulk: { type: "boolean", default: false },
    fuseki: { type: "boolean", default: false },
  },
}).values;
const ITEMS = Number(args.items);
const DIR = resolve(String(args.dir ?? `/tmp/rcs-sparql-scale-${ITEMS}`));
const SRC = resolve(String(args.src));
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
  const { EmbeddedTripleStore } = await import(
    `${SRC}/src/store_embedded/embedded_triple_store.ts`
  );
  const db = openLocalDatabase(DIR);
  // The tree's own defaults (older trees take them as an optional third argument).
  const { configSchema } = await import(`${SRC}/src/config/schema.ts`);
  const groupCommit = configSchema.parse({}).service.store.groupCommit;
  const store = EmbeddedTripleStore.open(db, join(DIR, DB_FILE), groupCommit);
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

/**
 * `--bulk`: the same items written straight into the quad tables (this tree's layout only),
 * the secondary indexes built after the rows: minutes instead of an hour at 250k items on a
 * busy 2-core machine. Indexes built at once are packed tighter than ones grown by inserts,
 * so the store's bytes come out lower than the store API's (compare a run without --bulk).
 */
async function generateBulk(): Promise<number> {
  await Deno.mkdir(DIR, { recursive: true });
  const { openLocalDatabase } = await import("../src/local_database.ts");
  const { encodeTerm } = await import("../src/store_embedded/term_ids.ts");
  const { termHash } = await import("../src/store_embedded/term_dictionary.ts");
  const db = openLocalDatabase(DIR);
  const started = performance.now();
  db.exec(`DROP INDEX quads_spo; DROP INDEX quads_pos; DROP INDEX quads_osp;
    DROP INDEX terms_by_hash; PRAGMA cache_size = -262144`);
  const ids = new Map<string, number>();
  const insertTerm = db.prepare("INSERT INTO terms (id, hash, term) VALUES (?, ?, ?)");
  const insertItem = db.prepare(
    `INSERT INTO items (id, collection, uri, hash, triple_count, created, modified, graph)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertQuad = db.prepare("INSERT OR IGNORE INTO quads (g, s, p, o) VALUES (?, ?, ?, ?)");
  const idOf = (text: string) => {
    let id = ids.get(text);
    if (id === undefined) {
      ids.set(text, id = ids.size + 1);
      insertTerm.run(id, termHash(text), text);
    }
    return id;
  };
  const now = new Date().toISOString();
  db.exec("BEGIN");
  for (let n = 0; n < ITEMS; n++) {
    const itemId = n + 1;
    const quads = scaleItem(n);
    const graph = idOf(itemUri(n));
    insertItem.run(itemId, COLLECTION, itemUri(n), `h${n}`, quads.length, now, now, graph);
    const rows = quads.map((q) =>
      [q.subject, q.predicate, q.object].map((term) => idOf(encodeTerm(term, itemId)))
    ).sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
    for (const [s, p, o] of rows) insertQuad.run(graph, s, p, o);
    if (n % 10_000 === 9_999) {
      db.exec("COMMIT; BEGIN");
      console.error(`generated ${n + 1} items`);
    }
  }
  db.exec("COMMIT");
  console.error("building the indexes");
  db.exec(`CREATE INDEX terms_by_hash ON terms(hash);
    CREATE INDEX quads_spo ON quads(s, p, o);
    CREATE INDEX quads_pos ON quads(p, o, s);
    CREATE INDEX quads_osp ON quads(o, s, p);`);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  return (performance.now() - started) / 1000;
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

async function sparql(endpoint: string, query: string): Promise<{ ms: number; body: string }> {
  const started = performance.now();
  const response = await fetch(endpoint, {
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
    return { healthMs, ...await measureQueryRounds(`${url}/sparql`, child.pid) };
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
}

/** The queries at `endpoint` (a SPARQL 1.1 query URL), the first one right after a start. */
async function measureQueryRounds(endpoint: string, pid: number) {
  const subject = itemUri(Math.floor(ITEMS / 2));
  const oneSubject = `SELECT * WHERE { GRAPH ?g { <${subject}> ?p ?o } }`;
  const count = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }";
  const typed = `SELECT ?s ?title WHERE { ?s a <${EX}Class3> ; <${DCT}title> ?title } LIMIT 10`;
  // Outside the compiled fragment on the embedded store (FILTER, ORDER BY): the fallback.
  const filtered = `SELECT ?p ?o WHERE { <${subject}> ?p ?o FILTER(isLiteral(?o)) }`;
  const ordered = `SELECT ?s ?title WHERE { ?s a <${EX}Class3> ; <${DCT}title> ?title }
    ORDER BY ?title LIMIT 10`;
  const first = await sparql(endpoint, oneSubject);
  const counted = await sparql(endpoint, count);
  const n = JSON.parse(counted.body).results.bindings[0].n.value;
  const countMs: number[] = [counted.ms];
  const subjectMs: number[] = [];
  const typedMs: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    subjectMs.push((await sparql(endpoint, oneSubject)).ms);
    typedMs.push((await sparql(endpoint, typed)).ms);
  }
  for (let i = 1; i < Math.min(ROUNDS, 5); i++) countMs.push((await sparql(endpoint, count)).ms);
  const afterCount = rss(pid);
  const filteredMs: number[] = [];
  for (let i = 0; i < ROUNDS; i++) filteredMs.push((await sparql(endpoint, filtered)).ms);
  // Once: on the embedded store it loads ~1.1 quads per item into the fallback engine.
  const orderedAnswer = await sparql(endpoint, ordered).then(
    (answer) => `${Math.round(answer.ms)} ms`,
    (error: Error) => error.message.slice(0, 60),
  );
  // A worker grown by a broad fallback query is replaced once idle: give it a moment.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const memory = rss(pid);
  return {
    firstQueryMs: first.ms,
    countFirstMs: counted.ms,
    count: n,
    countP50: percentile(countMs, 0.5),
    oneSubjectP50: percentile(subjectMs, 0.5),
    oneSubjectP99: percentile(subjectMs, 0.99),
    typedJoinP50: percentile(typedMs, 0.5),
    filteredOneSubjectP50: percentile(filteredMs, 0.5),
    orderedTypedJoin: orderedAnswer,
    rssAfterCountMB: Math.round(afterCount.rss / 2 ** 20),
    rssMB: Math.round(memory.rss / 2 ** 20),
    peakRssMB: Math.round(memory.peak / 2 ** 20),
  };
}

/** The items as N-Quads, blank nodes scoped to their item (one file, one node per item). */
async function writeNQuads(path: string): Promise<void> {
  const { Writer } = await import("n3");
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const encoder = new TextEncoder();
  try {
    let chunk: Quad[] = [];
    for (let n = 0; n < ITEMS; n++) {
      const graph = namedNode(itemUri(n));
      const scoped = (term: Quad["subject"] | Quad["object"]) =>
        term.termType === "BlankNode" ? blankNode(`i${n}_${term.value}`) : term;
      for (const q of scaleItem(n)) {
        chunk.push(
          quad(scoped(q.subject) as Quad["subject"], q.predicate, scoped(q.object), graph),
        );
      }
      if (chunk.length >= 50_000 || n === ITEMS - 1) {
        await file.write(encoder.encode(new Writer({ format: "N-Quads" }).quadsToString(chunk)));
        chunk = [];
      }
    }
  } finally {
    file.close();
  }
}

/** Fuseki TDB2 over the same items: loaded once into `DIR/fuseki`, started, measured, stopped. */
async function measureFuseki() {
  const base = join(DIR, "fuseki");
  const tdb2 = join(base, "tdb2");
  const jar = join(
    Deno.env.get("HOME") ?? "/tmp",
    ".cache/rdf-content-service/fuseki/jena-fuseki-server-5.6.0.jar",
  );
  await Deno.mkdir(base, { recursive: true });
  let loadSeconds: number | undefined;
  if (!exists(tdb2)) {
    const nquads = join(base, "items.nq");
    if (!exists(nquads)) await writeNQuads(nquads);
    const started = performance.now();
    const load = await new Deno.Command("java", {
      args: ["-Xmx2g", "-cp", jar, "tdb2.tdbloader", `--loc=${tdb2}`, nquads],
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (!load.success) throw new Error("tdb2.tdbloader failed");
    loadSeconds = (performance.now() - started) / 1000;
    await Deno.remove(nquads);
  }
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const env = {
    FUSEKI_PORT: String(port),
    FUSEKI_TDB2_DIR: tdb2,
    FUSEKI_UNION_DEFAULT_GRAPH: "true",
    FUSEKI_HEAP: "2g",
    FUSEKI_RUN_DIR: join(base, "run"),
  };
  const script = new URL("../scripts/fuseki.sh", import.meta.url).pathname;
  const run = async (command: string) => {
    const result = await new Deno.Command(script, { args: [command], env, stderr: "inherit" })
      .output();
    if (!result.success) throw new Error(`fuseki.sh ${command} failed`);
  };
  const started = performance.now();
  await run("start");
  try {
    const startMs = performance.now() - started;
    const pid = Number(Deno.readTextFileSync(join(base, "run", "fuseki.pid")).trim());
    const url = `http://127.0.0.1:${port}/ds/query`;
    return { loadSeconds, startMs, ...await measureQueryRounds(url, pid) };
  } finally {
    await run("stop");
  }
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

if (import.meta.main) {
  let generatedSeconds: number | undefined;
  try {
    Deno.statSync(join(DIR, DB_FILE));
  } catch {
    generatedSeconds = args.bulk ? await generateBulk() : await generate();
  }
  const size = sizes();
  const triples = ITEMS * 50;
  const store = ["terms", "terms_by_hash", "quads", "quads_spo", "quads_pos", "quads_osp"]
    .concat(["triples", "triples_by_item", "items", "sqlite_autoindex_items_1"])
    .concat(["items_by_collection"]);
  const storeBytes = store.reduce((sum, name) => sum + (size.objects[name] ?? 0), 0);
  const queries = await measureQueries();
  const fuseki = args.fuseki ? await measureFuseki() : undefined;
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
      fuseki,
    },
    null,
    2,
  ));
}
