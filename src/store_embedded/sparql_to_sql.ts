/**
 * SPARQL over the quad tables (`quad_tables.ts`): the common fragment of SELECT and ASK
 * compiled to one SQL statement, so that SQLite's indexes answer it without a copy of the
 * store in memory.
 *
 * The fragment: basic graph patterns in the union default graph or in `GRAPH <iri>` /
 * `GRAPH ?g`, (nested) groups of those, `DISTINCT`/`REDUCED`, `LIMIT`/`OFFSET`, and
 * `COUNT(*)`, `COUNT(?x)`, `COUNT(DISTINCT ?x)` with or without `GROUP BY` of variables.
 * Anything else (FILTER, OPTIONAL, UNION, ORDER BY, paths, a dataset, CONSTRUCT, …) is not
 * compiled: {@link compileQuery} answers undefined and the caller falls back to a complete
 * engine over the quads the query can touch (`sparql_fallback.ts`).
 *
 * Hand-written: no npm library compiles SPARQL to SQL over a schema of one's own, and the
 * fragment is small. Term equality in a pattern is the dictionary id's equality, which is
 * RDF term equality (what BGP matching uses). The union default graph is the RDF merge of the
 * item graphs, a set: a triple stated in two items matches once (`distinctSolutions`).
 *
 * A query scope (the collections a caller may read) joins each quads table that matches the
 * union default graph, and the first of each `GRAPH` (the others equal its graph), to an
 * `items` row of its graph whose collection is in the scope: `i.graph = q.g AND i.collection
 * IN (?1, …)`, the collections bound as parameters. SQLite then picks the direction: from a
 * bound term's index, each row's graph probed by `items(graph, collection)` (unique: one item
 * per graph), or, for a pattern with nothing bound, from the scope's graphs by
 * `items(collection, graph)` into the quads' primary key (g, s, p, o) (migration 9).
 */
// @ts-types="@types/sparqljs"
import type sparqljs from "sparqljs";
import { encodeConstant } from "./term_ids.ts";
import { termColumn } from "./term_dictionary.ts";

/** A compiled query: its SQL, and how to read its rows. */
export interface CompiledQuery {
  sql: string;
  /** The result's variables, in order; each row holds one column per variable. */
  variables: string[];
  /** Which columns hold a count (a number), not a term's text. */
  counts: boolean[];
  /** ASK: true when a row exists. */
  ask: boolean;
  /** The statement's parameters (`?1`, `?2`, …): the scope's collections. */
  parameters: string[];
}

/** Term ids of a query's constants; undefined for a term no quad holds. */
export type TermLookup = (text: string) => number | undefined;

type Term = sparqljs.Term;
/** Where a pattern is matched: the union default graph, or inside a `GRAPH`. */
type Graph = "default" | "named";

/** Not in the fragment: the caller falls back. */
class Unsupported extends Error {}

const XSD_INTEGER = "http://www.w3.org/2001/XMLSchema#integer";

/**
 * The SQL of `query`, or undefined when it is outside the compiled fragment. `scope`: the
 * collections whose item graphs the query sees (an empty list: none); undefined, every graph.
 * `sharedTriples`: false when no triple is stated in two item graphs (the store's
 * `shared_triples` table is empty), so that the default graph's quads are already a set.
 */
export function compileQuery(
  query: sparqljs.SparqlQuery,
  lookUp: TermLookup,
  scope?: readonly string[],
  sharedTriples = true,
): CompiledQuery | undefined {
  try {
    return compile(query, lookUp, scope, sharedTriples);
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

function compile(
  query: sparqljs.SparqlQuery,
  lookUp: TermLookup,
  scope: readonly string[] | undefined,
  sharedTriples: boolean,
): CompiledQuery {
  if (query.type !== "query") throw new Unsupported();
  if (query.queryType !== "SELECT" && query.queryType !== "ASK") throw new Unsupported();
  const modifiers = query as sparqljs.SelectQuery;
  if (query.from || query.values || modifiers.having || modifiers.order) throw new Unsupported();
  const joins = new Joins(lookUp, scope);
  for (const pattern of query.where ?? []) joins.add(pattern, "default");
  if (joins.tables.length === 0) throw new Unsupported();
  const from = joins.from();
  const parameters = joins.parameters;
  if (query.queryType === "ASK") {
    return {
      sql: askSql(query, joins, from, sharedTriples),
      variables: [],
      counts: [],
      ask: true,
      parameters,
    };
  }
  const select = query as sparqljs.SelectQuery;
  const grouped = select.group !== undefined ||
    select.variables.some((item) => !("termType" in item));
  if (grouped && select.distinct) throw new Unsupported();
  // The union default graph is a set of triples: a triple stated in several items matches
  // once. A solution then differs from another only in its variables, so the solutions are
  // those of the quads' join made distinct over every variable (a group of patterns joins
  // sets into a set). A DISTINCT projection needs no more; anything else reads from that.
  const copies = sharedTriples && joins.hasDefaultGraph;
  if (copies && isCountOfOnePattern(select, joins)) return countOfOnePattern(select, joins);
  const solutions = copies && !(select.distinct || select.reduced)
    ? distinctSolutions(joins, from)
    : { from, columns: joins.variables };
  const variables: string[] = [];
  const counts: boolean[] = [];
  const columns: string[] = [];
  for (const item of select.variables) {
    if ("termType" in item && item.termType === "Wildcard") {
      for (const [name, column] of solutions.columns) {
        if (name.startsWith("_:")) continue;
        variables.push(name);
        counts.push(false);
        columns.push(column);
      }
    } else if ("termType" in item) {
      variables.push(item.value);
      counts.push(false);
      columns.push(solutions.columns.get(item.value) ?? "NULL");
    } else {
      variables.push(item.variable.value);
      counts.push(true);
      columns.push(countOf(item.expression, solutions.columns));
    }
  }
  let groupBy = "";
  if (select.group) {
    const keys = select.group.map((key) => {
      const expression = key.expression as Term;
      if (key.variable || expression.termType !== "Variable") throw new Unsupported();
      return solutions.columns.get(expression.value) ?? "NULL";
    });
    groupBy = ` GROUP BY ${keys.join(", ")}`;
  }
  const distinct = select.distinct || select.reduced ? "DISTINCT " : "";
  const list = columns.map((column, i) => `${column} AS c${i}`).join(", ") || "1";
  let sql = `SELECT ${distinct}${list} ${solutions.from}${groupBy}`;
  if (select.limit !== undefined) sql += ` LIMIT ${select.limit}`;
  if (select.offset !== undefined) {
    sql += `${select.limit === undefined ? " LIMIT -1" : ""} OFFSET ${select.offset}`;
  }
  // Ids are turned into texts only for the rows that are returned.
  const texts = columns.map((_, i) =>
    counts[i] ? `r.c${i}` : `(SELECT ${termColumn("term")} FROM terms WHERE id = r.c${i})`
  );
  return {
    sql: `SELECT ${texts.join(", ") || "1"} FROM (${sql}) r`,
    variables,
    counts,
    ask: false,
    parameters,
  };
}

function countOf(expression: sparqljs.Expression, variables: Map<string, string>): string {
  const aggregate = expression as sparqljs.AggregateExpression;
  if (aggregate.type !== "aggregate" || aggregate.aggregation !== "count") {
    throw new Unsupported();
  }
  const inner = aggregate.expression as Term | { termType: "Wildcard" };
  if (inner.termType === "Wildcard") {
    if (aggregate.distinct) throw new Unsupported();
    return "count(*)";
  }
  if (inner.termType !== "Variable") throw new Unsupported();
  const column = variables.get(inner.value);
  // A variable the patterns never bind counts nothing, but is still an aggregate: one row.
  if (column === undefined) return "count(NULL)";
  return `count(${aggregate.distinct ? "DISTINCT " : ""}${column})`;
}

/**
 * ASK: whether a solution is left after the query's LIMIT and OFFSET (`LIMIT 0` leaves none;
 * an OFFSET counts solutions, a shared triple's copies once).
 */
function askSql(
  query: sparqljs.AskQuery,
  joins: Joins,
  from: string,
  sharedTriples: boolean,
): string {
  const { limit, offset } = query as sparqljs.AskQuery & { limit?: number; offset?: number };
  if (limit === undefined && offset === undefined) return `SELECT 1 ${from} LIMIT 1`;
  const solutions = sharedTriples && joins.hasDefaultGraph
    ? distinctSolutions(joins, from).from
    : from;
  const window = `${limit === undefined ? " LIMIT -1" : ` LIMIT ${limit}`}${
    offset === undefined ? "" : ` OFFSET ${offset}`
  }`;
  return `SELECT 1 FROM (SELECT 1 ${solutions}${window}) LIMIT 1`;
}

/** `SELECT (COUNT(*) AS ?n) { one pattern }` over the union default graph. */
function isCountOfOnePattern(select: sparqljs.SelectQuery, joins: Joins): boolean {
  if (select.group || select.distinct || select.reduced || select.variables.length !== 1) {
    return false;
  }
  const item = select.variables[0];
  if ("termType" in item) return false;
  const aggregate = item.expression as sparqljs.AggregateExpression;
  return aggregate.type === "aggregate" && aggregate.aggregation === "count" &&
    !aggregate.distinct &&
    (aggregate.expression as { termType?: string }).termType === "Wildcard" &&
    joins.tables.length === 1;
}

/**
 * The triples one pattern matches in the union default graph, counted without reading them
 * in order: the quads it matches, less the extra copies of the shared triples among them
 * (a shared triple stated in n graphs of the scope is n quads and one triple). As fast as
 * counting the quads while few triples are shared.
 */
function countOfOnePattern(select: sparqljs.SelectQuery, joins: Joins): CompiledQuery {
  const quads = `SELECT count(*) ${joins.from()}`;
  const copies = `SELECT count(*) AS n ${
    joins.from({
      table: "shared_triples t",
      where: ["t.s = q0.s", "t.p = q0.p", "t.o = q0.o"],
    })
  } GROUP BY t.s, t.p, t.o`;
  let sql = `SELECT (${quads}) - (SELECT coalesce(sum(n - 1), 0) FROM (${copies})) AS c0`;
  if (select.limit !== undefined) sql += ` LIMIT ${select.limit}`;
  if (select.offset !== undefined) {
    sql += `${select.limit === undefined ? " LIMIT -1" : ""} OFFSET ${select.offset}`;
  }
  const item = select.variables[0] as sparqljs.VariableExpression;
  return {
    sql: `SELECT r.c0 FROM (${sql}) r`,
    variables: [item.variable.value],
    counts: [true],
    ask: false,
    parameters: joins.parameters,
  };
}

/**
 * The join's rows made distinct over every variable (blank nodes of the query included), as
 * a FROM clause with each variable's column in it. Without variables, one row or none.
 */
function distinctSolutions(
  joins: Joins,
  from: string,
): { from: string; columns: Map<string, string> } {
  const columns = new Map<string, string>();
  const inner: string[] = [];
  for (const [name, column] of joins.variables) {
    inner.push(`${column} AS v${inner.length}`);
    columns.set(name, `d.v${inner.length - 1}`);
  }
  return { from: `FROM (SELECT DISTINCT ${inner.join(", ") || "1"} ${from}) d`, columns };
}

/**
 * The name of a function of one argument that answers 0 once the query's time is up,
 * called on every row of a join's innermost loop: SQLite cannot be interrupted from outside
 * (node:sqlite has no `sqlite3_interrupt`), and a join can run for hours. The evaluator
 * registers it. The statement is then stopped by an SQL error (a malformed `json()`
 * argument): node:sqlite hangs when a JavaScript function throws.
 */
export const ALIVE_FUNCTION = "rcs_query_alive";

/** The condition that stops a statement once `ALIVE_FUNCTION` says its time is up. */
function alive(columns: string[]): string {
  // One argument that reads every table, so that it is evaluated in the innermost loop.
  return `CASE WHEN ${ALIVE_FUNCTION}(${columns.join(" + ")}) THEN 1 ELSE json('{') END`;
}

/** Most tables SQLite joins in one statement. */
const MAX_JOINED_TABLES = 64;

/** The quads tables a query joins, its conditions, and where each variable is read. */
class Joins {
  readonly tables: string[] = [];
  readonly where: string[] = [];
  readonly variables = new Map<string, string>();
  /** True once a pattern matches in the union default graph (a set: see `compile`). */
  hasDefaultGraph = false;
  /** The scope's collections, bound as the statement's parameters. */
  readonly parameters: string[];
  readonly #lookUp: TermLookup;
  readonly #scope?: readonly string[];
  /** The `items` tables that keep quads tables inside the scope. */
  readonly #scopeTables: string[] = [];

  constructor(lookUp: TermLookup, scope: readonly string[] | undefined) {
    this.#lookUp = lookUp;
    this.#scope = scope;
    this.parameters = scope ? [...scope] : [];
  }

  /**
   * The FROM and WHERE clauses. A join checks on every row that its time is not up (it can
   * visit far more rows than the store has); a single pattern is one index range, bounded
   * by the store.
   */
  from(extra?: { table: string; where: string[] }): string {
    const tables = [...(extra ? [extra.table] : []), ...this.tables, ...this.#scopeTables];
    // A scope's items tables must not turn a query SQLite would join into one it refuses.
    if (tables.length > MAX_JOINED_TABLES && this.tables.length <= MAX_JOINED_TABLES) {
      throw new Unsupported();
    }
    const where = [...(extra?.where ?? []), ...this.where];
    if (this.tables.length > 1) {
      where.push(
        alive([
          ...this.tables.map((_, i) => `q${i}.g`),
          ...this.#scopeTables.map((_, i) => `i${i}.graph`),
        ]),
      );
    }
    return `FROM ${tables.join(", ")} WHERE ${where.join(" AND ") || "1"}`;
  }

  /**
   * Keeps the quads of `alias` inside the scope: its graph is the graph of an item of one of
   * the scope's collections (an item per graph: the join adds no rows). Nothing is visible
   * through an empty scope.
   */
  #restrict(alias: string): void {
    const scope = this.#scope;
    if (!scope) return;
    if (scope.length === 0) {
      this.where.push("0");
      return;
    }
    const items = `i${this.#scopeTables.length}`;
    this.#scopeTables.push(`items ${items}`);
    const collections = scope.map((_, i) => `?${i + 1}`).join(", ");
    this.where.push(`${items}.graph = ${alias}.g`, `${items}.collection IN (${collections})`);
  }

  add(pattern: sparqljs.Pattern, graph: Graph): void {
    switch (pattern.type) {
      case "bgp":
        for (const triple of pattern.triples) this.#triple(triple, graph);
        return;
      case "group":
        for (const inner of pattern.patterns) this.add(inner, graph);
        return;
      case "graph":
        this.#graph(pattern, graph);
        return;
      default:
        throw new Unsupported();
    }
  }

  #graph(pattern: sparqljs.GraphPattern, outer: Graph): void {
    // A GRAPH inside a GRAPH has its own graph; nothing to tie it to the outer one's.
    if (outer === "named") throw new Unsupported();
    const name = pattern.name as Term;
    // Each pattern inside reads the graph column of its own table; the first one's is the
    // graph, and the others must equal it.
    const start = this.tables.length;
    for (const inner of pattern.patterns) this.add(inner, "named");
    if (this.tables.length === start) throw new Unsupported();
    const first = `q${start}.g`;
    for (let i = start + 1; i < this.tables.length; i++) this.where.push(`q${i}.g = ${first}`);
    this.#match(first, name);
    // The others share its graph: one scope check holds them all.
    this.#restrict(`q${start}`);
  }

  #triple(triple: sparqljs.Triple, graph: Graph): void {
    const alias = `q${this.tables.length}`;
    this.tables.push(`quads ${alias}`);
    // In the union default graph each pattern may match in an item graph of its own.
    if (graph === "default") {
      this.hasDefaultGraph = true;
      this.#restrict(alias);
    }
    const predicate = triple.predicate as Term | sparqljs.PropertyPath;
    if ("type" in predicate) throw new Unsupported();
    this.#match(`${alias}.s`, triple.subject as Term);
    this.#match(`${alias}.p`, predicate);
    this.#match(`${alias}.o`, triple.object as Term);
  }

  /** Binds or constrains `column` by `term`. */
  #match(column: string, term: Term): void {
    switch (term.termType) {
      case "Variable":
      case "BlankNode": {
        // A blank node of a query is a variable that is not returned.
        const name = term.termType === "Variable" ? term.value : `_:${term.value}`;
        const bound = this.variables.get(name);
        if (bound === undefined) this.variables.set(name, column);
        else this.where.push(`${column} = ${bound}`);
        return;
      }
      case "NamedNode":
      case "Literal": {
        const id = this.#lookUp(encodeConstant(term));
        // A term no quad holds matches nothing.
        this.where.push(id === undefined ? "0" : `${column} = ${id}`);
        return;
      }
      default:
        throw new Unsupported();
    }
  }
}

/** A count column's value as a term text (N3.js id form). */
export function countText(count: number): string {
  return `"${count}"^^${XSD_INTEGER}`;
}
