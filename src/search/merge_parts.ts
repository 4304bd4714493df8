/**
 * A search over several collections' indices put together from one search per index, for an
 * engine that cannot search them in one request (the embedded engine: one FTS5 table per
 * index). Engine-independent: the engine says how two hits compare (its own sort order);
 * this file says what each index is asked for and how the answers become one.
 *
 * Bounded and exact for the page: every index is asked for the first `from + size` hits of
 * the whole window and no more (a hit at merged position p is among the first p of its own
 * index), so a page of the merge reads at most `from + size` hits per index, and page 1 +
 * page 2 is the first two pages' worth of one big page. The window was clamped once, for the
 * whole answer, before the indices are asked.
 */
import type { SearchStart } from "./facets.ts";
import type { FacetValue, SearchHit, SearchRequest, SearchResponse } from "./search_engine.ts";

/** One index's answer to its part of a merged search. */
export interface SearchPart {
  collection: string;
  response: SearchResponse;
}

/** A hit of one part: which part (in the order the indices were given) and where in it. */
export interface PartHit {
  hit: SearchHit;
  part: number;
  position: number;
}

/**
 * How the engine orders two hits of different parts (negative: `a` first). Hits it calls
 * equal keep the order of their parts, then their order within the part.
 */
export type MergeOrder = (a: PartHit, b: PartHit) => number;

/**
 * What each index is asked for: the whole window's first `from + size` hits (none when the
 * window is empty), and `facetValues` values per facet so that the added counts rank values
 * no single index ranks high.
 */
export function partRequest(
  request: SearchRequest,
  start: SearchStart,
  facetValues: number,
): SearchRequest {
  const { from, size } = start.window;
  return {
    ...request,
    from: 0,
    size: size === 0 ? 0 : from + size,
    ...(request.facets?.length ? { facetSize: facetValues } : {}),
  };
}

/**
 * The merged answer: `start`'s clamped window filled with the parts' hits in `order`, each
 * named by its collection; `total` their sum, counted exactly up to `trackTotalHits` like one
 * index's (`gte` beyond, or when any part counted only that far); facet counts added up, the
 * most frequent `start.facetSize` values kept (`gte` when any part's counts were lower bounds).
 */
export function mergeParts(
  start: SearchStart,
  parts: readonly SearchPart[],
  order: MergeOrder,
  trackTotalHits: number,
): SearchResponse {
  const response = start.response;
  const threshold = Math.max(1, trackTotalHits);
  const sum = parts.reduce((total, part) => total + part.response.total, 0);
  response.total = Math.min(sum, threshold);
  response.totalRelation =
    sum > threshold || parts.some((part) => part.response.totalRelation === "gte") ? "gte" : "eq";
  const all: PartHit[] = parts.flatMap((part, index) =>
    part.response.hits.map((hit, position) => ({ hit, part: index, position }))
  );
  all.sort((a, b) => order(a, b) || a.part - b.part || a.position - b.position);
  const { from, size } = start.window;
  response.hits = all.slice(from, from + size).map(({ hit, part }) =>
    namedHit(hit, parts[part].collection)
  );
  if (response.facets !== undefined) {
    for (const field of Object.keys(response.facets)) {
      response.facets[field] = addFacetCounts(
        parts.map((part) => part.response.facets?.[field] ?? []),
        start.facetSize ?? 0,
      );
    }
    if (parts.some((part) => part.response.facetsRelation === "gte")) {
      response.facetsRelation = "gte";
    }
  }
  return response;
}

/** `hit` naming its collection, right after its URI. */
export function namedHit(hit: SearchHit, collection: string): SearchHit {
  const { uri, ...rest } = hit;
  return { uri, collection, ...rest };
}

/** A single index's answer with every hit named by its collection. */
export function namedHits(response: SearchResponse, collection: string): SearchResponse {
  response.hits = response.hits.map((hit) => namedHit(hit, collection));
  return response;
}

/**
 * Facet values of several parts with their counts added, most hits first, then by value
 * (numbers and booleans before strings, as both engines order a field's values); `size` kept.
 */
export function addFacetCounts(lists: readonly FacetValue[][], size: number): FacetValue[] {
  const counts = new Map<string, FacetValue>();
  for (const list of lists) {
    for (const { value, count } of list) {
      const key = `${typeof value}:${value}`;
      const seen = counts.get(key);
      if (seen) seen.count += count;
      else counts.set(key, { value, count });
    }
  }
  return [...counts.values()]
    .sort((a, b) => b.count - a.count || compareFacetValues(a.value, b.value))
    .slice(0, size);
}

function compareFacetValues(a: FacetValue["value"], b: FacetValue["value"]): number {
  const rank = (value: unknown) => typeof value === "string" ? 1 : 0;
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  return Number(a) - Number(b);
}
