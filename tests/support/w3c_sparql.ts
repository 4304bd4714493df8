/**
 * The W3C SPARQL 1.0 and 1.1 query-evaluation suites (tests/fixtures/rdf-tests/sparql/, W3C
 * licence): their manifests read into cases, their expected results (SPARQL XML, JSON, CSV,
 * TSV, result sets written in RDF, graphs) read into one shape, and answers compared as the
 * suites' README says: solutions as multisets with blank nodes matched by a bijection, in
 * order where the query orders them; graphs by isomorphism.
 */
// @ts-types="@types/n3"
import { DataFactory, Parser, type Quad, type Term } from "n3";
// @ts-types="../../src/rdf/xmldom.d.ts"
import { DOMParser } from "@xmldom/xmldom";
import { parseRdf } from "../../src/rdf/parse.ts";
import type { RdfFormat } from "../../src/rdf/formats.ts";
import { canonicalNQuads } from "./rdf_fixtures.ts";
import { matchRows, termKey } from "./sparql_results.ts";

const FIXTURES = new URL("../fixtures/rdf-tests/sparql/", import.meta.url);
/** Where the suites are published: every file's base IRI is its URL there. */
export const PUBLISHED = "https://w3c.github.io/rdf-tests/sparql/";

const MF = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#";
const QT = "http://www.w3.org/2001/sw/DataAccess/tests/test-query#";
const DAWGT = "http://www.w3.org/2001/sw/DataAccess/tests/test-dawg#";
const RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
const RS = "http://www.w3.org/2001/sw/DataAccess/tests/result-set#";

/** One approved query-evaluation test. */
export interface SparqlCase {
  /** `suite/directory/name`, e.g. `sparql11/aggregates/agg01`. */
  name: string;
  /** The query's published URL (its base IRI) and text. */
  queryUrl: string;
  query: string;
  /** Published URLs of the default graph's files and of the named graphs' files. */
  data: string[];
  graphData: string[];
  /** Published URL of the expected result. */
  result: string;
}

/** The suites' top manifests and the directories they include that are query evaluation. */
const TOP_MANIFESTS = [
  "sparql10/manifest-evaluation.ttl",
  "sparql11/manifest-sparql11-query.ttl",
  "sparql11/manifest-sparql11-results.ttl",
];

/** A published URL's local file. */
export function localFile(url: string): URL {
  if (!url.startsWith(PUBLISHED)) throw new Error(`not a suite file: ${url}`);
  return new URL(url.slice(PUBLISHED.length), FIXTURES);
}

function readTurtle(url: string): Quad[] {
  return new Parser({ baseIRI: url }).parse(Deno.readTextFileSync(localFile(url)));
}

/** Every approved evaluation case of the suites, in manifest order. */
export function readCases(): SparqlCase[] {
  const cases: SparqlCase[] = [];
  for (const top of TOP_MANIFESTS) {
    const topUrl = PUBLISHED + top;
    const quads = readTurtle(topUrl);
    for (const manifest of listItems(quads, objectOf(quads, topUrl, `${MF}include`))) {
      // The SPARQL 1.1 query manifest includes its syntax tests: not evaluation.
      if (!existsLocally(manifest.value)) continue;
      cases.push(...casesOf(manifest.value));
    }
  }
  return cases;
}

function existsLocally(url: string): boolean {
  try {
    Deno.statSync(localFile(url));
    return true;
  } catch {
    return false;
  }
}

function casesOf(manifestUrl: string): SparqlCase[] {
  const quads = readTurtle(manifestUrl);
  const cases: SparqlCase[] = [];
  const directory = manifestUrl.slice(PUBLISHED.length).replace(/\/manifest\.ttl$/, "");
  // The manifest node: `<>` in most, a blank node in some.
  const manifest =
    quads.find((q) => q.predicate.value === `${RDF}type` && q.object.value === `${MF}Manifest`)!
      .subject;
  for (const entry of listItems(quads, objectOf(quads, manifest, `${MF}entries`))) {
    const types = objectsOf(quads, entry, `${RDF}type`).map((t) => t.value);
    if (
      !types.includes(`${MF}QueryEvaluationTest`) && !types.includes(`${MF}CSVResultFormatTest`)
    ) {
      continue;
    }
    if (objectOf(quads, entry, `${DAWGT}approval`)?.value !== `${DAWGT}Approved`) continue;
    const action = objectOf(quads, entry, `${MF}action`)!;
    const queryUrl = objectOf(quads, action, `${QT}query`)!.value;
    const graphData = objectsOf(quads, action, `${QT}graphData`).map((graph) =>
      // SPARQL 1.1 names some as a node with qt:graph.
      graph.termType === "BlankNode" ? objectOf(quads, graph, `${QT}graph`)!.value : graph.value
    );
    cases.push({
      name: `${directory}/${entry.value.replace(/^.*#/, "")}`,
      queryUrl,
      query: Deno.readTextFileSync(localFile(queryUrl)),
      data: objectsOf(quads, action, `${QT}data`).map((data) => data.value),
      graphData,
      result: objectOf(quads, entry, `${MF}result`)!.value,
    });
  }
  return cases;
}

function objectsOf(quads: Quad[], subject: Term | string, predicate: string): Term[] {
  const id = typeof subject === "string" ? subject : subject.value;
  const kind = typeof subject === "string" ? "NamedNode" : subject.termType;
  return quads.filter((q) =>
    q.subject.value === id && q.subject.termType === kind && q.predicate.value === predicate
  ).map((q) => q.object);
}

function objectOf(quads: Quad[], subject: Term | string, predicate: string): Term | undefined {
  return objectsOf(quads, subject, predicate)[0];
}

function listItems(quads: Quad[], head: Term | undefined): Term[] {
  const items: Term[] = [];
  let node = head;
  while (node && node.value !== `${RDF}nil`) {
    items.push(objectOf(quads, node, `${RDF}first`)!);
    node = objectOf(quads, node, `${RDF}rest`);
  }
  return items;
}

/** A data file's quads (in the default graph), read as its extension says. */
export async function readData(url: string): Promise<Quad[]> {
  const format: RdfFormat = url.endsWith(".rdf")
    ? "rdfxml"
    : url.endsWith(".nt")
    ? "ntriples"
    : "turtle";
  const text = await Deno.readTextFile(localFile(url));
  return (await parseRdf(text, format, { baseIri: url })).quads;
}

/** An answer or an expected result, in one shape. */
export type Answer =
  | { kind: "boolean"; value: boolean }
  | { kind: "bindings"; variables: string[]; rows: Map<string, Term>[]; ordered: boolean }
  | { kind: "graph"; quads: Quad[] }
  | { kind: "text"; lines: string[] };

/** The expected result of a case. */
export async function readExpected(url: string): Promise<Answer> {
  const text = await Deno.readTextFile(localFile(url));
  if (url.endsWith(".srx")) return parseXmlResults(text);
  if (url.endsWith(".srj")) return parseJsonResults(JSON.parse(text));
  if (url.endsWith(".csv") || url.endsWith(".tsv")) return { kind: "text", lines: textLines(text) };
  const quads = await readData(url);
  const resultSet = quads.find((q) =>
    q.predicate.value === `${RDF}type` && q.object.value === `${RS}ResultSet`
  );
  return resultSet ? rdfResultSet(quads, resultSet.subject) : { kind: "graph", quads };
}

/** CSV or TSV as lines without their line ends (the last, empty, dropped). */
export function textLines(text: string): string[] {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** What is read here of an xmldom element (its own typings pull in the DOM library). */
interface XmlElement {
  nodeType: number;
  tagName: string;
  textContent: string | null;
  childNodes: ArrayLike<XmlElement>;
  getAttribute(name: string): string | null;
  getElementsByTagName(name: string): ArrayLike<XmlElement>;
}

function parseXmlResults(text: string): Answer {
  const doc = new DOMParser().parseFromString(text, "text/xml") as unknown as XmlElement;
  const boolean = doc.getElementsByTagName("boolean")[0];
  if (boolean) return { kind: "boolean", value: boolean.textContent?.trim() === "true" };
  const variables = Array.from(doc.getElementsByTagName("variable")).map((v) =>
    v.getAttribute("name")!
  );
  const rows = Array.from(doc.getElementsByTagName("result")).map((result) => {
    const row = new Map<string, Term>();
    for (const binding of Array.from(result.getElementsByTagName("binding"))) {
      const value = Array.from(binding.childNodes).find((n) => n.nodeType === 1)!;
      const content = value.textContent ?? "";
      const name = binding.getAttribute("name")!;
      if (value.tagName === "uri") row.set(name, DataFactory.namedNode(content));
      else if (value.tagName === "bnode") row.set(name, DataFactory.blankNode(content));
      else {
        const language = value.getAttribute("xml:lang");
        const datatype = value.getAttribute("datatype");
        row.set(
          name,
          DataFactory.literal(
            content,
            language || (datatype ? DataFactory.namedNode(datatype) : undefined),
          ),
        );
      }
    }
    return row;
  });
  return { kind: "bindings", variables, rows, ordered: true };
}

interface JsonTerm {
  type: string;
  value: string;
  "xml:lang"?: string;
  datatype?: string;
}

/** SPARQL results JSON (the expected .srj files and the service's answers). */
export function parseJsonResults(doc: {
  head: { vars?: string[] };
  boolean?: boolean;
  results?: { bindings: Record<string, JsonTerm>[] };
}): Answer {
  if (typeof doc.boolean === "boolean") return { kind: "boolean", value: doc.boolean };
  const rows = (doc.results?.bindings ?? []).map((binding) => {
    const row = new Map<string, Term>();
    for (const [name, term] of Object.entries(binding)) {
      if (term.type === "uri") row.set(name, DataFactory.namedNode(term.value));
      else if (term.type === "bnode") row.set(name, DataFactory.blankNode(term.value));
      else {
        row.set(
          name,
          DataFactory.literal(
            term.value,
            term["xml:lang"] ||
              (term.datatype ? DataFactory.namedNode(term.datatype) : undefined),
          ),
        );
      }
    }
    return row;
  });
  return { kind: "bindings", variables: doc.head.vars ?? [], rows, ordered: true };
}

function rdfResultSet(quads: Quad[], set: Term): Answer {
  const boolean = objectOf(quads, set, `${RS}boolean`);
  if (boolean) return { kind: "boolean", value: boolean.value === "true" };
  const variables = objectsOf(quads, set, `${RS}resultVariable`).map((v) => v.value);
  let ordered = false;
  const solutions = objectsOf(quads, set, `${RS}solution`).map((solution) => {
    const index = objectOf(quads, solution, `${RS}index`);
    if (index) ordered = true;
    const row = new Map<string, Term>();
    for (const binding of objectsOf(quads, solution, `${RS}binding`)) {
      row.set(
        objectOf(quads, binding, `${RS}variable`)!.value,
        objectOf(quads, binding, `${RS}value`)!,
      );
    }
    return { row, index: Number(index?.value ?? 0) };
  });
  solutions.sort((a, b) => a.index - b.index);
  return { kind: "bindings", variables, rows: solutions.map((s) => s.row), ordered };
}

/**
 * Why `actual` differs from `expected`, or undefined when they match. `orderBy`: the plain
 * variables of the query's ORDER BY, whose sequence of values must match too.
 */
export async function difference(
  expected: Answer,
  actual: Answer,
  orderBy: string[],
  reduced = false,
): Promise<string | undefined> {
  if (expected.kind !== actual.kind) return `expected a ${expected.kind}, got a ${actual.kind}`;
  if (expected.kind === "boolean" && actual.kind === "boolean") {
    return expected.value === actual.value ? undefined : `expected ${expected.value}`;
  }
  if (expected.kind === "graph" && actual.kind === "graph") {
    const [a, b] = await Promise.all([
      canonicalNQuads(expected.quads),
      canonicalNQuads(actual.quads),
    ]);
    return a === b ? undefined : `graphs differ:\n${a}\n---\n${b}`;
  }
  if (expected.kind === "text" && actual.kind === "text") return textDifference(expected, actual);
  if (expected.kind !== "bindings" || actual.kind !== "bindings") return "unexpected kinds";
  // REDUCED may drop any duplicates: the rows are compared as sets.
  if (reduced) {
    return difference(
      { ...expected, rows: distinctRows(expected.rows) },
      { ...actual, rows: distinctRows(actual.rows) },
      orderBy,
    );
  }
  if (expected.rows.length !== actual.rows.length) {
    return `expected ${expected.rows.length} rows, got ${actual.rows.length}: ${show(actual.rows)}`;
  }
  if (!matchRows(expected.rows, actual.rows, new Map())) {
    return `rows differ: expected ${show(expected.rows)}, got ${show(actual.rows)}`;
  }
  if (expected.ordered && orderBy.length > 0) {
    const sequence = (rows: Map<string, Term>[]) =>
      rows.map((row) =>
        orderBy.map((v) => {
          const term = row.get(v);
          return term && term.termType !== "BlankNode" ? termKey(term) : "";
        }).join(" ")
      ).join("\n");
    if (sequence(expected.rows) !== sequence(actual.rows)) {
      return `order differs: expected\n${sequence(expected.rows)}\ngot\n${sequence(actual.rows)}`;
    }
  }
  return undefined;
}

function distinctRows(rows: Map<string, Term>[]): Map<string, Term>[] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const key = JSON.stringify([...row].map(([k, v]) => [k, termKey(v)]).sort());
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function show(rows: Map<string, Term>[]): string {
  return JSON.stringify(
    rows.slice(0, 8).map((row) => Object.fromEntries([...row].map(([k, v]) => [k, termKey(v)]))),
  );
}

/** CSV and TSV: the header exactly, the rows as a multiset, blank node labels as placeholders. */
function textDifference(
  expected: { lines: string[] },
  actual: { lines: string[] },
): string | undefined {
  const [head, ...rows] = expected.lines;
  const [actualHead, ...actualRows] = actual.lines;
  if (head !== actualHead) return `header: expected ${head}, got ${actualHead}`;
  const masked = (lines: string[]) =>
    lines.map((line) => line.replace(/_:[A-Za-z0-9_.-]+/g, "_:b")).sort().join("\n");
  return masked(rows) === masked(actualRows)
    ? undefined
    : `rows differ:\n${masked(rows)}\n---\n${masked(actualRows)}`;
}
