/**
 * The embedded store's compiled SQL path (`sparql_to_sql.ts`) held against complete engines
 * over the same quads: thousands of generated queries inside the compiled fragment, each
 * answered by the SQL path and by the fallback (oxigraph over the quads the query can touch,
 * `sparql_fallback.ts`) on the same connection, and a sample of them by Fuseki too.
 *
 * The data: 30–60 items in 2–3 collections, written through `EmbeddedTripleStore` (created,
 * some replaced, some deleted), sharing subjects and objects, stating the same triple in
 * several items, with typed literals (integers, decimals, doubles, booleans, dates), language
 * tags, plain strings with quotes and line breaks, blank nodes (an item's own: `_:b0` of two
 * items is two nodes), and items that name each other. Non-canonical typed literals ("01",
 * "+5", xsd:int, "1.50", "1"^^xsd:boolean, …) are generated while
 * {@link NON_CANONICAL_LITERALS} holds: literals come back as stored on every path.
 *
 * The queries: BGPs of 1–4 patterns joined by shared variables, with constants drawn from the
 * data (written bare, typed, prefixed or in full) and some the data lacks, blank nodes of the
 * query, `GRAPH <iri>` and `GRAPH ?g`, nested and empty groups, `SELECT *`, projections (an
 * unbound variable among them), `DISTINCT`, `REDUCED`, `COUNT(*)`, `COUNT(?x)`,
 * `COUNT(DISTINCT ?x)` with and without `GROUP BY`, `LIMIT`/`OFFSET`, `ASK`; a fifth of them
 * under a collection scope. Every one must compile (path "compiled" must not throw).
 *
 * What must be equal: the answers as multisets of solutions, blank nodes up to a renaming
 * (oxigraph and Fuseki relabel them: `solution_isomorphism.ts`); the columns, put in the order
 * `/sparql` answers them (`projection_order.ts`: the projection's, for `SELECT *` first
 * appearance), on both paths. With `LIMIT`/`OFFSET` (the fragment has no ORDER BY, so a slice
 * may hold any rows): as many rows on both paths, each path's rows a sub-multiset of the
 * whole answer. `REDUCED` (which may drop any duplicates): the same distinct rows, none more
 * often than without it. Each query's pattern is first counted on the SQL path, and one with
 * more than {@link MAX_SOLUTIONS} solutions (a star on a popular node) set aside for another.
 *
 * Fuseki (when `SERVICE_SPARQL_QUERY_URL` and the update and Graph Store URLs are set): the
 * final items are PUT into Fuseki as named graphs of their own (the item IRIs are unique per
 * run, so they are the graph names), a sample of the queries is sent with `FROM` and
 * `FROM NAMED` naming the run's graphs (the scope's only, under a scope) and compared with
 * the compiled answer; the graphs are dropped after.
 *
 * The seed is printed and in every failure: `SPARQL_DIFF_SEED=<seed>` replays a run (the same
 * data and queries; only the run's IRI prefix differs). Without it the seed is a fixed one plus
 * the clock, so that every CI run explores other data and queries.
 * `SPARQL_DIFF_VERBOSE=1` prints every query and the size of its answer;
 * `SPARQL_DIFF_NON_CANONICAL=0` leaves the non-canonical literals out.
 */
import { strict as assert } from "node:assert";
import { join } from "node:path";
// @ts-types="@types/n3"
import {
  DataFactory,
  type NamedNode,
  type Quad,
  type Term,
  termFromId,
  termToId,
  Writer,
} from "n3";
import { openLocalDatabase } from "../../src/local_database.ts";
import { LOCAL_DB_FILE } from "../../src/sqlite/local_db.ts";
import { EmbeddedTripleStore } from "../../src/store_embedded/embedded_triple_store.ts";
import { type Evaluation, SparqlEvaluator } from "../../src/store_embedded/sparql_evaluator.ts";
import { parseSparqlJsonResults } from "../../src/sparql_protocol/results_json.ts";
import { sparqlParser } from "../../src/sparql_protocol/parser.ts";
import { inQueryOrder, projectionOrder } from "../../src/sparql_protocol/projection_order.ts";
import { SparqlHttpClient } from "../../src/sparql_protocol/client.ts";
import { isProblem } from "../../src/errors/domain_error.ts";
import { GROUP_COMMIT } from "../support/config_defaults.ts";
import { sparqlEndpointsFromEnv } from "../support/fuseki.ts";
import { TEST_GRAPH_PREFIX } from "../support/sparql_isolation.ts";
import {
  notSubMultiset,
  type Solution,
  solutionsDiffer,
  termKey,
} from "../support/solution_isomorphism.ts";

/**
 * Non-canonical typed literals in the data and among the queries' constants. Literals come
 * back as stored on both paths (`literal_forms.ts`); switch this off to tell whether a
 * difference comes from them.
 */
const NON_CANONICAL_LITERALS = Deno.env.get("SPARQL_DIFF_NON_CANONICAL") !== "0";
/** Queries in all (`SPARQL_DIFF_QUERIES` sets another number). */
const QUERIES = Number(Deno.env.get("SPARQL_DIFF_QUERIES") ?? 3_000);
/** Of them, over a second store where no triple is stated twice (the SQL then dedups none). */
const UNSHARED_QUERIES = Math.round(QUERIES / 6);
/** Every n-th query of the first store is also sent to Fuseki (when configured). */
const FUSEKI_EVERY = 8;
/** A generated join can still be large: one that runs past this is skipped (at most 1%). */
const QUERY_TIMEOUT_MS = 10_000;
/** `SPARQL_DIFF_VERBOSE=1`: every query, the size of its answer, and every difference. */
const VERBOSE = Deno.env.get("SPARQL_DIFF_VERBOSE") === "1";
/** Differences described in full in the failure (all are counted). */
const SHOWN_DIFFERENCES = VERBOSE ? Infinity : 8;
/** Generated queries whose pattern has more solutions are set aside (for the run's time). */
const MAX_SOLUTIONS = 5_000;
const FIXED_SEED = 40_003;

const { namedNode, literal, blankNode, quad } = DataFactory;
const XSD = "http://www.w3.org/2001/XMLSchema#";
const RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

// ---------------------------------------------------------------------------------------------
// A seeded generator of our own (a 32-bit counter through a murmur3-style finaliser).

class Random {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x9e3779b9) >>> 0;
    let z = this.#state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return ((z ^ (z >>> 16)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)];
  }
}

// ---------------------------------------------------------------------------------------------
// The data.

const typed = (value: string, type: string) => literal(value, namedNode(XSD + type));

const CANONICAL: Term[] = [
  literal("alpha"),
  literal("beta"),
  literal(""),
  literal('say "hi" \\ there\nnext line é'),
  literal("alpha", "en"),
  literal("alpha", "de"),
  literal("colour", "en-GB"),
  literal("", "en"),
  literal("ünï ☃ 𝄞"),
  literal("x", namedNode("https://example.org/diff/datatype")),
  typed("0", "integer"),
  typed("1", "integer"),
  typed("42", "integer"),
  typed("-7", "integer"),
  typed("1.5", "decimal"),
  typed("-0.25", "decimal"),
  typed("1.0E0", "double"),
  typed("2.5E1", "double"),
  typed("true", "boolean"),
  typed("false", "boolean"),
  typed("2024-01-01", "date"),
  typed("2023-12-31Z", "date"),
];
/** Each one a value that a canonical literal above also has, as another term. */
const NON_CANONICAL: Term[] = [
  typed("01", "integer"),
  typed("+1", "integer"),
  typed("042", "integer"),
  typed("1", "int"),
  typed("42", "long"),
  typed("1.50", "decimal"),
  typed("+1.5", "decimal"),
  typed("1e0", "double"),
  typed("25", "double"),
  typed("1", "boolean"),
  typed("0", "boolean"),
  typed("2024-01-01+00:00", "date"),
];
const NON_CANONICAL_KEYS = new Set(NON_CANONICAL.map((term) => termKey(term)));
/** Literals no item states. */
const ABSENT_LITERALS: Term[] = [
  literal("gamma"),
  literal("ALPHA", "en"),
  typed("7", "integer"),
  typed("1", "short"),
  typed("1.0", "decimal"),
];

interface Item {
  collection: string;
  uri: string;
  quads: Quad[];
}

interface Vocabulary {
  base: string;
  collections: string[];
  subjects: NamedNode[];
  predicates: NamedNode[];
  classes: NamedNode[];
  literals: Term[];
}

function vocabulary(rng: Random, base: string): Vocabulary {
  return {
    base,
    collections: Array.from({ length: 2 + rng.int(2) }, (_, i) => `${base}collection${i}`),
    subjects: [
      ...Array.from({ length: 14 }, (_, i) => namedNode(`${base}s${i}`)),
      namedNode(`${base}s-é/☃`),
    ],
    predicates: Array.from({ length: 6 }, (_, i) => namedNode(`${base}p${i}`)),
    classes: Array.from({ length: 3 }, (_, i) => namedNode(`${base}C${i}`)),
    literals: NON_CANONICAL_LITERALS ? [...CANONICAL, ...NON_CANONICAL] : CANONICAL,
  };
}

/** The items' writes (creates, then replacements and deletions) and what is left after. */
interface Data {
  writes: ({ kind: "create" | "replace"; item: Item } | { kind: "delete"; item: Item })[];
  items: Item[];
  /** IRIs of items that were deleted (their terms stay in the dictionary). */
  deleted: string[];
}

function generateData(rng: Random, vocab: Vocabulary, shared: boolean): Data {
  const count = 30 + rng.int(31);
  const uris = Array.from({ length: count }, (_, i) => `${vocab.base}item${i}`);
  const bnode = () => blankNode(`b${rng.int(3)}`);
  const object = (): Term => {
    const roll = rng.next();
    if (roll < 0.2) return rng.pick(vocab.subjects);
    if (roll < 0.27) return namedNode(rng.pick(uris));
    if (roll < 0.3) return rng.pick(vocab.classes);
    if (roll < 0.85) return rng.pick(vocab.literals);
    return bnode();
  };
  const triple = (): Quad => {
    const roll = rng.next();
    const subject = roll < 0.7
      ? rng.pick(vocab.subjects)
      : roll < 0.85
      ? namedNode(rng.pick(uris))
      : bnode();
    if (rng.chance(0.12)) {
      return quad(subject as Quad["subject"], namedNode(RDF_TYPE), rng.pick(vocab.classes));
    }
    return quad(
      subject as Quad["subject"],
      rng.pick(vocab.predicates) as Quad["predicate"],
      object() as Quad["object"],
    );
  };
  // Triples several items state; the two with a blank node are each item's own node.
  const pool = Array.from({ length: 10 }, (_, i) => {
    const t = triple();
    return i < 2 ? quad(blankNode("b0"), t.predicate, t.object) : t;
  });
  const content = (uri: string): Quad[] => {
    const quads = Array.from(
      { length: 3 + rng.int(10) },
      () => shared && rng.chance(0.2) ? rng.pick(pool) : triple(),
    );
    // Items name each other: GRAPH ?g joined to a subject or an object finds them.
    quads.push(quad(namedNode(uri), vocab.predicates[0], namedNode(rng.pick(uris))));
    // A triple written twice in one item is one triple.
    if (rng.chance(0.05)) quads.push(quads[0]);
    return quads;
  };
  const items = new Map<string, Item>();
  const writes: Data["writes"] = [];
  for (const uri of uris) {
    const item = { collection: rng.pick(vocab.collections), uri, quads: content(uri) };
    items.set(uri, item);
    writes.push({ kind: "create", item });
  }
  const deleted: string[] = [];
  if (shared) {
    for (const uri of uris) {
      const roll = rng.next();
      const item = items.get(uri)!;
      if (roll < 0.1) {
        const replaced = { ...item, quads: content(uri) };
        items.set(uri, replaced);
        writes.push({ kind: "replace", item: replaced });
      } else if (roll < 0.16) {
        items.delete(uri);
        deleted.push(uri);
        writes.push({ kind: "delete", item });
      }
    }
  } else {
    // No triple in two items: each item keeps only triples no item before it states.
    const seen = new Set<string>();
    for (const item of items.values()) {
      item.quads = item.quads.filter((q) => {
        if (q.subject.termType === "BlankNode" || q.object.termType === "BlankNode") return true;
        const key = `${termToId(q.subject)} ${termToId(q.predicate)} ${termToId(q.object)}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    }
  }
  return { writes, items: [...items.values()], deleted };
}

// ---------------------------------------------------------------------------------------------
// The queries.

const VARIABLES = ["?a", "?b", "?c", "?d", "?e", "?f"];
const GRAPH_VARIABLES = ["?g", "?h"];

interface GeneratedQuery {
  /** The query with `dataset` (FROM and FROM NAMED clauses) between its head and WHERE. */
  text(dataset?: string): string;
  ask: boolean;
  /** Its LIMIT and OFFSET taken off, when it has any. */
  whole?: string;
  /** With REDUCED: the same query without it. */
  reduced?: { plain: string };
  /** A non-canonical literal is among its constants. */
  nonCanonical: boolean;
  /** How many solutions its pattern has: `SELECT (COUNT(*) AS ?n)` of it. */
  size: string;
}

/** A triple of the final data in its item; `nodes` tell nodes apart as the store does. */
interface DataTriple {
  item: number;
  terms: [Term, Term, Term];
  /** Node ids: a term's N3.js id, a blank node's qualified by its item. */
  nodes: [string, string, string];
}

/** Where a pattern is matched: the union default graph, or inside `GRAPH` on an item's graph. */
type Context = { item: number } | undefined;

/**
 * Generates queries by walking the data: each pattern is a triple of the data (of the item a
 * `GRAPH` reads) that touches a node an earlier pattern named, its terms turned into variables
 * (the same node, the same variable), blank nodes of the query, or constants; some patterns
 * are drawn at random, and some constants replaced by others or by terms no item holds. Most
 * answers are then not empty, and joins go through shared subjects, objects and graph names.
 */
class QueryGenerator {
  readonly #rng: Random;
  readonly #vocab: Vocabulary;
  readonly #items: Item[];
  readonly #triples: DataTriple[] = [];
  readonly #byNode = new Map<string, number[]>();
  readonly #byItem: number[][];
  readonly #objects: Term[];
  readonly #subjects: Term[];
  readonly #deleted: string[];
  readonly #absentIri: string;
  // The query being generated.
  #variables: string[] = [];
  /** The variable a node is named by. */
  #names = new Map<string, string>();
  /** The blank node of the query a node is named by, in the current basic graph pattern. */
  #labels = new Map<string, string>();
  /** Nodes the patterns so far name. */
  #frontier: string[] = [];
  #open = 0;
  #blankRuns = 0;
  #nonCanonical = false;

  constructor(rng: Random, vocab: Vocabulary, data: Data) {
    this.#rng = rng;
    this.#vocab = vocab;
    this.#items = data.items;
    this.#byItem = data.items.map(() => []);
    const subjects = new Map<string, Term>();
    const objects = new Map<string, Term>();
    data.items.forEach((item, index) => {
      const seen = new Set<string>();
      for (const q of item.quads) {
        const terms: [Term, Term, Term] = [q.subject, q.predicate, q.object];
        const nodes = terms.map((term) =>
          term.termType === "BlankNode" ? `${index}|_:${term.value}` : termToId(term)
        ) as [string, string, string];
        const key = nodes.join(" ");
        if (seen.has(key)) continue;
        seen.add(key);
        const at = this.#triples.push({ item: index, terms, nodes }) - 1;
        this.#byItem[index].push(at);
        for (const node of new Set([nodes[0], nodes[2]])) {
          const list = this.#byNode.get(node) ?? [];
          list.push(at);
          this.#byNode.set(node, list);
        }
        if (q.subject.termType !== "BlankNode") subjects.set(termToId(q.subject), q.subject);
        if (q.object.termType !== "BlankNode") objects.set(termToId(q.object), q.object);
      }
    });
    const byId = (a: [string, Term], b: [string, Term]) => a[0] < b[0] ? -1 : 1;
    this.#subjects = [...subjects].sort(byId).map(([, term]) => term);
    this.#objects = [...objects].sort(byId).map(([, term]) => term);
    this.#deleted = data.deleted;
    this.#absentIri = `${vocab.base}absent`;
  }

  query(): GeneratedQuery {
    const rng = this.#rng;
    this.#variables = [];
    this.#names = new Map();
    this.#labels = new Map();
    this.#frontier = [];
    this.#open = 0;
    this.#nonCanonical = false;
    const where = this.#group(1 + rng.int(4), undefined, 0);
    const used = [...this.#variables];
    const some = () => used.length > 0 && !rng.chance(0.05) ? rng.pick(used) : "?z";
    const prologue = `PREFIX : <${this.#vocab.base}> PREFIX xsd: <${XSD}>\n`;
    const keyword = rng.chance(0.8) ? "WHERE " : "";
    const size = `${prologue}SELECT (COUNT(*) AS ?n) { ${where} }`;
    let limits = "";
    if (rng.chance(0.2)) limits += ` LIMIT ${rng.int(7)}`;
    if (rng.chance(0.12)) limits += ` OFFSET ${rng.int(5)}`;
    const form = rng.next();
    if (form < 0.1) {
      // An ASK's solution modifiers are rare; OFFSET past the solutions answers false.
      const tail = rng.chance(0.1) ? limits : "";
      return {
        text: (dataset = "") => `${prologue}ASK ${dataset}${keyword}{ ${where} }${tail}`,
        ask: true,
        whole: tail ? `${prologue}ASK ${keyword}{ ${where} }` : undefined,
        nonCanonical: this.#nonCanonical,
        size,
      };
    }
    let head: string;
    let group = "";
    let reduced: string | undefined;
    if (form < 0.3) head = "SELECT *";
    else if (form < 0.48) {
      const chosen = used.filter(() => rng.chance(0.5));
      if (chosen.length === 0 || rng.chance(0.08)) chosen.push("?z");
      head = `SELECT ${chosen.join(" ")}`;
    } else if (form < 0.62) {
      const chosen = rng.chance(0.15) ? ["*"] : used.filter(() => rng.chance(0.5));
      if (chosen.length === 0) chosen.push(some());
      const modifier = rng.chance(0.75) ? "DISTINCT" : "REDUCED";
      if (modifier === "REDUCED") reduced = chosen.join(" ");
      head = `SELECT ${modifier} ${chosen.join(" ")}`;
    } else if (form < 0.67) {
      // GROUP BY without an aggregate: one row per key.
      const key = some();
      head = `SELECT ${key}`;
      group = ` GROUP BY ${key}`;
    } else {
      const aggregate = (alias: string) => {
        const roll = rng.next();
        const inner = roll < 0.4 ? "*" : roll < 0.7 ? some() : `DISTINCT ${some()}`;
        return `(COUNT(${inner}) AS ${alias})`;
      };
      const aggregates = [aggregate("?n"), ...(rng.chance(0.2) ? [aggregate("?m")] : [])];
      if (rng.chance(0.5)) {
        const keys = [...new Set([some(), ...(rng.chance(0.25) ? [some()] : [])])];
        const shown = keys.filter(() => rng.chance(0.8));
        head = `SELECT ${[...shown, ...aggregates].join(" ")}`;
        group = ` GROUP BY ${keys.join(" ")}`;
      } else head = `SELECT ${aggregates.join(" ")}`;
    }
    const body = `${keyword}{ ${where} }${group}`;
    return {
      text: (dataset = "") => `${prologue}${head} ${dataset}${body}${limits}`,
      ask: false,
      whole: limits ? `${prologue}${head} ${body}` : undefined,
      reduced: reduced === undefined ? undefined : {
        plain: `${prologue}SELECT ${reduced} ${body}${limits}`,
      },
      nonCanonical: this.#nonCanonical,
      size,
    };
  }

  /** A group's content holding `budget` triple patterns. */
  #group(budget: number, context: Context, depth: number): string {
    const rng = this.#rng;
    const parts: string[] = [];
    // A blank node label of the query lives in one basic graph pattern: a run of triples.
    this.#labels.clear();
    let remaining = budget;
    while (remaining > 0) {
      const roll = rng.next();
      if (roll < 0.03) {
        parts.push("{}");
      } else if (roll < 0.16 && depth < 2) {
        const take = 1 + rng.int(remaining);
        parts.push(`{ ${this.#group(take, context, depth + 1)} }`);
        remaining -= take;
      } else if (roll < 0.38 && context === undefined) {
        const take = 1 + rng.int(Math.min(remaining, 2));
        const item = this.#graphItem();
        const name = this.#graphName(item);
        parts.push(`GRAPH ${name} { ${this.#group(take, { item }, depth + 1)} }`);
        remaining -= take;
      } else {
        parts.push(this.#triple(context));
        remaining--;
        continue;
      }
      this.#labels.clear();
    }
    return parts.join(" ");
  }

  /** The item a `GRAPH` reads: mostly one holding a node named so far. */
  #graphItem(): number {
    const rng = this.#rng;
    if (this.#frontier.length > 0 && rng.chance(0.8)) {
      const near = this.#byNode.get(rng.pick(this.#frontier)) ?? [];
      if (near.length > 0) return this.#triples[rng.pick(near)].item;
    }
    return rng.int(this.#items.length);
  }

  #graphName(item: number): string {
    const rng = this.#rng;
    const uri = this.#items[item].uri;
    if (rng.chance(0.35)) {
      if (rng.chance(0.1)) {
        return `<${
          this.#deleted.length > 0 && rng.chance(0.5) ? rng.pick(this.#deleted) : this.#absentIri
        }>`;
      }
      this.#remember(uri);
      return this.#iri(uri);
    }
    const named = this.#names.get(uri);
    if (named) {
      this.#use(named);
      return named;
    }
    const fresh = [...GRAPH_VARIABLES, ...VARIABLES].find((v) => !this.#variables.includes(v));
    if (!fresh) return this.#iri(uri);
    this.#names.set(uri, fresh);
    this.#remember(uri);
    this.#use(fresh);
    return fresh;
  }

  #use(variable: string): void {
    if (!this.#variables.includes(variable)) this.#variables.push(variable);
  }

  #remember(node: string): void {
    if (!this.#frontier.includes(node)) this.#frontier.push(node);
  }

  /** A triple of the data near the nodes named so far (of the context's item). */
  #pickTriple(context: Context): DataTriple {
    const rng = this.#rng;
    const inContext = (at: number) =>
      context === undefined || this.#triples[at].item === context.item;
    if (this.#frontier.length > 0 && rng.chance(0.88)) {
      const start = rng.int(this.#frontier.length);
      for (let k = 0; k < this.#frontier.length; k++) {
        const node = this.#frontier[(start + k) % this.#frontier.length];
        const near = (this.#byNode.get(node) ?? []).filter(inContext);
        if (near.length > 0) return this.#triples[rng.pick(near)];
      }
    }
    const pool = context === undefined ? undefined : this.#byItem[context.item];
    return this.#triples[pool && pool.length > 0 ? rng.pick(pool) : rng.int(this.#triples.length)];
  }

  #triple(context: Context): string {
    const rng = this.#rng;
    const picked = this.#pickTriple(context);
    let subject = this.#node(picked, 0);
    let predicate = this.#predicate(picked);
    let object = this.#node(picked, 2);
    // Some constants replaced: by another term of the data, or by one no item holds.
    if (rng.chance(0.06)) {
      subject = rng.chance(0.8)
        ? this.#constant(rng.pick(this.#subjects))
        : this.#iri(this.#absentIri);
    }
    if (rng.chance(0.08)) {
      object = rng.chance(0.7)
        ? this.#constant(rng.pick(this.#objects))
        : rng.chance(0.3)
        ? this.#iri(this.#absentIri)
        : this.#constant(rng.pick(ABSENT_LITERALS));
    }
    // At most one pattern with no constant: several such joined run long on any engine.
    const open = [subject, predicate, object].every((term) => /^[?_[]/.test(term));
    if (open && this.#open++ > 0) predicate = this.#constant(picked.terms[1]);
    for (const term of [subject, predicate, object]) if (term.startsWith("?")) this.#use(term);
    this.#remember(picked.nodes[0]);
    this.#remember(picked.nodes[2]);
    return `${subject} ${predicate} ${object} .`;
  }

  /** The subject (0) or object (2) of `picked` as a variable, a blank node or a constant. */
  #node(picked: DataTriple, position: 0 | 2): string {
    const rng = this.#rng;
    const node = picked.nodes[position];
    const term = picked.terms[position];
    const named = this.#names.get(node);
    if (named && rng.chance(0.9)) return named;
    const label = this.#labels.get(node);
    if (label) return label;
    const blank = term.termType === "BlankNode";
    if (!blank && rng.chance(0.5)) return this.#constant(term);
    if (blank && rng.chance(0.4)) {
      if (rng.chance(0.25)) return "[]";
      const fresh = `_:k${this.#blankRuns++}`;
      this.#labels.set(node, fresh);
      return fresh;
    }
    const fresh = VARIABLES.find((v) => !this.#variables.includes(v));
    if (!fresh) return blank ? "[]" : this.#constant(term);
    this.#names.set(node, fresh);
    this.#use(fresh);
    return fresh;
  }

  #predicate(picked: DataTriple): string {
    const rng = this.#rng;
    const [, term] = picked.terms;
    const node = picked.nodes[1];
    const named = this.#names.get(node);
    if (named && rng.chance(0.6)) return named;
    if (rng.chance(0.15)) {
      const fresh = VARIABLES.find((v) => !this.#variables.includes(v));
      if (fresh) {
        this.#names.set(node, fresh);
        this.#use(fresh);
        return fresh;
      }
    }
    if (rng.chance(0.03)) return this.#iri(this.#absentIri);
    if (term.value === RDF_TYPE && rng.chance(0.5)) return "a";
    return this.#constant(term);
  }

  #iri(iri: string): string {
    return this.#constant(namedNode(iri));
  }

  /** A constant as SPARQL text, in one of the ways the language writes it. */
  #constant(term: Term): string {
    const rng = this.#rng;
    if (term.termType === "NamedNode") {
      const local = term.value.slice(this.#vocab.base.length);
      if (term.value.startsWith(this.#vocab.base) && /^\w+$/.test(local) && rng.chance(0.8)) {
        return `:${local}`;
      }
      return `<${term.value}>`;
    }
    if (NON_CANONICAL_KEYS.has(termKey(term))) this.#nonCanonical = true;
    const { language, datatype } = term as Term & { language: string; datatype: Term };
    const quoted = `"${
      term.value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n")
    }"`;
    // A language tag's case does not matter (RDF 1.1): `@EN-gb` matches `@en-gb`.
    if (language) return `${quoted}@${rng.chance(0.2) ? language.toUpperCase() : language}`;
    if (!datatype.value.startsWith(XSD)) return `${quoted}^^<${datatype.value}>`;
    const type = datatype.value.slice(XSD.length);
    const bare = (type === "integer" && /^[+-]?\d+$/.test(term.value)) ||
      (type === "decimal" && /^[+-]?\d*\.\d+$/.test(term.value)) ||
      (type === "double" && /^[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+$/.test(term.value)) ||
      (type === "boolean" && /^(true|false)$/.test(term.value));
    if (bare && rng.chance(0.5)) return term.value;
    if (type === "string") return rng.chance(0.8) ? quoted : `${quoted}^^xsd:string`;
    return rng.chance(0.7) ? `${quoted}^^xsd:${type}` : `${quoted}^^<${datatype.value}>`;
  }
}

/**
 * Hand-written queries at the fragment's edges, run first on every seed: solution modifiers on
 * ASK, counts of unbound variables and of all quads, empty groups, a graph joined to the
 * default graph.
 */
function edgeQueries(base: string): GeneratedQuery[] {
  const prologue = `PREFIX : <${base}>\n`;
  const of = (head: string, body: string, group = "", limits = ""): GeneratedQuery => ({
    text: (dataset = "") => `${prologue}${head} ${dataset}WHERE { ${body} }${group}${limits}`,
    ask: head === "ASK",
    whole: limits ? `${prologue}${head} WHERE { ${body} }${group}` : undefined,
    nonCanonical: false,
    size: `${prologue}SELECT (COUNT(*) AS ?n) { ${body} }`,
  });
  return [
    of("ASK", "?s ?p ?o", "", " LIMIT 0"),
    of("ASK", "?s ?p ?o", "", " OFFSET 100000"),
    of("ASK", ":s0 ?p ?o", "", " LIMIT 1 OFFSET 1"),
    of("SELECT (COUNT(?z) AS ?n)", "?s ?p ?o"),
    of("SELECT ?z (COUNT(*) AS ?n)", "?s ?p ?o", " GROUP BY ?z"),
    of("SELECT (COUNT(*) AS ?n)", "?s ?p ?o"),
    of("SELECT (COUNT(*) AS ?n) (COUNT(DISTINCT ?s) AS ?m)", "GRAPH ?g { ?s ?p ?o }"),
    of("SELECT (COUNT(*) AS ?n)", "[] ?p ?o"),
    of("SELECT ?s (COUNT(DISTINCT ?o) AS ?n)", "?s ?p ?o", " GROUP BY ?s"),
    of("SELECT DISTINCT *", "?s ?p ?o"),
    of("SELECT *", ":s0 ?p ?o . {}"),
    of("SELECT *", ":s0 ?p ?o . { {} }", "", " OFFSET 2"),
    of("SELECT (COUNT(*) AS ?n)", "?s ?p ?o", "", " OFFSET 1"),
    of("SELECT *", "GRAPH ?g { ?s ?p ?o } ?s ?p ?o"),
    of("SELECT ?g (COUNT(*) AS ?n)", "GRAPH ?g { ?s ?p ?o } ?o ?q ?g", " GROUP BY ?g"),
  ];
}

// ---------------------------------------------------------------------------------------------
// Answers.

type Answer =
  | { kind: "boolean"; value: boolean }
  | { kind: "rows"; variables: string[]; rows: Solution[] };

function answerOf(evaluation: Evaluation): Answer {
  if (evaluation.kind === "boolean") return evaluation;
  if (evaluation.kind === "rows") {
    return {
      kind: "rows",
      variables: evaluation.variables,
      rows: evaluation.rows.map((row) => {
        const solution: Solution = new Map();
        row.forEach((text, i) => {
          if (text !== null) solution.set(evaluation.variables[i], termFromId(text));
        });
        return solution;
      }),
    };
  }
  const parsed = parseSparqlJsonResults(evaluation.text);
  if (parsed.kind === "boolean") return parsed;
  return { kind: "rows", variables: parsed.variables, rows: parsed.rows };
}

/** An answer, trimmed, for a failure message. */
function shown(answer: Answer | Error): string {
  if (answer instanceof Error) return `threw ${answer.message}`;
  if (answer.kind === "boolean") return String(answer.value);
  const rows = answer.rows.slice(0, 6).map((row) =>
    "  " + [...row].map(([name, term]) => `?${name}=${termKey(term)}`).join(" ")
  );
  const more = answer.rows.length > 6 ? `\n  … ${answer.rows.length - 6} more` : "";
  return `${answer.rows.length} rows [${answer.variables.join(" ")}]\n${rows.join("\n")}${more}`;
}

function hasBlankNode(answer: Answer): boolean {
  return answer.kind === "rows" &&
    answer.rows.some((row) => [...row.values()].some((t) => t.termType === "BlankNode"));
}

function hasNonCanonical(...answers: (Answer | Error | undefined)[]): boolean {
  return answers.some((answer) =>
    answer !== undefined && !(answer instanceof Error) && answer.kind === "rows" &&
    answer.rows.some((row) => [...row.values()].some((t) => NON_CANONICAL_KEYS.has(termKey(t))))
  );
}

/** Why `compiled` and `other` differ for `query`, or undefined. */
function differs(
  query: GeneratedQuery,
  sparql: string,
  compiled: Answer,
  other: Answer,
  fold = false,
): string | undefined {
  if (compiled.kind !== other.kind) return `a ${compiled.kind} answer against a ${other.kind}`;
  if (compiled.kind === "boolean" && other.kind === "boolean") {
    return compiled.value === other.value ? undefined : "booleans differ";
  }
  if (compiled.kind === "boolean" || other.kind === "boolean") return "not both booleans";
  // The columns as /sparql answers them: the query's order (projection_order.ts).
  const order = projectionOrder(sparqlParser().parse(sparql));
  const columns = (answer: typeof compiled) => inQueryOrder(answer.variables, order).join(" ");
  if (columns(compiled) !== order.join(" ")) {
    return `compiled columns ${compiled.variables.join(" ")}, the query's ${order.join(" ")}`;
  }
  if (columns(other) !== columns(compiled)) {
    return `columns ${columns(compiled)} against ${columns(other)}`;
  }
  if (query.reduced) {
    // REDUCED may drop any duplicates: the same rows, told once each (the multiplicities
    // are checked against the query without REDUCED apart).
    if (query.whole !== undefined) return undefined;
    return solutionsDiffer(once(compiled.rows), once(other.rows), { foldLanguage: fold });
  }
  if (query.whole === undefined) {
    return solutionsDiffer(compiled.rows, other.rows, { foldLanguage: fold });
  }
  // A slice: as many rows (which ones is checked against the whole answer apart).
  if (compiled.rows.length !== other.rows.length) {
    return `${compiled.rows.length} rows against ${other.rows.length}`;
  }
  return undefined;
}

/** The distinct rows of an answer (blank nodes by label: one answer labels them alike). */
function once(rows: Solution[]): Solution[] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const key = [...row].map(([name, term]) => `${name}=${termKey(term)}`).sort().join(" ");
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

// ---------------------------------------------------------------------------------------------
// The test.

interface Difference {
  where: string;
  /** The engine held against the compiled path. */
  engine: "fallback" | "Fuseki";
  why: string;
  query: string;
  compiled: Answer | Error;
  other: Answer | Error;
  nonCanonical: boolean;
}

function describe(seed: number, difference: Difference): string {
  return `seed ${seed} (SPARQL_DIFF_SEED=${seed}), ${difference.where}: ${difference.why}` +
    `${difference.nonCanonical ? " [non-canonical literal involved]" : ""}\n` +
    `${trimmed(difference.query)}\ncompiled: ${shown(difference.compiled)}\n` +
    `${difference.engine}: ${shown(difference.other)}`;
}

/** A query for a message: a long FROM list cut short. */
function trimmed(sparql: string): string {
  return sparql.replace(/((?:FROM (?:NAMED )?<[^>]*> ){2})(?:FROM (?:NAMED )?<[^>]*> )+/, "$1… ");
}

/** A query to compare, with the compiled answer, for Fuseki. */
interface Sampled {
  query: GeneratedQuery;
  scope?: string[];
  compiled: Answer;
}

interface Figures {
  queries: number;
  nonEmpty: number;
  blankNodes: number;
  maxRows: number;
  reruns: number;
  tooLarge: number;
  skipped: number;
  fuseki: number;
  rawOrder: number;
  /** Milliseconds spent in each engine (the compiled path's with the size checks). */
  ms: { compiled: number; fallback: number; fuseki: number };
}

const endpoints = sparqlEndpointsFromEnv();
const envSeed = Deno.env.get("SPARQL_DIFF_SEED");
const seed = envSeed ? Number(envSeed) : (FIXED_SEED + Date.now()) % 2_147_483_647;

Deno.test("SPARQL differential: the compiled SQL path answers as oxigraph and Fuseki do", async () => {
  const started = performance.now();
  console.log(
    `SPARQL differential: seed ${seed} (SPARQL_DIFF_SEED=${seed} replays it), ` +
      `non-canonical literals ${NON_CANONICAL_LITERALS ? "on" : "off"}`,
  );
  const rng = new Random(seed);
  // Unique per run, not drawn from the seed: the item IRIs are Fuseki graph names.
  const run = crypto.randomUUID().slice(0, 8);
  const vocab = vocabulary(rng, `${TEST_GRAPH_PREFIX}diff-${run}:`);
  const differences: Difference[] = [];
  const figures: Figures = {
    queries: 0,
    nonEmpty: 0,
    blankNodes: 0,
    maxRows: 0,
    reruns: 0,
    tooLarge: 0,
    skipped: 0,
    fuseki: 0,
    rawOrder: 0,
    ms: { compiled: 0, fallback: 0, fuseki: 0 },
  };

  const phase = async (name: string, shared: boolean, count: number) => {
    const data = generateData(rng, vocab, shared);
    const generator = new QueryGenerator(rng, vocab, data);
    const dir = await Deno.makeTempDir({ prefix: "rcs-sparql-diff-" });
    const db = openLocalDatabase(dir);
    const store = EmbeddedTripleStore.open(db, join(dir, LOCAL_DB_FILE), GROUP_COMMIT);
    try {
      for (const write of data.writes) {
        if (write.kind === "create") await store.createItem({ ...write.item, hash: "h" });
        else if (write.kind === "replace") await store.replaceItem({ ...write.item, hash: "h" });
        else await store.deleteItem(write.item.collection, write.item.uri);
      }
      const countOf = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
      const sharedTriples = countOf("SELECT count(*) AS n FROM shared_triples");
      console.log(
        `  ${name}: ${data.items.length} items (${data.writes.length} writes), ` +
          `${countOf("SELECT count(*) AS n FROM quads")} quads, ${sharedTriples} triples in ` +
          `several items, ${vocab.collections.length} collections`,
      );
      assert.equal(sharedTriples > 0, shared, "whether triples are shared, as the phase needs");
      const evaluator = new SparqlEvaluator(db);
      const evaluate = async (
        sparql: string,
        path: "compiled" | "fallback",
        scope?: string[],
      ): Promise<Answer> => {
        const begun = performance.now();
        try {
          return answerOf(
            await evaluator.evaluate({
              sparql,
              form: "bindings",
              unionDefaultGraph: true,
              path,
              scope,
              deadline: Date.now() + QUERY_TIMEOUT_MS,
              timeoutMs: QUERY_TIMEOUT_MS,
            }),
          );
        } finally {
          figures.ms[path] += performance.now() - begun;
        }
      };
      /** A query whose pattern has few enough solutions (a star on a hub node has many). */
      const next = async (): Promise<GeneratedQuery> => {
        while (true) {
          const query = generator.query();
          let size: Answer;
          try {
            size = await evaluate(query.size, "compiled");
          } catch {
            return query; // Its own evaluation tells what is wrong.
          }
          if (size.kind === "rows" && Number(size.rows[0].get("n")!.value) <= MAX_SOLUTIONS) {
            return query;
          }
          figures.tooLarge++;
        }
      };
      const sample: Sampled[] = [];
      const edges = edgeQueries(vocab.base);
      for (let i = 0; i < count; i++) {
        const query = i < edges.length ? edges[i] : await next();
        const scope = rng.chance(0.2) ? vocab.collections.filter(() => rng.chance(0.5)) : undefined;
        const sparql = query.text();
        const where = `${name} query ${i}${scope ? ` scope [${scope.join(" ")}]` : ""}`;
        const note = (why: string, compiled: Answer | Error, other: Answer | Error) =>
          differences.push({
            where,
            engine: "fallback",
            why,
            query: sparql,
            compiled,
            other,
            nonCanonical: query.nonCanonical || hasNonCanonical(compiled, other),
          });
        let compiled: Answer;
        let fallback: Answer;
        try {
          compiled = await evaluate(sparql, "compiled", scope);
        } catch (error) {
          if (isProblem(error, "query-timeout")) figures.skipped++;
          else note("the compiled path refused it", error as Error, new Error("-"));
          continue;
        }
        try {
          fallback = await evaluate(sparql, "fallback", scope);
        } catch (error) {
          if (isProblem(error, "query-timeout")) figures.skipped++;
          else note("the fallback failed", compiled, error as Error);
          continue;
        }
        figures.queries++;
        // Sampled whatever the fallback answered: Fuseki then tells which path is wrong.
        if (endpoints && shared && i % FUSEKI_EVERY === 0) sample.push({ query, scope, compiled });
        if (compiled.kind === "boolean" ? compiled.value : compiled.rows.length > 0) {
          figures.nonEmpty++;
        }
        if (compiled.kind === "rows") {
          figures.maxRows = Math.max(figures.maxRows, compiled.rows.length);
          const order = projectionOrder(sparqlParser().parse(sparql));
          if (compiled.variables.join(" ") !== order.join(" ")) figures.rawOrder++;
        }
        if (hasBlankNode(compiled)) figures.blankNodes++;
        if (VERBOSE) {
          console.log(`${where}: ${sparql.split("\n")[1]} -> ${shown(compiled).split("\n")[0]}`);
        }
        const why = differs(query, sparql, compiled, fallback);
        if (why) {
          note(why, compiled, fallback);
          continue;
        }
        try {
          if (query.whole !== undefined) {
            // A slice: each path's rows are rows of the whole answer, which must agree too.
            figures.reruns += 2;
            const whole = await evaluate(query.whole, "compiled", scope);
            const wholeFallback = await evaluate(query.whole, "fallback", scope);
            const unsliced = { ...query, whole: undefined };
            const whyWhole = differs(unsliced, query.whole, whole, wholeFallback);
            if (whyWhole) {
              note(`without LIMIT/OFFSET: ${whyWhole}`, whole, wholeFallback);
              continue;
            }
            if (compiled.kind === "rows" && whole.kind === "rows") {
              // The compiled path's blank node labels are the stored ones, the same in both.
              const outside = notSubMultiset(compiled.rows, whole.rows, { blankLabels: true }) ??
                notSubMultiset(
                  (fallback as typeof compiled).rows,
                  (wholeFallback as typeof whole).rows,
                );
              if (outside) {
                note(`a slice that is not of the whole answer: ${outside}`, compiled, whole);
              }
            }
          } else if (query.reduced && compiled.kind === "rows") {
            // REDUCED: no row more often than without it.
            figures.reruns++;
            const plain = await evaluate(query.reduced.plain, "fallback", scope);
            const more = plain.kind === "rows" ? notSubMultiset(compiled.rows, plain.rows) : "?";
            if (more) note(`REDUCED: ${more}`, compiled, plain);
          }
        } catch (error) {
          if (isProblem(error, "query-timeout")) figures.skipped++;
          else note("a rerun failed", error as Error, new Error("-"));
          continue;
        }
      }
      if (endpoints && shared) await compareWithFuseki(data, sample);
    } finally {
      await store.close();
      db.close();
      await Deno.remove(dir, { recursive: true });
    }
  };

  /** The sample through Fuseki, over the final items PUT as graphs of the run's own. */
  const compareWithFuseki = async (data: Data, sample: Sampled[]) => {
    const client = new SparqlHttpClient({ ...endpoints!, timeoutMs: 30_000, retries: 1 });
    const writer = new Writer({ format: "N-Triples" });
    try {
      for (const item of data.items) {
        await client.putGraph(item.uri, writer.quadsToString(item.quads));
      }
      for (const [i, { query, scope, compiled }] of sample.entries()) {
        const graphs = data.items
          .filter((item) => !scope || scope.includes(item.collection))
          .map((item) => item.uri);
        // Without FROM, Fuseki's own default graph: a graph no one writes is an empty one.
        if (graphs.length === 0) graphs.push(`${vocab.base}nothing`);
        const sparql = query.text(graphs.map((g) => `FROM <${g}> FROM NAMED <${g}> `).join(""));
        const where = `Fuseki sample ${i}${scope ? ` scope [${scope.join(" ")}]` : ""}`;
        let answer: Answer;
        const begun = performance.now();
        try {
          const response = await client.query(sparql, "application/sparql-results+json");
          const parsed = parseSparqlJsonResults(await response.text());
          answer = parsed.kind === "boolean"
            ? parsed
            : { kind: "rows", variables: parsed.variables, rows: parsed.rows };
        } catch (error) {
          const nonCanonical = query.nonCanonical;
          const other = error as Error;
          differences.push({
            where,
            engine: "Fuseki",
            why: "Fuseki failed",
            query: sparql,
            compiled,
            other,
            nonCanonical,
          });
          continue;
        }
        figures.fuseki++;
        figures.ms.fuseki += performance.now() - begun;
        // Fuseki keeps a language tag's case as written (RDF 1.1 compares them folded).
        const why = differs(query, query.text(), compiled, answer, true);
        if (why) {
          differences.push({
            where,
            engine: "Fuseki",
            why,
            query: sparql,
            compiled,
            other: answer,
            nonCanonical: query.nonCanonical || hasNonCanonical(compiled, answer),
          });
        }
      }
    } finally {
      await client.update(data.items.map((item) => `DROP SILENT GRAPH <${item.uri}>`).join(" ;\n"));
      client.close();
    }
  };

  await phase("shared triples", true, QUERIES - UNSHARED_QUERIES);
  await phase("no shared triples", false, UNSHARED_QUERIES);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const fuseki = endpoints
    ? `${figures.fuseki} of them through Fuseki too`
    : "Fuseki skipped: SERVICE_SPARQL_QUERY_URL, _UPDATE_URL and _GSP_URL are not all set";
  const canonical = differences.filter((d) => !d.nonCanonical).length;
  console.log(
    `SPARQL differential: ${figures.queries} queries, ${differences.length} differences ` +
      `(${canonical} without a non-canonical literal); ${fuseki}; ${figures.nonEmpty} answers ` +
      `not empty, ${figures.blankNodes} with blank nodes, at most ${figures.maxRows} rows; ` +
      `${figures.reruns} reruns (whole answers of slices, REDUCED); ${figures.tooLarge} ` +
      `generated queries set aside (over ${MAX_SOLUTIONS} solutions), ${figures.skipped} ` +
      `past ${QUERY_TIMEOUT_MS} ms; ${figures.rawOrder} compiled answers whose own columns are ` +
      `not in the query's order (/sparql orders them); ${seconds} s (compiled ` +
      `${(figures.ms.compiled / 1000).toFixed(1)} s, fallback ` +
      `${(figures.ms.fallback / 1000).toFixed(1)} s, Fuseki ${
        (figures.ms.fuseki / 1000).toFixed(1)
      } s)`,
  );
  assert.ok(
    differences.length === 0,
    `${differences.length} differences (${canonical} without a non-canonical literal):\n\n` +
      differences.slice(0, SHOWN_DIFFERENCES).map((d) => describe(seed, d)).join("\n\n"),
  );
  assert.ok(figures.skipped <= QUERIES / 100, `${figures.skipped} queries ran past the timeout`);
});

Deno.test("SPARQL differential: answers are compared up to a renaming of blank nodes, no further", () => {
  const row = (entries: Record<string, Term>): Solution => new Map(Object.entries(entries));
  const [x, y, b1, b2, b3] = [
    namedNode("urn:x"),
    namedNode("urn:y"),
    blankNode("b1"),
    blankNode("b2"),
    blankNode("b3"),
  ];
  const [c1, c2, c3] = [blankNode("c1"), blankNode("c2"), blankNode("c3")];
  const a = [row({ s: b1, o: x }), row({ s: b2, o: y }), row({ s: b1, o: b2 })];
  // Renamed: equal.
  assert.equal(
    solutionsDiffer(a, [row({ s: c2, o: c1 }), row({ s: c2, o: x }), row({ s: c1, o: y })]),
    undefined,
  );
  // One blank node where there were two: the rows match only with the nodes taken apart.
  assert.ok(
    solutionsDiffer(
      [row({ s: b1, o: x }), row({ s: b2, o: y })],
      [row({ s: c1, o: x }), row({ s: c1, o: y })],
    ),
  );
  // The edge between them reversed.
  assert.ok(
    solutionsDiffer(a, [row({ s: c1, o: x }), row({ s: c2, o: y }), row({ s: c2, o: c1 })]),
  );
  // Symmetric blank nodes (a cycle of three) need a search, and find a mapping.
  const cycle = (p: Term, q: Term, r: Term) => [
    row({ s: p, o: q }),
    row({ s: q, o: r }),
    row({ s: r, o: p }),
  ];
  assert.equal(solutionsDiffer(cycle(b1, b2, b3), cycle(c3, c1, c2)), undefined);
  assert.ok(
    solutionsDiffer(cycle(b1, b2, b3), [...cycle(c1, c2, c3).slice(0, 2), row({ s: c3, o: c3 })]),
  );
  // Multiplicities count; an unbound variable is not a bound one; literals exactly as stored.
  assert.ok(solutionsDiffer([row({ s: x }), row({ s: x })], [row({ s: x }), row({ s: y })]));
  assert.ok(solutionsDiffer([row({ s: x })], [row({ s: x, o: y })]));
  assert.ok(
    solutionsDiffer([row({ o: typed("01", "integer") })], [row({ o: typed("1", "integer") })]),
  );
  assert.ok(
    solutionsDiffer([row({ o: typed("1", "int") })], [row({ o: typed("1", "integer") })]),
  );
  // A language tag's case only when asked to fold it.
  const en = literal("a", "en-gb");
  // N3.js lowers a tag's case: a term as another engine's results give it.
  const EN = {
    termType: "Literal",
    value: "a",
    language: "en-GB",
    datatype: en.datatype,
  } as unknown as Term;
  assert.ok(solutionsDiffer([row({ o: en })], [row({ o: EN })]));
  assert.equal(
    solutionsDiffer([row({ o: en })], [row({ o: EN })], { foldLanguage: true }),
    undefined,
  );
  // Sub-multisets.
  assert.equal(notSubMultiset([row({ s: x })], [row({ s: y }), row({ s: x })]), undefined);
  assert.ok(notSubMultiset([row({ s: x }), row({ s: x })], [row({ s: y }), row({ s: x })]));
});
