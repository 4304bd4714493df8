/**
 * The order of a search over several indices on the embedded engine, for merging their
 * answers (`src/search/merge_parts.ts`): the order `search_query.ts` gives one index's hits,
 * applied to hits of different indices.
 *
 * - Full text without field sorts: by score (bm25 of each index: each weighs a word by its own
 *   documents, so scores of two collections compare as their bm25 values do, not as if one
 *   index held both), better first; unscored hits (an index beyond `trackTotalHits`) last;
 *   equal scores keep the indices' order (within one index: most recently added first).
 * - Field sorts: each key by the field's smallest value ascending or largest descending, as
 *   SQLite orders the JSON values (numbers and booleans before strings, strings in code point
 *   order), missing values last; `_score` keys by score; then, with `q`, by score; then URI.
 * - Neither: by URI.
 */
import { numericMappedFields } from "../search/declared_mappings.ts";
import type { MergeOrder, PartHit } from "../search/merge_parts.ts";
import type { CollectionIndexRef, SearchRequest, SearchSort } from "../search/search_engine.ts";
import { fieldValues } from "./field_keys.ts";

type SortValue = number | string | undefined;
type Compare = (a: PartHit, b: PartHit) => number;

/** How hits of `indices` (parts in this order) compare for `request`. */
export function mergeOrder(
  request: SearchRequest,
  indices: readonly CollectionIndexRef[],
): MergeOrder {
  const ranked = request.q?.trim() ? true : false;
  const sort = request.sort ?? [];
  const fieldSort = sort.some((key) => key.field !== "_score");
  const numeric = indices.map((index) => numericMappedFields(index.mappings));
  const keys: Compare[] = [];
  for (const key of sort) {
    if (key.field !== "_score") keys.push(byField(key, numeric));
    else if (ranked) keys.push(byScore(key.order));
  }
  if (ranked && !sort.some((key) => key.field === "_score")) keys.push(byScore("desc"));
  // One index breaks the remaining ties by URI, except a plain ranking (by recency there).
  if (fieldSort || !ranked) keys.push((a, b) => compareText(a.hit.uri, b.hit.uri));
  return (a, b) => {
    for (const compare of keys) {
      const order = compare(a, b);
      if (order !== 0) return order;
    }
    return 0;
  };
}

/** Better scores first (`desc`), or worse first (`asc`); a hit with no score last. */
function byScore(order: "asc" | "desc"): Compare {
  return (a, b) => {
    const [x, y] = [a.hit.score, b.hit.score];
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    return order === "desc" ? y - x : x - y;
  };
}

/** By the field's smallest value (ascending) or largest (descending), missing last. */
function byField(key: SearchSort, numeric: ReadonlySet<string>[]): Compare {
  const memo = new WeakMap<PartHit, SortValue>();
  const valueOf = (entry: PartHit): SortValue => {
    if (memo.has(entry)) return memo.get(entry);
    let chosen: SortValue;
    for (const { path, value } of fieldValues(entry.hit.document, numeric[entry.part])) {
      if (path !== key.field) continue;
      // JSON booleans are the integers 1 and 0 to SQLite.
      const one = typeof value === "boolean" ? Number(value) : value;
      if (
        chosen === undefined || compareValues(one, chosen) * (key.order === "desc" ? -1 : 1) < 0
      ) {
        chosen = one;
      }
    }
    memo.set(entry, chosen);
    return chosen;
  };
  return (a, b) => {
    const [x, y] = [valueOf(a), valueOf(b)];
    if (x === undefined || y === undefined) return x === y ? 0 : x === undefined ? 1 : -1;
    return compareValues(x, y) * (key.order === "desc" ? -1 : 1);
  };
}

/** SQLite's order of values: numbers before text, text by code point (its BINARY collation). */
function compareValues(a: number | string, b: number | string): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "number") return -1;
  if (typeof b === "number") return 1;
  return compareText(a, b);
}

/** Code point order (UTF-8 byte order), which UTF-16 code unit order is not above U+FFFF. */
function compareText(a: string, b: string): number {
  if (a === b) return 0;
  const x = a[Symbol.iterator]();
  const y = b[Symbol.iterator]();
  while (true) {
    const [p, q] = [x.next(), y.next()];
    if (p.done || q.done) return p.done && q.done ? 0 : p.done ? -1 : 1;
    if (p.value !== q.value) return p.value.codePointAt(0)! - q.value.codePointAt(0)!;
  }
}
