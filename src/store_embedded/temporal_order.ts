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
import { anError, literalExpression, operation } from "../sparql_protocol/expression_builders.ts";

type Expression = sparqljs.Expression;

const XSD = "http://www.w3.org/2001/XMLSchema#";
/** The datatypes whose values may or may not carry a timezone, and compare as instants. */
const TEMPORAL = ["date", "dateTime", "time"].map((name) => XSD + name);
/** The comparisons SPARQL maps onto XML Schema's order. */
export const COMPARISONS = new Set(["=", "!=", "<", ">", "<=", ">="]);
/** A lexical form's timezone, when it has one. */
const TIMEZONE = /(?:Z|[+-]\d{2}:\d{2})$/;

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
  const undecided = operation(
    "coalesce",
    operation("||", withinWindow(a, b), withinWindow(b, a)),
    literalExpression(false),
  );
  return operation(
    "if",
    undecided,
    anError(),
    operation(operator, a, b),
  );
}

/**
 * Whether `floating` (no timezone) and `fixed` (one) are values of one temporal datatype
 * within 14 hours: `floating` at +14:00 is its earliest instant, at -14:00 its latest.
 */
function withinWindow(floating: Expression, fixed: Expression): Expression {
  const datatype = operation("datatype", floating);
  const at = (offset: string) =>
    operation(
      "strdt",
      operation("concat", operation("str", floating), literalExpression(offset)),
      datatype,
    );
  return operation(
    "&&",
    operation(
      "in",
      datatype,
      TEMPORAL.map((iri) => DataFactory.namedNode(iri)) as unknown as Expression,
    ),
    operation("sameterm", datatype, operation("datatype", fixed)),
    operation("=", operation("tz", floating), literalExpression("")),
    operation("!=", operation("tz", fixed), literalExpression("")),
    operation("<=", at("+14:00"), fixed),
    operation("<=", fixed, at("-14:00")),
  );
}
