/**
 * The SQL side of the embedded search engine: how a {@link SearchRequest} becomes queries on
 * one physical index's tables (see `index_tables.ts`): its FTS5 table `f`, whose columns are
 * the document's words (`text`), the stems of its language-tagged literals (`stems`, tokens
 * `<language><stem>`) and the keys of its field values (`keys`, `field_keys.ts`), its documents
 * table `d` (`id`, `uri`, `document`) and its fields table `x` (`id`, `fields`: the flat JSONB
 * of `field_keys.ts`).
 *
 * Full text and exact filters are one FTS5 expression, so the hits of a search come out of
 * the full-text index alone; ranges and sorts read the flat fields of the hits.
 */
import type {
  SearchAnyFilter,
  SearchRange,
  SearchRequest,
  SearchSort,
} from "../search/search_engine.ts";
import { languageTextField, SEARCH_LANGUAGES, stemOf, stemsOf, WORD } from "../fields/languages.ts";
import type { SearchFieldValue } from "../search/search_engine.ts";
import { filterKeys } from "./field_keys.ts";
import { LABEL_WEIGHT } from "../search/label_fields.ts";

/**
 * What `q` matches, as an FTS5 expression: every word in `text` (or all in `labels`), or (in any one of
 * `languages`, the search languages the index holds text in) every word's stem in `stems`;
 * with `language`, only that language's stems. Undefined when `q` holds no word (such a query
 * matches nothing, as OpenSearch's `match` does). Words are quoted, so no FTS5 syntax in user
 * input is ever interpreted.
 */
export function textMatch(
  q: string,
  language: string | undefined,
  languages: readonly string[],
): string | undefined {
  const words = q.match(WORD);
  if (!words) return undefined;
  const inLanguage = (code: string) =>
    "(" + words.map((word) => `"${code}${stemOf(code, word)}"`).join(" ") + ")";
  if (language !== undefined) return `stems : ${inLanguage(language)}`;
  const quoted = words.map((word) => `"${word}"`).join(" ");
  // `labels` repeats the item's labels (they are in `text` too): a phrase of its own, so that
  // bm25 weighs it by how few items are labelled so, which no mention elsewhere outweighs.
  const plain = `(text : (${quoted})) OR (labels : (${quoted}))`;
  const stemmed = SEARCH_LANGUAGES.filter((code) => languages.includes(code));
  if (stemmed.length === 0) return plain;
  return `${plain} OR (stems : (${stemmed.map(inLanguage).join(" OR ")}))`;
}

/**
 * The bm25 call ranking hits of table `fts`: a word in the item's labels weighs
 * {@link LABEL_WEIGHT} times one in its other text (columns `text`, `stems`, `keys`, `labels`).
 */
export function rankOf(fts: string): string {
  return `bm25(${fts}, 1.0, 1.0, 1.0, ${LABEL_WEIGHT.toFixed(1)})`;
}

/** The search languages `document` has text in (its `text_<language>` fields). */
export function documentLanguages(document: Record<string, SearchFieldValue>): string[] {
  return SEARCH_LANGUAGES.filter((code) => typeof document[languageTextField(code)] === "string");
}

/** The exact filters of a request (`filters` and `anyOf`) as an FTS5 expression on `keys`. */
export function filterMatch(request: SearchRequest): string | undefined {
  const anyOf: SearchAnyFilter[] = [
    ...(request.filters ?? []).map(({ field, value }) => ({ field, values: [value] })),
    ...request.anyOf ?? [],
  ];
  if (anyOf.length === 0) return undefined;
  return anyOf.map((filter) => {
    const keys = filter.values.flatMap((value) => filterKeys(filter.field, value));
    return `(keys : (${keys.map((key) => `"${key}"`).join(" OR ")}))`;
  }).join(" AND ");
}

/**
 * The `stems` text of a document: the stems of each `text_<language>` field, each prefixed
 * with its two-letter language code (so `dehaus` is German and cannot be English); undefined
 * when the document has no language-tagged text.
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

/** A SQLite JSON path to one key of the flat fields object. */
export function jsonPath(field: string): string {
  return `$."${field.replace(/["\\]/g, "\\$&")}"`;
}

/**
 * Number values between numeric bounds, string values between the bounds as strings: what
 * OpenSearch does on a number field and on a keyword. A condition on `x.fields`.
 */
export function rangeCondition(range: SearchRange): [string, (string | number)[]] {
  const bounds = [range.gte, range.lte].filter((bound) => bound !== undefined) as string[];
  const numeric = bounds.every((bound) => bound.trim() !== "" && Number.isFinite(Number(bound)));
  const params: (string | number)[] = [jsonPath(range.field)];
  const compare = (convert: (bound: string) => string | number) => {
    const parts: string[] = [];
    if (range.gte !== undefined) {
      parts.push("j.value >= ?");
      params.push(convert(range.gte));
    }
    if (range.lte !== undefined) {
      parts.push("j.value <= ?");
      params.push(convert(range.lte));
    }
    return parts.length > 0 ? parts.join(" AND ") : "1";
  };
  const branches = [`(j.type = 'text' AND ${compare(String)})`];
  if (numeric) branches.push(`(j.type IN ('integer', 'real') AND ${compare(Number)})`);
  return [
    `EXISTS (SELECT 1 FROM json_each(x.fields, ?) j WHERE ${branches.join(" OR ")})`,
    params,
  ];
}

/**
 * The ORDER BY terms of the requested field sorts (arrays sort by their smallest value
 * ascending, largest descending; missing values last); `_score` keys become `rank` terms
 * when the search is ranked.
 */
export function sortTerms(sort: SearchSort[], ranked: boolean): [string[], string[]] {
  const terms: string[] = [];
  const params: string[] = [];
  for (const key of sort) {
    if (key.field === "_score") {
      // bm25 is lower for better matches.
      if (ranked) terms.push(`rank ${key.order === "desc" ? "ASC" : "DESC"}`);
      continue;
    }
    const aggregate = key.order === "desc" ? "max" : "min";
    terms.push(
      `(SELECT ${aggregate}(j.value) FROM json_each(x.fields, ?) j) ` +
        `${key.order === "desc" ? "DESC" : "ASC"} NULLS LAST`,
    );
    params.push(jsonPath(key.field));
  }
  return [terms, params];
}
