/**
 * Reads a request's query parameters through its route contract: gathers them, validates
 * them with the contract's zod schema, and turns the first failure into the precise 400
 * problem docs/api.md asks for (`missing-parameter`, `invalid-iri`, `invalid-boolean`,
 * `invalid-parameter`), naming the parameter in `errors[].path` so clients can act on it.
 */
import type { Context } from "hono";
import { z } from "zod";
import type { AppEnv } from "./app_env.ts";
import { IRI_RULE, problemOfIssue } from "./query_schema.ts";
import { invalidIriReason } from "../rdf/iri.ts";
import { DomainError } from "../errors/domain_error.ts";

/** The validated query of a contract, typed by its schema. */
export function readQuery<Query extends z.ZodObject>(
  c: Context<AppEnv>,
  contract: { query: Query },
): z.output<Query> {
  return parseQuery(c.req.queries(), contract.query);
}

/**
 * Validates gathered parameters (name → every value given) against `schema`; exported for
 * tests that check the mapping without HTTP.
 */
export function parseQuery<Query extends z.ZodObject>(
  given: Record<string, string[]>,
  schema: Query,
): z.output<Query> {
  const input: Record<string, string | string[]> = {};
  for (const [name, field] of Object.entries(schema.shape)) {
    const values = given[name];
    if (values === undefined) continue;
    // A single-valued parameter given twice stays a list, which its schema refuses.
    input[name] = isList(field as z.ZodType) || values.length !== 1 ? values : values[0];
  }
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  throw problemFor(result.error.issues[0], input, schema);
}

/** Whether a field takes repeated values: an array, possibly optional or defaulted. */
function isList(field: z.ZodType): boolean {
  let def = field.def as unknown as { type: string; innerType?: z.ZodType };
  while ((def.type === "optional" || def.type === "default") && def.innerType) {
    def = def.innerType.def as unknown as typeof def;
  }
  return def.type === "array";
}

function problemFor(
  issue: z.core.$ZodIssue,
  input: Record<string, string | string[]>,
  schema: z.ZodObject,
): DomainError {
  const name = String(issue.path[0] ?? "query");
  const given = input[name];
  if (given === undefined) return missing(name);
  const field = schema.shape[name] as z.ZodType | undefined;
  if (Array.isArray(given) && field && !isList(field)) return givenTwice(name, given.length);
  if (issue.code === "too_small" && Array.isArray(given) && given.length === 0) {
    return missing(name);
  }
  const value = typeof issue.input === "string" ? issue.input : String(issue.input);
  switch (problemOfIssue(issue)) {
    case "missing-parameter":
      return missing(name);
    case "invalid-iri":
      return invalidIri(name, value);
    case "invalid-boolean":
      return new DomainError("invalid-boolean", {
        detail: `The parameter '${name}' must be 'true' or 'false'; got ${JSON.stringify(value)}.`,
        errors: [{ path: name, message: issue.message }],
      });
    case "invalid-integer":
      return new DomainError("invalid-parameter", {
        detail: `The parameter '${name}' must be a non-negative integer; got ${
          JSON.stringify(value)
        }.`,
        errors: [{ path: name, message: issue.message }],
      });
    default:
      return new DomainError("invalid-parameter", {
        detail: `The parameter '${name}' is invalid (${issue.message}); got ${
          JSON.stringify(given)
        }.`,
        errors: [{ path: name, message: issue.message }],
      });
  }
}

function missing(name: string): DomainError {
  return new DomainError("missing-parameter", {
    detail: `The query parameter '${name}' is required.`,
    errors: [{ path: name, message: "required" }],
  });
}

function givenTwice(name: string, times: number): DomainError {
  return new DomainError("invalid-parameter", {
    detail: `The parameter '${name}' takes one value; it was given ${times} times.`,
    errors: [{ path: name, message: "one value expected" }],
  });
}

function invalidIri(name: string, value: string): DomainError {
  const shown = value.length > 200 ? `${value.slice(0, 200)}…` : value;
  return new DomainError("invalid-iri", {
    detail: `The parameter '${name}' must be an absolute IRI; got ${JSON.stringify(shown)}.`,
    errors: [{ path: name, message: `${IRI_RULE}: ${invalidIriReason(value)}` }],
  });
}
