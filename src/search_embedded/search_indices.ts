/**
 * A search over several collections' indices on the embedded engine: each index (an FTS5
 * table of its own, `index_tables.ts`) is searched for the first `from + size` hits of the
 * whole window, and the answers are merged (`src/search/merge_parts.ts`) in the order one
 * index's search gives (`merge_order.ts`). The window and facet size are clamped once, for
 * the whole answer, and warned about once; the indices' own searches are not clamped again.
 */
import type { SearchLimits } from "../search/clamp.ts";
import { startSearch } from "../search/facets.ts";
import { mergeParts, namedHits, partRequest } from "../search/merge_parts.ts";
import type { CollectionIndexRef, SearchRequest, SearchResponse } from "../search/search_engine.ts";
import { resolveLabelSort } from "../search/label_fields.ts";
import { mergeOrder } from "./merge_order.ts";
import { searchIndex, type SearchSite } from "./search_query.ts";

/** Searches `indices` as one; one index answers as its own search, its hits named. */
export function searchIndices(
  on: SearchSite,
  indices: readonly CollectionIndexRef[],
  request: SearchRequest,
): SearchResponse {
  if (indices.length === 1) {
    return namedHits(searchIndex(on, indices[0], request), indices[0].collection);
  }
  // `sort=label` as one index's search resolves it, for the merge order too.
  request = { ...request, sort: resolveLabelSort(request.sort, request.language) };
  const start = startSearch(request, on.limits, on.warn);
  if (indices.length === 0) return start.response;
  // Each index's part lies within the clamped window: no second clamp, no second warning.
  const part: SearchSite = { ...on, limits: partLimits(on.limits), warn: () => {} };
  const asked = partRequest(request, start, on.limits.maxResultsLimit);
  const parts = indices.map((index) => ({
    collection: index.collection,
    response: searchIndex(part, index, asked),
  }));
  return mergeParts(start, parts, mergeOrder(request, indices), on.limits.trackTotalHits);
}

/** Limits under which a part (`from` 0, `size` up to `maxWindow`) is never clamped. */
function partLimits(limits: SearchLimits): SearchLimits {
  return { ...limits, maxResultsLimit: Math.max(limits.maxResultsLimit, limits.maxWindow) };
}
