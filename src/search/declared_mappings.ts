/**
 * A collection's declared field types, as both search engines read them.
 *
 * customer.yml gives a collection's `mappings` in the mapping syntax the configuration speaks
 * (OpenSearch's: `{ properties: { year: { type: "integer" } } }`). The OpenSearch engine
 * creates its indexes from them (`opensearch/mappings.ts`); the embedded engine reads from
 * them which fields hold numbers and which values a typed field refuses, so a collection's
 * mappings mean the same on both engines. Neither engine's own code is needed for that.
 */
import { languageTextField, SEARCH_LANGUAGES } from "../fields/languages.ts";

/** The service's own fields and their type on every engine; a collection cannot retype them. */
export const SERVICE_FIELD_TYPES: Readonly<Record<string, "keyword" | "date" | "text">> = {
  uri: "keyword",
  collection: "keyword",
  workspace: "keyword",
  types: "keyword",
  hash: "keyword",
  modified: "date",
  text: "text",
};

const LANGUAGE_FIELDS = new Set(SEARCH_LANGUAGES.map(languageTextField));

/** True for a field the service itself fills (its own fields and `text_<language>`). */
function isServiceField(field: string): boolean {
  return field in SERVICE_FIELD_TYPES || LANGUAGE_FIELDS.has(field);
}

const NUMERIC_TYPES = new Set([
  "long",
  "integer",
  "short",
  "byte",
  "double",
  "float",
  "half_float",
  "scaled_float",
  "unsigned_long",
]);

/**
 * Top-level fields that `overrides` maps as numbers: OpenSearch indexes (and sorts) a numeric
 * string in them as the number, so the embedded engine does too.
 */
export function numericMappedFields(overrides: Record<string, unknown> | undefined): Set<string> {
  const fields = new Set<string>();
  for (const [field, mapping] of Object.entries(asObject(overrides?.properties))) {
    const type = asObject(mapping).type;
    if (typeof type === "string" && NUMERIC_TYPES.has(type)) fields.add(field);
  }
  return fields;
}

/**
 * Why OpenSearch would refuse `document` under the explicitly mapped top-level numeric,
 * boolean and date fields of `overrides`, or undefined. The embedded engine uses this so
 * that a collection's mappings mean the same on both engines.
 */
export function mappingViolation(
  document: Record<string, unknown>,
  overrides: Record<string, unknown> | undefined,
): string | undefined {
  const properties = asObject(overrides?.properties);
  for (const [field, mapping] of Object.entries(properties)) {
    if (isServiceField(field) || !(field in document)) continue;
    const type = asObject(mapping).type;
    if (typeof type !== "string") continue;
    const values = [document[field]].flat();
    for (const value of values) {
      if (!fitsType(value, type)) {
        return `failed to parse field [${field}] of type [${type}]: ${JSON.stringify(value)}`;
      }
    }
  }
  return undefined;
}

/** True when `value` would be accepted by a field declared with `type`. */
export function fitsType(value: unknown, type: string): boolean {
  if (value === null) return true;
  if (NUMERIC_TYPES.has(type)) {
    const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
    // Fractions are coerced into integer types, not refused.
    return typeof number === "number" && Number.isFinite(number);
  }
  if (type === "boolean") {
    return value === true || value === false || value === "true" ||
      value === "false" || value === "";
  }
  if (type === "date") {
    return (typeof value === "number" && Number.isFinite(value)) ||
      (typeof value === "string" && !Number.isNaN(Date.parse(value)));
  }
  return true;
}

/** `value` if it is a plain object, else an empty one. */
export function asObject(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : {};
}
