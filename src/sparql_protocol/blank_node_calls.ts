/**
 * `BNODE(string)` as SPARQL 1.1 says (17.4.2.9): the same blank node for the same string
 * within one solution, a distinct one in every other solution. The engines behind the
 * service differ: oxigraph answers one blank node per string for the whole query, Jena a new
 * one per call (so `BNODE(?a)` and `BNODE(?b)` differ in a row where `?a = ?b`).
 *
 * For a projected `(BNODE(E) AS ?v)` of the top-level SELECT, the engine is asked for the
 * string instead (`E` when it is a simple literal, an error otherwise, as BNODE's own), and
 * the service makes the blank nodes, row by row. Left to the engine: `BNODE()` without an
 * argument (a new node per call, which both get right), BNODE inside other expressions or
 * patterns, and queries whose rows the blank nodes would change before they are answered
 * (DISTINCT, REDUCED, or `?v` in ORDER BY or HAVING).
 */
// @ts-types="@types/sparqljs"
import type sparqljs from "sparqljs";
import { DataFactory, type Term } from "n3";
import { sparqlParser } from "./parser.ts";
import { anError, operation } from "./expression_builders.ts";
import { tooDeepToParse } from "./analyze_query.ts";
import { unindentedGenerator } from "./generator.ts";
import type { SparqlQueryResult } from "./query_types.ts";

const XSD_STRING = "http://www.w3.org/2001/XMLSchema#string";
/** Functions whose value changes from one call to the next (`E` is read twice), as parsed. */
const VOLATILE = /"operator":"(?:rand|uuid|struuid|bnode)"/i;

/** The query to send, and the projected variables whose blank nodes the service makes. */
export interface BlankNodeCalls {
  sparql: string;
  variables: string[];
}

/** `sparql` with its projected `BNODE(E)` calls asked for as strings (module comment). */
export function withBlankNodeCalls(sparql: string): BlankNodeCalls {
  const unchanged = { sparql, variables: [] };
  if (!/bnode\s*\(/i.test(sparql) || tooDeepToParse(sparql)) return unchanged;
  let query: sparqljs.SparqlQuery;
  try {
    query = sparqlParser().parse(sparql);
  } catch {
    return unchanged; // the store answers the syntax error as it does any other
  }
  if (query.type !== "query" || query.queryType !== "SELECT") return unchanged;
  if (query.distinct || query.reduced) return unchanged;
  const readLater = JSON.stringify([query.order ?? [], query.having ?? []]);
  const variables: string[] = [];
  query.variables = query.variables.map((item) => {
    if ("termType" in item || !isBnodeCall(item.expression)) return item;
    const name = item.variable.value;
    if (readLater.includes(`"value":"${name}"`)) return item;
    const argument = (item.expression as sparqljs.OperationExpression)
      .args[0] as sparqljs.Expression;
    if (VOLATILE.test(JSON.stringify(argument))) return item;
    variables.push(name);
    return { ...item, expression: stringOrError(argument) };
  }) as typeof query.variables;
  if (variables.length === 0) return unchanged;
  return { sparql: unindentedGenerator().stringify(query), variables };
}

/**
 * The answer with each row's strings in `variables` turned into blank nodes: one per
 * distinct string in the row, none shared with another row.
 */
export function blankNodesPerSolution(
  result: SparqlQueryResult,
  variables: readonly string[],
): SparqlQueryResult {
  if (variables.length === 0 || result.kind !== "bindings") return result;
  result.rows.forEach((row, index) => {
    const nodes = new Map<string, Term>();
    for (const name of variables) {
      const value = row.get(name);
      if (!value) continue;
      let node = nodes.get(value.value);
      if (!node) {
        node = DataFactory.blankNode(`rcs_bnode_${index}_${nodes.size}`);
        nodes.set(value.value, node);
      }
      row.set(name, node);
    }
  });
  return result;
}

function isBnodeCall(expression: sparqljs.Expression): boolean {
  return !("termType" in expression) && !Array.isArray(expression) &&
    expression.type === "operation" && expression.operator.toLowerCase() === "bnode" &&
    expression.args.length === 1;
}

/** `IF(isLiteral(E) && DATATYPE(E) = xsd:string, STR(E), error)`: BNODE's argument rule. */
function stringOrError(argument: sparqljs.Expression): sparqljs.Expression {
  const op = operation;
  const { namedNode } = DataFactory;
  const isString = op(
    "&&",
    op("isliteral", argument),
    op("=", op("datatype", argument), namedNode(XSD_STRING)),
  );
  return op("if", isString, op("str", argument), anError());
}
