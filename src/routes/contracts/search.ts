/** Contracts of `/api/search` (docs/api.md, Search). */
import { z } from "zod";
import {
  booleanParam,
  integerParam,
  iriList,
  optionalIri,
  optionalText,
  textList,
} from "../../http/query_schema.ts";
import { defineContract } from "../../http/route_contract.ts";
import { SEARCH_LANGUAGES } from "../../fields/languages.ts";
import { BAD_PARAMETERS, BODY_TOO_LARGE, COLLECTION, COUNT, UNKNOWN_COLLECTION } from "./shared.ts";

const TAGS = ["Search"];
const CLAMPING = "Windows beyond `maxResultsLimit` and `maxWindow` are clamped, never refused.";
const ENGINE_DOWN = "The search engine cannot be reached (`search-unavailable`).";

const WINDOW = z.object({ from: COUNT, size: COUNT });

/** The simple search's answer. */
const SEARCH_RESPONSE = z.object({
  total: COUNT,
  totalRelation: z.enum(["eq", "gte"]).meta({
    description: "`eq`: `total` is exact; `gte`: more hits than `total` match (hits are " +
      "counted exactly up to `service.search.query.trackTotalHits`, 10,000 by default).",
  }),
  from: COUNT,
  size: COUNT,
  clamped: z.union([z.null(), z.object({ requested: WINDOW, applied: WINDOW })]),
  hits: z.array(
    z.object({
      uri: z.string(),
      collection: z.string().meta({ description: "The collection whose index holds the hit." }),
      score: z.union([z.number(), z.null()]),
      document: z.record(z.string(), z.unknown()),
      highlights: z.record(z.string(), z.array(z.string())).optional().meta({
        description: "With `highlight=true`: one list, `text`, of fragments at word boundaries, " +
          "HTML-escaped, the matched words in `<em>…</em>`.",
      }),
    }),
  ),
  facets: z.record(
    z.string(),
    z.array(
      z.object({ value: z.union([z.string(), z.number(), z.boolean()]), count: COUNT }),
    ),
  ).optional().meta({
    description: "With `facet`: per field, its most frequent values among all hits " +
      "(`collection`: hits per searched collection).",
  }),
  facetsRelation: z.enum(["eq", "gte"]).optional().meta({
    description: "With `facet`: `eq` when every count is exact, `gte` when the counts were " +
      "taken over the first `trackTotalHits` hits only (each is then a lower bound).",
  }),
  facetsClamped: z.union([z.null(), z.object({ requested: COUNT, applied: COUNT })]).optional()
    .meta({ description: "With `facet`: set when `facetSize` was clamped." }),
});

/** `GET /api/search`: full text, filters and sort as query parameters. */
export const searchItems = defineContract({
  method: "GET",
  path: "/api/search",
  operationId: "searchItems",
  summary: "Search a collection, several, or a workspace",
  description: "Give `collection` (repeated for several) or `workspace`, not both. Hits of " +
    "several collections are merged into one ranking; the window, `total` and facets are " +
    `those of the whole answer. ${CLAMPING}`,
  tags: TAGS,
  access: "authenticated",
  collectionRight: "read",
  query: z.object({
    collection: iriList(
      "A collection to search, by its URI as configured (an absolute IRI); repeated for " +
        "several. One the caller may not read answers 404 as an unknown one.",
    ),
    workspace: optionalIri(
      "Search every collection of this workspace the caller may read (instead of `collection`).",
    ),
    q: optionalText(
      "Full-text query: every word in the items' literals, or its stem in the literals tagged " +
        "with a search language; without case or diacritics; words in labels weigh more.",
    ),
    language: z.enum(SEARCH_LANGUAGES as [string, ...string[]]).optional().meta({
      description: "Match `q` only against literals tagged with this language, by stem; " +
        "`sort=label` sorts by labels in it.",
    }),
    filter: textList(
      "`field:value`, repeated; splits at the first colon, so values may hold colons. A field " +
        'whose name holds a colon is quoted: `"dct:creator":Alice`.',
    ),
    any: textList(
      "`field:value`, repeated: a hit matches at least one of the values given for a field " +
        "(several fields: each must match). Written like `filter`.",
    ),
    range: textList(
      "`field:from..to`, repeated: an inclusive range, either bound may be left out " +
        "(`year:2000..`). Numbers compare as numbers, other values as strings (ISO 8601 dates " +
        "in one form compare in time order).",
    ),
    sort: textList(
      "`field`, `field:asc` or `field:desc`, repeated; splits at the last colon. `label`: the " +
        "label in the reader's `language`, folded to lower case without diacritics.",
    ),
    from: integerParam("Offset of the first hit.", 0),
    size: integerParam("Most hits to answer; the engine's default when absent.", undefined),
    facet: textList(
      "A field to count values of over all hits, repeated; adds `facets` to the answer.",
    ),
    facetSize: integerParam(
      "Most values per facet; clamped to `maxResultsLimit`, never refused.",
      10,
    ),
    highlight: booleanParam("Adds each hit's matched fragments of its text (`highlights`)."),
  }),
  responses: {
    200: { description: "The hits.", content: ["application/json"], schema: SEARCH_RESPONSE },
  },
  problems: {
    400: `${BAD_PARAMETERS} Also neither or both of \`collection\` and \`workspace\`.`,
    404: `${UNKNOWN_COLLECTION} Or the workspace is not (\`workspace-not-found\`).`,
    503: ENGINE_DOWN,
  },
});

/** What the DSL gate accepts (src/search_opensearch/dsl_gate.ts; docs/backends.md says it at length). */
const GATE = "The body passes an allow-list first. Top level: `query`, `post_filter`, `aggs`, " +
  "`size`, `from`, `sort`, `_source`, `highlight`, `track_total_hits`, `search_after`, " +
  "`min_score`, `terminate_after`, `explain`, `version`, `track_scores`, " +
  "`seq_no_primary_term`. Queries: `match_all`, `match_none`, `match`, `match_phrase`, " +
  "`match_phrase_prefix`, `match_bool_prefix`, `multi_match`, `query_string`, " +
  "`simple_query_string`, `term`, `terms` (values, no lookup), `range`, `exists`, `ids`, " +
  "`prefix` (keyword fields), `wildcard`, `bool`, `constant_score`, `dis_max`, `boosting`, " +
  "`nested`. Aggregations: `terms`, `histogram`, `date_histogram`, `range`, `date_range`, " +
  "`filter`, `filters`, `top_hits`, `cardinality`, `avg`, `sum`, `min`, `max`, " +
  "`value_count`, `stats`, `extended_stats`, `percentiles`, `missing`, `nested`, " +
  "`reverse_nested`, at most 3 deep. Anything else — other indices (terms lookups, " +
  "`more_like_this`, `geo_shape`, `percolate`, `indices_boost`), scripts, runtime fields, " +
  "`stored_fields`, `timeout` — is `search-query-refused` naming the clause's JSON pointer. " +
  "Leading wildcards, `regexp`, fuzzy matching and `prefix` on text fields need " +
  "`service.search.opensearch.dsl.expensiveQueries`. The role is " +
  "`service.search.opensearch.dsl.role`.";

/** `POST /api/search`: an OpenSearch query DSL body (opensearch backend only). */
export const searchItemsWithDsl = defineContract({
  method: "POST",
  path: "/api/search",
  operationId: "searchItemsWithDsl",
  summary: "Search a collection with an OpenSearch query DSL body",
  description: `${GATE} ${CLAMPING} Sizes nested in the body (aggregations, \`top_hits\`, ` +
    "`inner_hits`) are capped at `maxResultsLimit`.",
  tags: TAGS,
  // The default of `service.search.opensearch.dsl.role`; the document states the configured one.
  access: "editor",
  collectionRight: "read",
  query: z.object({ collection: COLLECTION }),
  body: {
    description: "OpenSearch query DSL; an empty body matches everything.",
    required: false,
    content: { "application/json": z.record(z.string(), z.unknown()) },
  },
  responses: {
    200: {
      description: "The engine's response, after clamping.",
      content: ["application/json"],
      schema: z.record(z.string(), z.unknown()),
    },
  },
  problems: {
    400: `${BAD_PARAMETERS} Or a body that is not a JSON object, that the gate refuses ` +
      "(`search-query-refused`, the clause in `errors[0].path`) or that the engine refuses.",
    403:
      "The token's role is weaker than `service.search.opensearch.dsl.role`, or the query DSL is " +
      "switched off (`search-dsl-disabled`).",
    404: UNKNOWN_COLLECTION,
    413: BODY_TOO_LARGE,
    501: "The embedded search engine takes no query DSL (`not-implemented`).",
    503: ENGINE_DOWN,
    504: "The query ran longer than `service.search.opensearch.dsl.timeoutMs` (`search-timeout`).",
  },
});
