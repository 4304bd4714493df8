/** Contracts of `/api/search` (API.md, Search). */
import { z } from "zod";
import { integerParam, optionalText, textList } from "../../http/query_schema.ts";
import { defineContract } from "../../http/route_contract.ts";
import { BAD_PARAMETERS, BODY_TOO_LARGE, COLLECTION, COUNT, UNKNOWN_COLLECTION } from "./shared.ts";

const TAGS = ["Search"];
const CLAMPING = "Windows beyond `maxResultsLimit` and `maxWindow` are clamped, never refused.";
const ENGINE_DOWN = "The search engine cannot be reached (`search-unavailable`).";

const WINDOW = z.object({ from: COUNT, size: COUNT });

/** The simple search's answer. */
const SEARCH_RESPONSE = z.object({
  total: COUNT,
  from: COUNT,
  size: COUNT,
  clamped: z.union([z.null(), z.object({ requested: WINDOW, applied: WINDOW })]),
  hits: z.array(
    z.object({ uri: z.string(), score: z.number(), document: z.record(z.string(), z.unknown()) }),
  ),
});

/** `GET /api/search`: full text, filters and sort as query parameters. */
export const searchItems = defineContract({
  method: "GET",
  path: "/api/search",
  operationId: "searchItems",
  summary: "Search a collection",
  description: CLAMPING,
  tags: TAGS,
  access: "reader",
  query: z.object({
    collection: COLLECTION,
    q: optionalText("Full-text query over the items' literals."),
    filter: textList(
      "`field:value`, repeated; splits at the first colon, so values may hold colons. A field " +
        'whose name holds a colon is quoted: `"dct:creator":Alice`.',
    ),
    sort: textList("`field`, `field:asc` or `field:desc`, repeated; splits at the last colon."),
    from: integerParam("Offset of the first hit.", 0),
    size: integerParam("Most hits to answer; the engine's default when absent.", undefined),
  }),
  responses: {
    200: { description: "The hits.", content: ["application/json"], schema: SEARCH_RESPONSE },
  },
  problems: { 400: BAD_PARAMETERS, 404: UNKNOWN_COLLECTION, 503: ENGINE_DOWN },
});

/** `POST /api/search`: an OpenSearch query DSL body (opensearch backend only). */
export const searchItemsWithDsl = defineContract({
  method: "POST",
  path: "/api/search",
  operationId: "searchItemsWithDsl",
  summary: "Search a collection with an OpenSearch query DSL body",
  description: `${CLAMPING} Sizes nested in the body (aggregations, \`top_hits\`, ` +
    "`inner_hits`) are capped at `maxResultsLimit`.",
  tags: TAGS,
  access: "reader",
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
    400: `${BAD_PARAMETERS} Or a body that is not a JSON object or that the engine refuses.`,
    404: UNKNOWN_COLLECTION,
    413: BODY_TOO_LARGE,
    501: "The embedded search engine takes no query DSL (`not-implemented`).",
    503: ENGINE_DOWN,
  },
});
