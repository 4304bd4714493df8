/**
 * How many values a facet answers: asked for with `facetSize`, clamped to `maxResultsLimit`
 * like any other size (warned about, never refused); and the answer a search starts from.
 * Both engines use them, so both clamp and report alike.
 */
import type { ClampWarning, SearchWindow, WindowLimits } from "./clamp.ts";
import { clampWindow, writeClampWarning } from "./clamp.ts";
import type { SearchRequest, SearchResponse } from "./search_engine.ts";

/** Values per facet when the request does not say. */
export const DEFAULT_FACET_SIZE = 10;

/** The facet size an engine asks for, and what the response says about clamping. */
export interface ClampedFacetSize {
  applied: number;
  clamped: SearchResponse["facetsClamped"];
}

/** Applies `maxResultsLimit` to `requested` (default {@link DEFAULT_FACET_SIZE}). */
export function clampFacetSize(
  requested: number | undefined,
  limits: WindowLimits,
  warn: ClampWarning = writeClampWarning,
): ClampedFacetSize {
  const asked = requested !== undefined && Number.isSafeInteger(requested) && requested >= 0
    ? requested
    : DEFAULT_FACET_SIZE;
  const applied = Math.min(asked, Math.max(0, Math.floor(limits.maxResultsLimit)));
  if (applied === asked) return { applied, clamped: null };
  warn({ msg: "search facet size clamped", requested: asked, applied });
  return { applied, clamped: { requested: asked, applied } };
}

/** A search's answer before the engine fills it in, and what the engine must ask for. */
export interface SearchStart {
  /** The clamped window, no hits; with facets, an empty list per field. */
  response: SearchResponse;
  /** The window to ask the engine for. */
  window: SearchWindow;
  /** Values per facet to ask for; undefined without facets. */
  facetSize?: number;
}

/** Clamps the request's window and facet size, and starts its answer. */
export function startSearch(
  request: SearchRequest,
  limits: WindowLimits,
  warn?: ClampWarning,
): SearchStart {
  const window = clampWindow(request, limits, warn);
  const response: SearchResponse = {
    total: 0,
    totalRelation: "eq",
    from: window.applied.from,
    size: window.applied.size,
    clamped: window.clamped ? { requested: window.requested, applied: window.applied } : null,
    hits: [],
  };
  if (!request.facets?.length) return { response, window: window.applied };
  const facets = clampFacetSize(request.facetSize, limits, warn);
  response.facets = Object.fromEntries(request.facets.map((field) => [field, []]));
  response.facetsClamped = facets.clamped;
  response.facetsRelation = "eq";
  return { response, window: window.applied, facetSize: facets.applied };
}
