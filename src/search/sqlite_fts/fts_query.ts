/**
 * The SQL side of the embedded search engine: how a document is stored for filtering and
 * sorting, and how a {@link SearchRequest} becomes a query.
 *
 * Every scalar of a document (except `text`) is a row of `search_fields`: its dotted path
 * with array positions dropped (`author.name`), its typed value for sorting and its string
 * form for exact filters. That mirrors OpenSearch, where `author.name` is one field holding
 * every value found on that path.
 */
import type {
  SearchAnyFilter,
  SearchFieldValue,
  SearchRange,
  SearchRequest,
  SearchSort,
} from "../search_engine.ts";
import { KEYWORD_IGNORE_ABOVE } from "../mapped_fields.ts";
import { languageTextField, SEARCH_LANGUAGES, stemOf, stemsOf, WORD } from "../languages.ts";
import type { SearchWindow } from "../clamp.ts";

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
 * What `q` matches: FTS5 queries on the plain words (`search_text`) and on the stems of the
 * language-tagged literals (`search_stems`, tokens `<language><stem>`). Each requires every
 * word. With `language`, only that language's stems; without, the plain words or all the
 * stems in any one language. Undefined when `q` holds no word (such a query matches nothing,
 * as OpenSearch's `match` does). Words are quoted, so no FTS5 syntax in user input is ever
 * interpreted.
 */
export interface TextMatch {
  words?: string;
  stems: string;
}

/** The {@link TextMatch} of `q`; see there. */
export function textMatch(q: string, language?: string): TextMatch | undefined {
  const words = q.match(WORD);
  if (!words) return undefined;
  const inLanguage = (code: string) =>
    words.map((word) => `"${code}${stemOf(code, word)}"`).join(" ");
  if (language !== undefined) return { stems: inLanguage(language) };
  return {
    words: words.map((word) => `"${word}"`).join(" "),
    stems: SEARCH_LANGUAGES.map((code) => `(${inLanguage(code)})`).join(" OR "),
  };
}

/**
 * The `search_stems` text of a document: the stems of each `text_<language>` field, each
 * prefixed with its two-letter language code (so `dehaus` is German and cannot be English);
 * undefined when the document has no language-tagged text.
 */
export function stemText(document: Record<string, SearchFieldValue>): string | undefined {
  const tokens: string[] = [];
  for (const language of SEARCH_LANGUAGES) {
    const text = document[languageTextField(language)];
    if (typeof text !== "string") continue;
    for (const stem of stemsOf(language, text)) tokens.push(language + stem);
  }
  return tokens.length > 0 ? tokens.join(" ") : undefined;
}

/** SQL text and parameters of one search. */
export interface SearchSql {
  count: string;
  page: string;
  countParams: (string | number)[];
  pageParams: (string | number)[];
  /** Whether rows carry a relevance `rank` (bm25, lower is better). */
  ranked: boolean;
  /** The query counting the `size` most frequent values of `field` among every hit. */
  facet(field: string, size: number): { sql: string; params: (string | number)[] };
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
  match: TextMatch | undefined,
  window: SearchWindow,
): SearchSql {
  const ranked = match !== undefined;
  const params: (string | number)[] = [];
  let from = "search_documents d";
  if (match) {
    // The best (lowest) bm25 of the plain-word and the stem matches of each document.
    const branches = [
      "SELECT rowid AS id, rank FROM search_stems " +
      "WHERE search_stems MATCH ?",
    ];
    params.push(match.stems);
    if (match.words !== undefined) {
      branches.unshift(
        "SELECT rowid AS id, rank FROM search_text " +
          "WHERE search_text MATCH ?",
      );
      params.unshift(match.words);
    }
    from = `(SELECT id, min(rank) AS rank FROM (${branches.join(" UNION ALL ")}) GROUP BY id) m ` +
      "JOIN search_documents d ON d.id = m.id";
  }
  const conditions = ["d.physical = ?"];
  params.push(physical);
  const anyOf: SearchAnyFilter[] = [
    ...(request.filters ?? []).map(({ field, value }) => ({ field, values: [value] })),
    ...request.anyOf ?? [],
  ];
  for (const filter of anyOf) {
    const [condition, filterParams] = filterCondition(filter);
    conditions.push(condition);
    params.push(...filterParams);
  }
  for (const range of request.ranges ?? []) {
    const [condition, rangeParams] = rangeCondition(range);
    conditions.push(condition);
    params.push(...rangeParams);
  }
  const where = conditions.join(" AND ");
  const [orderBy, orderParams] = orderClause(request.sort ?? [], ranked);
  const rank = ranked ? ", m.rank AS rank" : "";
  return {
    count: `SELECT count(*) AS total FROM ${from} WHERE ${where}`,
    page: `SELECT d.uri AS uri, d.document AS document${rank} FROM ${from} WHERE ${where} ` +
      `ORDER BY ${orderBy} LIMIT ? OFFSET ?`,
    countParams: params,
    pageParams: [...params, ...orderParams, window.size, window.from],
    ranked,
    // Strings longer than OpenSearch's keyword limit are full-text only there: not counted.
    facet: (field, size) => ({
      sql: `SELECT f.value AS value, f.kind AS kind, count(DISTINCT d.id) AS count ` +
        `FROM ${from} JOIN search_fields f ON f.document_id = d.id ` +
        `WHERE ${where} AND f.path = ? AND (f.kind <> 's' OR length(f.text) <= ?) ` +
        `GROUP BY f.kind, f.value ORDER BY count DESC, f.value ASC LIMIT ?`,
      params: [...params, field, KEYWORD_IGNORE_ABOVE, size],
    }),
  };
}

/** One of `values` exactly; a numeric value also matches the number (`1999` = `1999.0`). */
function filterCondition(filter: SearchAnyFilter): [string, (string | number)[]] {
  const numbers = filter.values
    .filter((value) => value.trim() !== "" && Number.isFinite(Number(value)))
    .map(Number);
  const texts = filter.values.map(() => "?").join(", ");
  const numeric = numbers.length > 0
    ? ` OR (f.kind = 'n' AND f.value IN (${numbers.map(() => "?").join(", ")}))`
    : "";
  const sql = "EXISTS (SELECT 1 FROM search_fields f WHERE f.document_id = d.id AND f.path = ? " +
    `AND (f.text IN (${texts})${numeric}))`;
  return [sql, [filter.field, ...filter.values, ...numbers]];
}

/**
 * Number values between numeric bounds, string values between the bounds as strings: what
 * OpenSearch does on a number field and on a keyword.
 */
function rangeCondition(range: SearchRange): [string, (string | number)[]] {
  const bounds = [range.gte, range.lte].filter((bound) => bound !== undefined) as string[];
  const numeric = bounds.every((bound) => bound.trim() !== "" && Number.isFinite(Number(bound)));
  const params: (string | number)[] = [range.field];
  const compare = (column: string, convert: (bound: string) => string | number) => {
    const parts: string[] = [];
    if (range.gte !== undefined) {
      parts.push(`${column} >= ?`);
      params.push(convert(range.gte));
    }
    if (range.lte !== undefined) {
      parts.push(`${column} <= ?`);
      params.push(convert(range.lte));
    }
    return parts.join(" AND ");
  };
  const branches = [`(f.kind = 's' AND ${compare("f.text", String)})`];
  if (numeric) branches.push(`(f.kind = 'n' AND ${compare("f.value", Number)})`);
  const sql = "EXISTS (SELECT 1 FROM search_fields f WHERE f.document_id = d.id AND f.path = ? " +
    `AND (${branches.join(" OR ")}))`;
  return [sql, params];
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
