/**
 * A search of one collection's index on the embedded engine: the hits counted up to
 * `trackTotalHits`, a page of them ranked by bm25 (within {@link RANK_WINDOW}), sorted by
 * fields or in URI order, highlighted, and facets counted from the held values
 * (`held_facets.ts`). What a search costs is the engine module's header.
 */
import type { ClampWarning, SearchLimits } from "../search/clamp.ts";
import { startSearch } from "../search/facets.ts";
import { highlightDocument } from "../search/highlight.ts";
import type {
  CollectionIndexRef,
  SearchHit,
  SearchRequest,
  SearchResponse,
} from "../search/search_engine.ts";
import { filterMatch, rangeCondition, rankOf, sortTerms, textMatch } from "./fts_query.ts";
import { resolveLabelSort } from "../search/label_fields.ts";
import { uriIndex } from "./index_tables.ts";
import { type IndexConnection, searchError } from "./index_connection.ts";
import type { PhysicalIndexes } from "./physical_indexes.ts";
import type { HeldFacets } from "./held_facets.ts";
import { storedDocument } from "./document_rows.ts";

/**
 * Hits ranked by bm25 at most (unless a page reaches further): FTS5 scores each row it ranks,
 * several microseconds each, so more hits than this are ranked among the most recently added.
 */
export const RANK_WINDOW = 2000;
/**
 * Above this many hits, a page in URI order walks the URI index and skips non-hits (a few
 * index entries per hit on the page) instead of sorting every hit by URI (a row read each).
 */
const WALK_URI_INDEX_ABOVE = 2000;

/** What a search reads: the engine's connection, indices, held facets and limits. */
export interface SearchSite {
  connection: IndexConnection;
  indexes: PhysicalIndexes;
  facets: HeldFacets;
  limits: SearchLimits;
  warn?: ClampWarning;
}

/** Full-text, filtered, sorted and clamped search of a collection's index. */
export function searchIndex(
  on: SearchSite,
  index: CollectionIndexRef,
  request: SearchRequest,
): SearchResponse {
  // `sort=label` sorts on the label sort key of the reader's language (label_fields.ts).
  request = { ...request, sort: resolveLabelSort(request.sort, request.language) };
  const { response, window, facetSize } = startSearch(request, on.limits, on.warn);
  const physical = on.indexes.serving(index.indexName);
  const q = request.q?.trim() ? request.q : undefined;
  const text = q === undefined
    ? undefined
    : textMatch(q, request.language, physical?.languages ?? []);
  if (physical === undefined || (q !== undefined && text === undefined)) return response;
  const { docs, fts, fields } = physical.tables;
  const keys = filterMatch(request);
  const match = [text, keys].filter((part) => part !== undefined).map((part) => `(${part})`)
    .join(" AND ") || undefined;
  const ranges = (request.ranges ?? []).map(rangeCondition);
  const rangeSql = ranges.map(([sql]) => sql);
  const rangeParams = ranges.flatMap(([, params]) => params);
  const matchParams = match === undefined ? [] : [match];
  // Every hit's id: from the full-text index alone unless ranges read the flat fields.
  const hitsSql = match === undefined
    ? `SELECT x.id AS id FROM ${fields} x${where(rangeSql)}`
    : ranges.length === 0
    ? `SELECT rowid AS id FROM ${fts} WHERE ${fts} MATCH ?`
    : `SELECT x.id AS id FROM ${fts} f JOIN ${fields} x ON x.id = f.rowid ` +
      `WHERE ${fts} MATCH ? AND ${rangeSql.join(" AND ")}`;
  const hitsParams = [...matchParams, ...rangeParams];
  const threshold = trackTotalHits(on.limits);
  try {
    const counted = (on.connection.sql(`SELECT count(*) AS n FROM (${hitsSql} LIMIT ?)`)
      .get(...hitsParams, threshold + 1) as { n: number }).n;
    response.total = Math.min(counted, threshold);
    response.totalRelation = counted > threshold ? "gte" : "eq";
    const ranked = text !== undefined;
    // Beyond the threshold the count stopped early: a page past it may still hold hits.
    if (window.size > 0 && (window.from < counted || counted > threshold)) {
      const [terms, termParams] = sortTerms(request.sort ?? [], ranked);
      const fieldSort = (request.sort ?? []).some((key) => key.field !== "_score");
      let page: { id: number; rank?: number }[];
      if (ranked && !fieldSort && counted > threshold) {
        // Beyond the threshold: the most recently added hits first, unscored. bm25 reads the
        // whole list of documents of every word to weigh it, which grows with the collection
        // (44 ms of CPU for a word in every one of 250k items).
        page = on.connection.sql(`${hitsSql} ORDER BY id DESC LIMIT ? OFFSET ?`)
          .all(...hitsParams, window.size, window.from) as typeof page;
      } else if (ranked && !fieldSort) {
        // Relevance over every hit up to the window; beyond it, over the most recently added
        // ones (FTS5 yields rowids in descending order without sorting).
        const ranking = Math.max(RANK_WINDOW, window.from + window.size);
        const order = terms.length > 0 ? terms : ["rank ASC"];
        const inner = ranges.length === 0
          ? `SELECT rowid AS id, ${rankOf(fts)} AS rank FROM ${fts} WHERE ${fts} MATCH ? ` +
            `ORDER BY rowid DESC LIMIT ?`
          : `SELECT f.rowid AS id, ${rankOf(fts)} AS rank FROM ${fts} f ` +
            `JOIN ${fields} x ON x.id = f.rowid WHERE ${fts} MATCH ? ` +
            `AND ${rangeSql.join(" AND ")} ORDER BY f.rowid DESC LIMIT ?`;
        // Equal scores: the most recently added first (the URI would cost a row read per hit).
        page = on.connection.sql(
          `SELECT id, rank FROM (${inner}) ORDER BY ${[...order, "id DESC"].join(", ")} ` +
            "LIMIT ? OFFSET ?",
        ).all(...hitsParams, ranking, window.size, window.from) as typeof page;
      } else if (ranked) {
        if (terms.every((term) => !term.startsWith("rank"))) terms.push("rank ASC");
        page = on.connection.sql(
          `SELECT d.id AS id, ${rankOf(fts)} AS rank FROM ${fts} f JOIN ${docs} d ` +
            `ON d.id = f.rowid JOIN ${fields} x ON x.id = d.id ` +
            `WHERE ${[`${fts} MATCH ?`, ...rangeSql].join(" AND ")} ` +
            `ORDER BY ${[...terms, "d.uri ASC"].join(", ")} LIMIT ? OFFSET ?`,
        ).all(...hitsParams, ...termParams, window.size, window.from) as typeof page;
      } else {
        const conditions = [
          ...(match === undefined
            ? []
            : [`d.id IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ?)`]),
          ...rangeSql,
        ];
        const walk = terms.length === 0 && counted > WALK_URI_INDEX_ABOVE
          ? ` INDEXED BY ${uriIndex(physical.tables)}`
          : "";
        const join = terms.length > 0 || ranges.length > 0
          ? ` JOIN ${fields} x ON x.id = d.id`
          : "";
        page = on.connection.sql(
          `SELECT d.id AS id FROM ${docs} d${walk}${join}${where(conditions)} ` +
            `ORDER BY ${[...terms, "d.uri ASC"].join(", ")} LIMIT ? OFFSET ?`,
        ).all(...hitsParams, ...termParams, window.size, window.from) as typeof page;
      }
      const read = on.connection.sql(`SELECT uri, document FROM ${docs} WHERE id = ?`);
      response.hits = page.map((row): SearchHit => {
        const stored = read.get(row.id) as { uri: string; document: Uint8Array };
        const document = storedDocument(stored.document);
        const hit: SearchHit = {
          uri: stored.uri,
          score: ranked && row.rank !== undefined ? -row.rank : null,
          document,
        };
        if (request.highlight) {
          hit.highlights = q === undefined ? {} : highlightDocument(document, q, request.language);
        }
        return hit;
      });
    }
    if (facetSize !== undefined && counted > 0) {
      // Beyond the threshold, counted over the most recently added `threshold` hits, so a
      // facet costs what the threshold costs: each count is then a lower bound.
      const hits = hitIds(on.connection, `${hitsSql} ORDER BY id DESC LIMIT ?`, [
        ...hitsParams,
        threshold,
      ]);
      if (counted > threshold) response.facetsRelation = "gte";
      for (const field of request.facets!) {
        response.facets![field] = on.facets.column(physical, field).count(hits, facetSize);
      }
    }
  } catch (error) {
    throw searchError(error);
  }
  return response;
}

/** The ids of every hit, for facet counting. */
function hitIds(
  connection: IndexConnection,
  sql: string,
  params: (string | number)[],
): Int32Array {
  const statement = connection.sql(sql);
  statement.setReturnArrays(true);
  const rows = statement.all(...params) as unknown as [number][];
  const ids = new Int32Array(rows.length);
  for (let n = 0; n < rows.length; n++) ids[n] = rows[n][0];
  return ids;
}

/** The total counted exactly: `trackTotalHits` of the limits, at least 1. */
function trackTotalHits(limits: SearchLimits): number {
  return Math.max(1, limits.trackTotalHits);
}

function where(conditions: string[]): string {
  return conditions.length > 0 ? ` WHERE ${conditions.join(" AND ")}` : "";
}
