/**
 * How the embedded engine stores a document's scalar fields: once as full-text tokens, so that
 * exact filters are FTS5 terms (no row per value to join), and once as one flat JSON object
 * per document (`{"author.name": ["Ada", …], "year": [1999]}`) for ranges, sorts and facets.
 *
 * A key token is `k` and a 106-bit hash of the field's path, the value's kind and the value's
 * exact text: FTS5 finds the documents holding `author.name = "Ada"` as it finds a word. The
 * hash is written here (two seeded 53-bit multiply-xor hashes, cyrb53-style) because FTS5's
 * tokenizer needs a word of letters and digits and node:crypto's digests cost ten times more
 * per value; at 106 bits two different values of one field never collide in practice.
 */
import type { SearchFieldValue } from "../search/search_engine.ts";
import { KEYWORD_IGNORE_ABOVE } from "../search/mapped_fields.ts";

/** One scalar of a document: its dotted path with array positions dropped, and its value. */
export interface FieldValue {
  path: string;
  /** Numbers as numbers (also numeric strings of numeric fields), booleans, strings. */
  value: string | number | boolean;
}

/**
 * The scalars of a document, `text` and `text_<language>` included only as other fields are
 * (they are strings like any other). Numeric strings in `numericFields` count as numbers, as
 * OpenSearch coerces them in fields mapped as numbers.
 */
export function fieldValues(
  document: Record<string, SearchFieldValue>,
  numericFields: ReadonlySet<string> = new Set(),
): FieldValue[] {
  const values: FieldValue[] = [];
  const visit = (value: SearchFieldValue, path: string) => {
    if (typeof value === "string" && numericFields.has(path) && value.trim() !== "") {
      const number = Number(value);
      if (Number.isFinite(number)) value = number;
    }
    if (Array.isArray(value)) {
      for (const element of value) visit(element, path);
    } else if (typeof value === "object" && value !== null) {
      for (const [key, child] of Object.entries(value)) visit(child, `${path}.${key}`);
    } else if (
      typeof value === "number" || typeof value === "boolean" || typeof value === "string"
    ) {
      values.push({ path, value });
    }
  };
  for (const [field, value] of Object.entries(document)) {
    if (field !== "text") visit(value, field);
  }
  return values;
}

/** The flat JSON object of {@link fieldValues}: each path once, its values in an array. */
export function flatFields(values: FieldValue[]): string {
  const flat: Record<string, (string | number | boolean)[]> = {};
  for (const { path, value } of values) (flat[path] ??= []).push(value);
  return JSON.stringify(flat);
}

/**
 * The key tokens of a document, space-separated. Booleans are keyed by their text (`true`),
 * as an exact filter compares them; numbers by their shortest form (`1999`, not `1999.0`).
 * Strings longer than OpenSearch's keyword limit are full-text only, as there.
 */
export function keyTokens(values: FieldValue[]): string {
  const tokens = new Set<string>();
  for (const { path, value } of values) {
    if (typeof value === "number") tokens.add(numberKey(path, value));
    else if (typeof value === "boolean") tokens.add(stringKey(path, String(value)));
    else if (value.length <= KEYWORD_IGNORE_ABOVE) tokens.add(stringKey(path, value));
  }
  return [...tokens].join(" ");
}

/** The key of a string (or boolean) value of `path`. */
export function stringKey(path: string, text: string): string {
  return key(`s\u0000${path}\u0000${text}`);
}

/** The key of a number value of `path`. */
export function numberKey(path: string, value: number): string {
  return key(`n\u0000${path}\u0000${String(value)}`);
}

/**
 * The keys an exact filter `path = value` matches: the string, and the number when `value`
 * reads as one (`1999` matches the number 1999 and the string "1999").
 */
export function filterKeys(path: string, value: string): string[] {
  const keys = [stringKey(path, value)];
  if (value.trim() !== "" && Number.isFinite(Number(value))) {
    keys.push(numberKey(path, Number(value)));
  }
  return keys;
}

function key(text: string): string {
  return `k${base36(hash53(text, 0x9e3779b9))}x${base36(hash53(text, 0x85ebca6b))}`;
}

/** 36 to the 5th: below 2^31, so both halves of a 53-bit number are small integers. */
const BASE36_LOW = 36 ** 5;

/**
 * `n.toString(36)` of a safe non-negative integer, the same text, about twice as fast: V8
 * writes numbers above 2^31 in a radix by a general algorithm for doubles (about 0.4 µs,
 * measured: a third of a document's key cost); two small integers take its fast path.
 */
function base36(n: number): string {
  const high = Math.floor(n / BASE36_LOW);
  const low = n - high * BASE36_LOW;
  return high === 0 ? low.toString(36) : high.toString(36) + low.toString(36).padStart(5, "0");
}

/** A 53-bit hash of `text` (cyrb53's mixing), seeded. */
function hash53(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
