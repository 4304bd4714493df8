/**
 * Query parameters as API.md fixes them: IRIs, strict booleans, repeated lists.
 *
 * Each reader names the offending parameter in its 400 problem, so clients can act on it.
 */
import type { Context } from "hono";
import type { AppEnv } from "./app_env.ts";
import { ProblemError } from "./problem.ts";
import { isAbsoluteIri } from "../rdf/iri.ts";

function missing(name: string): ProblemError {
  return new ProblemError(
    400,
    "missing-parameter",
    "Missing parameter",
    `The query parameter '${name}' is required.`,
    [{ path: name, message: "required" }],
  );
}

function invalidIri(name: string, value: string): ProblemError {
  const shown = value.length > 200 ? `${value.slice(0, 200)}…` : value;
  return new ProblemError(
    400,
    "invalid-iri",
    "Invalid IRI",
    `The parameter '${name}' must be an absolute IRI; got ${JSON.stringify(shown)}.`,
    [{ path: name, message: 'must be an absolute IRI (scheme, no spaces, none of <>"{}|\\^`)' }],
  );
}

/** Throws the `invalid-iri` problem for `name` unless `value` is an absolute IRI. */
export function assertIri(name: string, value: string): string {
  if (!isAbsoluteIri(value)) throw invalidIri(name, value);
  return value;
}

/** A required IRI parameter. */
export function requiredIri(c: Context<AppEnv>, name: string): string {
  const values = c.req.queries(name) ?? [];
  if (values.length === 0 || values[0] === "") throw missing(name);
  if (values.length > 1) {
    throw new ProblemError(
      400,
      "invalid-parameter",
      "Parameter given twice",
      `The parameter '${name}' takes one value; it was given ${values.length} times.`,
      [{ path: name, message: "one value expected" }],
    );
  }
  return assertIri(name, values[0]);
}

/** An optional IRI parameter. */
export function optionalIri(c: Context<AppEnv>, name: string): string | undefined {
  const values = c.req.queries(name) ?? [];
  if (values.length === 0) return undefined;
  return requiredIri(c, name);
}

/** A repeated IRI parameter (`item=A&item=B`); IRIs may hold commas, so no splitting. */
export function iriList(c: Context<AppEnv>, name: string, options = { min: 0 }): string[] {
  const values = c.req.queries(name) ?? [];
  if (values.length < options.min) throw missing(name);
  return values.map((value) => assertIri(name, value));
}

/** A boolean parameter: exactly `true` or `false`, else 400. */
export function booleanParam(c: Context<AppEnv>, name: string, fallback = false): boolean {
  const value = c.req.query(name);
  if (value === undefined) return fallback;
  if (value === "true") return true;
  if (value === "false") return false;
  throw new ProblemError(
    400,
    "invalid-boolean",
    "Invalid boolean",
    `The parameter '${name}' must be 'true' or 'false'; got ${JSON.stringify(value)}.`,
    [{ path: name, message: "must be true or false" }],
  );
}

/** A non-negative integer parameter. */
export function integerParam(c: Context<AppEnv>, name: string, fallback: number): number {
  const value = c.req.query(name);
  if (value === undefined || value === "") return fallback;
  if (!/^\d{1,15}$/.test(value)) {
    throw new ProblemError(
      400,
      "invalid-parameter",
      "Invalid number",
      `The parameter '${name}' must be a non-negative integer; got ${JSON.stringify(value)}.`,
      [{ path: name, message: "must be a non-negative integer" }],
    );
  }
  return Number(value);
}
