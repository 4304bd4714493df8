/**
 * Access per collection at scale (docs/SECURITY.md): the embedded default with `--items`
 * generated items (`lib/scale_data.ts`, 50 triples each) spread over four collections, a
 * partner token granted the first of them only, and the admin token. Each query is sent by
 * both, interleaved, and the partner's p50 is reported as a ratio of the admin's: the search
 * classes of the scale bench on the granted collection, and through `/sparql` `COUNT(*)`
 * over the default graph and over `GRAPH ?g`, and a one-subject query. The goal (issue "Who
 * may see what"): ≤ 1.2× for search and `/sparql`, the restriction riding the indexes.
 *
 * The data directory is built once and kept (`bench/data/access-<items>/`): the build imports
 * one TriG file per collection through the CLI and waits for the outbox to drain.
 *
 *   deno run -A bench/access_bench.ts --items 250000 [--repeats 30] [--build-only]
 */
import { parseArgs } from "node:util";
import { startServiceProcess } from "../tests/support/process.ts";
import { percentiles } from "./search_scale_bench.ts";
import {
  ntTerm,
  scaleItem,
  scaleItemUri,
  type ScaleQueries,
  WordFrequencies,
} from "./lib/scale_data.ts";

const CLI = new URL("../src/bulk/cli.ts", import.meta.url).pathname;
const ADMIN = "bench-admin-token-0123456789";
const PARTNER = "bench-partner-token-0123456789";
const COLLECTIONS = 4;
const collectionUri = (k: number) => `https://data.example.org/collection/access-${k}`;

function customerYml(): string {
  const collections = Array.from(
    { length: COLLECTIONS },
    (_, k) =>
      `      - uri: ${collectionUri(k)}
        name: Part ${k}
        index: access-${k}
        access:
          readers: [${k === 0 ? "token:partner" : ""}]
`,
  ).join("");
  return `service:
  http:
    host: 127.0.0.1
    port: \${SERVICE_HTTP_PORT}
  data:
    dir: \${SERVICE_DATA_DIR}
  security:
    tokens:
      - { name: admin, token: "${ADMIN}", role: admin }
      - { name: partner, token: "${PARTNER}", role: reader }
workspaces:
  - uri: https://data.example.org/workspace/access
    name: Access bench
    collections:
${collections}`;
}

/** One TriG file per collection (item n goes to collection n mod 4); the granted one's words. */
async function writeFiles(dir: string, items: number): Promise<ScaleQueries> {
  const encoder = new TextEncoder();
  const writers = await Promise.all(
    Array.from({ length: COLLECTIONS }, async (_, k) => {
      const file = await Deno.open(`${dir}/part-${k}.trig`, {
        write: true,
        create: true,
        truncate: true,
      });
      return file.writable.getWriter();
    }),
  );
  const batches = Array.from({ length: COLLECTIONS }, () => "");
  const granted = new WordFrequencies();
  for (let n = 0; n < items; n++) {
    const k = n % COLLECTIONS;
    const item = scaleItem(n);
    if (k === 0) granted.add(item.words);
    let text = `<${item.uri}> {\n`;
    for (const quad of item.quads) {
      text += `${ntTerm(quad.subject)} <${quad.predicate.value}> ${ntTerm(quad.object)} .\n`;
    }
    batches[k] += `${text}}\n`;
    if (batches[k].length > 1 << 20) {
      await writers[k].write(encoder.encode(batches[k]));
      batches[k] = "";
    }
  }
  for (let k = 0; k < COLLECTIONS; k++) {
    await writers[k].write(encoder.encode(batches[k]));
    await writers[k].close();
  }
  return granted.queries();
}

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));

async function outboxEmpty(url: string): Promise<void> {
  while (true) {
    const response = await fetch(`${url}/ready`, { headers: { Authorization: `Bearer ${ADMIN}` } });
    const body = await response.json();
    if (body.checks?.outbox?.detail === 0) return;
    await sleep(1000);
  }
}

async function start(dir: string) {
  const config = `${dir}/customer.yml`;
  await Deno.writeTextFile(config, customerYml());
  return await startServiceProcess(
    { CUSTOMER_YML: config, SERVICE_DATA_DIR: `${dir}/data`, LOG_LEVEL: "warn" },
    { timeoutMs: 600_000 },
  );
}

async function build(dir: string, items: number): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  console.error(`# writing ${items} items into ${COLLECTIONS} TriG files`);
  const queries = await writeFiles(dir, items);
  const service = await start(dir);
  try {
    for (let k = 0; k < COLLECTIONS; k++) {
      const started = performance.now();
      const output = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          CLI,
          "import",
          `${dir}/part-${k}.trig`,
          "--collection",
          collectionUri(k),
          "--url",
          service.url,
          "--token",
          ADMIN,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      if (!output.success) {
        throw new Error(`import failed: ${new TextDecoder().decode(output.stderr).slice(-2000)}`);
      }
      console.error(
        `# part ${k} imported in ${((performance.now() - started) / 1000).toFixed(0)} s`,
      );
    }
    await outboxEmpty(service.url);
  } finally {
    await service.stop();
  }
  for (let k = 0; k < COLLECTIONS; k++) await Deno.remove(`${dir}/part-${k}.trig`);
  await Deno.writeTextFile(`${dir}/queries.json`, JSON.stringify(queries));
  await Deno.writeTextFile(`${dir}/built`, String(items));
}

/** One timed GET; milliseconds. */
async function timed(url: string, token: string, accept: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, {
    headers: { Authorization: `Bearer ${token}`, Accept: accept },
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
  return performance.now() - started;
}

/** p50 of the admin's and the partner's runs of `url`, interleaved (one warm-up each). */
async function compare(url: string, repeats: number, accept = "application/json") {
  const admin: number[] = [];
  const partner: number[] = [];
  await timed(url, ADMIN, accept);
  await timed(url, PARTNER, accept);
  for (let n = 0; n < repeats; n++) {
    admin.push(await timed(url, ADMIN, accept));
    partner.push(await timed(url, PARTNER, accept));
  }
  return { admin: percentiles(admin).p50, partner: percentiles(partner).p50 };
}

const RESULTS = "application/sparql-results+json";
const ms = (value: number) => value < 10 ? value.toFixed(1) : value.toFixed(0);

export async function benchAccess(args: string[]): Promise<string> {
  const { values } = parseArgs({
    args,
    options: {
      items: { type: "string", default: "250000" },
      repeats: { type: "string", default: "30" },
      "build-only": { type: "boolean", default: false },
    },
  });
  const items = Number(values.items);
  const repeats = Number(values.repeats);
  const dir = new URL(`./data/access-${items}`, import.meta.url).pathname;
  const built = await Deno.readTextFile(`${dir}/built`).then(() => true, () => false);
  if (!built) await build(dir, items);
  if (values["build-only"]) return `built ${dir}`;
  const queries: ScaleQueries = JSON.parse(await Deno.readTextFile(`${dir}/queries.json`));
  const service = await start(dir);
  const rows: string[] = [
    `| query (${
      items.toLocaleString("en")
    } items in ${COLLECTIONS} collections; the partner reads one) | admin p50 | partner p50 | partner / admin |`,
    "| --- | --- | --- | --- |",
  ];
  const row = (label: string, result: { admin: number; partner: number }) => {
    const line = `| ${label} | ${ms(result.admin)} ms | ${ms(result.partner)} ms | ${
      (result.partner / result.admin).toFixed(2)
    }× |`;
    console.error(`# ${line}`);
    rows.push(line);
  };
  try {
    const c = encodeURIComponent(collectionUri(0));
    const q = (word: string) => `q=${encodeURIComponent(word)}`;
    const searches: [string, string][] = [
      ["search, a common word", q(queries.common)],
      ["search, a common word + `facet=types`", `${q(queries.common)}&facet=types`],
      ["search, two words", q(queries.twoWords)],
      ["search, a rare word", q(queries.rare)],
      ["search, a type filter only", `filter=${encodeURIComponent(`types:${queries.type}`)}`],
    ];
    for (const [label, query] of searches) {
      row(label, await compare(`${service.url}/api/search?collection=${c}&${query}`, repeats));
    }
    const sparql = (query: string) => `${service.url}/sparql?query=${encodeURIComponent(query)}`;
    const subject = scaleItemUri(4 * 1234); // an item of the granted collection
    const other = scaleItemUri(4 * 1234 + 1); // one of a collection the partner may not read
    const sparqlRepeats = Math.max(5, Math.round(repeats / 3));
    row(
      "`/sparql` `COUNT(*)`, default graph",
      await compare(sparql("SELECT (COUNT(*) AS ?n) { ?s ?p ?o }"), sparqlRepeats, RESULTS),
    );
    row(
      "`/sparql` `COUNT(*)`, `GRAPH ?g`",
      await compare(
        sparql("SELECT (COUNT(*) AS ?n) { GRAPH ?g { ?s ?p ?o } }"),
        sparqlRepeats,
        RESULTS,
      ),
    );
    // Unselective patterns: the scope is checked per row found (an index seek each).
    row(
      "`/sparql` `COUNT(*)` of one predicate's triples (`?s a ?type`)",
      await compare(
        sparql("SELECT (COUNT(*) AS ?n) { ?s a ?type }"),
        sparqlRepeats,
        RESULTS,
      ),
    );
    row(
      "`/sparql` items of one class with their titles (2-pattern join, `LIMIT 100`)",
      await compare(
        sparql(
          `SELECT ?s ?t { ?s a <${queries.type}> ; <http://purl.org/dc/terms/title> ?t } LIMIT 100`,
        ),
        repeats,
        RESULTS,
      ),
    );
    row(
      "`/sparql` one subject (the partner's collection)",
      await compare(sparql(`SELECT ?p ?o { <${subject}> ?p ?o }`), repeats, RESULTS),
    );
    row(
      "`/sparql` one subject (another collection: 0 rows for the partner)",
      await compare(sparql(`SELECT ?p ?o { <${other}> ?p ?o }`), repeats, RESULTS),
    );
  } finally {
    await service.stop();
  }
  return rows.join("\n");
}

if (import.meta.main) console.log(await benchAccess(Deno.args));
