/**
 * The SQL side of the embedded search engine: how a document is stored for filtering and
 * sorting, and how a {@link SearchRequest} becomes a query.
 *
 * Every scalar of a document (except `text`) is a row of `search_fields`: its dotted path
 * with array positions dropped (`author.name`), its typed value for sorting and its string
 * form for exact filters. That mirrors OpenSearch, where `author.name` is one field holding
 * every value found on that path.
 */
import type { SearchFieldValue, SearchFilter, SearchRequest, SearchSort } from "./search_engine.ts";
import type { SearchWindow } from "./clamp.ts";

/** One scalar of a document as `search_fields` stores it. */
export interface FieldRow {
  path: string;
  /** The value for sorting: numbers as numbers, booleans as 0/1, strings as strings. */
  value: string | number;
  /** `s`tring, `n`umber or `b`oolean. */
  kind: "s" | "n" | "b";
  /** The value as an exact filter compares it. */
  text: string;
}

/**
 * The scalars of a document, `text` excluded (it is full-text only). Numeric strings in
 * `numericFields` count as numbers, as OpenSearch coerces them in fields mapped as numbers.
 */
export function fieldRows(
  document: Record<string, SearchFieldValue>,
  numericFields: ReadonlySet<string> = new Set(),
): FieldRow[] {
  const rows: FieldRow[] = [];
  const visit = (value: SearchFieldValue, path: string) => {
    if (typeof value === "string" && numericFields.has(path) && value.trim() !== "") {
      const number = Number(value);
      if (Number.isFinite(number)) value = number;
    }
    if (Array.isArray(value)) {
      for (const element of value) visit(element, path);
    } else if (typeof value === "object" && value !== null) {
      for (const [key, child] of Object.entries(value)) visit(child, `${path}.${key}`);
    } else if (typeof value === "number") {
      rows.push({ path, value, kind: "n", text: String(value) });
    } else if (typeof value === "boolean") {
      rows.push({ path, value: value ? 1 : 0, kind: "b", text: String(value) });
    } else if (typeof value === "string") {
      rows.push({ path, value, kind: "s", text: value });
    }
  };
  for (const [field, value] of Object.entries(document)) {
    if (field !== "text") visit(value, field);
  }
  return rows;
}

/**
 * An FTS5 query requiring every word of `q`, or undefined when `q` holds no word (such a
 * query matches nothing, as OpenSearch's `match` does). Words are quoted, so no FTS5
 * syntax in user input is ever interpreted.
 */
export function ftsQuery(q: string): string | undefined {
  const words = q.match(/[\p{L}\p{N}\p{Co}]+/gu);
  return words ? words.map((word) => `"${word}"`).join(" ") : undefined;
}

/** SQL text and parameters of one search. */
export interface SearchSql {
  count: string;
  page: string;
  countParams: (string | number)[];
  pageParams: (string | number)[];
  /** Whether rows carry a relevance `rank` (bm25, lower is better). */
  ranked: boolean;
}

/**
 * The count and page queries of a search in physical index `physical`. `match` is the FTS5
 * query when the request has `q`. Order: the requested sort keys (arrays sort by their
 * smallest value ascending, largest descending; missing values last), then relevance when
 * there is `q` and no sort, then the URI.
 */
export function searchSql(
  physical: string,
  request: SearchRequest,
  match: string | undefined,
  window: SearchWindow,
): SearchSql {
  const ranked = match !== undefined;
  const from = ranked
    ? "search_text JOIN search_documents d ON d.id = search_text.rowid"
    : "search_documents d";
  const conditions = ["d.physical = ?"];
  const params: (string | number)[] = [physical];
  if (ranked) {
    conditions.push("search_text MATCH ?");
    params.push(match);
  }
  for (const filter of request.filters ?? []) {
    const [condition, filterParams] = filterCondition(filter);
    conditions.push(condition);
    params.push(...filterParams);
  }
  const where = conditions.join(" AND ");
  const [orderBy, orderParams] = orderClause(request.sort ?? [], ranked);
  const rank = ranked ? ", bm25(search_text) AS rank" : "";
  return {
    count: `SELECT count(*) AS total FROM ${from} WHERE ${where}`,
    page: `SELECT d.uri AS uri, d.document AS document${rank} FROM ${from} WHERE ${where} ` +
      `ORDER BY ${orderBy} LIMIT ? OFFSET ?`,
    countParams: params,
    pageParams: [...params, ...orderParams, window.size, window.from],
    ranked,
  };
}

function filterCondition(filter: SearchFilter): [string, (string | number)[]] {
  const number = filter.value.trim() === "" ? NaN : Number(filter.value);
  const numeric = Number.isFinite(number);
  const sql = "EXISTS (SELECT 1 FROM search_fields f WHERE f.document_id = d.id AND f.path = ? " +
    `AND (f.text = ?${numeric ? " OR (f.kind = 'n' AND f.value = ?)" : ""}))`;
  return [sql, numeric ? [filter.field, filter.value, number] : [filter.field, filter.value]];
}

function orderClause(
  sort: SearchSort[],
  ranked: boolean,
): [string, string[]] {
  const terms: string[] = [];
  const params: string[] = [];
  for (const key of sort) {
    const direction = key.order === "desc" ? "DESC" : "ASC";
    if (key.field === "_score") {
      // bm25 is lower for better matches.
      if (ranked) terms.push(`rank ${key.order === "desc" ? "ASC" : "DESC"}`);
      continue;
    }
    const aggregate = key.order === "desc" ? "max" : "min";
    terms.push(
      `(SELECT ${aggregate}(f.value) FROM search_fields f WHERE f.document_id = d.id AND f.path = ?) ` +
        `${direction} NULLS LAST`,
    );
    params.push(key.field);
  }
  if (ranked && sort.length === 0) terms.push("rank ASC");
  terms.push("d.uri ASC");
  return [terms.join(", "), params];
}
