/**
 * The types a collection's search field may have (customer.yml `index.fields[].type`):
 * configuration validates them, search maps and fills them.
 */

/** The types a field may have. */
export const FIELD_TYPES = [
  "text",
  "keyword",
  "integer",
  "decimal",
  "date",
  "boolean",
  "iri",
] as const;

/** One of {@link FIELD_TYPES}. */
export type FieldType = typeof FIELD_TYPES[number];
