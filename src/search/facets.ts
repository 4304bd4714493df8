/**
 * How many values a facet answers: asked for with `facetSize`, clamped to `maxResultsLimit`
 * like any other size (warned about, never refused). Both engines use it, so both report a
 * clamp the same way.
 */
import type { ClampWarning, SearchLimits } from "./clamp.ts";
import { writeClampWarning } from "./clamp.ts";
import type { SearchResponse } from "./search_engine.ts";

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
  limits: SearchLimits,
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
