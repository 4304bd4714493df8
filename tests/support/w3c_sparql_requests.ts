/**
 * The W3C SPARQL suites' cases (w3c_sparql.ts) put to a SPARQL endpoint as clients do, and
 * their answers judged.
 *
 * Requests: the query with `BASE <its URL>` before it (the suites resolve relative IRIs against
 * the query file's URL); GET, a form POST or an `application/sparql-query` POST in turn; the
 * answer asked for in the expected file's format (XML for .srx, JSON for .srj, CSV, TSV),
 * JSON or XML in turn for results written in RDF, N-Triples for graphs; the answer's
 * Content-Type must be the one asked for, and it is read by readers of the tests' own
 * (sparql_result_documents.ts, N3.js), never the service's.
 *
 * Bases: a case's files are loaded at a base of the run's own (`runBase`), so that runs and
 * slots running side by side on one store never share a graph name. Every IRI under the
 * published base (the suites' files, and the relative IRIs they hold) is moved to that base
 * alike, in the data, the query's BASE, the dataset and the expected result, which keeps
 * their comparisons and their order among themselves (the suites hold no IRI under the
 * published base written out, and the prefix up to `rdf-tests/` is kept, so nothing sorts
 * differently against other IRIs).
 */
// @ts-types="@types/n3"
import { DataFactory, Parser, type Quad, type Term } from "n3";
// @ts-types="@types/sparqljs"
import sparqljs from "sparqljs";
import {
  type Answer,
  difference,
  localFile,
  parseJsonResults,
  PUBLISHED,
  readData,
  readExpected,
  type SparqlCase,
} from "./w3c_sparql.ts";
import { parseCsv, parseTsv, parseXmlResults } from "./sparql_result_documents.ts";
import { termKey } from "./sparql_results.ts";

/** A graph no case names: the empty default graph of a case without data. */
export const EMPTY_GRAPH = "urn:x-rcs-test:w3c-sparql:empty";

const MEDIA = {
  json: "application/sparql-results+json",
  xml: "application/sparql-results+xml",
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  ntriples: "application/n-triples",
} as const;

/** How one case is loaded, asked and judged. */
export interface CasePlan {
  test: SparqlCase;
  /**
   * Published URLs of the files loaded as graphs: data, named graphs, and the graphs FROM and
   * FROM NAMED name among the suites' files (any other is a graph nobody has: empty).
   */
  files: string[];
  /**
   * Its dataset: `own` (the query's FROM / FROM NAMED), `union` (the default graph is the
   * union of the loaded graphs, the service's own dataset), or the protocol's
   * `default-graph-uri` and `named-graph-uri` (published URLs).
   */
  dataset: "own" | "union" | { default: string[]; named: string[] };
  form: "get" | "post-form" | "post-query";
  accept: string;
  expected: Answer;
  /**
   * The plain variables of its ORDER BY; whether it orders by an expression too (then the
   * whole sequence of solutions is compared: the suites' cases that do have no ties); whether
   * it is REDUCED.
   */
  orderBy: string[];
  orderByExpression: boolean;
  reduced: boolean;
}

/** A base of the run's own in place of the published one (see the module comment). */
export function runBase(tag: string): string {
  return PUBLISHED.replace(/\/sparql\/$/, `/${tag}/sparql/`);
}

/** `url` (a published URL) at `base`; any other IRI as it is. */
export function atBase(url: string, base: string): string {
  return url.startsWith(PUBLISHED) ? base + url.slice(PUBLISHED.length) : url;
}

function termAtBase<T extends Term>(term: T, base: string): T {
  if (term.termType === "NamedNode" && term.value.startsWith(PUBLISHED)) {
    return DataFactory.namedNode(atBase(term.value, base)) as unknown as T;
  }
  if (term.termType === "Literal") {
    const literal = term as unknown as { value: string; language: string; datatype: Term };
    if (literal.datatype.value.startsWith(PUBLISHED)) {
      return DataFactory.literal(
        literal.value,
        DataFactory.namedNode(atBase(literal.datatype.value, base)),
      ) as unknown as T;
    }
  }
  return term;
}

function quadsAtBase(quads: Quad[], base: string): Quad[] {
  return quads.map((q) =>
    DataFactory.quad(
      termAtBase(q.subject, base),
      termAtBase(q.predicate, base),
      termAtBase(q.object, base),
      q.graph,
    )
  );
}

/** A data file's triples, at `base`. */
export async function dataAtBase(url: string, base: string): Promise<Quad[]> {
  return quadsAtBase(await readData(url), base);
}

/** How the case at `index` is loaded, asked and judged. */
export async function planCase(test: SparqlCase, index: number): Promise<CasePlan> {
  const parsed = parseQuery(test);
  const from = parsed?.from ?? { default: [], named: [] };
  const own = from.default.length + from.named.length > 0;
  const files = [
    ...new Set([
      ...test.data,
      ...test.graphData,
      ...from.default.map((g) => g.value),
      ...from.named.map((g) => g.value),
    ]),
  ].filter((url) => url.startsWith(PUBLISHED));
  // Every item is a named graph as well as part of the union: a case with named graphs, or
  // whose query looks at named graphs, names its dataset (see the suite's header).
  const looksAtGraphs = parsed ? hasGraphPattern(parsed) : /\bGRAPH\b/i.test(test.query);
  const dataset: CasePlan["dataset"] = own
    ? "own"
    : test.graphData.length > 0 || looksAtGraphs
    ? { default: test.data.length > 0 ? test.data : [EMPTY_GRAPH], named: test.graphData }
    : "union";
  const expected = await expectedAnswer(test.result);
  const select = (parsed ?? {}) as Partial<sparqljs.SelectQuery>;
  return {
    test,
    files,
    dataset,
    form: (["get", "post-form", "post-query"] as const)[index % 3],
    accept: acceptFor(test.result, expected, index),
    expected,
    orderBy: (select.order ?? []).flatMap((o) =>
      "termType" in o.expression ? [o.expression.value] : []
    ),
    orderByExpression: (select.order ?? []).some((o) => !("termType" in o.expression)),
    reduced: select.reduced === true,
  };
}

/** The query as sparqljs reads it; undefined for the few it cannot read (the service can). */
function parseQuery(test: SparqlCase): sparqljs.Query | undefined {
  try {
    return new sparqljs.Parser({ baseIRI: test.queryUrl }).parse(test.query) as sparqljs.Query;
  } catch {
    return undefined;
  }
}

function hasGraphPattern(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasGraphPattern);
  if (node === null || typeof node !== "object") return false;
  if ((node as { type?: string }).type === "graph") return true;
  return Object.values(node).some(hasGraphPattern);
}

/** The expected result; CSV and TSV read into terms as answers are. */
async function expectedAnswer(url: string): Promise<Answer> {
  if (url.endsWith(".csv")) return parseCsv(await Deno.readTextFile(localFile(url)));
  if (url.endsWith(".tsv")) return parseTsv(await Deno.readTextFile(localFile(url)));
  return await readExpected(url);
}

function acceptFor(result: string, expected: Answer, index: number): string {
  if (expected.kind === "graph") return MEDIA.ntriples;
  if (result.endsWith(".csv")) return MEDIA.csv;
  if (result.endsWith(".tsv")) return MEDIA.tsv;
  if (result.endsWith(".srx")) return MEDIA.xml;
  if (result.endsWith(".srj")) return MEDIA.json;
  return index % 2 === 0 ? MEDIA.json : MEDIA.xml;
}

/** Where a request goes and as whom. */
export interface Target {
  /** The protocol endpoint: the service's `/sparql`, or Fuseki's query URL. */
  endpoint: string;
  /** The base the case's files were loaded at. */
  base: string;
  /** A bearer token, for the service. */
  token?: string;
  /**
   * How `union` is asked for: `scope` sends no dataset (the service answers from the graphs
   * the caller may read); `protocol` names the loaded graphs as default and named graphs.
   */
  union: "scope" | "protocol";
}

/** An answer that is not one: an HTTP error, or a document that does not read. */
export interface Refusal {
  status: number;
  why: string;
}

/** Sends the case to `target`, reads the answer. */
export async function ask(plan: CasePlan, target: Target): Promise<Answer | Refusal> {
  const { base } = target;
  const query = `BASE <${atBase(plan.test.queryUrl, base)}>\n${plan.test.query}`;
  const dataset = new URLSearchParams();
  const given = plan.dataset === "union"
    ? (target.union === "protocol"
      ? { default: plan.files.length > 0 ? plan.files : [EMPTY_GRAPH], named: plan.files }
      : undefined)
    : plan.dataset === "own"
    ? undefined
    : plan.dataset;
  for (const graph of given?.default ?? []) {
    dataset.append("default-graph-uri", atBase(graph, base));
  }
  for (const graph of given?.named ?? []) dataset.append("named-graph-uri", atBase(graph, base));
  const headers = new Headers({ accept: plan.accept });
  if (target.token) headers.set("authorization", `Bearer ${target.token}`);
  const withQuery = new URLSearchParams([["query", query], ...dataset]);
  let response: Response;
  if (plan.form === "get" && withQuery.toString().length < 6000) {
    response = await fetch(`${target.endpoint}?${withQuery}`, { headers });
  } else if (plan.form === "post-query") {
    headers.set("content-type", "application/sparql-query");
    const url = dataset.size > 0 ? `${target.endpoint}?${dataset}` : target.endpoint;
    response = await fetch(url, { method: "POST", headers, body: query });
  } else {
    headers.set("content-type", "application/x-www-form-urlencoded");
    response = await fetch(target.endpoint, { method: "POST", headers, body: withQuery });
  }
  const body = await response.text();
  if (!response.ok) return { status: response.status, why: body.slice(0, 400) };
  const type = response.headers.get("content-type")?.split(";")[0].trim() ?? "";
  if (type !== plan.accept) {
    return { status: response.status, why: `asked for ${plan.accept}, answered as ${type}` };
  }
  try {
    return readAnswer(plan.accept, body);
  } catch (error) {
    return { status: response.status, why: `unreadable ${type}: ${error}` };
  }
}

function readAnswer(type: string, body: string): Answer {
  switch (type) {
    case MEDIA.json:
      return parseJsonResults(JSON.parse(body));
    case MEDIA.xml:
      return parseXmlResults(body);
    case MEDIA.csv:
      return parseCsv(body);
    case MEDIA.tsv:
      return parseTsv(body);
    default:
      return { kind: "graph", quads: new Parser({ format: "N-Triples" }).parse(body) };
  }
}

/**
 * Why the answer differs from the expected result (undefined when it does not), under SPARQL
 * result equivalence: solutions as multisets, blank nodes matched by a bijection, in order
 * only where the query orders them; graphs by isomorphism; literals as terms. The columns
 * are compared too: as a set, and in order for CSV and TSV, whose header is the answer's.
 * With `numbersByValue`, numbers of one datatype are equal when their values are (`2.0` and
 * `2`, `2.5E0` and `2.5e0`): what tells a lexical-form difference from a wrong answer.
 */
export async function judge(
  plan: CasePlan,
  given: Answer,
  base: string,
  options: { numbersByValue?: boolean } = {},
): Promise<string | undefined> {
  let expected = expectedAtBase(plan.expected, base);
  let answer = given;
  if (options.numbersByValue) {
    [expected, answer] = [numbersAsValues(expected), numbersAsValues(answer)];
  }
  if (expected.kind === "bindings" && answer.kind === "bindings") {
    const tabular = plan.accept === MEDIA.csv || plan.accept === MEDIA.tsv;
    const columns = (names: string[]) => (tabular ? names : [...names].sort()).join(" ");
    if (columns(expected.variables) !== columns(answer.variables)) {
      return `columns: expected ${columns(expected.variables)}, got ${columns(answer.variables)}`;
    }
  }
  const why = await difference(expected, answer, plan.orderBy, plan.reduced);
  if (expected.kind !== "bindings" || answer.kind !== "bindings") return why;
  if (why === undefined) {
    if (!plan.orderByExpression || !expected.ordered) return undefined;
    const sequence = (rows: Map<string, Term>[]) => rows.map(rowText).join("\n");
    return sequence(expected.rows) === sequence(answer.rows)
      ? undefined
      : `order differs: expected\n${sequence(expected.rows)}\ngot\n${sequence(answer.rows)}`;
  }
  // The rows on either side only, blank nodes as `_:`: what a reader needs of the difference.
  const only = (a: Map<string, Term>[], b: Map<string, Term>[]) => {
    const left = b.map(rowText);
    return a.map(rowText).filter((row) => {
      const at = left.indexOf(row);
      if (at >= 0) left.splice(at, 1);
      return at < 0;
    });
  };
  const missing = only(expected.rows, answer.rows);
  const extra = only(answer.rows, expected.rows);
  if (missing.length + extra.length === 0) return why.slice(0, 600);
  return `${why.replace(/:[^]*$/, "")}: expected, not answered ${
    missing.slice(0, 6).join(" | ")
  }; answered, not expected ${extra.slice(0, 6).join(" | ")}`;
}

function rowText(row: Map<string, Term>): string {
  return [...row].sort(([a], [b]) => a.localeCompare(b)).map(([name, term]) =>
    `${name}=${term.termType === "BlankNode" ? "_:" : termKey(term)}`
  ).join(" ");
}

const XSD = "http://www.w3.org/2001/XMLSchema#";
/** The numeric datatypes: XSD's decimal, float and double, and the integer types. */
const NUMERIC = new RegExp(
  `^${XSD}(decimal|float|double|integer|(non)?(positive|negative)Integer|long|int|short|byte|` +
    "unsigned(Long|Int|Short|Byte))$",
);

/** Every number of the answer written in one form per value (JavaScript's). */
function numbersAsValues(answer: Answer): Answer {
  if (answer.kind !== "bindings") return answer;
  const value = (term: Term): Term => {
    if (term.termType !== "Literal") return term;
    const { datatype } = term as Term & { datatype: Term };
    const number = Number(term.value);
    if (!NUMERIC.test(datatype.value) || Number.isNaN(number)) return term;
    return DataFactory.literal(
      String(number),
      datatype as Parameters<typeof DataFactory.literal>[1],
    );
  };
  const rows = answer.rows.map((row) =>
    new Map([...row].map(([name, term]) => [name, value(term)]))
  );
  return { ...answer, rows };
}

function expectedAtBase(expected: Answer, base: string): Answer {
  if (expected.kind === "graph") return { kind: "graph", quads: quadsAtBase(expected.quads, base) };
  if (expected.kind !== "bindings") return expected;
  const rows = expected.rows.map((row) =>
    new Map([...row].map(([name, term]) => [name, termAtBase(term, base)]))
  );
  return { ...expected, rows };
}
