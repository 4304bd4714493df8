/**
 * Zod building blocks for query parameters as docs/api.md fixes them: absolute IRIs, strict
 * booleans, repeated lists, non-negative integers and free text.
 *
 * The same schemas validate requests (through `readQuery`) and describe them in the OpenAPI
 * document (through `z.toJSONSchema` of their input side), so the two cannot drift apart.
 * Every value check is a refinement tagged with the problem type it answers with; the
 * `.meta()` of each block carries the JSON Schema a refinement cannot express by itself.
 */
import { z } from "zod";
import { isAbsoluteIri } from "../rdf/iri.ts";

/**
 * The checks a parameter value can fail; `readQuery` renders each as its problem type
 * (`invalid-integer` as `invalid-parameter`, the type it always had).
 */
export type ParameterProblem =
  | "missing-parameter"
  | "invalid-iri"
  | "invalid-boolean"
  | "invalid-integer";

/** The `params` a refinement carries, so the issue says which problem it is. */
function tagged(problem: ParameterProblem, message: string) {
  return { params: { problem }, message };
}

/** The problem an issue was tagged with, if any. */
export function problemOfIssue(issue: z.core.$ZodIssue): ParameterProblem | undefined {
  if (issue.code !== "custom") return undefined;
  return (issue.params as { problem?: ParameterProblem } | undefined)?.problem;
}

/** Why an IRI is refused, as docs/api.md words the rule. */
export const IRI_RULE =
  'must be an absolute IRI (RFC 3987: a scheme, no spaces, none of <>"{}|\\^`, well-formed %XX)';

/** One absolute IRI; an empty value counts as missing. */
function iri(description: string) {
  return z.string()
    .refine((value) => value !== "", { ...tagged("missing-parameter", "required"), abort: true })
    .refine(isAbsoluteIri, tagged("invalid-iri", IRI_RULE))
    .meta({ description, format: "iri" });
}

/** A required IRI parameter (`collection`, `workspace`, …). */
export function requiredIri(description: string) {
  return iri(description);
}

/** An optional IRI parameter; given but empty is still `missing-parameter`, as before. */
export function optionalIri(description: string) {
  return iri(description).optional();
}

/** A repeated IRI parameter (`item=A&item=B`); IRIs may hold commas, so no splitting. */
export function iriList(description: string, options: { min: number } = { min: 0 }) {
  const list = z.array(iri("An absolute IRI."));
  return (options.min > 0 ? list.min(options.min) : list.default([])).meta({ description });
}

/** The only two spellings of a boolean parameter. */
const BOOLEANS = ["true", "false"];

/** A boolean parameter: exactly `true` or `false` (so `clear=yes` is 400), else `fallback`. */
export function booleanParam(description: string, fallback = false) {
  return z.string()
    .refine((value) => BOOLEANS.includes(value), tagged("invalid-boolean", "must be true or false"))
    .optional()
    // Metadata before the transform: JSON Schema describes what the client sends.
    .meta({ description, enum: BOOLEANS, default: String(fallback) })
    .transform((value) => value === undefined ? fallback : value === "true");
}

/** Digits only: no sign, no fraction, no exponent, and small enough to be exact. */
const NON_NEGATIVE_INTEGER = /^\d{1,15}$/;

/**
 * A non-negative integer parameter; absent or empty gives `fallback` (undefined when there
 * is none, so the engine's own default applies).
 */
export function integerParam<T extends number | undefined>(description: string, fallback: T) {
  return z.string()
    .refine(
      (value) => value === "" || NON_NEGATIVE_INTEGER.test(value),
      tagged("invalid-integer", "must be a non-negative integer"),
    )
    .optional()
    .meta({
      description,
      // On the wire it is text; to clients it is an integer (OpenAPI serialises it as such).
      type: "integer",
      minimum: 0,
      ...(fallback === undefined ? {} : { default: fallback }),
    })
    .transform((value): number | T =>
      value === undefined || value === "" ? fallback : Number(value)
    );
}

/** A required non-negative integer parameter; empty counts as missing. */
export function requiredInteger(description: string) {
  return z.string()
    .refine((value) => value !== "", tagged("missing-parameter", "required"))
    .refine(
      (value) => value === "" || NON_NEGATIVE_INTEGER.test(value),
      tagged("invalid-integer", "must be a non-negative integer"),
    )
    .meta({ description, type: "integer", minimum: 0 })
    .transform((value) => Number(value));
}

/** A required text parameter; empty counts as missing. */
export function requiredText(description: string) {
  return z.string()
    .refine((value) => value !== "", tagged("missing-parameter", "required"))
    .meta({ description });
}

/** An optional text parameter, taken as given. */
export function optionalText(description: string) {
  return z.string().optional().meta({ description });
}

/** A repeated text parameter, each value taken as given. */
export function textList(description: string) {
  return z.array(z.string()).default([]).meta({ description });
}

/** RFC 3339 date-time: a date, a time, and a zone (`Z` or an offset); fractions allowed. */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** The instant an RFC 3339 date-time names, or undefined when it names none (Feb 30, 25:00). */
export function parseDateTime(value: string): Date | undefined {
  const parts = DATE_TIME.exec(value);
  if (!parts) return undefined;
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  if (parts[9] !== undefined && (Number(parts[9]) > 23 || Number(parts[10]) > 59)) return undefined;
  const time = Date.parse(value.toUpperCase());
  return Number.isNaN(time) ? undefined : new Date(time);
}

/** An optional date-time parameter (RFC 3339, with its zone), read as the instant it names. */
export function optionalDateTime(description: string) {
  return z.string()
    .refine(
      (value) => parseDateTime(value) !== undefined,
      "must be an RFC 3339 date-time with its zone, e.g. 2026-11-29T10:15:00Z",
    )
    .optional()
    .meta({ description, format: "date-time" })
    .transform((value) => value === undefined ? undefined : parseDateTime(value)!);
}
