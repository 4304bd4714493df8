/**
 * The fair anchor of an indexed write (issue 44, point 1): the embedded default's `PUT` of a
 * new item stores it and indexes it for search, so it is set beside Fuseki with a full-text
 * index of its own, taking the same items by Graph Store `PUT`: a jena-text dataset (TDB2 on
 * disk, a Lucene index on disk over every literal predicate of the item) from a configuration
 * file this bench writes, on a private Fuseki (`scripts/fuseki.sh` with `FUSEKI_CONFIG`, its
 * own port). Fuseki's plain Graph Store `PUT` (`bench/sparql_bench.ts`) indexes nothing; it
 * runs here too, on TDB2 alone, for reference, and the text dataset once more with both the
 * dataset and the index in memory (what `--mem` users have; nothing survives a restart).
 *
 * Each side: `PUT` of new 50-triple items (`fiftyTripleItem`), `clients` at once, after an
 * unmeasured warm-up, in `rounds` rounds of `seconds` that alternate the sides; each
 * reports its median round, with CPU per write of the process that took it (the service's
 * request thread apart) from /proc. Afterwards both must find the same word: the anchor is
 * indexed, not only stored.
 *
 * `deno run -A bench/text_anchor_bench.ts [seconds=10] [rounds=3] [clients=16]`; prints
 * markdown lines. Needs Java (scripts/fuseki.sh fetches the server jar into the cache).
 */
import { type LoadResult, type RequestFactory, runLoad } from "./lib/load.ts";
import { CpuMeter } from "./lib/process_cpu.ts";
import { fiftyTripleItem, loadAverage, putFiftyTriples } from "./items_bench.ts";
import { startServiceProcess } from "../tests/support/process.ts";
import { DEMO_COLLECTION } from "../tests/support/service.ts";
import { freePort } from "../tests/support/ports.ts";

/** Options of {@link benchTextAnchor}. */
export interface TextAnchorOptions {
  /** Measured time of one side in one round. */
  seconds: number;
  rounds: number;
  clients: number;
}
const WARMUP_MS = 3000;
const C = encodeURIComponent(DEMO_COLLECTION);
const FOAF_NAME = "http://xmlns.com/foaf/0.1/name";
/** A word every item of the bench carries in its literals (`fiftyTripleItem`: "some words"). */
const WORD = "words";

/** Every literal predicate of `fiftyTripleItem`'s item: what the service's search indexes. */
function literalPredicates(): string[] {
  const sample = fiftyTripleItem("urn:sample");
  const predicates = new Set<string>();
  for (const line of sample.split("\n")) {
    const match = /^\S+ <([^>]+)> "/.exec(line);
    if (match) predicates.add(match[1]);
  }
  return [...predicates];
}

/**
 * A Fuseki configuration: dataset `ds`, TDB2 in `dir` with a Lucene index over `predicates`;
 * `plain`, TDB2 alone, to tell the text index's share of a write from the store's; and
 * `memory`, the same text index over an in-memory dataset, both in RAM (nothing durable).
 */
function textDatasetConfig(dir: string, predicates: string[]): string {
  const entries = predicates
    .map((predicate, n) => `[ text:field "f${n}" ; text:predicate <${predicate}> ]`)
    .join("\n    ");
  return `@prefix fuseki: <http://jena.apache.org/fuseki#> .
@prefix ja: <http://jena.hpl.hp.com/2005/11/Assembler#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix tdb2: <http://jena.apache.org/2016/tdb#> .
@prefix text: <http://jena.apache.org/text#> .
<#service> rdf:type fuseki:Service ; fuseki:name "ds" ;
  fuseki:endpoint [ fuseki:operation fuseki:query ; fuseki:name "query" ] ;
  fuseki:endpoint [ fuseki:operation fuseki:gsp-rw ; fuseki:name "data" ] ;
  fuseki:dataset <#text> .
<#plain> rdf:type fuseki:Service ; fuseki:name "plain" ;
  fuseki:endpoint [ fuseki:operation fuseki:gsp-rw ; fuseki:name "data" ] ;
  fuseki:dataset <#plainTdb> .
<#plainTdb> rdf:type tdb2:DatasetTDB2 ; tdb2:location "${dir}/plain" .
<#memory> rdf:type fuseki:Service ; fuseki:name "memory" ;
  fuseki:endpoint [ fuseki:operation fuseki:gsp-rw ; fuseki:name "data" ] ;
  fuseki:dataset <#memoryText> .
<#memoryText> rdf:type text:TextDataset ; text:dataset <#memoryDataset> ;
  text:index <#memoryLucene> .
<#memoryDataset> rdf:type ja:MemoryDataset .
<#memoryLucene> rdf:type text:TextIndexLucene ; text:directory "mem" ; text:entityMap <#map> .
<#text> rdf:type text:TextDataset ; text:dataset <#tdb> ; text:index <#lucene> .
<#tdb> rdf:type tdb2:DatasetTDB2 ; tdb2:location "${dir}/tdb2" .
<#lucene> rdf:type text:TextIndexLucene ; text:directory <file:${dir}/lucene> ;
  text:entityMap <#map> .
<#map> rdf:type text:EntityMap ; text:entityField "uri" ; text:graphField "graph" ;
  text:defaultField "f0" ;
  text:map (
    ${entries}
  ) .
`;
}

async function script(args: string[], env: Record<string, string>): Promise<string> {
  const output = await new Deno.Command("bash", {
    args: [new URL("../scripts/fuseki.sh", import.meta.url).pathname, ...args],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  if (!output.success) throw new Error(`scripts/fuseki.sh ${args.join(" ")}:\n${text}`);
  return text;
}

function median(results: LoadResult[]): LoadResult {
  return [...results].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(results.length / 2)];
}

interface Side {
  label: string;
  put: RequestFactory;
  meter: () => CpuMeter;
  /** CPU seconds the meter's processes used, per write, as labels. */
  cpu: (seconds: (number | undefined)[], writes: number) => string;
}

const ms = (value: number | undefined, writes: number) =>
  value === undefined ? "–" : (value * 1000 / writes).toFixed(2);

/** Runs every side in turn; the markdown lines for bench/RESULTS.md. */
export async function benchTextAnchor(
  { seconds, rounds, clients }: TextAnchorOptions = { seconds: 10, rounds: 3, clients: 16 },
): Promise<string[]> {
  const lines: string[] = [];
  const work = await Deno.makeTempDir({ prefix: "rcs-text-anchor-" });
  const fusekiPort = freePort();
  const fusekiEnv = {
    FUSEKI_PORT: String(fusekiPort),
    FUSEKI_RUN_DIR: `${work}/fuseki-run`,
    FUSEKI_CONFIG: `${work}/config.ttl`,
    FUSEKI_HEAP: "1g",
  };
  await Deno.writeTextFile(fusekiEnv.FUSEKI_CONFIG, textDatasetConfig(work, literalPredicates()));
  await script(["start"], fusekiEnv);
  const fusekiRoot = `http://127.0.0.1:${fusekiPort}`;
  const fuseki = `${fusekiRoot}/ds`;
  const fusekiPid = Number((await Deno.readTextFile(`${work}/fuseki-run/fuseki.pid`)).trim());
  const service = await startServiceProcess({
    SERVICE_DATA_DIR: `${work}/service`,
    SERVICE_STORE_BACKEND: "embedded",
  });
  const run = crypto.randomUUID();
  let created = 0;
  const newItem = (worker: number) =>
    `https://data.example.org/id/document/anchor-${run}-${worker}-${created++}`;
  try {
    const fusekiSide = (label: string, dataset: string): Side => ({
      label,
      put: (worker) => {
        const uri = newItem(worker);
        return putFiftyTriples(
          `${fusekiRoot}/${dataset}/data?graph=${encodeURIComponent(uri)}`,
          uri,
        );
      },
      meter: () => new CpuMeter([fusekiPid]),
      cpu: ([all], writes) => `Fuseki ${ms(all, writes)}`,
    });
    const sides: Side[] = [
      {
        label: "embedded `PUT /api/item` (stored and indexed for search)",
        put: (worker) => {
          const uri = newItem(worker);
          return putFiftyTriples(
            `${service.url}/api/item?collection=${C}&item=${encodeURIComponent(uri)}`,
            uri,
          );
        },
        meter: () => new CpuMeter([service.pid, { pid: service.pid, thread: service.pid }]),
        cpu: ([all, thread], writes) =>
          `service ${ms(all, writes)} (request thread ${ms(thread, writes)})`,
      },
      fusekiSide("Fuseki + jena-text Graph Store `PUT` (TDB2 and Lucene on disk)", "ds"),
      fusekiSide(
        "Fuseki + jena-text Graph Store `PUT`, dataset and Lucene in memory (not durable)",
        "memory",
      ),
      fusekiSide("Fuseki Graph Store `PUT`, TDB2 alone (no text index; for reference)", "plain"),
    ];
    for (const side of sides) {
      await runLoad(side.put, { concurrency: clients, durationMs: WARMUP_MS });
    }
    const results = sides.map(() => [] as { load: LoadResult; cpu: string }[]);
    for (let round = 0; round < rounds; round++) {
      for (const [s, side] of sides.entries()) {
        const meter = side.meter();
        let used: (number | undefined)[] = [];
        const load = await runLoad(side.put, {
          concurrency: clients,
          durationMs: seconds * 1000,
          onMeasure: { start: () => meter.start(), stop: () => used = meter.stop() },
        });
        if (load.errors > 0 || Object.keys(load.statuses).length > 0) {
          throw new Error(`${side.label}: ${load.errors} errors, ${JSON.stringify(load.statuses)}`);
        }
        results[s].push({ load, cpu: side.cpu(used, load.requests) });
      }
    }

    // Both indexed what they took: the word is found on each.
    const searched = await fetch(`${service.url}/api/search?collection=${C}&q=${WORD}&size=1`);
    const found = (await searched.json()).total as number;
    const textQuery = `PREFIX text: <http://jena.apache.org/text#>
      SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { GRAPH ?g { ?s text:query (<${FOAF_NAME}> "Ada") } }`;
    const answer = await fetch(`${fuseki}/query`, {
      method: "POST",
      headers: {
        "Content-Type": "application/sparql-query",
        Accept: "application/sparql-results+json",
      },
      body: textQuery,
    });
    const textFound = Number((await answer.json()).results.bindings[0].n.value);
    if (!(found > 0) || !(textFound > 0)) {
      throw new Error(`not indexed: the service found ${found}, Fuseki's text index ${textFound}`);
    }

    lines.push(
      `| ${clients} clients, ${rounds} × ${seconds} s, alternating | writes/s (median round) | ` +
        `p50 / p99 ms | CPU ms per write (median round) |`,
    );
    lines.push("|---|---|---|---|");
    const medians = results.map((side) => {
      const chosen = median(side.map((r) => r.load));
      return { chosen, cpu: side.find((r) => r.load === chosen)!.cpu, all: side };
    });
    for (const [s, side] of sides.entries()) {
      const { chosen, cpu, all } = medians[s];
      lines.push(
        `| ${side.label} | ${chosen.perSecond.toFixed(0)} (${
          all.map((r) => r.load.perSecond.toFixed(0)).join(", ")
        }) | ${chosen.p50Ms.toFixed(0)} / ${chosen.p99Ms.toFixed(0)} | ${cpu} |`,
      );
    }
    const ratio = (s: number) =>
      (medians[0].chosen.perSecond / medians[s].chosen.perSecond).toFixed(2);
    lines.push(
      `\nEmbedded PUT / Fuseki + jena-text PUT: **${ratio(1)}×** on disk, **${ratio(2)}×** ` +
        `in memory (goal ≥ 1.5×); indexed: the service's search finds "${WORD}" in ${found} ` +
        `items, Fuseki's text index "Ada" in ${textFound}; load average ${loadAverage()}.`,
    );
  } finally {
    await service.stop();
    await script(["stop"], fusekiEnv).catch((error) => console.error(String(error)));
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
  return lines;
}

if (import.meta.main) {
  const lines = await benchTextAnchor({
    seconds: Number(Deno.args[0] ?? 10),
    rounds: Number(Deno.args[1] ?? 3),
    clients: Number(Deno.args[2] ?? 16),
  });
  for (const line of lines) console.log(line);
}
