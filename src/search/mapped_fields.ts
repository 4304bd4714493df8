/**
 * A collection's own search fields (`index.fields` in customer.yml): which property path
 * feeds which field, with which type and language. This file turns the nodes a path
 * reached into the field's value, and gives the OpenSearch mapping of each field; the
 * paths themselves are `field_paths.ts`, reading linked resources is the indexer's.
 *
 * Types: `text` (full text, also searched by `q`, and exact through `<field>.keyword`),
 * `keyword`, `iri` (exact), `integer`, `decimal`, `date` (ISO 8601 lexical forms), `boolean`.
 * A value the type cannot hold fails the item's document, as OpenSearch fails a document
 * that breaks its mapping: the item's indexing error names the field and the value.
 */
import type { Literal, Term } from "n3";
import { type FieldPath, parseFieldPath, prefixesOf } from "../fields/field_paths.ts";
import { analyzerOf, searchLanguageOf } from "../fields/languages.ts";
import type { SearchFieldValue } from "./search_engine.ts";
import type { FieldType } from "../fields/field_types.ts";

/** Longest string that `<field>.keyword` indexes; longer values are only full-text. */
export const KEYWORD_IGNORE_ABOVE = 2048;

/** A field as customer.yml declares it. */
export interface IndexFieldConfig {
  name: string;
  path: string;
  type: FieldType;
  /** Analyse the values in this search language (text fields). */
  language?: string;
  /** Several values as an array (default); false keeps the smallest value only. */
  multiple: boolean;
}

/** A field with its path parsed. */
export interface IndexField extends IndexFieldConfig {
  compiled: FieldPath;
}

/** A text value with the language it is analysed in, if any. */
export interface FieldText {
  text: string;
  language?: string;
}

/** What a field contributes to a document. */
export interface FieldContribution {
  /** Undefined when the path reached nothing the field can hold. */
  value?: SearchFieldValue;
  /** Text fields' values: searched by `q`, in their language. */
  texts: FieldText[];
}

/** Why a value does not fit its field. */
export class MappedFieldError extends Error {}

/** Parses the paths of `fields` with the collection context's prefixes. */
export function compileIndexFields(
  fields: readonly IndexFieldConfig[],
  context: unknown,
): IndexField[] {
  const prefixes = prefixesOf(context);
  return fields.map((field) => ({ ...field, compiled: parseFieldPath(field.path, prefixes) }));
}

const DATE = /^-?\d{4,}(-\d{2}(-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/;

/** The value of `field` from the nodes its path reached. */
export function fieldContribution(field: IndexFieldConfig, nodes: Term[]): FieldContribution {
  const values: (string | number | boolean)[] = [];
  const texts: FieldText[] = [];
  for (const node of nodes) {
    if (node.termType === "BlankNode") continue;
    const value = convert(field, node);
    values.push(value);
    if (field.type === "text") {
      const language = field.language ??
        searchLanguageOf(node.termType === "Literal" ? (node as Literal).language : undefined);
      texts.push(language ? { text: String(value), language } : { text: String(value) });
    }
  }
  const sorted = [...new Map(values.map((value) => [JSON.stringify(value), value])).values()]
    .sort(compareValues);
  if (sorted.length === 0) return { texts };
  return { value: field.multiple ? sorted : sorted[0], texts };
}

function convert(field: IndexFieldConfig, node: Term): string | number | boolean {
  const lexical = node.value;
  const refuse = (what: string) =>
    new MappedFieldError(
      `search field '${field.name}' (${field.type}, path ${field.path}): ` +
        `${JSON.stringify(lexical)} is not ${what}`,
    );
  switch (field.type) {
    case "text":
    case "keyword":
      return lexical;
    case "iri":
      if (node.termType !== "NamedNode") throw refuse("an IRI");
      return lexical;
    case "integer": {
      const number = Number(lexical.trim());
      if (node.termType !== "Literal" || lexical.trim() === "" || !Number.isSafeInteger(number)) {
        throw refuse("an integer");
      }
      return number;
    }
    case "decimal": {
      const number = Number(lexical.trim());
      if (node.termType !== "Literal" || lexical.trim() === "" || !Number.isFinite(number)) {
        throw refuse("a number");
      }
      return number;
    }
    case "date":
      if (node.termType !== "Literal" || !DATE.test(lexical.trim())) {
        throw refuse("an ISO 8601 date");
      }
      return lexical.trim();
    case "boolean": {
      const trimmed = lexical.trim();
      if (node.termType === "Literal" && (trimmed === "true" || trimmed === "1")) return true;
      if (node.termType === "Literal" && (trimmed === "false" || trimmed === "0")) return false;
      throw refuse("a boolean");
    }
  }
}

function compareValues(a: string | number | boolean, b: string | number | boolean): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The OpenSearch mapping of each field (`properties`), for new physical indices. */
export function fieldMappings(fields: readonly IndexFieldConfig[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const field of fields) {
    properties[field.name] = mappingOf(field);
  }
  return properties;
}

function mappingOf(field: IndexFieldConfig): Record<string, unknown> {
  switch (field.type) {
    case "text":
      return {
        type: "text",
        ...(field.language ? { analyzer: analyzerOf(field.language) } : {}),
        fields: { keyword: { type: "keyword", ignore_above: KEYWORD_IGNORE_ABOVE } },
      };
    case "keyword":
    case "iri":
      return { type: "keyword" };
    case "integer":
      return { type: "long" };
    case "decimal":
      return { type: "double" };
    case "date":
      // No epoch_millis: a year like 2020 must read as a year.
      return { type: "date", format: "strict_date_optional_time||strict_year||strict_year_month" };
    case "boolean":
      return { type: "boolean" };
  }
}
