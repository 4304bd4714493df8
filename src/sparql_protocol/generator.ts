/**
 * Writing a parsed SPARQL query back as text without changing what it means.
 */
// @ts-types="@types/sparqljs"
import sparqljs from "sparqljs";

/** The methods of sparqljs's generator that are corrected here (its typings omit them). */
interface GeneratorInternals {
  toQuery(query: sparqljs.SparqlQuery): string;
  toExpression(expression: sparqljs.Expression): string;
}

/**
 * A sparqljs generator that does not indent, and writes what sparqljs's own would write
 * wrong:
 *
 * - Indenting: sparqljs indents with `replace(/^/gm, …)`, and a JavaScript `^` also matches
 *   after U+2028 and U+2029, which are legal in IRIs and literals: indenting would write
 *   spaces into them and change the query (or break it).
 * - Several HAVING conditions: sparqljs writes them inside one pair of parentheses,
 *   `HAVING (a b)`, which is no SPARQL. They are written as one condition, `a && b`: a group is
 *   kept when each condition is true, which is what their conjunction asks (an error in
 *   either drops the group in both).
 * - `IN` and `NOT IN` after an operation: sparqljs writes `?a || ?b IN (…)` for
 *   `(?a || ?b) IN (…)`, which reads as `?a || (?b IN (…))`. The operation is bracketed.
 */
export function unindentedGenerator(): sparqljs.SparqlGenerator {
  const options = { indent: "" };
  const corrected = (prefixes?: Record<string, string>) => {
    const generator = new sparqljs.Generator({ ...options, prefixes }).createGenerator();
    correct(generator as GeneratorInternals);
    return generator;
  };
  return {
    // sparqljs's stringify: the query's own prefixes abbreviate its IRIs.
    stringify: (query) => corrected(query.prefixes).toQuery(query),
    createGenerator: () => corrected(),
  };
}

function correct(generator: GeneratorInternals): void {
  const toQuery = generator.toQuery;
  const toExpression = generator.toExpression;
  // Assigned on the instance: a subquery is written by the same methods.
  generator.toQuery = function (query) {
    const having = (query as sparqljs.SelectQuery).having;
    if (having === undefined || having.length < 2) return toQuery.call(this, query);
    const all = having.reduce((both, next) => ({
      type: "operation",
      operator: "&&",
      args: [both, next],
    }));
    return toQuery.call(this, { ...query, having: [all] } as sparqljs.SparqlQuery);
  };
  generator.toExpression = function (expression) {
    const operation = expression as sparqljs.OperationExpression;
    const tested = operation.args?.[0] as sparqljs.Expression | undefined;
    const isIn = operation.type === "operation" &&
      (operation.operator === "in" || operation.operator === "notin");
    const list = operation.args?.[1];
    if (!isIn || tested === undefined || "termType" in tested || !Array.isArray(list)) {
      return toExpression.call(this, expression);
    }
    return `(${this.toExpression(tested)}) ${operation.operator === "in" ? "IN" : "NOT IN"}(${
      list.map((item) => this.toExpression(item as sparqljs.Expression)).join(", ")
    })`;
  };
}
