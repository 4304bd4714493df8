/**
 * Search limits: every query the service sends to a search engine goes through here.
 *
 * Queries are clamped, never rejected (docs/api.md "Limits"): the window is
 * `from' = min(from, maxWindow)`, `size' = min(size, maxResultsLimit, maxWindow - from')`,
 * and sizes nested in a query DSL body (aggregations, `top_hits`, `inner_hits`, suggesters)
 * are capped at `maxResultsLimit`. Each clamp writes one warning line.
 */

/** The limits of a result window (`service.search.query`): what the clamps read. */
export interface WindowLimits {
  /** Most results asked for in one query. */
  maxResultsLimit: number;
  /** Most `from + size`. */
  maxWindow: number;
}

/** The configured limits (`service.search.query`) an engine is built with. */
export interface SearchLimits extends WindowLimits {
  /**
   * Hits counted exactly; beyond, the total is reported as at least this many
   * (`totalRelation: "gte"`), as OpenSearch's `track_total_hits`.
   */
  trackTotalHits: number;
}

/** A result window. */
export interface SearchWindow {
  from: number;
  size: number;
}

/** The outcome of {@link clampWindow}. */
export interface ClampedWindow {
  /** The window asked for, after invalid values were replaced by the defaults. */
  requested: SearchWindow;
  /** The window the engine is asked for. */
  applied: SearchWindow;
  /** True when the limits changed the window. */
  clamped: boolean;
}

/** One value {@link clampQueryBody} changed, `path` in dotted form (`aggs.by_type.terms.size`). */
export interface ClampChange {
  path: string;
  requested: unknown;
  applied: number;
}

/** The outcome of {@link clampQueryBody}. */
export interface ClampedQueryBody {
  /** A copy of the body with the limits applied; the input is never modified. */
  body: Record<string, unknown>;
  /** Every value that was changed, top-level `from`/`size` first. */
  changes: ClampChange[];
  /** The top-level window, as in {@link clampWindow}. */
  window: ClampedWindow;
}

/** Receives one structured warning per clamp. */
export type ClampWarning = (entry: Record<string, unknown>) => void;

/** Result count when a query does not say: the engines' own default. */
export const DEFAULT_SEARCH_SIZE = 10;

/** Writes the warning as one JSON line to stderr: the default {@link ClampWarning}. */
export function writeClampWarning(entry: Record<string, unknown>): void {
  console.error(JSON.stringify({ time: new Date().toISOString(), level: "warn", ...entry }));
}

/**
 * Applies the limits to a result window. Values that are not non-negative integers are
 * replaced by the defaults (`from` 0, `size` {@link DEFAULT_SEARCH_SIZE}): user input is
 * validated by the routes, this only keeps internal callers from sending nonsense.
 */
export function clampWindow(
  requested: { from?: unknown; size?: unknown },
  limits: WindowLimits,
  warn: ClampWarning = writeClampWarning,
): ClampedWindow {
  const result = applyWindowLimits(requested, limits);
  if (result.clamped) {
    warn({
      msg: "search query clamped",
      requested: result.requested,
      applied: result.applied,
    });
  }
  return result;
}

/**
 * Applies the limits to an OpenSearch query DSL body: the top-level window, and every size
 * nested in aggregations (at any depth), `inner_hits` (anywhere), `collapse`, suggesters and
 * `rescore`. Logs one warning listing every change, if there was any.
 */
export function clampQueryBody(
  body: Record<string, unknown>,
  limits: WindowLimits,
  warn: ClampWarning = writeClampWarning,
): ClampedQueryBody {
  const copy = structuredClone(body);
  const changes: ClampChange[] = [];
  const window = applyWindowLimits({ from: copy.from, size: copy.size }, limits);
  setWindowValue(copy, "from", body.from, window.applied.from, 0, changes);
  setWindowValue(copy, "size", body.size, window.applied.size, DEFAULT_SEARCH_SIZE, changes);

  const cap = limits.maxResultsLimit;
  for (const key of AGGREGATION_KEYS) clampAggregations(copy[key], key, cap, changes);
  clampInnerHits(copy, "", cap, changes);
  clampSuggesters(copy.suggest, "suggest", cap, changes);
  for (const [rescore, path] of eachObject(copy.rescore, "rescore")) {
    capNumber(rescore, "window_size", `${path}.window_size`, cap, changes);
  }

  if (changes.length > 0) {
    const entry: Record<string, unknown> = { msg: "search query clamped" };
    if (window.clamped) {
      entry.requested = window.requested;
      entry.applied = window.applied;
    }
    entry.changes = changes;
    warn(entry);
  }
  return { body: copy, changes, window };
}

/**
 * Caps the buckets of every aggregation in a search response at `maxResultsLimit`: the
 * bucket count of a `histogram` or `date_histogram` depends on the data, not on a size the
 * request could be clamped by, so it is clamped where it becomes known. (OpenSearch's own
 * `search.max_buckets` bounds the work.) Keyed buckets (an object) keep their first keys.
 * Logs one warning listing every change, like {@link clampQueryBody}; the input is not
 * modified.
 */
export function clampResponseBuckets(
  response: Record<string, unknown>,
  limits: WindowLimits,
  warn: ClampWarning = writeClampWarning,
): { response: Record<string, unknown>; changes: ClampChange[] } {
  const changes: ClampChange[] = [];
  if (!isObject(response.aggregations)) return { response, changes };
  const copy = { ...response, aggregations: structuredClone(response.aggregations) };
  capBuckets(copy.aggregations, "aggregations", limits.maxResultsLimit, changes);
  if (changes.length > 0) warn({ msg: "search response buckets clamped", changes });
  return { response: copy, changes };
}

/** Walks aggregation results (any depth: buckets hold sub-aggregations) and caps buckets. */
function capBuckets(node: unknown, path: string, cap: number, changes: ClampChange[]): void {
  if (Array.isArray(node)) {
    node.forEach((element, index) => capBuckets(element, `${path}[${index}]`, cap, changes));
    return;
  }
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    const childPath = `${path}.${key}`;
    if (key === "buckets" && Array.isArray(value) && value.length > cap) {
      changes.push({ path: childPath, requested: value.length, applied: cap });
      node[key] = value.slice(0, cap);
    } else if (key === "buckets" && isObject(value) && Object.keys(value).length > cap) {
      changes.push({ path: childPath, requested: Object.keys(value).length, applied: cap });
      node[key] = Object.fromEntries(Object.entries(value).slice(0, cap));
    }
    capBuckets(node[key], childPath, cap, changes);
  }
}

const AGGREGATION_KEYS = ["aggs", "aggregations"] as const;

/** Aggregation parameters that ask for a number of buckets or hits. */
const AGGREGATION_SIZE_KEYS = ["size", "shard_size", "from"] as const;

/**
 * Aggregation types whose size-like parameters the limits cap. `from` only exists on
 * `top_hits`; the others take `size` and sometimes `shard_size`.
 */
const SIZED_AGGREGATIONS = new Set([
  "terms",
  "multi_terms",
  "significant_terms",
  "significant_text",
  "composite",
  "top_hits",
  "top_metrics",
  "sampler",
  "diversified_sampler",
  "geohash_grid",
  "geotile_grid",
  "geohex_grid",
]);

function applyWindowLimits(
  requested: { from?: unknown; size?: unknown },
  limits: WindowLimits,
): ClampedWindow {
  const from = nonNegativeInteger(requested.from) ?? 0;
  const size = nonNegativeInteger(requested.size) ?? DEFAULT_SEARCH_SIZE;
  const maxWindow = Math.max(0, Math.floor(limits.maxWindow));
  const maxResults = Math.max(0, Math.floor(limits.maxResultsLimit));
  const appliedFrom = Math.min(from, maxWindow);
  const appliedSize = Math.min(size, maxResults, maxWindow - appliedFrom);
  return {
    requested: { from, size },
    applied: { from: appliedFrom, size: appliedSize },
    clamped: appliedFrom !== from || appliedSize !== size,
  };
}

/** An integer ≥ 0 given as a number or a numeric string (the DSL accepts both), else undefined. */
function nonNegativeInteger(value: unknown): number | undefined {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof number === "number" && Number.isSafeInteger(number) && number >= 0
    ? number
    : undefined;
}

function setWindowValue(
  body: Record<string, unknown>,
  key: "from" | "size",
  original: unknown,
  applied: number,
  fallback: number,
  changes: ClampChange[],
): void {
  // An absent value that the engine's default already satisfies stays absent.
  if (original === undefined && applied === fallback) return;
  if (original !== undefined && nonNegativeInteger(original) === applied) return;
  body[key] = applied;
  changes.push({ path: key, requested: original ?? null, applied });
}

function clampAggregations(
  aggregations: unknown,
  path: string,
  cap: number,
  changes: ClampChange[],
): void {
  if (!isObject(aggregations)) return;
  for (const [name, aggregation] of Object.entries(aggregations)) {
    if (!isObject(aggregation)) continue;
    const aggregationPath = `${path}.${name}`;
    for (const [type, parameters] of Object.entries(aggregation)) {
      if (AGGREGATION_KEYS.includes(type as typeof AGGREGATION_KEYS[number])) {
        clampAggregations(parameters, `${aggregationPath}.${type}`, cap, changes);
      } else if (SIZED_AGGREGATIONS.has(type) && isObject(parameters)) {
        for (const key of AGGREGATION_SIZE_KEYS) {
          capNumber(parameters, key, `${aggregationPath}.${type}.${key}`, cap, changes);
        }
      }
    }
  }
}

/** Every `inner_hits` object (or array of them, as in `collapse`) anywhere in the body. */
function clampInnerHits(node: unknown, path: string, cap: number, changes: ClampChange[]): void {
  if (Array.isArray(node)) {
    node.forEach((element, index) => clampInnerHits(element, `${path}[${index}]`, cap, changes));
    return;
  }
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    const childPath = path === "" ? key : `${path}.${key}`;
    if (key === "inner_hits") {
      for (const [innerHits, innerPath] of eachObject(value, childPath)) {
        capNumber(innerHits, "from", `${innerPath}.from`, cap, changes);
        capNumber(innerHits, "size", `${innerPath}.size`, cap, changes);
      }
    }
    clampInnerHits(value, childPath, cap, changes);
  }
}

function clampSuggesters(suggest: unknown, path: string, cap: number, changes: ClampChange[]) {
  if (!isObject(suggest)) return;
  for (const [name, suggester] of Object.entries(suggest)) {
    if (!isObject(suggester)) continue;
    for (const type of ["term", "phrase", "completion"]) {
      const parameters = suggester[type];
      if (!isObject(parameters)) continue;
      capNumber(parameters, "size", `${path}.${name}.${type}.size`, cap, changes);
      capNumber(parameters, "shard_size", `${path}.${name}.${type}.shard_size`, cap, changes);
    }
  }
}

/** Caps a numeric parameter; a value that is not a number is left for the engine to refuse. */
function capNumber(
  parameters: Record<string, unknown>,
  key: string,
  path: string,
  cap: number,
  changes: ClampChange[],
): void {
  const value = parameters[key];
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof number !== "number" || Number.isNaN(number) || number <= cap) return;
  parameters[key] = cap;
  changes.push({ path, requested: value, applied: cap });
}

function* eachObject(
  value: unknown,
  path: string,
): Generator<[Record<string, unknown>, string]> {
  if (Array.isArray(value)) {
    for (const [index, element] of value.entries()) {
      if (isObject(element)) yield [element, `${path}[${index}]`];
    }
  } else if (isObject(value)) {
    yield [value, path];
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
