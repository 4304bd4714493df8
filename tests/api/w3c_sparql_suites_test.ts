/**
 * The W3C SPARQL 1.0 and 1.1 query-evaluation suites (tests/fixtures/rdf-tests/sparql/, W3C
 * licence) through `/sparql`, as clients send them, on the embedded store and on the SPARQL
 * store (Fuseki), and the same cases straight to Fuseki on the same graphs for comparison.
 * Every approved `QueryEvaluationTest` and `CSVResultFormatTest` of SPARQL 1.0's evaluation
 * manifest and SPARQL 1.1's query and result-format manifests counts: 420.
 *
 * Left out, as categories: syntax tests (the parser's, not evaluation: no answer to compare),
 * update tests (`/sparql` refuses updates by design), protocol and service-description tests
 * (they test an endpoint's HTTP surface, which tests/api/sparql_protocol_test.ts covers),
 * federation (`SERVICE` is refused), entailment regimes (the service answers under simple
 * entailment only), and tests the working groups did not approve.
 *
 * Loading. In this service every item is a named graph, and a query's default graph is the
 * union of the item graphs a caller may read. Each file a case needs (its data, its named
 * graphs, the graphs its FROM and FROM NAMED name) is written as one item through the started
 * service's store contract (`services.deps.store.createItem`: the HTTP API would ask each
 * item for one root subject, which the suites' files do not have), named by the file's URL,
 * and deleted once the cases that read it are done. So both stores hold the same graphs, and
 * the answer comes from the service's own dataset. Six cases run at a time, one per slot: slot
 * k has its own collection, readable only by its own reader token (`access.readers`), holds
 * exactly the graphs of its case at hand, named under a base of its own
 * (w3c_sparql_requests.ts), so a query sees exactly its case's graphs: the union default graph
 * of the scope. On the embedded store, which answers a caller
 * without a scope by another path, every case is then asked again one at a time by an admin
 * (no scope: the union of every item graph, which is then the case's). The dataset each case is
 * asked with:
 * - its query's own FROM / FROM NAMED when it has them;
 * - the union default graph (no dataset sent) when it has no named graphs and its query has no
 *   GRAPH: the data files' union is the test's default graph;
 * - otherwise the protocol's `default-graph-uri` (its data files) and `named-graph-uri` (its
 *   named graphs): the union cannot express a dataset whose named graphs are not all part of
 *   the default graph, nor one whose data files are not named graphs too (NOT_AS_UNION: 25
 *   cases, by name and reason). With the protocol dataset none of the 420 is left out.
 * An empty data file is no item: an empty graph and an absent one answer alike.
 *
 * On the SPARQL store the service has a metadata graph of its own (as sparql_isolation.ts
 * gives every test service), its item graphs are named under the run's own base, and both are
 * dropped at the end. Fuseki itself is measured on the same graphs loaded through its Graph
 * Store Protocol (under a base of their own), each case asked with the protocol dataset its
 * union stands for: Fuseki's `urn:x-arq:UnionGraph` would take in every other suite's graphs
 * of the shared dataset.
 *
 * Requests and comparison (w3c_sparql_requests.ts): GET, form POST and query POST in turn,
 * the answer asked for in the expected file's format (XML, JSON, CSV, TSV; N-Triples for
 * graphs) and read by the tests' own readers; solutions compared as multisets with blank nodes
 * matched by a bijection, in order where the query has ORDER BY, literals as terms; graphs by
 * isomorphism.
 *
 * Each backend prints "passed X of 420, expected differences Y, pending fixes P, failures
 * Z"; it fails on any failure outside EXPECTED_DIFFERENCES and PENDING_FIXES, on any 5xx, on
 * a listed case that passes (the lists stay true), and when it passes fewer cases than Fuseki.
 * About 7 + 7 s on the embedded store, 40 s on the SPARQL store and 8 s straight to Fuseki.
 */
import { strict as assert } from "node:assert";
// @ts-types="@types/n3"
import { type Quad, Writer } from "n3";
import { startTestService, storeBackends, type TestService } from "../support/service.ts";
import { STORE_YAML } from "../support/backends.ts";
import { dropIsolatedGraphs, TEST_GRAPH_PREFIX } from "../support/sparql_isolation.ts";
import { type Answer, localFile, PUBLISHED, readCases } from "../support/w3c_sparql.ts";
import {
  ask,
  atBase,
  type CasePlan,
  dataAtBase,
  judge,
  planCase,
  type Refusal,
  runBase,
  type Target,
} from "../support/w3c_sparql_requests.ts";
import { canonicalHash } from "../../src/rdf/canonical_hash.ts";

const FUSEKI_QUERY = Deno.env.get("SERVICE_SPARQL_QUERY_URL");
const FUSEKI_GSP = Deno.env.get("SERVICE_SPARQL_GSP_URL");
/** Cases in flight at once: enough to overlap the waits, few enough for a 2-CPU box. */
const SLOTS = 6;
const SLOT_IDS = Array.from({ length: SLOTS }, (_, k) => k);
const collectionOf = (slot: number) => `https://data.example.org/collection/w3c-sparql-${slot}`;
const tokenOf = (slot: number) => `w3c-sparql-slot-${slot}-reader-token`;
/** An admin reads every collection: its queries run without a scope. */
const ADMIN_TOKEN = "w3c-sparql-admin-token-0123456789";

/** A number the query computes: the expected value, in the engine's own lexical form. */
const COMPUTED = "lexical form: a number the query computes has the expected value, written in " +
  "the engine's own form (e.g. 0.2 for 2.0E-1, 2 for 2.0, 06 for 6)";
/** tsv03: the expected file writes its own data's double differently. */
const STORED_DOUBLE = 'lexical form: the stored double "1.0E6" is answered as stored; the ' +
  "expected TSV writes it 1.0e6, another form of the same value";

/** agg-min-02: the expected file writes its own data's double differently. */
const STORED_MIN = 'lexical form: MIN answers the stored double "2E-1" as stored; the expected ' +
  "result writes it 2.0E-1, another form of the same value";

/**
 * Cases answered differently on purpose or by a known engine limit, by name, with the reason.
 * "lexical form" differences answer the expected values in another form; "wrong answer"
 * ones are the engines' (oxigraph on the embedded store, Jena behind the SPARQL store), kept
 * here so that any new one fails the run.
 */
const EXPECTED_DIFFERENCES: Record<string, Record<string, string>> = {
  embedded: {
    "sparql11/aggregates/agg-sum-02": COMPUTED,
    "sparql11/aggregates/agg-avg-02": COMPUTED,
    "sparql11/aggregates/agg-err-02": COMPUTED,
    "sparql11/functions/coalesce01": COMPUTED,
    "sparql11/aggregates/agg-min-02": STORED_MIN,
    "sparql11/csv-tsv-res/tsv03": STORED_DOUBLE,
  },
  sparql: jenaDifferences(),
};

/** What Jena (Fuseki) answers differently, through the service's SPARQL store. */
function jenaDifferences(): Record<string, string> {
  const computed = [
    "aggregates/agg-sum-02",
    "aggregates/agg-avg-02",
    "aggregates/agg-err-02",
    "functions/ceil01",
    "functions/floor01",
    "functions/round01",
    "functions/minutes",
    "functions/seconds",
    "functions/hours",
    "functions/month",
    "functions/day",
  ];
  return {
    ...Object.fromEntries(computed.map((name) => [`sparql11/${name}`, COMPUTED])),
    "sparql11/aggregates/agg-min-02": STORED_MIN,
    "sparql11/csv-tsv-res/tsv03": STORED_DOUBLE,
  };
}

/**
 * Provisional: failures of the embedded store that the fixes under way in
 * src/store_embedded/ (the default graph as a set; literals answered exactly as stored on the
 * oxigraph path) remove. Emptied as they land; one that passes fails the run, as a listed
 * difference does.
 */
const PENDING_FIXES: Record<string, Record<string, string>> = {
  embedded: {},
  sparql: {},
};

const NAMED_BESIDE_DEFAULT = "named graphs beside a default graph of other files: in the " +
  "union the named graphs' triples would be in the default graph too";
const NAMED_ONLY = "named graphs and an empty default graph: the union's default graph would " +
  "hold the named graphs' triples";
const GRAPH_WITHOUT_NAMED = "GRAPH over a dataset without named graphs: in the union the data " +
  "file would be a named graph";

/**
 * The cases whose dataset the union default graph cannot express, asked with the protocol's
 * `default-graph-uri` and `named-graph-uri` instead (checked against the cases: the list stays
 * true).
 */
const NOT_AS_UNION: Record<string, string> = {
  ...Object.fromEntries([
    "sparql10/algebra/join-combo-2",
    "sparql10/optional/dawg-optional-complex-2",
    "sparql10/optional/dawg-optional-complex-3",
    "sparql10/optional/dawg-optional-complex-4",
    "sparql10/graph/dawg-graph-05",
    "sparql10/graph/dawg-graph-06",
    "sparql10/graph/dawg-graph-07",
    "sparql10/graph/dawg-graph-08",
    "sparql10/graph/dawg-graph-09",
    "sparql10/graph/dawg-graph-10b",
    "sparql10/graph/dawg-graph-11",
    "sparql11/exists/exists03",
    "sparql11/subquery/subquery04",
  ].map((name) => [name, NAMED_BESIDE_DEFAULT])),
  ...Object.fromEntries([
    "sparql10/graph/dawg-graph-02",
    "sparql10/graph/dawg-graph-03",
    "sparql11/property-path/pp06",
    "sparql11/property-path/pp07",
    "sparql11/property-path/pp34",
    "sparql11/property-path/pp35",
    "sparql11/subquery/subquery01",
    "sparql11/subquery/subquery02",
    "sparql11/subquery/subquery03",
    "sparql11/subquery/subquery05",
    "sparql11/subquery/subquery07",
  ].map((name) => [name, NAMED_ONLY])),
  "sparql10/graph/dawg-graph-04": GRAPH_WITHOUT_NAMED,
};

interface Outcome {
  passed: number;
  failures: Map<string, string>;
  /** Failed cases whose answers match once numbers are compared by value. */
  sameValues: Set<string>;
  serverErrors: string[];
}

const cases = readCases();
const plans: Promise<CasePlan[]> = Promise.all(cases.map((test, i) => planCase(test, i)));

Deno.test("W3C SPARQL suites: every approved evaluation case is read, from exactly its files", async () => {
  // 417 QueryEvaluationTest and 3 CSVResultFormatTest approved.
  assert.equal(cases.length, 420);
  const names = new Set(cases.map((c) => c.name));
  assert.equal(names.size, cases.length, "case names are unique");
  for (
    const name of [
      "sparql10/basic/spoo-1",
      "sparql11/aggregates/agg01",
      "sparql11/csv-tsv-res/csv01",
    ]
  ) {
    assert.ok(names.has(name), name);
  }
  // The fixtures are the files the cases read, and no others (SOURCE says so).
  const needed = new Set(["SOURCE", "sparql10/LICENSE", "sparql10/README"]);
  for (
    const top of [
      "sparql10/manifest-evaluation.ttl",
      "sparql11/manifest-sparql11-query.ttl",
      "sparql11/manifest-sparql11-results.ttl",
    ]
  ) {
    needed.add(top);
  }
  for (const plan of await plans) {
    const { test } = plan;
    needed.add(test.name.replace(/[^/]+$/, "manifest.ttl"));
    for (const url of [test.queryUrl, test.result, ...plan.files]) {
      needed.add(url.slice(PUBLISHED.length));
    }
  }
  const present: string[] = [];
  const root = localFile(PUBLISHED);
  const walk = async (dir: URL, prefix: string) => {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory) await walk(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`);
      else present.push(prefix + entry.name);
    }
  };
  await walk(root, "");
  const protocol = (await plans).filter((plan) => typeof plan.dataset === "object");
  assert.deepEqual(
    protocol.map((plan) => plan.test.name).sort(),
    Object.keys(NOT_AS_UNION).sort(),
    "cases asked with the protocol dataset",
  );
  assert.deepEqual(present.filter((f) => !needed.has(f)).sort(), [], "files no case reads");
  assert.deepEqual([...needed].filter((f) => !present.includes(f)).sort(), [], "files missing");
});

let fuseki: Promise<Outcome> | undefined;
/** Fuseki on the same graphs, measured once for both backends. */
function fusekiOutcome(): Promise<Outcome> {
  fuseki ??= measureFuseki();
  return fuseki;
}

Deno.test({
  name: "W3C SPARQL suites straight to Fuseki, on the same graphs (the reference count)",
  ignore: !FUSEKI_QUERY || !FUSEKI_GSP,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const outcome = await fusekiOutcome();
    report("fuseki", outcome);
    assert.ok(outcome.passed > 0, "Fuseki answered no case");
  },
});

for (const backend of storeBackends()) {
  Deno.test({
    name: `W3C SPARQL suites through /sparql on the ${backend.name} store`,
    ignore: backend.skip !== undefined,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const run = crypto.randomUUID().slice(0, 8);
      const metadataGraph = backend.kind === "sparql"
        ? `${TEST_GRAPH_PREFIX}w3c-sparql-${run}:meta`
        : undefined;
      const started = performance.now();
      const service = await startTestService({ yaml: slotsYaml(metadataGraph), env: backend.env });
      const outcomes: [string, Outcome][] = [];
      try {
        outcomes.push([backend.name, await runOnService(service, run, SLOT_IDS, tokenOf)]);
        report(backend.name, outcomes[0][1], performance.now() - started);
        // The embedded store answers a caller without a scope by another path (no join to
        // the items' collections): every case again, one at a time, as an admin.
        if (backend.kind === "embedded") {
          const again = performance.now();
          outcomes.push([
            `${backend.name}, no scope`,
            await runOnService(service, run, [0], () => ADMIN_TOKEN),
          ]);
          report(backend.name, outcomes[1][1], performance.now() - again, "no scope");
        }
      } finally {
        await service.close();
        if (metadataGraph) await dropIsolatedGraphs(service.config);
      }
      for (const [label, outcome] of outcomes) check(backend.name, label, outcome);
      if (!FUSEKI_QUERY || !FUSEKI_GSP) {
        console.log("  (no Fuseki configured: the comparison with Fuseki is skipped)");
        return;
      }
      const reference = await fusekiOutcome();
      for (const [label, outcome] of outcomes) {
        assert.ok(
          outcome.passed >= reference.passed,
          `${label}: passes ${outcome.passed}, Fuseki on the same graphs ${reference.passed}`,
        );
      }
    },
  });
}

/**
 * customer.yml of the slots: one collection per slot, readable by the slot's reader token
 * only; on the SPARQL store a metadata graph of this run's own (item graphs are named by the
 * files' URLs under the slot's base, graphTemplate `{item}`).
 */
function slotsYaml(metadataGraph: string | undefined): string {
  const store = metadataGraph ? `${STORE_YAML}      metadataGraph: ${metadataGraph}\n` : STORE_YAML;
  const tokens = [
    `      - { name: admin, token: "${ADMIN_TOKEN}", role: admin }`,
    ...SLOT_IDS.map((k) => `      - { name: slot-${k}, token: "${tokenOf(k)}", role: reader }`),
  ];
  const collections = SLOT_IDS.map((k) =>
    `      - uri: ${collectionOf(k)}
        name: W3C SPARQL slot ${k}
        index: w3c-sparql-${k}
        access:
          readers: [token:slot-${k}]`
  );
  return `
service:
  data:
    dir: \${SERVICE_DATA_DIR}
${store}  security:
    tokens:
${tokens.join("\n")}
workspaces:
  - uri: https://data.example.org/workspace/w3c-sparql
    name: W3C SPARQL
    collections:
${collections.join("\n")}
`;
}

/**
 * Every case through the service's `/sparql`, asked with `token(slot)`. A slot takes a whole
 * directory of the suites at a time and holds exactly the graphs of the case at hand: from one
 * case to the next it deletes the items the next does not read and writes those it lacks (the
 * cases of a directory mostly share their data, so most need no write at all).
 */
async function runOnService(
  service: TestService,
  run: string,
  slots: number[],
  token: (slot: number) => string,
): Promise<Outcome> {
  const outcome = newOutcome();
  const store = service.services.deps.store;
  const directories = Map.groupBy(await plans, (plan) => plan.test.name.replace(/\/[^/]+$/, ""));
  // The largest first, so that no slot is left with a long one at the end.
  const queue = [...directories.values()].sort((a, b) => b.length - a.length);
  await Promise.all(slots.map(async (slot) => {
    const base = runBase(`${run}-slot-${slot}`);
    const collection = collectionOf(slot);
    const target: Target = {
      endpoint: `${service.url}/sparql`,
      base,
      token: token(slot),
      union: "scope",
    };
    /** Published URL → item URI of the graphs the slot holds. */
    const held = new Map<string, string>();
    const settle = async (writes: Promise<void>[]) => {
      // All settled before going on, so that the slot knows what it holds.
      const failed = (await Promise.allSettled(writes)).find((w) => w.status === "rejected");
      if (failed) throw failed.reason;
    };
    const drop = (urls: string[]) =>
      settle(urls.map(async (url) => {
        await store.deleteItem(collection, held.get(url)!);
        held.delete(url);
      }));
    try {
      for (let cases = queue.shift(); cases; cases = queue.shift()) {
        for (const plan of cases) {
          const wanted = new Set(plan.files);
          await drop([...held.keys()].filter((url) => !wanted.has(url)));
          // Side by side: the store's group commit writes them in one go.
          await settle(
            plan.files.filter((url) => !held.has(url)).map(async (url) => {
              const quads = await dataAtBase(url, base);
              if (quads.length === 0) return; // An empty file is no item.
              const uri = atBase(url, base);
              const { hash } = await canonicalHash(quads);
              await store.createItem({ collection, uri, quads, hash });
              held.set(url, uri);
            }),
          );
          await record(outcome, plan, await ask(plan, target), base);
        }
      }
    } finally {
      await drop([...held.keys()]);
    }
  }));
  return outcome;
}

/** Every case straight to Fuseki, its files loaded once through the Graph Store Protocol. */
async function measureFuseki(): Promise<Outcome> {
  const base = runBase(`${crypto.randomUUID().slice(0, 8)}-fuseki`);
  const all = await plans;
  const files = [...new Set(all.flatMap((plan) => plan.files))];
  const loaded: string[] = [];
  const outcome = newOutcome();
  try {
    await inPool(files, async (url) => {
      const quads = await dataAtBase(url, base);
      if (quads.length === 0) return;
      const graph = atBase(url, base);
      loaded.push(graph);
      await graphStore("PUT", graph, turtle(quads));
    });
    const target: Target = { endpoint: FUSEKI_QUERY!, base, union: "protocol" };
    await inPool(all, async (plan) => record(outcome, plan, await ask(plan, target), base));
  } finally {
    await inPool(loaded, (graph) => graphStore("DELETE", graph));
  }
  return outcome;
}

async function graphStore(method: "PUT" | "DELETE", graph: string, body?: string): Promise<void> {
  const response = await fetch(`${FUSEKI_GSP}?graph=${encodeURIComponent(graph)}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "text/turtle" },
    body,
  });
  const text = await response.text();
  if (!response.ok && response.status !== 404) {
    throw new Error(`Graph Store ${method} <${graph}>: ${response.status} ${text}`);
  }
}

/**
 * Turtle, as a user would load the file: Jena's Turtle parser resolves each IRI as its query
 * parser does (`eXAMPLE://a/./b/../b/…` loses its dot segments in both), N-Triples would not.
 */
function turtle(quads: Quad[]): string {
  const writer = new Writer({ format: "Turtle" });
  writer.addQuads(quads);
  let text = "";
  writer.end((_error, result) => (text = result));
  return text;
}

/** Runs `fn` on every item, SLOTS at a time. */
async function inPool<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(SLOT_IDS.map(async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
  }));
}

function newOutcome(): Outcome {
  return { passed: 0, failures: new Map(), sameValues: new Set(), serverErrors: [] };
}

async function record(
  outcome: Outcome,
  plan: CasePlan,
  answer: Answer | Refusal,
  base: string,
): Promise<void> {
  const name = plan.test.name;
  if ("status" in answer) {
    if (answer.status >= 500) outcome.serverErrors.push(`${name}: ${answer.status}`);
    outcome.failures.set(name, `HTTP ${answer.status}: ${answer.why}`);
    return;
  }
  const why = await judge(plan, answer, base);
  if (why === undefined) {
    outcome.passed++;
    return;
  }
  outcome.failures.set(name, why.slice(0, 2000));
  if (await judge(plan, answer, base, { numbersByValue: true }) === undefined) {
    outcome.sameValues.add(name);
  }
}

function listed(backend: string): Record<string, string> {
  return { ...EXPECTED_DIFFERENCES[backend], ...PENDING_FIXES[backend] };
}

function report(backend: string, outcome: Outcome, ms?: number, variant?: string): void {
  const failed = [...outcome.failures.keys()];
  const expected = failed.filter((name) => name in (EXPECTED_DIFFERENCES[backend] ?? {}));
  const pending = failed.filter((name) => name in (PENDING_FIXES[backend] ?? {}));
  const others = failed.filter((name) => !(name in listed(backend)));
  const label = variant ? `${backend}, ${variant}` : backend;
  const time = ms === undefined ? "" : ` (${Math.round(ms / 1000)} s)`;
  console.log(
    `W3C SPARQL [${label}]: passed ${outcome.passed} of ${cases.length}, expected ` +
      `differences ${expected.length}, pending fixes ${pending.length}, failures ` +
      `${others.length}${time}`,
  );
  // Fuseki has no list: each of its failures is shown.
  for (const name of backend === "fuseki" ? failed : others) {
    const same = outcome.sameValues.has(name) ? " (the same values)" : "";
    console.log(`  ${name}${same}: ${outcome.failures.get(name)}`);
  }
}

function check(backend: string, label: string, outcome: Outcome): void {
  assert.deepEqual(outcome.serverErrors, [], `${label}: 5xx answers`);
  const all = listed(backend);
  const unlisted = [...outcome.failures.keys()].filter((name) => !(name in all));
  assert.deepEqual(unlisted, [], `${label}: failures outside the listed differences`);
  // A lexical-form difference answers the expected values: any other difference is a wrong
  // answer, listed or not.
  const wrong = Object.entries(all).filter(([name, reason]) =>
    reason.startsWith("lexical form") && outcome.failures.has(name) &&
    !outcome.sameValues.has(name)
  ).map(([name]) => `${name}: ${outcome.failures.get(name)}`);
  assert.deepEqual(wrong, [], `${label}: listed as lexical forms, but the values differ`);
  const stale = Object.keys(all).filter((name) => !outcome.failures.has(name));
  assert.deepEqual(stale, [], `${label}: listed cases that now pass (take them off the list)`);
}
