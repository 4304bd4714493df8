/**
 * Dates and times with and without a timezone, compared as XML Schema orders them: a value
 * without a timezone stands for any instant within 14 hours of it, so against a value with
 * one it is smaller, greater or unequal only when the two are further apart than that;
 * otherwise the comparison is indeterminate, and SPARQL's operator raises an error (the
 * W3C test `open-world/date-2`). Oxigraph orders them as if an implicit timezone applied
 * (`"2006-08-23Z" != "2006-08-23"` holds there), so on the oxigraph path a comparison is
 * rewritten to error where the order is partial.
 *
 * Only while the query could read such a pair (a value of one of these datatypes with a
 * timezone and one without, among the loaded literals and the query's constants): otherwise
 * nothing is rewritten.
 */
// @ts-types="@types/sparqljs"
import type sparqljs from "sparqljs";
import { DataFactory } from "n3";

type Expression = sparqljs.Expression;

const XSD = "http://www.w3.org/2001/XMLSchema#";
/** The datatypes whose values may or may not carry a timezone, and compare as instants. */
const TEMPORAL = ["date", "dateTime", "time"].map((name) => XSD + name);
/** The comparisons SPARQL maps onto XML Schema's order. */
export const COMPARISONS = new Set(["=", "!=", "<", ">", "<=", ">="]);
/** A lexical form's timezone, when it has one. */
const TIMEZONE = /(?:Z|[+-]\d{2}:\d{2})$/;
/** A variable no query binds: reading it is an error (sparql's own for "indeterminate"). */
const NEVER_BOUND = "rcs_never_bound_9d1c";

/**
 * Whether `literals` (N3.js id texts of typed literals) hold a value of one temporal datatype
 * with a timezone and one without.
 */
export function mixesTimezones(literals: Iterable<string>): boolean {
  const seen = new Set<string>();
  for (const id of literals) {
    const end = id.lastIndexOf('"^^');
    if (!id.startsWith('"') || end < 0) continue;
    const datatype = id.slice(end + 3);
    if (!TEMPORAL.includes(datatype)) continue;
    const zoned = TIMEZONE.test(id.slice(1, end));
    if (seen.has(`${datatype} ${!zoned}`)) return true;
    seen.add(`${datatype} ${zoned}`);
  }
  return false;
}

/**
 * `a operator b` (values, as the rewriter reads them), an error where XML Schema's order
 * does not decide it: one of the two without a timezone, the other with one, within 14 hours.
 */
export function partiallyOrdered(operator: string, a: Expression, b: Expression): Expression {
  const undecided = op(
    "coalesce",
    op("||", withinWindow(a, b), withinWindow(b, a)),
    literal(false),
  );
  return op(
    "if",
    undecided,
    DataFactory.variable(NEVER_BOUND) as unknown as Expression,
    op(operator, a, b),
  );
}

/**
 * Whether `floating` (no timezone) and `fixed` (one) are values of one temporal datatype
 * within 14 hours: `floating` at +14:00 is its earliest instant, at -14:00 its latest.
 */
function withinWindow(floating: Expression, fixed: Expression): Expression {
  const datatype = op("datatype", floating);
  const at = (offset: string) =>
    op("strdt", op("concat", op("str", floating), literal(offset)), datatype);
  return op(
    "&&",
    op("in", datatype, TEMPORAL.map((iri) => DataFactory.namedNode(iri)) as unknown as Expression),
    op("sameterm", datatype, op("datatype", fixed)),
    op("=", op("tz", floating), literal("")),
    op("!=", op("tz", fixed), literal("")),
    op("<=", at("+14:00"), fixed),
    op("<=", fixed, at("-14:00")),
  );
}

function op(operator: string, ...args: Expression[]): Expression {
  // `&&` and `||` take two arguments: longer lists are folded.
  if ((operator === "&&" || operator === "||") && args.length > 2) {
    return args.reduce((left, right) => op(operator, left, right));
  }
  return { type: "operation", operator, args } as Expression;
}

function literal(value: string | boolean): Expression {
  return (typeof value === "boolean"
    ? DataFactory.literal(String(value), DataFactory.namedNode(`${XSD}boolean`))
    : DataFactory.literal(value)) as unknown as Expression;
}
