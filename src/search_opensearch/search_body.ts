/**
 * `GET /api/search` in OpenSearch's terms: the request (already clamped) as a search body,
 * and the engine's answer read back into the service's search response.
 */
import type { SearchWindow } from "../search/clamp.ts";
import { languageTextField, SEARCH_LANGUAGES } from "../fields/languages.ts";
import type {
  FacetValue,
  SearchDocument,
  SearchHit,
  SearchRequest,
  SearchResponse,
} from "../search/search_engine.ts";
import type { FieldResolver } from "./mappings.ts";
import { LABELS_FIELD } from "../fields/field_names.ts";
import { LABEL_WEIGHT } from "../search/label_fields.ts";
import { mergeHighlights } from "../search/highlight.ts";
import { logicalDocument, physicalPath } from "./physical_fields.ts";

/** The fields `q` searches: every literal, and the literals of each search language. */
const TEXT_FIELDS = ["text", ...SEARCH_LANGUAGES.map(languageTextField)];
/** The same, and the item's labels, weighed as the embedded engine weighs them. */
const QUERY_FIELDS = [`${LABELS_FIELD}^${LABEL_WEIGHT}`, ...TEXT_FIELDS];

/** `q` when it holds words, else undefined (every document matches). */
export function queryText(request: SearchRequest): string | undefined {
  return request.q?.trim() ? request.q : undefined;
}

/**
 * The fields whose mappings the body needs: those filtered, ranged, sorted and faceted on, in
 * the physical layout (`physical_fields.ts`), and a nested path also as it is (an index of an
 * earlier layout maps it so: `mappings.ts`' resolver), as `_mapping/field` is asked for them.
 */
export function fieldsOf(request: SearchRequest): string[] {
  const logical = [
    ...[...request.filters ?? [], ...request.anyOf ?? [], ...request.ranges ?? []]
      .map((entry) => entry.field),
    ...(request.sort ?? []).map((entry) => entry.field),
    ...request.facets ?? [],
  ];
  return [...new Set(logical.flatMap((field) => [physicalPath(field), field]))];
}

/** What a search body is made of besides the request. */
export interface SearchBodyParts {
  /** The clamped window. */
  window: SearchWindow;
  /** Values per facet; undefined without facets. */
  facetSize?: number;
  /** Clauses for the request's fields, by their mappings. */
  resolve: FieldResolver;
  /** Hits counted exactly (`service.search.query.trackTotalHits`). */
  trackTotalHits: number;
}

/** The search body of `request`. */
export function searchBody(
  request: SearchRequest,
  parts: SearchBodyParts,
): Record<string, unknown> {
  const { window, facetSize, resolve } = parts;
  const q = queryText(request);
  const sort = (request.sort ?? []).map(resolve.sort);
  const body: Record<string, unknown> = {
    from: window.from,
    size: window.size,
    track_total_hits: parts.trackTotalHits,
    track_scores: q !== undefined,
    query: {
      bool: {
        must: [textQuery(q, request.language)],
        filter: [
          ...(request.filters ?? []).map(resolve.filter),
          ...(request.anyOf ?? []).map(resolve.anyOf),
          ...(request.ranges ?? []).map(resolve.range),
        ],
      },
    },
    sort: [...sort, ...(q !== undefined && sort.length === 0 ? ["_score"] : []), {
      uri: "asc",
    }],
  };
  // Aggregations are named by position: field names may hold any character.
  const facetFields = (request.facets ?? []).map(resolve.facetField);
  if (facetSize !== undefined) {
    const aggs: Record<string, unknown> = {};
    facetFields.forEach((field, position) => {
      if (field === undefined || facetSize === 0) return;
      aggs[`facet${position}`] = { terms: { field, size: facetSize } };
    });
    if (Object.keys(aggs).length > 0) body.aggs = aggs;
  }
  if (request.highlight && q !== undefined) {
    body.highlight = {
      encoder: "html",
      pre_tags: ["<em>"],
      post_tags: ["</em>"],
      fields: Object.fromEntries(TEXT_FIELDS.map((field) => [field, {}])),
    };
  }
  return body;
}

/** The parts of OpenSearch's answer to a search that the response is read from. */
export interface SearchAnswer {
  hits: {
    total?: number | { value: number; relation: string };
    hits: { _source?: unknown; _score?: number | null; highlight?: unknown }[];
  };
  aggregations?: unknown;
}

/** The hits, totals and facets of the engine's `answer` into `response`. */
export function readSearchAnswer(
  answer: SearchAnswer,
  request: SearchRequest,
  response: SearchResponse,
): SearchResponse {
  const q = queryText(request);
  const result = answer.hits;
  response.total = typeof result.total === "number" ? result.total : result.total?.value ?? 0;
  if (typeof result.total === "object" && result.total?.relation === "gte") {
    response.totalRelation = "gte";
  }
  response.hits = result.hits.map((hit) => {
    // The document as the service built it, whatever the index's layout.
    const document: SearchDocument = logicalDocument(hit._source as Record<string, unknown>);
    const found: SearchHit = {
      uri: document.uri,
      score: q === undefined ? null : hit._score ?? null,
      document,
    };
    if (request.highlight) {
      found.highlights = mergeHighlights((hit.highlight ?? {}) as Record<string, string[]>);
    }
    return found;
  });
  const aggregations = (answer.aggregations ?? {}) as Record<string, unknown>;
  (request.facets ?? []).forEach((field, position) => {
    response.facets![field] = facetValues(aggregations[`facet${position}`]);
  });
  return response;
}

/** `q` as a query: every word in one of {@link TEXT_FIELDS}, or in one language's field. */
function textQuery(q: string | undefined, language: string | undefined): Record<string, unknown> {
  if (q === undefined) return { match_all: {} };
  if (language !== undefined) {
    return { match: { [languageTextField(language)]: { query: q, operator: "and" } } };
  }
  return { multi_match: { query: q, fields: QUERY_FIELDS, operator: "and" } };
}

/**
 * A `terms` aggregation's buckets as facet values: numbers as numbers, booleans and dates as
 * OpenSearch prints them (`true`, ISO 8601), strings as they are.
 */
function facetValues(aggregation: unknown): FacetValue[] {
  const buckets = (aggregation as { buckets?: unknown[] } | undefined)?.buckets ?? [];
  return buckets.map((entry) => {
    const bucket = entry as { key: string | number; key_as_string?: string; doc_count: number };
    let value: string | number | boolean = bucket.key_as_string ?? bucket.key;
    if (bucket.key_as_string === "true" || bucket.key_as_string === "false") {
      value = bucket.key_as_string === "true";
    }
    return { value, count: bucket.doc_count };
  });
}
