/**
 * Literals exactly as stored on the fallback path. Oxigraph keeps a typed literal of a type it
 * computes with as its value: `"01"^^xsd:integer` is stored as `"1"`, `"5"^^xsd:int` as
 * `"5"^^xsd:integer`, `"…+00:00"^^xsd:date` as `…Z`; two literals of one value become one term.
 * The SQL path returns what the store kept, so the answer would depend on the path.
 *
 * Such a literal (an "altered" one: oxigraph would not give it back as written) is loaded under
 * a surrogate datatype, {@link SURROGATE} followed by its own, which oxigraph keeps verbatim: it
 * stays a term of its own for matching, DISTINCT, GROUP BY, `sameTerm` and `str`. The query is
 * rewritten so that where a value is computed (comparisons, arithmetic, ORDER BY, SUM, casts,
 * `isNumeric`) a variable reads the literal's value again (`STRDT` of its lexical form and
 * datatype), `DATATYPE` answers the literal's own datatype, and the query's own altered
 * constants match the surrogates. Answers take the prefix off again. While neither the loaded
 * quads nor the query hold an altered literal, nothing is rewritten.
 *
 * Written here: no SPARQL engine for JavaScript that keeps lexical forms runs in the service
 * (Comunica does not load under Deno's npm resolution; Jena and RDF4J are Java).
 */
// @ts-types="@types/sparqljs"
import type sparqljs from "sparqljs";
import type Oxigraph from "oxigraph";
import { DataFactory } from "n3";
import { nquadsTerm } from "./nquads_term.ts";
import { literalExpression, operation } from "../sparql_protocol/expression_builders.ts";
import { COMPARISONS, partiallyOrdered } from "./temporal_order.ts";

/** The surrogate datatype's prefix (a URN namespace no RDF vocabulary uses). */
export const SURROGATE = "urn:x-rcs:lexical-form:";

const XSD = "http://www.w3.org/2001/XMLSchema#";
/** Datatypes oxigraph keeps as written: it computes nothing with them. */
const KEPT_AS_WRITTEN = new Set(
  [
    "string",
    "normalizedString",
    "token",
    "language",
    "Name",
    "NCName",
    "NMTOKEN",
    "anyURI",
    "hexBinary",
    "base64Binary",
  ].map((name) => XSD + name),
);
/** Canonical integers within oxigraph's 64-bit range, and booleans: kept as written. */
const CANONICAL_INTEGER = /^-?(?:0|[1-9][0-9]{0,17})$/;

/** Most answers remembered per process; the cache starts over beyond it. */
const CACHE_LIMIT = 200_000;
const cache = new Map<string, boolean>();

/** A stored typed literal's lexical form and datatype (N3.js id text), else undefined. */
function typedLiteral(id: string): { value: string; datatype: string } | undefined {
  if (!id.startsWith('"')) return undefined;
  const end = id.lastIndexOf('"');
  const suffix = id.slice(end + 1);
  if (!suffix.startsWith("^^")) return undefined;
  return { value: id.slice(1, end), datatype: suffix.slice(2) };
}

/** True when oxigraph keeps `id` as written without asking it. */
function keptForSure(id: string): boolean {
  const literal = typedLiteral(id);
  if (!literal || !literal.datatype.startsWith(XSD)) return true;
  if (KEPT_AS_WRITTEN.has(literal.datatype)) return true;
  if (literal.datatype === `${XSD}integer`) return CANONICAL_INTEGER.test(literal.value);
  if (literal.datatype === `${XSD}boolean`) {
    return literal.value === "true" || literal.value === "false";
  }
  return false;
}

/**
 * The literals among `ids` (N3.js id texts) that oxigraph would not give back as written:
 * the clear cases by their form, the others by loading them into a scratch store.
 */
export function alteredLiterals(oxigraph: typeof Oxigraph, ids: Iterable<string>): Set<string> {
  const altered = new Set<string>();
  const unknown: string[] = [];
  for (const id of ids) {
    if (keptForSure(id)) continue;
    const known = cache.get(id);
    if (known === undefined) unknown.push(id);
    else if (known) altered.add(id);
  }
  if (unknown.length === 0) return altered;
  const scratch = new oxigraph.Store();
  try {
    const lines = unknown.map((id, i) => `<urn:x-rcs:t:${i}> <urn:x-rcs:p> ${nquadsTerm(id)} .\n`);
    scratch.load(lines.join(""), { format: "application/n-triples", no_transaction: true });
    const kept = new Set<number>();
    for (const quad of scratch.match()) {
      const index = Number(quad.subject.value.slice("urn:x-rcs:t:".length));
      const literal = typedLiteral(unknown[index])!;
      const object = quad.object as Oxigraph.Literal;
      if (object.value === literal.value && object.datatype.value === literal.datatype) {
        kept.add(index);
      }
    }
    if (cache.size + unknown.length > CACHE_LIMIT) cache.clear();
    unknown.forEach((id, i) => {
      cache.set(id, !kept.has(i));
      if (!kept.has(i)) altered.add(id);
    });
  } finally {
    (scratch as unknown as { free?: () => void }).free?.();
  }
  return altered;
}

/** `id` (an altered typed literal) under its surrogate datatype. */
export function surrogateOf(id: string): string {
  const literal = typedLiteral(id)!;
  return `"${literal.value}"^^${SURROGATE}${literal.datatype}`;
}

/** An answer's text (results JSON or N-Triples) with the surrogates' datatypes restored. */
export function restoreLiterals(text: string): string {
  return text.replaceAll(SURROGATE, "");
}

/** The typed literal constants of a parsed query (N3.js id texts), to check. */
export function queryLiterals(query: sparqljs.SparqlQuery): string[] {
  const found: string[] = [];
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== "object") return;
    if (Array.isArray(node)) {
      node.forEach(visit);
      return;
    }
    const term = node as { termType?: string; value?: string; datatype?: { value: string } };
    if (term.termType === "Literal" && term.datatype) {
      found.push(`"${term.value}"^^${term.datatype.value}`);
      return;
    }
    Object.values(node).forEach(visit);
  };
  visit(query);
  return found;
}

type Expression = sparqljs.Expression;
type Term = sparqljs.Term;
/** Where an expression is read: as a value (compared, computed) or as the term itself. */
type Reading = "value" | "term";

/** Operators whose arguments are read as terms. */
const TERM_OPERATORS = new Set([
  "str",
  "lang",
  "sameterm",
  "isiri",
  "isuri",
  "isblank",
  "isliteral",
  "bound",
]);
/** Aggregates whose argument is read as a term. */
const TERM_AGGREGATES = new Set(["count", "sample", "group_concat"]);

/**
 * Rewrites `query` in place for a store holding altered literals as surrogates (module
 * comment); `altered` tells which of the query's literal constants are altered ones. With
 * `partialTemporalOrder`, comparisons also follow XML Schema's partial order of dates and
 * times with and without a timezone (`temporal_order.ts`).
 */
export function rewriteForSurrogates(
  query: sparqljs.SparqlQuery,
  altered: ReadonlySet<string>,
  partialTemporalOrder = false,
): void {
  new SurrogateRewriter(altered, partialTemporalOrder).query(query);
}

class SurrogateRewriter {
  readonly #altered: ReadonlySet<string>;
  readonly #partialTemporalOrder: boolean;

  constructor(altered: ReadonlySet<string>, partialTemporalOrder: boolean) {
    this.#altered = altered;
    this.#partialTemporalOrder = partialTemporalOrder;
  }

  query(query: sparqljs.SparqlQuery): void {
    if (query.type !== "query") return;
    if (query.where) query.where = this.#patterns(query.where);
    if (query.values) query.values = query.values.map((row) => this.#valuesRow(row));
    if (query.queryType === "CONSTRUCT" && query.template) {
      query.template = query.template.map((triple) => this.#triple(triple));
    }
    if (query.queryType !== "SELECT") return;
    query.variables = query.variables.map((item) => {
      if ("termType" in item) return item;
      return { ...item, expression: this.#topLevel(item.expression) };
    }) as typeof query.variables;
    if (query.group) {
      query.group = query.group.map((key) => ({
        ...key,
        expression: this.#topLevel(key.expression),
      }));
    }
    if (query.having) query.having = query.having.map((e) => this.#expression(e, "value"));
    if (query.order) {
      query.order = query.order.map((key) => ({
        ...key,
        expression: this.#expression(key.expression, "value"),
      }));
    }
  }

  /** A bound or projected expression: a bare variable is copied as the term it holds. */
  #topLevel(expression: Expression): Expression {
    return "termType" in expression ? expression : this.#expression(expression, "term");
  }

  #patterns(patterns: sparqljs.Pattern[]): sparqljs.Pattern[] {
    return patterns.map((pattern) => this.#pattern(pattern));
  }

  #pattern(pattern: sparqljs.Pattern): sparqljs.Pattern {
    switch (pattern.type) {
      case "bgp":
        return { ...pattern, triples: pattern.triples.map((triple) => this.#triple(triple)) };
      case "filter":
        return { ...pattern, expression: this.#expression(pattern.expression, "value") };
      case "bind":
        return { ...pattern, expression: this.#topLevel(pattern.expression) };
      case "values":
        return { ...pattern, values: pattern.values.map((row) => this.#valuesRow(row)) };
      case "query":
        this.query(pattern);
        return pattern;
      case "group":
      case "optional":
      case "minus":
      case "union":
      case "graph":
      case "service":
        return { ...pattern, patterns: this.#patterns(pattern.patterns) } as sparqljs.Pattern;
      default:
        return pattern;
    }
  }

  #triple(triple: sparqljs.Triple): sparqljs.Triple {
    return {
      ...triple,
      object: this.#constant(triple.object as Term) as sparqljs.Triple["object"],
    };
  }

  #valuesRow(row: sparqljs.ValuePatternRow): sparqljs.ValuePatternRow {
    const rewritten: sparqljs.ValuePatternRow = {};
    for (const [name, term] of Object.entries(row)) {
      rewritten[name] = term && (this.#constant(term as Term) as typeof term);
    }
    return rewritten;
  }

  /** A constant that matches a stored term: an altered literal becomes its surrogate. */
  #constant(term: Term): Term {
    if (term.termType !== "Literal" || !term.datatype) return term;
    const id = `"${term.value}"^^${term.datatype.value}`;
    if (!this.#altered.has(id)) return term;
    const { literal, namedNode } = DataFactory;
    return literal(term.value, namedNode(SURROGATE + term.datatype.value)) as unknown as Term;
  }

  #expression(expression: Expression, reading: Reading): Expression {
    if (Array.isArray(expression)) {
      return expression.map((e) => this.#expression(e as Expression, reading)) as Expression;
    }
    if ("termType" in expression) {
      if (expression.termType === "Variable") {
        return reading === "value" ? valueOf(expression) : expression;
      }
      return reading === "term" ? this.#constant(expression as Term) as Expression : expression;
    }
    switch (expression.type) {
      case "operation":
        return this.#operation(expression, reading);
      case "aggregate": {
        const inner = TERM_AGGREGATES.has(expression.aggregation) ? "term" : "value";
        const argument = expression.expression as Expression;
        return { ...expression, expression: this.#expression(argument, inner) };
      }
      case "functionCall":
        return {
          ...expression,
          args: expression.args.map((arg) => this.#expression(arg, "value")),
        };
      default:
        return expression;
    }
  }

  #operation(operation: sparqljs.OperationExpression, reading: Reading): Expression {
    const { operator, args } = operation;
    if (operator === "exists" || operator === "notexists") {
      return { ...operation, args: this.#patterns(args as unknown as sparqljs.Pattern[]) } as
        & Expression
        & sparqljs.OperationExpression;
    }
    if (operator === "datatype") {
      return datatypeOf(this.#expression(args[0] as Expression, "term"));
    }
    if (operator === "bound") return operation;
    // IF and COALESCE hand one of their arguments on: it is read as their own result is.
    const passOn = operator === "if" || operator === "coalesce";
    const argumentReading: Reading = TERM_OPERATORS.has(operator) ? "term" : "value";
    const rewritten = args.map((arg, i) => {
      const reading_ = passOn && !(operator === "if" && i === 0) ? reading : argumentReading;
      return this.#expression(arg as Expression, reading_);
    });
    if (this.#partialTemporalOrder && COMPARISONS.has(operator)) {
      return partiallyOrdered(operator, rewritten[0], rewritten[1]);
    }
    return { ...operation, args: rewritten } as Expression;
  }
}

/** Whether `term`'s datatype is a surrogate one. */
function isSurrogate(term: Expression): Expression {
  return operation(
    "strstarts",
    operation("str", operation("datatype", term)),
    literalExpression(SURROGATE),
  );
}

/** The datatype a surrogate stands for. */
function originalDatatype(term: Expression): Expression {
  return operation(
    "iri",
    operation(
      "strafter",
      operation("str", operation("datatype", term)),
      literalExpression(SURROGATE),
    ),
  );
}

/**
 * The value of the term `variable` holds: a surrogate's lexical form under its own datatype
 * again (oxigraph then computes with it), anything else itself. An IRI or blank node makes
 * the test an error, and COALESCE answers the term itself; unbound stays an error.
 */
function valueOf(variable: Expression): Expression {
  return operation(
    "coalesce",
    operation(
      "if",
      isSurrogate(variable),
      operation("strdt", operation("str", variable), originalDatatype(variable)),
      variable,
    ),
    variable,
  );
}

/** `DATATYPE(term)` as stored: a surrogate answers the datatype it stands for. */
function datatypeOf(term: Expression): Expression {
  return operation(
    "coalesce",
    operation("if", isSurrogate(term), originalDatatype(term), operation("datatype", term)),
    operation("datatype", term),
  );
}

/**
 * The projected variables that are the MIN or MAX of a bare variable (`(MIN(?o) AS ?m)`),
 * read before the query is rewritten.
 */
export function extremeVariables(query: sparqljs.SparqlQuery): string[] {
  if (query.type !== "query" || query.queryType !== "SELECT") return [];
  return query.variables.flatMap((item) => {
    if ("termType" in item) return [];
    const expression = item.expression as sparqljs.AggregateExpression;
    if (expression.type !== "aggregate") return [];
    if (expression.aggregation !== "min" && expression.aggregation !== "max") return [];
    const argument = expression.expression as Expression;
    return "termType" in argument && argument.termType === "Variable" ? [item.variable.value] : [];
  });
}

/** The literals a query may have read: those loaded and its constants, as stored. */
export interface StoredLiterals {
  /** The altered ones (loaded as surrogates, and the query's own). */
  altered: ReadonlySet<string>;
  /** Every typed literal that was loaded or written in the query as it is stored. */
  typed: ReadonlySet<string>;
}

/**
 * A SELECT answer (results JSON) with the MIN and MAX of `variables` as stored. Oxigraph
 * compares values, so it answers an altered literal in its canonical form (`"1.0"^^xsd:decimal`
 * as 1): the answer is one of the group's literals, and when exactly one literal the query
 * could read has that canonical form, that literal is the answer as stored. When several have
 * it (`"01"` and `"1"`), they are equal values and any of them is a right MIN, but which one
 * the group held is not known here: the canonical form is left.
 */
export function storedExtremes(
  oxigraph: typeof Oxigraph,
  text: string,
  variables: readonly string[],
  literals: StoredLiterals,
): string {
  if (variables.length === 0 || literals.altered.size === 0) return text;
  const stored = storedByCanonical(oxigraph, literals);
  if (stored.size === 0) return text;
  const answer = JSON.parse(text) as {
    results?: { bindings: Record<string, { type: string; value: string; datatype?: string }>[] };
  };
  for (const binding of answer.results?.bindings ?? []) {
    for (const name of variables) {
      const term = binding[name];
      if (term?.type !== "literal" || !term.datatype) continue;
      const original = stored.get(`"${term.value}"^^${term.datatype}`);
      if (original) binding[name] = { type: "literal", ...typedLiteral(original)! };
    }
  }
  return JSON.stringify(answer);
}

/** Canonical form → the one altered literal that has it, where no other read literal does. */
function storedByCanonical(
  oxigraph: typeof Oxigraph,
  literals: StoredLiterals,
): Map<string, string> {
  const altered = [...literals.altered];
  const scratch = new oxigraph.Store();
  const byCanonical = new Map<string, string[]>();
  try {
    const lines = altered.map((id, i) => `<urn:x-rcs:t:${i}> <urn:x-rcs:p> ${nquadsTerm(id)} .\n`);
    scratch.load(lines.join(""), { format: "application/n-triples", no_transaction: true });
    for (const quad of scratch.match()) {
      const index = Number(quad.subject.value.slice("urn:x-rcs:t:".length));
      const object = quad.object as Oxigraph.Literal;
      const canonical = `"${object.value}"^^${object.datatype.value}`;
      byCanonical.set(canonical, [...byCanonical.get(canonical) ?? [], altered[index]]);
    }
  } finally {
    (scratch as unknown as { free?: () => void }).free?.();
  }
  const stored = new Map<string, string>();
  for (const [canonical, ids] of byCanonical) {
    // A literal stored in its canonical form is a candidate too: then the answer is ambiguous.
    if (ids.length === 1 && !literals.typed.has(canonical)) stored.set(canonical, ids[0]);
  }
  return stored;
}
