/**
 * What the query DSL gate (dsl_gate.ts) lets in: the bounds on a body's size and nesting,
 * the keys refused with a reason of their own, and the allow-lists of top-level keys, of
 * each query clause's options and of each aggregation's and other part's parameters.
 * Everything not listed here is refused.
 */

/** Deepest nesting of query clauses (OpenSearch's `indices.query.bool.max_nested_depth`). */
export const MAX_QUERY_DEPTH = 20;
/** Deepest nesting of aggregations under aggregations. */
export const MAX_AGGREGATION_DEPTH = 3;
/** Most query clauses and aggregations in one body (OpenSearch's `max_clause_count`). */
export const MAX_CLAUSES = 1024;
/** Most elements of one array: terms, ids, fields, sort keys, ranges. */
export const MAX_ARRAY_LENGTH = 1024;
/** Longest string: query text, field names, values. */
export const MAX_STRING_LENGTH = 8192;
/** Most expansions a fuzzy or prefix clause may ask for. */
export const MAX_EXPANSIONS = 50;
/** Most automaton states a regular expression may need. */
export const MAX_DETERMINIZED_STATES = 10_000;

/** How deep an option's value may nest: `order: [{"_count": "desc"}]`. */
export const PLAIN_DEPTH = 3;

/** Keys refused with a reason of their own, wherever they appear. */
export const NAMED_REFUSALS: Record<string, string> = {
  script: "scripts are not accepted",
  script_score: "scripts are not accepted",
  function_score: "function_score is not accepted (it runs scripts)",
  script_fields: "scripts are not accepted",
  scripted_metric: "scripts are not accepted",
  bucket_script: "scripts are not accepted",
  bucket_selector: "scripts are not accepted",
  terms_set: "terms_set is not accepted (it runs scripts)",
  _script: "script sorts are not accepted",
  runtime_mappings: "runtime fields are not accepted",
  more_like_this: "more_like_this is not accepted (it can read other indices)",
  percolate: "percolate is not accepted (it reads documents of other indices)",
  geo_shape: "geo_shape is not accepted (indexed shapes are read from other indices)",
  indices_boost: "indices_boost names other indices",
  wrapper: "wrapper is not accepted (its query cannot be checked)",
  stored_fields: "stored_fields is not accepted; use _source",
  index: "naming an index is not accepted",
  _index: "naming an index is not accepted",
  timeout: "the service sets the timeout (service.search.opensearch.dsl.timeoutMs)",
};

/** Parameters every query clause takes. */
export const COMMON_QUERY_PARAMETERS = ["boost", "_name"];

/** Options of the full-text clauses on one field (`match` and friends), by clause. */
export const FIELD_TEXT_OPTIONS: Record<string, string[]> = {
  match: [
    "query",
    "operator",
    "minimum_should_match",
    "analyzer",
    "lenient",
    "zero_terms_query",
    "auto_generate_synonyms_phrase_query",
    "fuzziness",
    "prefix_length",
    "max_expansions",
    "fuzzy_transpositions",
  ],
  match_phrase: ["query", "analyzer", "slop", "zero_terms_query"],
  match_phrase_prefix: ["query", "analyzer", "slop", "max_expansions", "zero_terms_query"],
  match_bool_prefix: [
    "query",
    "analyzer",
    "operator",
    "minimum_should_match",
    "fuzziness",
    "prefix_length",
    "max_expansions",
    "fuzzy_transpositions",
  ],
};

export const MULTI_MATCH_OPTIONS = [
  "query",
  "fields",
  "type",
  "operator",
  "minimum_should_match",
  "analyzer",
  "tie_breaker",
  "slop",
  "lenient",
  "zero_terms_query",
  "auto_generate_synonyms_phrase_query",
  "fuzziness",
  "prefix_length",
  "max_expansions",
  "fuzzy_transpositions",
];

export const QUERY_STRING_OPTIONS = [
  "query",
  "default_field",
  "fields",
  "default_operator",
  "analyzer",
  "quote_analyzer",
  "allow_leading_wildcard",
  "analyze_wildcard",
  "lenient",
  "minimum_should_match",
  "phrase_slop",
  "quote_field_suffix",
  "tie_breaker",
  "type",
  "time_zone",
  "fuzziness",
  "fuzzy_max_expansions",
  "fuzzy_prefix_length",
  "fuzzy_transpositions",
  "max_determinized_states",
  "enable_position_increments",
  "auto_generate_synonyms_phrase_query",
];

export const SIMPLE_QUERY_STRING_OPTIONS = [
  "query",
  "fields",
  "default_operator",
  "analyzer",
  "flags",
  "lenient",
  "minimum_should_match",
  "quote_field_suffix",
  "analyze_wildcard",
  "fuzzy_max_expansions",
  "fuzzy_prefix_length",
  "fuzzy_transpositions",
  "auto_generate_synonyms_phrase_query",
];

/** Options of the term-level clauses on one field, by clause. */
export const FIELD_TERM_OPTIONS: Record<string, string[]> = {
  term: ["value", "case_insensitive"],
  prefix: ["value", "case_insensitive"],
  wildcard: ["value", "wildcard", "case_insensitive"],
  regexp: ["value", "flags", "case_insensitive", "max_determinized_states"],
  fuzzy: ["value", "fuzziness", "max_expansions", "prefix_length", "transpositions"],
};

export const RANGE_OPTIONS = [
  "gt",
  "gte",
  "lt",
  "lte",
  "from",
  "to",
  "format",
  "relation",
  "time_zone",
];

/** The service's own keyword fields; every string field also has `<field>.keyword`. */
export const KEYWORD_FIELDS = new Set(["uri", "collection", "workspace", "types", "hash"]);

export const TOP_LEVEL_KEYS = new Set([
  "query",
  "post_filter",
  "aggs",
  "aggregations",
  "size",
  "from",
  "sort",
  "_source",
  "track_total_hits",
  "track_scores",
  "min_score",
  "highlight",
  "search_after",
  "explain",
  "version",
  "seq_no_primary_term",
  "terminate_after",
]);

export const HIGHLIGHT_OPTIONS = [
  "pre_tags",
  "post_tags",
  "fragment_size",
  "number_of_fragments",
  "no_match_size",
  "require_field_match",
  "encoder",
  "order",
  "type",
  "boundary_scanner",
  "tags_schema",
];

export const SORT_OPTIONS = ["order", "mode", "missing", "unmapped_type", "nested", "format"];

/** Metric aggregations: a field and simple options. */
export const METRIC_OPTIONS: Record<string, string[]> = {
  avg: ["field", "missing", "format"],
  sum: ["field", "missing", "format"],
  min: ["field", "missing", "format"],
  max: ["field", "missing", "format"],
  value_count: ["field", "missing", "format"],
  stats: ["field", "missing", "format"],
  extended_stats: ["field", "missing", "format", "sigma"],
  percentiles: ["field", "missing", "format", "percents", "keyed"],
  cardinality: ["field", "missing", "precision_threshold"],
  missing: ["field"],
};

export const HISTOGRAM_OPTIONS = [
  "field",
  "interval",
  "min_doc_count",
  "offset",
  "extended_bounds",
  "hard_bounds",
  "order",
  "keyed",
  "missing",
  "format",
];

export const DATE_HISTOGRAM_OPTIONS = [
  ...HISTOGRAM_OPTIONS.filter((option) => option !== "interval"),
  "calendar_interval",
  "fixed_interval",
  "time_zone",
];

export const TERMS_AGGREGATION_OPTIONS = [
  "field",
  "size",
  "shard_size",
  "min_doc_count",
  "shard_min_doc_count",
  "order",
  "missing",
  "include",
  "exclude",
  "show_term_doc_count_error",
  "collect_mode",
  "format",
];

export const TOP_HITS_SCALARS = [
  "size",
  "from",
  "explain",
  "version",
  "track_scores",
  "seq_no_primary_term",
];
/** The options of `top_hits` and `inner_hits` that the gate walks itself (dsl_gate.ts). */
export const TOP_HITS_WALKED = ["sort", "_source", "highlight"];

/** Fields that hold exact values, where `prefix` reads one range of the terms. */
export function isKeywordField(field: string): boolean {
  return KEYWORD_FIELDS.has(field) || field.endsWith(".keyword");
}
