/**
 * sparqljs expression trees built by the service's query rewrites (the literal forms and
 * date order of the embedded fallback, BNODE per solution, the collections graph): one
 * place for how an operation, a literal and an error are written.
 */
// @ts-types="@types/sparqljs"
import type sparqljs from "sparqljs";
import { DataFactory } from "n3";

type Expression = sparqljs.Expression;

const XSD_BOOLEAN = "http://www.w3.org/2001/XMLSchema#boolean";

/** `operator(args…)`; `&&` and `||` over more than two arguments are folded. */
export function operation(operator: string, ...args: unknown[]): Expression {
  if ((operator === "&&" || operator === "||") && args.length > 2) {
    return (args as Expression[]).reduce((left, right) => operation(operator, left, right));
  }
  return { type: "operation", operator, args } as Expression;
}

/** A simple literal, or an `xsd:boolean` one. */
export function literalExpression(value: string | boolean): Expression {
  return (typeof value === "boolean"
    ? DataFactory.literal(String(value), DataFactory.namedNode(XSD_BOOLEAN))
    : DataFactory.literal(value)) as unknown as Expression;
}

/**
 * A variable no query binds: reading it is an error, which is how a rewrite makes an
 * expression fail (an IF's branch, a comparison SPARQL leaves undecided).
 */
export function anError(): Expression {
  return DataFactory.variable("rcs_never_bound_9d1c") as unknown as Expression;
}
