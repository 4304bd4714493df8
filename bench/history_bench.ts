/**
 * Item history's cost (issue 41), a micro-measure: encoding a 50-triple version (N-Triples,
 * deflated: `store/version_content.ts`), which the embedded store does inside each write's
 * transaction, and the file's growth per version of one 50-triple item.
 *
 * `deno run -A bench/history_bench.ts`; prints markdown lines for bench/RESULTS.md.
 */
import { join } from "node:path";
import { DataFactory, type Quad } from "n3";
import { encodeVersionContent } from "../src/store/version_content.ts";
import { openLocalDatabase } from "../src/local_database.ts";
import { LOCAL_DB_FILE } from "../src/sqlite/local_db.ts";
import { EmbeddedTripleStore } from "../src/store_embedded/embedded_triple_store.ts";
import { GROUP_COMMIT } from "../tests/support/config_defaults.ts";

const { namedNode, literal, quad } = DataFactory;
const ITEM = "https://data.example.org/id/bench/history";
const COLLECTION = "https://data.example.org/collection/documents";

const WORDS = ("the of and a to in is was for on as with by at from an be this which or are " +
  "river archive letter museum collection record map city harbour survey painting register " +
  "council photograph manuscript deed parish bridge mill estate station church school")
  .split(" ");

/** Deterministic pseudo-random text: literals that compress as prose does, not as repeats. */
function prose(seed: number, words: number): string {
  let x = (seed * 2654435761) % 4294967296;
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(WORDS[x % WORDS.length]);
  }
  return out.join(" ");
}

/** A 50-triple graph of one item; a fifth of its literals change per version, as edits do. */
export function fiftyTriples(version: number): Quad[] {
  const quads = [
    quad(namedNode(ITEM), namedNode("http://purl.org/dc/terms/title"), literal(`v${version}`)),
  ];
  for (let i = 1; i < 50; i++) {
    const edited = i % 5 === 0 ? version : 0;
    quads.push(quad(
      namedNode(ITEM),
      namedNode(`https://example.org/vocab/p${i}`),
      literal(prose(i * 1000 + edited, 12), "en"),
    ));
  }
  return quads;
}

function ntriplesBytes(quads: Quad[]): number {
  const lines = quads.map((q) =>
    `<${q.subject.value}> <${q.predicate.value}> "${q.object.value}"@en .\n`
  );
  return new TextEncoder().encode(lines.join("")).length;
}

/** Microseconds per encode, and the compressed size. */
function measureEncode(runs = 5_000): { microseconds: number; bytes: number; raw: number } {
  const graphs = Array.from({ length: 100 }, (_, i) => fiftyTriples(i));
  for (let i = 0; i < 500; i++) encodeVersionContent(graphs[i % 100]); // warm up
  const start = performance.now();
  let bytes = 0;
  for (let i = 0; i < runs; i++) bytes += encodeVersionContent(graphs[i % 100]).length;
  const elapsed = performance.now() - start;
  return {
    microseconds: (elapsed * 1000) / runs,
    bytes: bytes / runs,
    raw: ntriplesBytes(graphs[0]),
  };
}

/**
 * Per version of one 50-triple item written `versions` times: the history table's pages
 * (rows, compressed graphs and the key index, by dbstat) and the compressed graph alone.
 */
async function measureGrowth(
  versions = 1_000,
): Promise<{ pages: number; content: number; listMs: number }> {
  const dir = await Deno.makeTempDir({ prefix: "rcs-history-bench-" });
  try {
    const db = openLocalDatabase(dir);
    const store = new EmbeddedTripleStore(db, join(dir, LOCAL_DB_FILE), GROUP_COMMIT);
    for (let v = 1; v <= versions; v++) {
      const write = { collection: COLLECTION, uri: ITEM, quads: fiftyTriples(v), hash: `h${v}` };
      await (v === 1 ? store.createItem(write) : store.replaceItem(write));
    }
    const pages = db.prepare(
      "SELECT sum(pgsize) AS n FROM dbstat WHERE name LIKE '%item_versions%'",
    ).get() as { n: number };
    const content = db.prepare("SELECT avg(length(content)) AS n FROM item_versions")
      .get() as { n: number };
    // Listing all 1,000 versions, as the history route's largest page does: the median of 21.
    const times: number[] = [];
    for (let i = 0; i < 21; i++) {
      const start = performance.now();
      const listed = await store.history.list(COLLECTION, ITEM, { limit: 1_000 });
      times.push(performance.now() - start);
      if (listed.length !== 1_000) throw new Error(`listed ${listed.length}`);
    }
    const listMs = times.sort((a, b) => a - b)[10];
    await store.close();
    db.close();
    return { pages: pages.n / versions, content: content.n, listMs };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const encode = measureEncode();
  const growth = await measureGrowth();
  console.log("| measure | value |");
  console.log("|---|---|");
  console.log(
    `| encode a 50-triple version (N-Triples + deflateRawSync) | ${
      encode.microseconds.toFixed(1)
    } µs |`,
  );
  console.log(`| its N-Triples → compressed | ${encode.raw} B → ${encode.bytes.toFixed(0)} B |`);
  console.log(
    `| history pages per version (1,000 versions of one item) | ${growth.pages.toFixed(0)} B ` +
      `(compressed graph ${growth.content.toFixed(0)} B) |`,
  );
  console.log(
    `| list 1,000 versions of one item (store, median) | ${growth.listMs.toFixed(1)} ms |`,
  );
}
