/**
 * The query DSL gate (issue 22): a table of accepted bodies and of refused ones with the
 * JSON pointer each refusal names, the expensive queries with and without the switch, and
 * hostile shapes (deep nesting, huge arrays, long strings) refused quickly.
 */
import { strict as assert } from "node:assert";
import {
  type DslGateOptions,
  gateQueryBody,
  MAX_ARRAY_LENGTH,
  MAX_QUERY_DEPTH,
} from "../../src/search_opensearch/dsl_gate.ts";

const DEFAULT: DslGateOptions = { expensiveQueries: false };
const EXPENSIVE: DslGateOptions = { expensiveQueries: true };

const ACCEPTED: [name: string, body: unknown][] = [
  ["empty body", {}],
  ["match_all with a window", { query: { match_all: {} }, from: 10, size: 20 }],
  ["match, short form", { query: { match: { text: "quick fox" } } }],
  ["match with options", {
    query: { match: { text: { query: "quick", operator: "and", minimum_should_match: "50%" } } },
  }],
  ["match_phrase", { query: { match_phrase: { name: { query: "the fox", slop: 1 } } } }],
  ["match_phrase_prefix", { query: { match_phrase_prefix: { name: "the fo" } } }],
  ["multi_match", { query: { multi_match: { query: "fox", fields: ["name^2", "text"] } } }],
  ["query_string", { query: { query_string: { query: "name:(quick AND fox*)" } } }],
  ["simple_query_string", {
    query: { simple_query_string: { query: "fox + -hen", fields: ["text"], flags: "AND|NOT" } },
  }],
  ["term", { query: { term: { "types": { value: "https://schema.org/Book", boost: 2 } } } }],
  ["terms with values", { query: { terms: { uri: ["a", "b"], boost: 1 } } }],
  ["range", { query: { range: { datePublished: { gte: 2000, lt: 2020 } } } }],
  ["exists", { query: { exists: { field: "name" } } }],
  ["ids", { query: { ids: { values: ["a", "b"] } } }],
  ["prefix on a keyword field", { query: { prefix: { "name.keyword": "Fox" } } }],
  ["prefix on a service field", { query: { prefix: { uri: { value: "https://data." } } } }],
  ["wildcard without a leading wildcard", { query: { wildcard: { "name.keyword": "Fo*x" } } }],
  ["bool of everything", {
    query: {
      bool: {
        must: [{ match: { text: "fox" } }],
        filter: { term: { collection: "c" } },
        should: [{ exists: { field: "name" } }],
        must_not: [{ ids: { values: ["x"] } }],
        minimum_should_match: 1,
      },
    },
  }],
  ["constant_score, dis_max, boosting", {
    query: {
      dis_max: {
        queries: [
          { constant_score: { filter: { term: { uri: "a" } }, boost: 1.5 } },
          {
            boosting: {
              positive: { match_all: {} },
              negative: { term: { uri: "b" } },
              negative_boost: 0.5,
            },
          },
        ],
      },
    },
  }],
  ["nested with inner_hits", {
    query: {
      nested: {
        path: "parts",
        query: { match: { "parts.name": "x" } },
        inner_hits: { size: 3, _source: ["parts.name"] },
      },
    },
  }],
  ["sort, _source, highlight, track_total_hits", {
    query: { match: { text: "fox" } },
    sort: ["_score", { datePublished: "desc" }, {
      "name.keyword": { order: "asc", missing: "_last" },
    }],
    _source: { includes: ["name", "uri"], excludes: ["text"] },
    highlight: { fields: { text: { number_of_fragments: 2 } }, pre_tags: ["<b>"] },
    track_total_hits: true,
    search_after: [2020, "x"],
  }],
  ["aggregations", {
    size: 0,
    aggs: {
      by_type: {
        terms: { field: "types", size: 10, order: { _count: "desc" } },
        aggs: {
          newest: { top_hits: { size: 1, sort: [{ modified: "desc" }], _source: false } },
          years: { histogram: { field: "datePublished", interval: 10 } },
        },
      },
      per_month: { date_histogram: { field: "modified", calendar_interval: "month" } },
      ranges: { range: { field: "datePublished", ranges: [{ to: 2000 }, { from: 2000 }] } },
      groups: { filters: { filters: { foxes: { match: { text: "fox" } } } } },
      only_books: {
        filter: { term: { types: "Book" } },
        aggs: { n: { value_count: { field: "uri" } } },
      },
      authors: { cardinality: { field: "dct:creator.keyword", precision_threshold: 100 } },
      stats: { stats: { field: "datePublished" } },
      p: { percentiles: { field: "datePublished", percents: [50, 99] } },
    },
  }],
];

/** Refused by default: [name, body, JSON pointer of the refusal, words of the message]. */
const REFUSED: [name: string, body: unknown, path: string, message: RegExp][] = [
  ["a body that is no object", [1], "/", /object/],
  ["an unknown top-level key", { stats: ["x"] }, "/stats", /not accepted/],
  [
    "an unknown clause",
    { query: { no_such_query: {} } },
    "/query/no_such_query",
    /not an accepted/,
  ],
  ["two clause names in one", { query: { match_all: {}, match_none: {} } }, "/query", /one name/],
  [
    "a terms lookup",
    {
      query: { terms: { uri: { index: "secret-index", id: "1", path: "names" } } },
    },
    "/query/terms/uri",
    /other indices/,
  ],
  [
    "a terms lookup deep in a bool",
    {
      query: { bool: { filter: [{ match_all: {} }, { terms: { uri: { index: "s", id: "1" } } }] } },
    },
    "/query/bool/filter/1/terms/uri",
    /other indices/,
  ],
  [
    "more_like_this",
    {
      query: { more_like_this: { fields: ["text"], like: [{ _index: "secret-index", _id: "1" }] } },
    },
    "/query/more_like_this",
    /other indices/,
  ],
  [
    "geo_shape with an indexed shape",
    {
      query: { geo_shape: { where: { indexed_shape: { index: "shapes", id: "1", path: "s" } } } },
    },
    "/query/geo_shape",
    /other indices/,
  ],
  [
    "percolate",
    {
      query: { percolate: { field: "q", index: "secret-index", id: "1" } },
    },
    "/query/percolate",
    /other indices/,
  ],
  ["indices_boost", { indices_boost: [{ "secret-index": 2 }] }, "/indices_boost", /other indices/],
  ["wrapper", { query: { wrapper: { query: "e30=" } } }, "/query/wrapper", /cannot be checked/],
  ["stored_fields", { stored_fields: ["*"] }, "/stored_fields", /_source/],
  [
    "a script query",
    {
      query: { script: { script: { source: "true" } } },
    },
    "/query/script",
    /scripts/,
  ],
  [
    "script_score",
    {
      query: { script_score: { query: { match_all: {} }, script: { source: "1" } } },
    },
    "/query/script_score",
    /scripts/,
  ],
  [
    "function_score",
    {
      query: { function_score: { query: { match_all: {} }, functions: [] } },
    },
    "/query/function_score",
    /scripts/,
  ],
  ["script_fields", { script_fields: { x: { script: "1" } } }, "/script_fields", /scripts/],
  [
    "runtime_mappings",
    {
      runtime_mappings: { x: { type: "long", script: "emit(1)" } },
    },
    "/runtime_mappings",
    /runtime fields/,
  ],
  [
    "a script sort",
    {
      sort: [{ _script: { type: "number", script: "1" } }],
    },
    "/sort/0/_script",
    /script sorts/,
  ],
  [
    "a scripted metric",
    {
      aggs: { x: { scripted_metric: { map_script: "1" } } },
    },
    "/aggs/x/scripted_metric",
    /scripts/,
  ],
  [
    "a script in a metric",
    {
      aggs: { x: { avg: { script: "doc.x.value" } } },
    },
    "/aggs/x/avg/script",
    /scripts/,
  ],
  [
    "a script in a terms aggregation",
    {
      aggs: { x: { terms: { field: "types", script: "1" } } },
    },
    "/aggs/x/terms/script",
    /scripts/,
  ],
  [
    "bucket_script",
    {
      aggs: { x: { terms: { field: "types" }, aggs: { y: { bucket_script: {} } } } },
    },
    "/aggs/x/aggs/y/bucket_script",
    /scripts/,
  ],
  [
    "a script hidden in an option's value",
    {
      aggs: { x: { terms: { field: "types", order: { script: "1" } } } },
    },
    "/aggs/x/terms/order/script",
    /scripts/,
  ],
  [
    "an unknown aggregation",
    { aggs: { x: { matrix_stats: {} } } },
    "/aggs/x/matrix_stats",
    /not an accepted/,
  ],
  [
    "an unknown option",
    {
      query: { match: { text: { query: "x", unknown_option: 1 } } },
    },
    "/query/match/text/unknown_option",
    /not accepted/,
  ],
  ["the caller's timeout", { timeout: "1h" }, "/timeout", /the service sets/],
  [
    "a leading wildcard",
    { query: { wildcard: { "name.keyword": "*ox" } } },
    "/query/wildcard/name.keyword",
    /expensiveQueries/,
  ],
  [
    "regexp",
    { query: { regexp: { "name.keyword": "f.*x" } } },
    "/query/regexp",
    /expensiveQueries/,
  ],
  ["fuzzy", { query: { fuzzy: { text: "fxo" } } }, "/query/fuzzy", /expensiveQueries/],
  [
    "match with fuzziness",
    {
      query: { match: { text: { query: "fxo", fuzziness: "AUTO" } } },
    },
    "/query/match/text/fuzziness",
    /expensiveQueries/,
  ],
  [
    "prefix on a text field",
    { query: { prefix: { text: "f" } } },
    "/query/prefix/text",
    /expensiveQueries/,
  ],
  [
    "query_string with a leading wildcard",
    {
      query: { query_string: { query: "name:*ox" } },
    },
    "/query/query_string/query",
    /leading wildcards/,
  ],
  [
    "query_string with a regular expression",
    {
      query: { query_string: { query: "name:/f.*x/" } },
    },
    "/query/query_string/query",
    /regular expressions/,
  ],
  [
    "query_string with a fuzzy term",
    {
      query: { query_string: { query: "fxo~2" } },
    },
    "/query/query_string/query",
    /fuzzy/,
  ],
  [
    "query_string allowing leading wildcards",
    {
      query: { query_string: { query: "fox", allow_leading_wildcard: true } },
    },
    "/query/query_string/allow_leading_wildcard",
    /expensiveQueries/,
  ],
  [
    "simple_query_string with a fuzzy term",
    {
      query: { simple_query_string: { query: "fxo~" } },
    },
    "/query/simple_query_string/query",
    /fuzzy/,
  ],
  [
    "a terms aggregation including by regular expression",
    {
      aggs: { x: { terms: { field: "types", include: ".*Book" } } },
    },
    "/aggs/x/terms/include",
    /expensiveQueries/,
  ],
  [
    "max_expansions beyond the bound",
    {
      query: { match_phrase_prefix: { text: { query: "f", max_expansions: 100000 } } },
    },
    "/query/match_phrase_prefix/text/max_expansions",
    /at most/,
  ],
  [
    "aggregations nested too deep",
    {
      aggs: {
        a: {
          terms: { field: "x" },
          aggs: {
            b: {
              terms: { field: "x" },
              aggs: { c: { terms: { field: "x" }, aggs: { d: { terms: { field: "x" } } } } },
            },
          },
        },
      },
    },
    "/aggs/a/aggs/b/aggs/c/aggs",
    /at most 3 deep/,
  ],
  [
    "a JSON pointer escapes / and ~ in names",
    {
      query: { terms: { "a/b~c": { index: "s", id: "1" } } },
    },
    "/query/terms/a~1b~0c",
    /other indices/,
  ],
];

Deno.test("the gate accepts the common read-only bodies", () => {
  for (const [name, body] of ACCEPTED) {
    assert.deepEqual(gateQueryBody(body, DEFAULT), { ok: true }, name);
  }
});

Deno.test("the gate refuses what it does not accept, naming the clause's JSON pointer", () => {
  for (const [name, body, path, message] of REFUSED) {
    const result = gateQueryBody(body, DEFAULT);
    assert.equal(result.ok, false, name);
    if (result.ok) continue;
    assert.equal(result.path, path, name);
    assert.match(result.message, message, name);
  }
});

Deno.test("expensive queries pass only when enabled; other index and scripts never", () => {
  const expensive = REFUSED.filter(([, , , message]) =>
    /expensiveQueries|leading wildcards|regular expressions|fuzzy/.test(message.source)
  );
  assert.ok(expensive.length >= 10);
  for (const [name, body] of expensive) {
    assert.deepEqual(gateQueryBody(body, EXPENSIVE), { ok: true }, name);
  }
  for (const [name, body] of REFUSED.filter((entry) => !expensive.includes(entry))) {
    assert.equal(gateQueryBody(body, EXPENSIVE).ok, false, name);
  }
});

Deno.test("hostile bodies are refused quickly", () => {
  let deep: unknown = { match_all: {} };
  for (let level = 0; level < 10_000; level++) deep = { bool: { must: [deep] } };
  const manyTerms = Array.from({ length: 100_000 }, (_, index) => `term-${index}`);
  const cases: [string, unknown, string, RegExp][] = [
    ["bool 10,000 deep", { query: deep }, depthPath(MAX_QUERY_DEPTH), /at most 20 deep/],
    ["100,000 terms", { query: { terms: { uri: manyTerms } } }, "/query/terms/uri", /at most/],
    ["100,000 ids", { query: { ids: { values: manyTerms } } }, "/query/ids/values", /at most/],
    [
      "a 1 MB query string",
      {
        query: { query_string: { query: "a".repeat(1024 * 1024) } },
      },
      "/query/query_string/query",
      /characters/,
    ],
    [
      "2,000 clauses",
      {
        query: { bool: { should: Array.from({ length: 2000 }, () => ({ match_all: {} })) } },
      },
      "/query/bool/should",
      /at most 1024 elements/,
    ],
    [
      "1,025 clauses over several arrays",
      {
        query: {
          bool: {
            should: Array.from({ length: MAX_ARRAY_LENGTH }, () => ({ match_all: {} })),
            filter: [{ match_all: {} }],
          },
        },
      },
      "/query/bool/should/1022", // filter is walked before should
      /clauses/,
    ],
  ];
  for (const [name, body, path, message] of cases) {
    const started = performance.now();
    const result = gateQueryBody(body, DEFAULT);
    const elapsed = performance.now() - started;
    assert.equal(result.ok, false, name);
    if (!result.ok) {
      assert.equal(result.path, path, name);
      assert.match(result.message, message, name);
    }
    assert.ok(elapsed < 100, `${name}: ${elapsed} ms`);
  }
});

/** The pointer of the bool clause `depth` levels down `{bool: {must: [...]}}`. */
function depthPath(depth: number): string {
  return "/query" + "/bool/must/0".repeat(depth);
}
