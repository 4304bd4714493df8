/**
 * The W3C RDF 1.1 Turtle, N-Triples and RDF/XML test suites (tests/fixtures/rdf-tests/, W3C
 * licence) through the HTTP API, as a user brings RDF written by other tools and reads it
 * back with other tools.
 *
 * Every case is `PUT` to one running service with `base` set as the manifests document it
 * (the action's IRI under `mf:assumedTestBase`). Negative syntax tests must be refused with
 * a 4xx parse problem and store nothing. Every other test must be stored; eval tests' stored
 * graphs (the `.nt` download) must be isomorphic to the expected N-Triples, blank nodes
 * matched by RDFC-1.0 canonicalisation. All five downloads of each stored case must answer
 * 200, or 406 for a reason named below; never 5xx. Cases the contract answers differently
 * on purpose (an empty graph, a blank-node root) are listed by name with the reason.
 *
 * Then Apache Jena's RIOT, an independent parser, re-reads every download in one JVM
 * (tests/clients/RdfRereadCheck.java) and compares each with the expected graph (eval tests)
 * or with its own reading of the test's input (syntax tests). That part needs `java` and
 * Jena's jars (`JENA_CLIENT_LIB`, scripts/jena_client.sh); without them it is skipped with
 * a printed line, and the rest still runs.
 *
 * One service on the embedded store serves every case, six requests at a time (about 15 s
 * in all). The SPARQL store is left out: through Fuseki the same run takes over a minute.
 */
import { strict as assert } from "node:assert";
// @ts-types="@types/n3"
import { DataFactory, Parser, type Quad } from "n3";
import { DEMO_COLLECTION, startTestService, type TestService } from "../support/service.ts";
import { canonicalNQuads } from "../support/rdf_fixtures.ts";
import { jenaJars } from "../support/jena.ts";

const FIXTURES = new URL("../fixtures/rdf-tests/", import.meta.url);
const CLIENTS = new URL("../clients/", import.meta.url).pathname;
const C = encodeURIComponent(DEMO_COLLECTION);
const MF = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#";
const RDFT = "http://www.w3.org/ns/rdftest#";
const RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
/** Where the suites are published; each file's base IRI is its URL there (the READMEs). */
const PUBLISHED = "https://w3c.github.io/rdf-tests/rdf/rdf11/";
/** Requests in flight at once: enough to overlap the waits, few enough for a 2-CPU box. */
const POOL = 6;

/** The suites: directory, request media type, Jena's name for the syntax. */
const SUITES = [
  { dir: "rdf-turtle", type: "text/turtle", jena: "Turtle" },
  { dir: "rdf-n-triples", type: "application/n-triples", jena: "N-Triples" },
  { dir: "rdf-xml", type: "application/rdf+xml", jena: "RDF/XML" },
] as const;

/** The downloads, and Jena's name for each. */
const DOWNLOADS = { nt: "N-Triples", ttl: "Turtle", rdf: "RDF/XML", n3: "N3", jsonld: "JSON-LD" };

/**
 * Cases the contract answers differently from a bare parser, on purpose (docs/api.md, Items):
 * an item is one non-empty graph named by its single root subject.
 */
const EMPTY_GRAPH = "no triples: 400 empty-body, an item is never empty";
const MINTED_ROOT = "a blank-node root: stored under a URI minted from the collection's " +
  "itemUriTemplate; compared, and re-read, with that URI turned back into a blank node";
const SEVERAL_BLANK_ROOTS = "several roots, all blank nodes: `item` can name none of them " +
  "(it names a blank root only when it is the only root), 400 several-root-subjects";

/** Test name → how the contract answers it. Every other case is stored as the body is. */
const CONTRACT_DIFFERENCES: Record<string, string> = {
  ...named(EMPTY_GRAPH, [
    "nt-syntax-file-01",
    "nt-syntax-file-02",
    "nt-syntax-file-03",
    "rdfms-rdf-names-use-test-001",
    "turtle-syntax-base-01",
    "turtle-syntax-base-02",
    "turtle-syntax-file-01",
    "turtle-syntax-file-02",
    "turtle-syntax-file-03",
    "turtle-syntax-prefix-01",
    "turtle-syntax-prefix-02",
  ]),
  ...named(SEVERAL_BLANK_ROOTS, ["turtle-syntax-blank-label"]),
  ...named(MINTED_ROOT, [
    "anonymous_blank_node_subject",
    "blankNodePropertyList_as_subject",
    "blankNodePropertyList_containing_collection",
    "blankNodePropertyList_with_multiple_triples",
    "collection_subject",
    "labeled_blank_node_subject",
    "nested_blankNodePropertyLists",
    "sole_blankNodePropertyList",
    "nt-syntax-bnode-01",
    "rdf-containers-syntax-vs-schema-test001",
    "rdf-containers-syntax-vs-schema-test002",
    "rdf-containers-syntax-vs-schema-test003",
    "rdf-containers-syntax-vs-schema-test007",
    "rdf-element-not-mandatory-test001",
    "rdfms-identity-anon-resources-test001",
    "rdfms-identity-anon-resources-test002",
    "rdfms-identity-anon-resources-test003",
    "rdfms-identity-anon-resources-test004",
    "rdfms-identity-anon-resources-test005",
    "rdfms-not-id-and-resource-attr-test002",
    "rdfms-syntax-incomplete-test001",
    "rdfms-syntax-incomplete-test002",
    "rdfms-syntax-incomplete-test003",
    "rdfms-uri-substructure-test001",
    "turtle-eval-lists-03",
    "turtle-eval-lists-04",
    "turtle-eval-lists-05",
    "turtle-subm-01",
    "turtle-subm-10",
    "turtle-syntax-bnode-01",
    "turtle-syntax-bnode-05",
    "turtle-syntax-bnode-06",
    "turtle-syntax-bnode-08",
    "xmlbase-test002",
  ]),
};

function named(reason: string, names: string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, reason]));
}

/**
 * Where the independent reader is stricter than RDF: test name → download → why. Jena's
 * RDF/XML parser refuses <http:g> (scheme-specific rules: an http IRI needs a host), an IRI
 * RFC 3987 allows and the test expects; its Turtle and N-Triples readers take it.
 */
const READER_LIMITS: Record<string, Record<string, string>> = {
  "IRI-resolution-07": { rdf: "Jena's RDF/XML parser refuses <http:g>, which RDF allows" },
};

/** Whether a re-read failure (`suite/name N.ext: …`) is one of {@link READER_LIMITS}. */
function readerLimit(failure: string): boolean {
  const match = /^[^/]+\/(\S+) \d+\.(\w+):/.exec(failure);
  return match !== null && Object.hasOwn(READER_LIMITS[match[1]] ?? {}, match[2]);
}

/**
 * Why a download may be 406 (`not-expressible`): RDF/XML's limits (docs/api.md, Item
 * downloads). Reason → what the problem's detail says for it.
 */
const NOT_EXPRESSIBLE_REASONS: Record<string, RegExp> = {
  "a literal holding a C0 control character, which XML 1.0 cannot carry":
    /holds U\+00[01][0-9A-F], a character XML 1\.0 cannot carry/,
  "a predicate with no split into namespace + XML name":
    /as a predicate, it cannot be split into a namespace and an XML name/,
};

/** The reason a `not-expressible` problem's detail gives, if it is one of those above. */
function notExpressibleReason(detail: string): string | undefined {
  return Object.entries(NOT_EXPRESSIBLE_REASONS).find(([, says]) => says.test(detail))?.[0];
}

/** One test of a manifest. */
interface TestCase {
  suite: (typeof SUITES)[number];
  name: string;
  kind: "eval" | "positive" | "negative";
  /** Paths inside the suite's directory. */
  action: string;
  result?: string;
  /** The action's published IRI: the base its relative IRIs resolve against. */
  base: string;
}

/** What happened to one case; `problems` lists what breaks the acceptance rules. */
interface Outcome {
  test: TestCase;
  problems: string[];
  /** Why the contract answered differently, when it did (checked against the list). */
  contract?: string;
  /** The first PUT was 400 several-root-subjects; `item` then named the first root. */
  severalRoots?: boolean;
  stored?: { uri: string; minted: boolean };
  /** Download extension → file written, for the downloads that answered 200. */
  files: Record<string, string>;
  notExpressible: Record<string, string>;
}

function readManifest(suite: (typeof SUITES)[number]): TestCase[] {
  const base = `${PUBLISHED}${suite.dir}/`;
  const text = Deno.readTextFileSync(new URL(`${suite.dir}/manifest.ttl`, FIXTURES));
  const quads = new Parser({ baseIRI: `${base}manifest.ttl` }).parse(text);
  const value = (subject: string, predicate: string) =>
    quads.find((q) => q.subject.value === subject && q.predicate.value === predicate)?.object;
  const entries: string[] = [];
  let list = value(`${base}manifest.ttl`, `${MF}entries`);
  while (list && list.value !== `${RDF}nil`) {
    entries.push(value(list.value, `${RDF}first`)!.value);
    list = value(list.value, `${RDF}rest`);
  }
  return entries.map((entry) => {
    const type = value(entry, `${RDF}type`)!.value.slice(RDFT.length);
    const action = value(entry, `${MF}action`)!.value;
    const result = value(entry, `${MF}result`)?.value;
    return {
      suite,
      name: value(entry, `${MF}name`)!.value,
      kind: type.includes("Negative") ? "negative" : type.includes("Eval") ? "eval" : "positive",
      action: action.slice(base.length),
      result: result?.slice(base.length),
      base: action,
    };
  });
}

function fixturePath(test: TestCase, path: string): string {
  return new URL(`${test.suite.dir}/${path}`, FIXTURES).pathname;
}

/** Runs `work` over `items`, `size` at a time. */
async function pool<T, R>(items: T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: size }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  }));
  return results;
}

/** A PUT, waiting while another case holds the same item URI (cases share subjects). */
async function put(
  service: TestService,
  test: TestCase,
  body: Uint8Array<ArrayBuffer>,
  item?: string,
) {
  const query = `collection=${C}&base=${encodeURIComponent(test.base)}` +
    (item ? `&item=${encodeURIComponent(item)}` : "");
  for (let attempt = 0;; attempt++) {
    const response = await service.fetch(`/api/item?${query}`, {
      method: "PUT",
      headers: { "Content-Type": test.suite.type },
      body,
    });
    if (response.status !== 409 || attempt >= 200) return response;
    await response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The problem body of a response, or an empty object. */
async function problemOf(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return { detail: text.slice(0, 200) };
  }
}

async function runCase(service: TestService, test: TestCase, dir: string, index: number) {
  const outcome: Outcome = { test, problems: [], files: {}, notExpressible: {} };
  const body = Deno.readFileSync(fixturePath(test, test.action)) as Uint8Array<ArrayBuffer>;
  if (test.kind === "negative") {
    // `item` names where a wrongly accepted body would be stored, to check nothing is.
    const probe = `https://data.example.org/id/w3c-negative/${index}`;
    const response = await put(service, test, body, probe);
    const problem = await problemOf(response);
    if (response.status < 400 || response.status >= 500) {
      outcome.problems.push(`answered ${response.status}, not a 4xx`);
    } else if (!["/problems/rdf-syntax", "/problems/relative-iri"].includes(String(problem.type))) {
      outcome.problems.push(`refused as ${problem.type}, not as a syntax error`);
    }
    const read = await service.fetch(`/api/item.nt?collection=${C}&item=${probe}`);
    await read.body?.cancel();
    if (read.status !== 404) outcome.problems.push(`something was stored (${read.status})`);
    return outcome;
  }

  let response = await put(service, test, body);
  if (response.status === 400) {
    const problem = await problemOf(response);
    if (problem.type === "/problems/several-root-subjects") {
      // The contract: several roots are stored when `item` names one of them.
      const errors = problem.errors as { message: string }[];
      const root = errors.map((e) => /^root subject <(.*)>$/.exec(e.message)?.[1]).find(Boolean);
      if (!root) {
        outcome.contract = SEVERAL_BLANK_ROOTS;
        return outcome;
      }
      outcome.severalRoots = true;
      response = await put(service, test, body, root);
    } else if (problem.type === "/problems/empty-body") {
      outcome.contract = EMPTY_GRAPH;
      return outcome;
    } else {
      outcome.problems.push(`PUT answered 400 ${problem.type}: ${problem.detail}`);
      return outcome;
    }
  }
  if (response.status !== 201) {
    outcome.problems.push(`PUT answered ${response.status}: ${(await problemOf(response)).detail}`);
    return outcome;
  }
  const { uri } = await response.json() as { uri: string };
  const minted = uri.startsWith("https://data.example.org/id/document/");
  if (minted) {
    outcome.contract = MINTED_ROOT;
  }
  outcome.stored = { uri, minted };
  const query = `collection=${C}&item=${encodeURIComponent(uri)}`;
  try {
    for (const extension of Object.keys(DOWNLOADS)) {
      const download = await service.fetch(`/api/item.${extension}?${query}`);
      if (download.status === 200) {
        const file = `${dir}/${index}.${extension}`;
        await Deno.writeFile(file, new Uint8Array(await download.arrayBuffer()));
        outcome.files[extension] = file;
        continue;
      }
      const problem = await problemOf(download);
      const reason = download.status === 406 && problem.type === "/problems/not-expressible"
        ? notExpressibleReason(String(problem.detail))
        : undefined;
      if (reason && extension === "rdf") outcome.notExpressible[extension] = reason;
      else outcome.problems.push(`.${extension} answered ${download.status}: ${problem.detail}`);
    }
  } finally {
    const deleted = await service.fetch(`/api/item?${query}`, { method: "DELETE" });
    await deleted.body?.cancel();
  }
  if (test.kind === "eval" && outcome.files.nt) {
    const expected = new Parser({ format: "application/n-triples" })
      .parse(Deno.readTextFileSync(fixturePath(test, test.result!)));
    const stored = unmint(
      new Parser({ format: "application/n-triples" }).parse(
        Deno.readTextFileSync(outcome.files.nt),
      ),
      minted ? uri : undefined,
    );
    if (await canonicalNQuads(stored) !== await canonicalNQuads(expected)) {
      const got = (await canonicalNQuads(stored)).slice(0, 300);
      outcome.problems.push(`the stored graph is not the expected one: ${JSON.stringify(got)}`);
    }
  }
  return outcome;
}

/** The graph with the minted item URI turned back into the blank node the body had. */
function unmint(quads: Quad[], minted: string | undefined): Quad[] {
  if (!minted) return quads;
  const blank = DataFactory.blankNode("minted_root");
  const swap = <T extends Quad["subject"] | Quad["object"]>(term: T): T =>
    (term.termType === "NamedNode" && term.value === minted ? blank : term) as T;
  return quads.map((q) => DataFactory.quad(swap(q.subject), q.predicate, swap(q.object)));
}

/** Re-reads every download with Jena in one JVM; returns what differs, per file. */
async function rereadWithJena(lib: string, outcomes: Outcome[], dir: string): Promise<string[]> {
  const jobs: string[] = [];
  outcomes.forEach((outcome, index) => {
    if (!outcome.stored) return;
    const { test } = outcome;
    const id = `${test.suite.dir}/${test.name}`;
    jobs.push(
      test.kind === "eval"
        ? [id, "reference", fixturePath(test, test.result!), "N-Triples", test.base, ""].join("\t")
        : [id, "reference", fixturePath(test, test.action), test.suite.jena, test.base, ""].join(
          "\t",
        ),
    );
    for (const [extension, file] of Object.entries(outcome.files)) {
      const language = DOWNLOADS[extension as keyof typeof DOWNLOADS];
      const minted = outcome.stored.minted ? outcome.stored.uri : "";
      jobs.push(
        [id, "download", file, language, `http://reread.invalid/${index}`, minted].join("\t"),
      );
    }
  });
  const jobFile = `${dir}/jobs.tsv`;
  await Deno.writeTextFile(jobFile, jobs.join("\n") + "\n");
  const result = await new Deno.Command("java", {
    args: ["-cp", `${lib}/*`, `${CLIENTS}RdfRereadCheck.java`, jobFile],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(result.stdout);
  assert.ok(result.success, `Jena re-read failed: ${new TextDecoder().decode(result.stderr)}`);
  const lines = stdout.split("\n").filter((line) => line !== "");
  const downloads = jobs.filter((job) => job.split("\t")[1] === "download").length;
  const verdicts = lines.map((line) => line.split("\t"));
  const differing = verdicts.filter(([, , verdict]) => verdict !== "same")
    .map(([id, file, verdict, message]) =>
      `${id} ${file.slice(dir.length + 1)}: ${verdict} ${message}`
    );
  if (
    verdicts.filter(([, , verdict]) => verdict === "same").length + differing.length < downloads
  ) {
    differing.push(`Jena answered for ${lines.length} of ${downloads} downloads`);
  }
  return differing;
}

const jena = jenaJars();
if (jena.missing) {
  console.log(`W3C suites: the re-read of downloads by Apache Jena is skipped: ${jena.missing}`);
}

Deno.test({
  name: "[w3c rdf suites] Turtle, N-Triples and RDF/XML through the HTTP API, re-read by Jena",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const tests = SUITES.flatMap(readManifest);
    const counts = Object.fromEntries(SUITES.map((s) => [s.dir, 0]));
    for (const test of tests) counts[test.suite.dir]++;
    // Every entry of each manifest, none lost to a misread (numbers of the copied version).
    assert.deepEqual(counts, { "rdf-turtle": 313, "rdf-n-triples": 70, "rdf-xml": 166 });

    const dir = await Deno.makeTempDir({ prefix: "rcs-w3c-" });
    const service = await startTestService();
    let outcomes: Outcome[];
    try {
      outcomes = await pool(
        tests.map((test, index) => ({ test, index })),
        POOL,
        ({ test, index }) => runCase(service, test, dir, index),
      );
    } finally {
      await service.close();
    }
    try {
      const failures = outcomes.filter((o) => o.problems.length > 0)
        .map((o) => `${o.test.suite.dir}/${o.test.name}: ${o.problems.join("; ")}`);
      assert.deepEqual(failures, [], "cases that break the acceptance rules");

      const differences = Object.fromEntries(
        outcomes.filter((o) => o.contract)
          .map((o) => [o.test.name, o.contract!]),
      );
      assert.deepEqual(differences, CONTRACT_DIFFERENCES, "the contract's differences, by name");
      for (const o of outcomes.filter((o) => o.contract === EMPTY_GRAPH && o.test.result)) {
        const expected = Deno.readTextFileSync(fixturePath(o.test, o.test.result!));
        assert.equal(new Parser().parse(expected).length, 0, `${o.test.name} expects triples`);
      }

      const stored = outcomes.filter((o) => o.stored).length;
      const notExpressible = outcomes.flatMap((o) =>
        Object.values(o.notExpressible).map((reason) => `${o.test.name}: ${reason}`)
      );
      console.log(
        `W3C suites: ${tests.length} cases, ${stored} stored, ` +
          `${outcomes.filter((o) => o.test.kind === "negative").length} negative refused, ` +
          `${notExpressible.length} RDF/XML downloads 406 (not expressible), ` +
          `${outcomes.filter((o) => o.severalRoots).length} with several roots stored with item`,
      );

      if (!jena.missing) {
        const differing = await rereadWithJena(jena.lib, outcomes, dir);
        assert.deepEqual(
          differing.filter((failure) => !readerLimit(failure)),
          [],
          "downloads Jena reads as another graph",
        );
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
