/**
 * The W3C SPARQL 1.0 and 1.1 query-evaluation suites (tests/fixtures/rdf-tests/sparql/, W3C
 * licence) through `/sparql`, as a client would send them, on the embedded store and on the
 * SPARQL store (Fuseki), and on the same loading straight to Fuseki for comparison. Every
 * approved `QueryEvaluationTest` and `CSVResultFormatTest` of the SPARQL 1.0 evaluation
 * manifest and of the SPARQL 1.1 query and result-format manifests counts.
 *
 * Left out, as categories: syntax tests (the parser's, not evaluation), updates (`/sparql`
 * refuses them), the protocol, service description, federation (`SERVICE` is refused) and
 * entailment regimes (the service answers under simple entailment).
 *
 * Loading: each data file of a case (its default graph's files, its named graphs' files, the
 * graphs its FROM and FROM NAMED name) is one item graph named by the file's published URL,
 * written through the store contract (an item graph here need not have one root subject), and
 * deleted after the case. The query is sent with `BASE <its URL>` before it, as the suites
 * resolve relative IRIs. Its dataset:
 * - its own FROM / FROM NAMED when it has them;
 * - otherwise, on the embedded store, the union default graph (the data files are the only
 *   items), unless the case has named graphs or the query says GRAPH: then the protocol's
 *   `default-graph-uri` (the data files) and `named-graph-uri` (the named graphs), since the
 *   union's item graphs would all be named graphs too;
 * - on the SPARQL store always the protocol dataset: Fuseki's union graph holds every other
 *   suite's graphs of the shared test dataset.
 *
 * One case at a time per store (cases share data file names). About 20 s on the embedded store,
 * 60 s on Fuseki.
 */
import { strict as assert } from "node:assert";
// @ts-types="@types/n3"
import { Parser } from "n3";
// @ts-types="@types/sparqljs"
import sparqljs from "sparqljs";
import { startTestService, storeBackends, type TestService } from "../support/service.ts";
import {
  type Answer,
  difference,
  localFile,
  parseJsonResults,
  readCases,
  readData,
  readExpected,
  type SparqlCase,
  textLines,
} from "../support/w3c_sparql.ts";
import { canonicalHash } from "../../src/rdf/canonical_hash.ts";

const COLLECTION = "https://data.example.org/collection/documents";
/** A graph no case names: the empty default graph of a case without data. */
const EMPTY_GRAPH = "urn:x-rcs-test:w3c-sparql:empty";
const SHIPPED = Deno.readTextFileSync(new URL("../../customer.yml", import.meta.url));
const FUSEKI_QUERY = Deno.env.get("SERVICE_SPARQL_QUERY_URL");

/** A number the query computes: the same value as expected, in another lexical form. */
const COMPUTED =
  "a computed number: the expected value in the engine's own lexical form (e.g. 6.7 vs 6.70, " +
  "2.0E-1 vs 0.2, 01 vs 1)";
/** MIN and MAX of stored numbers on oxigraph: the stored term's value, not its form. */
const MIN_MAX_FORM =
  "MIN/MAX on oxigraph answer the extreme value in oxigraph's canonical form (a stored 1.0 " +
  "as 1, 3.0E4 as 30000): the same value, not the stored lexical form";
const STORED_DOUBLE =
  "the stored double 1.0E6 is written as stored; the expected TSV writes it 1.0e6 (one value)";
const BNODE_PER_CALL =
  "BNODE(str) gives a new blank node per call where the test expects one per string within a " +
  "solution; the engine's reading (oxigraph and Jena alike)";

/**
 * Cases answered differently on purpose or by a known engine limit, by name, with the reason.
 * A case listed here that passes fails the run, so the list stays true.
 */
const EXPECTED_DIFFERENCES: Record<string, Record<string, string>> = {
  embedded: {
    "sparql10/open-world/date-2": "oxigraph decides `!=` between a date with a timezone and " +
      "one without (and between a date and a dateTime) where SPARQL's operator raises an " +
      "error: d2, d3 and dt1 are kept (Fuseki gets this right)",
    "sparql11/aggregates/agg-sum-02": COMPUTED,
    "sparql11/aggregates/agg-avg-02": COMPUTED,
    "sparql11/aggregates/agg-err-02": COMPUTED,
    "sparql11/functions/coalesce01": COMPUTED,
    "sparql11/aggregates/agg-min-01": MIN_MAX_FORM,
    "sparql11/aggregates/agg-min-02": MIN_MAX_FORM,
    "sparql11/aggregates/agg-max-01": MIN_MAX_FORM,
    "sparql11/aggregates/agg-max-02": MIN_MAX_FORM,
    "sparql11/functions/bnode01": BNODE_PER_CALL,
    "sparql11/csv-tsv-res/tsv03": STORED_DOUBLE,
  },
  sparql: jenaDifferences(),
  fuseki: {
    ...jenaDifferences(),
    "sparql11/csv-tsv-res/csv01": "Fuseki's own CSV writer (the service's CSV of the same " +
      "answer matches)",
    "sparql11/csv-tsv-res/csv02": "Fuseki's own CSV writer (the service's CSV of the same " +
      "answer matches)",
  },
};

/** What Jena (Fuseki) answers differently, through the service or not. */
function jenaDifferences(): Record<string, string> {
  const computed = [
    "aggregates/agg-sum-02",
    "aggregates/agg-avg-02",
    "aggregates/agg-min-02",
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
    "sparql11/functions/bnode01": BNODE_PER_CALL,
    "sparql11/csv-tsv-res/tsv03": STORED_DOUBLE,
  };
}

interface Outcome {
  passed: number;
  failures: Map<string, string>;
  serverErrors: string[];
}

const cases = readCases();

Deno.test("W3C SPARQL suites: every approved evaluation case is read", () => {
  // SPARQL 1.0's evaluation manifest and SPARQL 1.1's query and result-format manifests:
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
});

Deno.test({
  name: "W3C SPARQL suites through /sparql on the embedded store",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const service = await startTestService({});
    try {
      const outcome = await runCases(service, "embedded");
      report("embedded", outcome);
      check("embedded", outcome);
    } finally {
      await service.close();
    }
  },
});

Deno.test({
  name: "W3C SPARQL suites through /sparql on the SPARQL store (Fuseki), and on Fuseki itself",
  ignore: !FUSEKI_QUERY,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    // Item graphs named by the files' URLs (graphTemplate {item}) and a metadata graph of this
    // run's own, so that the dataset the query names is the test's graphs on both.
    const metadataGraph = `urn:x-rcs-test:w3c-sparql:${crypto.randomUUID()}:meta`;
    const yaml = SHIPPED.replace(
      "      graphStoreUrl: ${SERVICE_SPARQL_GSP_URL:}\n",
      `      graphStoreUrl: \${SERVICE_SPARQL_GSP_URL:}\n      metadataGraph: ${metadataGraph}\n`,
    );
    const { env } = storeBackends().find((backend) => backend.name === "sparql")!;
    const service = await startTestService({ yaml, env });
    try {
      const fuseki: Outcome = { passed: 0, failures: new Map(), serverErrors: [] };
      const outcome = await runCases(service, "sparql", fuseki);
      report("sparql", outcome);
      report("fuseki", fuseki);
      check("sparql", outcome);
      check("fuseki", fuseki);
      assert.ok(
        outcome.passed >= fuseki.passed,
        `the service passes ${outcome.passed}, Fuseki on the same loading ${fuseki.passed}`,
      );
    } finally {
      await service.close();
      await dropGraph(metadataGraph);
    }
  },
});

/** Runs every case on `service`; with `fuseki`, each case also straight to Fuseki. */
async function runCases(service: TestService, backend: string, fuseki?: Outcome): Promise<Outcome> {
  const outcome: Outcome = { passed: 0, failures: new Map(), serverErrors: [] };
  for (const test of cases) {
    const parsed = readQuery(test);
    const from = parsed.from ?? { default: [], named: [] };
    const ownDataset = from.default.length + from.named.length > 0;
    const graphs = new Set([
      ...test.data,
      ...test.graphData,
      ...from.default.map((g) => g.value),
      ...from.named.map((g) => g.value),
    ]);
    const loaded = await load(service, graphs);
    try {
      const needsDataset = backend !== "embedded" || test.graphData.length > 0 ||
        /\bGRAPH\b/i.test(test.query);
      const dataset = ownDataset || !needsDataset ? undefined : {
        default: test.data.length > 0 ? test.data : [EMPTY_GRAPH],
        named: test.graphData,
      };
      const expected = await readExpected(test.result);
      const select = parsed as sparqljs.SelectQuery;
      const order = {
        by: (select.order ?? []).flatMap((o) =>
          "termType" in o.expression ? [o.expression.value] : []
        ),
        reduced: select.reduced === true,
      };
      await judge(
        outcome,
        test,
        expected,
        order,
        () => ask(service.url + "/sparql", test, expected, dataset),
      );
      if (fuseki) {
        await judge(
          fuseki,
          test,
          expected,
          order,
          () =>
            ask(
              FUSEKI_QUERY!,
              test,
              expected,
              dataset ?? (ownDataset ? undefined : { default: test.data, named: test.graphData }),
            ),
        );
      }
    } finally {
      for (const uri of loaded) await service.services.deps.store.deleteItem(COLLECTION, uri);
    }
  }
  return outcome;
}

/** The query's dataset and ORDER BY as sparqljs reads them (nothing when it cannot). */
function readQuery(test: SparqlCase): Partial<sparqljs.SelectQuery> {
  try {
    return new sparqljs.Parser({ baseIRI: test.queryUrl }).parse(
      test.query,
    ) as sparqljs.SelectQuery;
  } catch {
    // sparqljs fails on a few of the suites' queries (a CONSTRUCT's template of a blank node
    // in one): the service answers them with its own parser.
    return {};
  }
}

async function judge(
  outcome: Outcome,
  test: SparqlCase,
  expected: Answer,
  order: { by: string[]; reduced: boolean },
  send: () => Promise<Answer | { status: number; body: string }>,
): Promise<void> {
  const answer = await send();
  if ("status" in answer) {
    if (answer.status >= 500) outcome.serverErrors.push(`${test.name}: ${answer.status}`);
    outcome.failures.set(test.name, `HTTP ${answer.status}: ${answer.body.slice(0, 300)}`);
    return;
  }
  const why = await difference(expected, answer, order.by, order.reduced);
  if (why === undefined) outcome.passed++;
  else outcome.failures.set(test.name, why.slice(0, 3000));
}

/** Writes each graph's file as an item; the URIs written (an empty file is no item). */
async function load(service: TestService, graphs: Set<string>): Promise<string[]> {
  const written: string[] = [];
  for (const uri of graphs) {
    try {
      Deno.statSync(localFile(uri));
    } catch {
      continue; // A FROM naming a graph the suite does not ship: an empty graph.
    }
    const quads = await readData(uri);
    if (quads.length === 0) continue;
    const { hash } = await canonicalHash(quads);
    await service.services.deps.store.createItem({ collection: COLLECTION, uri, quads, hash });
    written.push(uri);
  }
  return written;
}

/** Sends the case's query (POST, form-encoded) and reads the answer in the expected's form. */
async function ask(
  endpoint: string,
  test: SparqlCase,
  expected: Answer,
  dataset: { default: string[]; named: string[] } | undefined,
): Promise<Answer | { status: number; body: string }> {
  const form = new URLSearchParams({ query: `BASE <${test.queryUrl}>\n${test.query}` });
  for (const graph of dataset?.default ?? []) form.append("default-graph-uri", graph);
  for (const graph of dataset?.named ?? []) form.append("named-graph-uri", graph);
  const accept = test.result.endsWith(".csv")
    ? "text/csv"
    : test.result.endsWith(".tsv")
    ? "text/tab-separated-values"
    : expected.kind === "graph"
    ? "application/n-triples"
    : "application/sparql-results+json";
  const response = await fetch(endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept },
    body: form,
  });
  const body = await response.text();
  if (!response.ok) return { status: response.status, body };
  if (accept.startsWith("text/")) return { kind: "text", lines: textLines(body) };
  if (accept === "application/n-triples") {
    return { kind: "graph", quads: new Parser({ format: "N-Triples" }).parse(body) };
  }
  return parseJsonResults(JSON.parse(body));
}

async function dropGraph(graph: string): Promise<void> {
  const update = Deno.env.get("SERVICE_SPARQL_UPDATE_URL");
  if (!update) return;
  await fetch(update, {
    method: "POST",
    headers: { "content-type": "application/sparql-update" },
    body: `DROP SILENT GRAPH <${graph}>`,
  }).then((r) => r.body?.cancel());
}

function report(backend: string, outcome: Outcome): void {
  const listed = EXPECTED_DIFFERENCES[backend];
  const unlisted = [...outcome.failures.keys()].filter((name) => !(name in listed));
  console.log(
    `W3C SPARQL [${backend}]: passed ${outcome.passed} of ${cases.length}, expected ` +
      `differences ${Object.keys(listed).length}, failures outside them ${unlisted.length}`,
  );
  for (const name of unlisted) console.log(`  ${name}: ${outcome.failures.get(name)}`);
}

function check(backend: string, outcome: Outcome): void {
  const listed = EXPECTED_DIFFERENCES[backend];
  assert.deepEqual(outcome.serverErrors, [], "no 5xx");
  const unlisted = [...outcome.failures.keys()].filter((name) => !(name in listed));
  assert.deepEqual(unlisted, [], `${backend}: failures outside the expected differences`);
  const stale = Object.keys(listed).filter((name) => !outcome.failures.has(name));
  assert.deepEqual(stale, [], `${backend}: listed differences that now pass`);
}
