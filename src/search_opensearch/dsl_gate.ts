/**
 * The query DSL gate: every body of `POST /api/search` is checked here before it reaches
 * OpenSearch. A pure function over the parsed JSON, beside the size clamp.
 *
 * The body is read against allow-lists: of top-level keys, of query clauses, of
 * aggregation types and of each one's parameters. Anything else is refused, with the JSON
 * pointer of the clause, so nothing the gate does not know can name another index (terms
 * lookups, `more_like_this`, `geo_shape`, `percolate`, `indices_boost`, `wrapper`), run a
 * script (`script`, `script_score`, `function_score`, scripted aggregations, runtime
 * fields, script sorts) or reach documents beyond the collection's alias.
 *
 * Cost is bounded too: clauses nest at most {@link MAX_QUERY_DEPTH} deep (OpenSearch's own
 * bool depth limit) and aggregations {@link MAX_AGGREGATION_DEPTH}; a body holds at most
 * {@link MAX_CLAUSES} clauses, arrays {@link MAX_ARRAY_LENGTH} elements and strings
 * {@link MAX_STRING_LENGTH} characters. Leading wildcards, `regexp` and fuzzy matching
 * (`fuzzy`, `fuzziness`, `~` in query strings), and `prefix` on fields that are not
 * keywords, need `expensiveQueries`. The walk recurses only through clause nesting, which
 * the depth bound stops, so input 10,000 levels deep is refused at level 21.
 *
 * The lists and bounds are in dsl_allow_lists.ts, the typed checks of JSON values in
 * dsl_json_walk.ts; this file is the grammar: which clause holds what.
 */
import {
  COMMON_QUERY_PARAMETERS,
  DATE_HISTOGRAM_OPTIONS,
  FIELD_TERM_OPTIONS,
  FIELD_TEXT_OPTIONS,
  HIGHLIGHT_OPTIONS,
  HISTOGRAM_OPTIONS,
  isKeywordField,
  MAX_AGGREGATION_DEPTH,
  MAX_CLAUSES,
  MAX_DETERMINIZED_STATES,
  MAX_EXPANSIONS,
  MAX_QUERY_DEPTH,
  METRIC_OPTIONS,
  MULTI_MATCH_OPTIONS,
  NAMED_REFUSALS,
  QUERY_STRING_OPTIONS,
  RANGE_OPTIONS,
  SIMPLE_QUERY_STRING_OPTIONS,
  SORT_OPTIONS,
  TERMS_AGGREGATION_OPTIONS,
  TOP_HITS_SCALARS,
  TOP_HITS_WALKED,
  TOP_LEVEL_KEYS,
} from "./dsl_allow_lists.ts";
import { escape, isObject, type Json, JsonWalk, Refusal } from "./dsl_json_walk.ts";

// The bounds, also named from here: they are the gate's promise to its callers.
export {
  MAX_AGGREGATION_DEPTH,
  MAX_ARRAY_LENGTH,
  MAX_CLAUSES,
  MAX_DETERMINIZED_STATES,
  MAX_EXPANSIONS,
  MAX_QUERY_DEPTH,
  MAX_STRING_LENGTH,
} from "./dsl_allow_lists.ts";

/** What the configuration allows beyond the default gate. */
export interface DslGateOptions {
  /** Leading wildcards, `regexp`, fuzzy matching and `prefix` on any field. */
  expensiveQueries: boolean;
}

/** The gate's answer: accepted, or refused at `path` (a JSON pointer) for `message`. */
export type DslGateResult = { ok: true } | { ok: false; path: string; message: string };

/** Checks a query DSL body; never throws. */
export function gateQueryBody(body: unknown, options: DslGateOptions): DslGateResult {
  try {
    new Gate(options).body(body);
    return { ok: true };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, path: error.path, message: error.message };
    throw error;
  }
}

/** One walk over one body: counts clauses, refuses at the first violation. */
class Gate extends JsonWalk {
  #clauses = 0;

  constructor(readonly options: DslGateOptions) {
    super();
  }

  body(body: unknown): void {
    const top = this.object(body, "");
    for (const [key, value] of Object.entries(top)) {
      const path = `/${escape(key)}`;
      this.allowedKey(key, path, TOP_LEVEL_KEYS);
      switch (key) {
        case "query":
        case "post_filter":
          this.query(value, path, 1);
          break;
        case "aggs":
        case "aggregations":
          this.aggregations(value, path, 1);
          break;
        case "sort":
          this.sort(value, path);
          break;
        case "_source":
          this.source(value, path);
          break;
        case "highlight":
          this.highlight(value, path);
          break;
        case "search_after":
          this.scalars(value, path);
          break;
        case "track_total_hits":
          if (typeof value !== "boolean") this.number(value, path);
          break;
        case "explain":
        case "version":
        case "seq_no_primary_term":
        case "track_scores":
          this.boolean(value, path);
          break;
        default: // size, from, min_score, terminate_after
          this.number(value, path);
      }
    }
  }

  /** One query clause: an object with exactly one clause name. */
  query(value: unknown, path: string, depth: number): void {
    if (depth > MAX_QUERY_DEPTH) {
      this.refuse(path, `query clauses nest at most ${MAX_QUERY_DEPTH} deep`);
    }
    this.countClause(path);
    const clause = this.object(value, path);
    const names = Object.keys(clause);
    if (names.length !== 1) this.refuse(path, "a query clause has exactly one name");
    const name = names[0];
    const at = `${path}/${escape(name)}`;
    const body = clause[name];
    switch (name) {
      case "match_all":
      case "match_none":
        this.parameters(body, at, COMMON_QUERY_PARAMETERS);
        return;
      case "match":
      case "match_phrase":
      case "match_phrase_prefix":
      case "match_bool_prefix":
        return this.fieldClause(body, at, "query", FIELD_TEXT_OPTIONS[name], (options, path) => {
          this.bounded(options, path, "max_expansions", MAX_EXPANSIONS);
          this.fuzziness(options, path);
        });
      case "multi_match":
        return this.fullText(body, at, MULTI_MATCH_OPTIONS, (options) => {
          this.fieldNames(options.fields, `${at}/fields`);
          this.bounded(options, at, "max_expansions", MAX_EXPANSIONS);
          this.fuzziness(options, at);
        });
      case "query_string":
        return this.fullText(body, at, QUERY_STRING_OPTIONS, (options) => {
          this.fieldNames(options.fields, `${at}/fields`);
          this.bounded(options, at, "fuzzy_max_expansions", MAX_EXPANSIONS);
          this.bounded(options, at, "max_determinized_states", MAX_DETERMINIZED_STATES);
          this.fuzziness(options, at);
          if (options.allow_leading_wildcard === true) {
            this.expensive(`${at}/allow_leading_wildcard`, "leading wildcards");
          }
          this.queryText(options.query, `${at}/query`, true);
        });
      case "simple_query_string":
        return this.fullText(body, at, SIMPLE_QUERY_STRING_OPTIONS, (options) => {
          this.fieldNames(options.fields, `${at}/fields`);
          this.bounded(options, at, "fuzzy_max_expansions", MAX_EXPANSIONS);
          this.queryText(options.query, `${at}/query`, false);
        });
      case "term":
        return this.fieldClause(body, at, "value", FIELD_TERM_OPTIONS.term);
      case "terms":
        return this.terms(body, at);
      case "ids":
        return this.ids(body, at);
      case "range":
        return this.fieldClause(body, at, undefined, RANGE_OPTIONS);
      case "exists":
        this.parameters(body, at, ["field", ...COMMON_QUERY_PARAMETERS]);
        this.fieldName((body as Json).field, `${at}/field`);
        return;
      case "prefix":
        return this.fieldClause(body, at, "value", FIELD_TERM_OPTIONS.prefix, (_, path, field) => {
          if (!isKeywordField(field)) this.expensive(path, "prefix on a field that is no keyword");
        });
      case "wildcard":
        return this.fieldClause(body, at, "value", FIELD_TERM_OPTIONS.wildcard, (options, path) => {
          const pattern = options.value ?? options.wildcard;
          if (typeof pattern === "string" && /^[*?]/.test(pattern)) {
            this.expensive(path, "leading wildcards");
          }
        });
      case "regexp":
        this.expensive(at, "regexp");
        return this.fieldClause(body, at, "value", FIELD_TERM_OPTIONS.regexp, (options, path) => {
          this.bounded(options, path, "max_determinized_states", MAX_DETERMINIZED_STATES);
        });
      case "fuzzy":
        this.expensive(at, "fuzzy");
        return this.fieldClause(body, at, "value", FIELD_TERM_OPTIONS.fuzzy, (options, path) => {
          this.bounded(options, path, "max_expansions", MAX_EXPANSIONS);
        });
      case "bool":
        return this.bool(body, at, depth);
      case "constant_score": {
        const options = this.parameters(body, at, COMMON_QUERY_PARAMETERS, ["filter"]);
        this.query(options.filter, `${at}/filter`, depth + 1);
        return;
      }
      case "dis_max": {
        const options = this.parameters(
          body,
          at,
          ["tie_breaker", ...COMMON_QUERY_PARAMETERS],
          ["queries"],
        );
        this.array(options.queries, `${at}/queries`).forEach((query, index) =>
          this.query(query, `${at}/queries/${index}`, depth + 1)
        );
        return;
      }
      case "boosting": {
        const options = this.parameters(
          body,
          at,
          ["negative_boost", ...COMMON_QUERY_PARAMETERS],
          ["positive", "negative"],
        );
        this.query(options.positive, `${at}/positive`, depth + 1);
        this.query(options.negative, `${at}/negative`, depth + 1);
        return;
      }
      case "nested":
        return this.nested(body, at, depth);
      default:
        this.refuse(at, NAMED_REFUSALS[name] ?? `${name} is not an accepted query clause`);
    }
  }

  bool(value: unknown, path: string, depth: number): void {
    const occurrences = ["must", "filter", "should", "must_not"];
    const options = this.parameters(
      value,
      path,
      ["minimum_should_match", ...COMMON_QUERY_PARAMETERS],
      occurrences,
    );
    for (const occurrence of occurrences) {
      const clauses = options[occurrence];
      if (clauses === undefined) continue;
      const at = `${path}/${occurrence}`;
      if (Array.isArray(clauses)) {
        this.array(clauses, at).forEach((clause, index) =>
          this.query(clause, `${at}/${index}`, depth + 1)
        );
      } else {
        this.query(clauses, at, depth + 1);
      }
    }
  }

  nested(value: unknown, path: string, depth: number): void {
    const options = this.parameters(
      value,
      path,
      ["path", "score_mode", "ignore_unmapped", ...COMMON_QUERY_PARAMETERS],
      ["query", "inner_hits"],
    );
    this.fieldName(options.path, `${path}/path`);
    this.query(options.query, `${path}/query`, depth + 1);
    if (options.inner_hits !== undefined) {
      const inner = this.parameters(
        options.inner_hits,
        `${path}/inner_hits`,
        ["name", ...TOP_HITS_SCALARS],
        TOP_HITS_WALKED,
      );
      this.hitOptions(inner, `${path}/inner_hits`);
    }
  }

  /**
   * A clause over one field, `{field: value}` or `{field: {<valueKey>: value, options}}`
   * (`valueKey` undefined: only the object form), then `check(options, path, field)`.
   */
  fieldClause(
    value: unknown,
    path: string,
    valueKey: string | undefined,
    allowed: string[],
    check?: (options: Json, path: string, field: string) => void,
  ): void {
    const clause = this.object(value, path);
    const fields = Object.keys(clause).filter((key) => !COMMON_QUERY_PARAMETERS.includes(key));
    if (fields.length !== 1) this.refuse(path, "the clause names exactly one field");
    for (const key of COMMON_QUERY_PARAMETERS) this.optionalScalar(clause[key], `${path}/${key}`);
    const field = fields[0];
    const at = `${path}/${escape(field)}`;
    this.fieldName(field, at);
    const given = clause[field];
    const options = valueKey !== undefined && !isObject(given)
      ? { [valueKey]: given }
      : this.parameters(given, at, [...allowed, ...COMMON_QUERY_PARAMETERS]);
    if (valueKey !== undefined && !isObject(given)) this.scalar(given, at);
    check?.(options, at, field);
  }

  /** A full-text clause over several fields: `multi_match`, the query strings. */
  fullText(value: unknown, path: string, allowed: string[], check: (options: Json) => void) {
    const options = this.parameters(value, path, [...allowed, ...COMMON_QUERY_PARAMETERS]);
    if (typeof options.query !== "string") this.refuse(`${path}/query`, "expected a string");
    check(options);
  }

  /** `terms`: one field and an array of values; an object there is a lookup in an index. */
  terms(value: unknown, path: string): void {
    const clause = this.object(value, path);
    const fields = Object.keys(clause).filter((key) => !COMMON_QUERY_PARAMETERS.includes(key));
    if (fields.length !== 1) this.refuse(path, "the clause names exactly one field");
    for (const key of COMMON_QUERY_PARAMETERS) this.optionalScalar(clause[key], `${path}/${key}`);
    const at = `${path}/${escape(fields[0])}`;
    this.fieldName(fields[0], at);
    const values = clause[fields[0]];
    if (isObject(values)) this.refuse(at, "terms lookups read other indices; list the values");
    this.scalars(values, at);
  }

  ids(value: unknown, path: string): void {
    const options = this.parameters(value, path, ["values", ...COMMON_QUERY_PARAMETERS]);
    this.scalars(options.values, `${path}/values`);
  }

  /** Query text: leading wildcards, regular expressions and fuzzy terms are expensive. */
  queryText(text: unknown, path: string, lucene: boolean): void {
    if (this.options.expensiveQueries) return;
    const plain = String(text).replace(/\\./g, "");
    if (/~/.test(plain)) this.expensive(path, "fuzzy terms (~)");
    if (!lucene) return;
    if (/(^|[\s():^"+\-!])[*?]/.test(plain)) this.expensive(path, "leading wildcards");
    if (/(^|[\s():^+\-!])\//.test(plain)) this.expensive(path, "regular expressions (/…/)");
  }

  /** `fuzziness` is fuzzy matching: expensive unless 0. */
  fuzziness(options: Json, path: string): void {
    const fuzziness = options.fuzziness;
    if (fuzziness === undefined || fuzziness === 0 || fuzziness === "0") return;
    this.expensive(`${path}/fuzziness`, "fuzzy matching");
  }

  aggregations(value: unknown, path: string, depth: number): void {
    if (depth > MAX_AGGREGATION_DEPTH) {
      this.refuse(path, `aggregations nest at most ${MAX_AGGREGATION_DEPTH} deep`);
    }
    for (const [name, aggregation] of Object.entries(this.object(value, path))) {
      const at = `${path}/${escape(name)}`;
      this.countClause(at);
      this.string(name, at);
      const entries = Object.entries(this.object(aggregation, at));
      const types = entries.filter(([key]) => !["aggs", "aggregations", "meta"].includes(key));
      if (types.length !== 1) this.refuse(at, "an aggregation has exactly one type");
      for (const [key, parameters] of entries) {
        const keyPath = `${at}/${escape(key)}`;
        if (key === "aggs" || key === "aggregations") {
          this.aggregations(parameters, keyPath, depth + 1);
        } else if (key === "meta") {
          this.scalarObject(parameters, keyPath);
        } else {
          this.aggregation(key, parameters, keyPath);
        }
      }
    }
  }

  aggregation(type: string, value: unknown, path: string): void {
    if (type in METRIC_OPTIONS) {
      const options = this.parameters(value, path, METRIC_OPTIONS[type]);
      this.fieldName(options.field, `${path}/field`);
      return;
    }
    switch (type) {
      case "terms": {
        const options = this.parameters(value, path, TERMS_AGGREGATION_OPTIONS);
        this.fieldName(options.field, `${path}/field`);
        for (const key of ["include", "exclude"]) {
          // A string is a regular expression over every term; a list is exact values.
          if (typeof options[key] === "string") {
            this.expensive(`${path}/${key}`, "regular expressions");
          }
        }
        return;
      }
      case "histogram":
      case "date_histogram": {
        const allowed = type === "histogram" ? HISTOGRAM_OPTIONS : DATE_HISTOGRAM_OPTIONS;
        const options = this.parameters(value, path, allowed);
        this.fieldName(options.field, `${path}/field`);
        return;
      }
      case "range":
      case "date_range": {
        const options = this.parameters(value, path, [
          "field",
          "ranges",
          "keyed",
          "format",
          "missing",
          "time_zone",
        ]);
        this.fieldName(options.field, `${path}/field`);
        this.array(options.ranges, `${path}/ranges`).forEach((range, index) =>
          this.parameters(range, `${path}/ranges/${index}`, ["from", "to", "key"])
        );
        return;
      }
      case "filter":
        return this.query(value, path, 1);
      case "filters": {
        const options = this.parameters(
          value,
          path,
          ["other_bucket", "other_bucket_key"],
          ["filters"],
        );
        const at = `${path}/filters`;
        if (Array.isArray(options.filters)) {
          this.array(options.filters, at).forEach((query, index) =>
            this.query(query, `${at}/${index}`, 1)
          );
        } else {
          for (const [name, query] of Object.entries(this.object(options.filters, at))) {
            this.query(query, `${at}/${escape(name)}`, 1);
          }
        }
        return;
      }
      case "top_hits":
        return this.hitOptions(
          this.parameters(value, path, TOP_HITS_SCALARS, TOP_HITS_WALKED),
          path,
        );
      case "nested":
        this.fieldName(this.parameters(value, path, ["path"]).path, `${path}/path`);
        return;
      case "reverse_nested": {
        const options = this.parameters(value, path, ["path"]);
        if (options.path !== undefined) this.fieldName(options.path, `${path}/path`);
        return;
      }
      default:
        this.refuse(path, NAMED_REFUSALS[type] ?? `${type} is not an accepted aggregation`);
    }
  }

  /** The walked options of `top_hits` and `inner_hits`. */
  hitOptions(options: Json, path: string): void {
    if (options.sort !== undefined) this.sort(options.sort, `${path}/sort`);
    if (options._source !== undefined) this.source(options._source, `${path}/_source`);
    if (options.highlight !== undefined) this.highlight(options.highlight, `${path}/highlight`);
  }

  /** `field`, `{field: order}`, `{field: {order, …}}` or an array of them. */
  sort(value: unknown, path: string): void {
    const keys = Array.isArray(value) ? this.array(value, path) : [value];
    keys.forEach((key, index) => {
      const at = Array.isArray(value) ? `${path}/${index}` : path;
      if (typeof key === "string") return this.fieldName(key, at);
      const entries = Object.entries(this.object(key, at));
      if (entries.length !== 1) this.refuse(at, "a sort key names exactly one field");
      const [field, order] = entries[0];
      const fieldPath = `${at}/${escape(field)}`;
      if (field in NAMED_REFUSALS) this.refuse(fieldPath, NAMED_REFUSALS[field]);
      this.fieldName(field, fieldPath);
      if (!isObject(order)) return this.string(order, fieldPath);
      const options = this.parameters(order, fieldPath, SORT_OPTIONS, ["nested"]);
      if (options.nested !== undefined) {
        const nested = this.parameters(options.nested, `${fieldPath}/nested`, ["path"], [
          "filter",
        ]);
        this.fieldName(nested.path, `${fieldPath}/nested/path`);
        if (nested.filter !== undefined) this.query(nested.filter, `${fieldPath}/nested/filter`, 1);
      }
    });
  }

  /** `_source` filtering: a flag, a pattern, patterns, or includes/excludes. */
  source(value: unknown, path: string): void {
    if (typeof value === "boolean") return;
    if (!isObject(value)) return this.fieldNames(value, path);
    const options = this.parameters(value, path, ["includes", "excludes"]);
    for (const key of ["includes", "excludes"]) {
      if (options[key] !== undefined) this.fieldNames(options[key], `${path}/${key}`);
    }
  }

  highlight(value: unknown, path: string): void {
    const options = this.parameters(value, path, HIGHLIGHT_OPTIONS, [
      "fields",
      "highlight_query",
    ]);
    if (options.highlight_query !== undefined) {
      this.query(options.highlight_query, `${path}/highlight_query`, 1);
    }
    if (options.fields !== undefined) this.highlightFields(options.fields, `${path}/fields`);
  }

  highlightFields(value: unknown, path: string): void {
    const groups = Array.isArray(value) ? this.array(value, path) : [value];
    groups.forEach((group, index) => {
      const groupPath = Array.isArray(value) ? `${path}/${index}` : path;
      for (const [field, options] of Object.entries(this.object(group, groupPath))) {
        const at = `${groupPath}/${escape(field)}`;
        this.fieldName(field, at);
        this.highlight(options, at);
      }
    });
  }

  expensive(path: string, what: string): void {
    if (this.options.expensiveQueries) return;
    this.refuse(path, `${what} need service.search.opensearch.dsl.expensiveQueries`);
  }

  countClause(path: string): void {
    if (++this.#clauses > MAX_CLAUSES) {
      this.refuse(path, `a body holds at most ${MAX_CLAUSES} clauses and aggregations`);
    }
  }
}
