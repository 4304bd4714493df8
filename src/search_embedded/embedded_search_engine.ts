/**
 * The embedded search engine: SQLite FTS5 tables in the service's own SQLite file.
 *
 * It mirrors OpenSearch's index/alias model so that rebuilds behave the same: each physical
 * index has its own two tables (`index_tables.ts`), `search_aliases` maps a collection's index
 * name to the one physical index readers see, and a rebuild swaps that row in one transaction
 * and drops the old index's tables (their pages are given back to the file system when the
 * file is in incremental auto-vacuum mode, as files this version creates are).
 *
 * A search costs what its page costs, not what its hits cost: the total is counted exactly up
 * to `trackTotalHits` and reported as "at least" beyond (`totalRelation: gte`); relevance is
 * bm25 over every hit up to {@link RANK_WINDOW} hits, then over the
 * `max(RANK_WINDOW, from + size)` most recently added hits (FTS5 scores each row it ranks),
 * and beyond `trackTotalHits` hits the most recently added come first, unscored (bm25 reads
 * each word's whole document list to weigh it); facets are counted from per-field values held
 * in memory (`facet_values.ts`) over every hit up to `trackTotalHits`, and beyond over the
 * `trackTotalHits` most recently added (`facetsRelation: gte`).
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { inTransaction, inUnsyncedTransaction, type Migration } from "../sqlite/local_db.ts";
import { DomainError } from "../errors/domain_error.ts";
import type { BackendHealth } from "../backend/backend_health.ts";
import { isOlderDocument } from "../search/document_version.ts";
import { type ClampWarning, clampWindow, type SearchLimits } from "../search/clamp.ts";
import {
  documentLanguages,
  filterMatch,
  jsonPath,
  rangeCondition,
  sortTerms,
  stemText,
  textMatch,
} from "./fts_query.ts";
import { startSearch } from "../search/facets.ts";
import {
  createIndexTablesSql,
  dropIndexTablesSql,
  type IndexTables,
  indexTables,
  uriIndex,
} from "./index_tables.ts";
import { FacetColumn, type StoredValue, storedValue } from "./facet_values.ts";
import { type FieldValue, fieldValues, flatFields, keyTokens } from "./field_keys.ts";
import { LANGUAGE_TEXT_FIELDS } from "../fields/field_names.ts";
import {
  DROP_LEGACY_TABLES_SQL,
  hasLegacyLayout,
  legacyDocuments,
  legacyPhysicals,
} from "./legacy_layout.ts";
import { highlightDocument } from "../search/highlight.ts";
import { mappingViolation, numericMappedFields } from "../search/declared_mappings.ts";
import {
  type BulkFailure,
  type BulkResult,
  type CollectionIndexRef,
  indexRefOf,
  type IndexTarget,
  invalidIndexNameProblem,
  isRebuildTarget,
  isValidIndexName,
  physicalIndexName,
  rebuildNotActiveProblem,
  type RebuildTarget,
  type SearchDocument,
  type SearchEngine,
  type SearchHit,
  type SearchRequest,
  type SearchResponse,
} from "../search/search_engine.ts";

/** Options of {@link EmbeddedSearchEngine}. */
export interface EmbeddedSearchEngineOptions {
  limits: SearchLimits;
  /** Receives clamp warnings; one JSON line on stderr by default. */
  warn?: ClampWarning;
}

/**
 * What an engine knows that another engine on the same file does not, for writes made on
 * its behalf ({@link EmbeddedSearchEngine.writeHere}): the rebuilds it runs (written to as
 * well) and the facet values it holds, per physical index (their changes reported back, so
 * they stay valid instead of being read again).
 */
export interface WriteContext {
  rebuilds: string[];
  heldFacets: Record<string, string[]>;
}

/** A document write, as an engine's upsert or remove asks it. */
export type EngineWriteRequest =
  | { kind: "upsert"; target: IndexTarget; documents: SearchDocument[] }
  | { kind: "remove"; target: IndexTarget; uris: string[] };

/** A document write made on another engine's behalf. */
export type EngineWrite = EngineWriteRequest & WriteContext;

/** What one write transaction changed in held facet fields of one physical index. */
export interface FacetChanges {
  physical: string;
  /** The index's write counter after the transaction. */
  writes: number;
  /** The fields reported, in the order of each change's values. */
  fields: string[];
  /**
   * Every document written or removed, by id: each reported field's values, or null when the
   * document was removed. Fields held but not reported (made after the write was sent) are
   * read again for these ids.
   */
  changes: [number, (string | number | boolean)[][] | null][];
}

/** The answer to an {@link EngineWrite}. */
export interface EngineWriteResult {
  result: BulkResult;
  facets: FacetChanges[];
}

/** A write made on another engine's behalf: its context, and the reports made for it. */
interface WriteElsewhere extends WriteContext {
  reports: FacetChanges[];
}

/** Updates facet values for one written document (its values) or removed one (undefined). */
type FacetUpdate = (id: number, values: FieldValue[] | undefined) => void;

const valuesOf = (values: FieldValue[], field: string) =>
  values.filter((value) => value.path === field).map((value) => value.value);

/**
 * The engine's tables. Migration 5: the shared tables of the first layout. Migration 7: each
 * physical index gets tables of its own (named by `tables`), a counter of its writes
 * (`writes`: facet values held in memory are stale once another connection wrote) and the
 * search languages it holds text in (`languages`, comma-separated: `q` is stemmed in those); the
 * engine copies each index out of the shared tables at its first start, then drops them.
 * Migration 5 `IF NOT EXISTS`: before they were versioned, the engine
 * created them itself, so a file written then may hold them already.
 */
export const EMBEDDED_SEARCH_MIGRATIONS: Migration[] = [{
  version: 5,
  description: "embedded search index",
  sql: `
  CREATE TABLE IF NOT EXISTS search_physical_indices (
    name TEXT PRIMARY KEY,
    alias TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('serving', 'building', 'retired')),
    created TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS search_aliases (
    alias TEXT PRIMARY KEY,
    physical TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS search_documents (
    id INTEGER PRIMARY KEY,
    physical TEXT NOT NULL,
    uri TEXT NOT NULL,
    document TEXT NOT NULL,
    UNIQUE (physical, uri)
  );
  CREATE TABLE IF NOT EXISTS search_fields (
    document_id INTEGER NOT NULL,
    path TEXT NOT NULL,
    value,
    kind TEXT NOT NULL,
    text TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS search_fields_by_value ON search_fields (path, text, document_id);
  CREATE INDEX IF NOT EXISTS search_fields_by_document ON search_fields (document_id, path);
  CREATE VIRTUAL TABLE IF NOT EXISTS search_text USING fts5 (
    text, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
  );
  CREATE VIRTUAL TABLE IF NOT EXISTS search_stems USING fts5 (
    stems, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
  );
`,
}, {
  version: 7,
  description: "embedded search: tables per physical index",
  sql: `
  ALTER TABLE search_physical_indices ADD COLUMN tables INTEGER;
  ALTER TABLE search_physical_indices ADD COLUMN writes INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE search_physical_indices ADD COLUMN languages TEXT NOT NULL DEFAULT '';
  CREATE UNIQUE INDEX search_physical_indices_by_tables ON search_physical_indices (tables);
`,
}];

/** Documents written per transaction, so that other writers are never blocked for long. */
const WRITE_BATCH = 500;
/**
 * Full-text index pages merged per step of a rebuild's compaction: a step holds the write lock
 * for tens of milliseconds (measured at 20k items: 500 pages took up to 157 ms).
 */
const COMPACT_STEP_PAGES = 200;
/** Steps of one compaction at most (some 1.6 GB of segments): writes meanwhile cannot keep it going. */
const COMPACT_MAX_STEPS = 100_000;
/** URIs per page of {@link EmbeddedSearchEngine.listDocumentUris}, before clamping. */
const LIST_PAGE = 1000;
/** Facet fields whose values are held in memory at once, over all indices. */
const FACET_COLUMNS = 32;
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

/** A physical index: its name, its tables, its write counter and its text's languages. */
interface Physical {
  name: string;
  tables: IndexTables;
  writes: number;
  languages: string[];
}

/** The facet values held for one physical index, valid at write counter `writes`. */
interface FacetCache {
  writes: number;
  columns: Map<string, FacetColumn>;
}

/** SQLite FTS5 search over the service's SQLite file. */
export class EmbeddedSearchEngine implements SearchEngine {
  /** Which engine this is. */
  readonly kind = "embedded" as const;
  readonly #db: DatabaseSync;
  readonly #limits: SearchLimits;
  readonly #warn?: ClampWarning;
  /** Physical indices being rebuilt by this process; other non-serving ones are leftovers. */
  readonly #activeRebuilds = new Set<string>();
  readonly #statements = new Map<string, StatementSync>();
  /** Per physical index name. */
  readonly #facets = new Map<string, FacetCache>();

  /**
   * `db` must have been opened with `openLocalDatabase` (it holds the tables); it stays the
   * caller's to close. Indices written by an earlier version are copied into tables of their
   * own here, once (`#upgradeLegacy`).
   */
  constructor(db: DatabaseSync, options: EmbeddedSearchEngineOptions) {
    this.#db = db;
    this.#limits = options.limits;
    this.#warn = options.warn;
    this.#upgradeLegacy();
  }

  /** Creates the collection's alias and its first physical index if missing. */
  ensureIndex(index: CollectionIndexRef): Promise<void> {
    return settle(() => this.#ensureIndex(index));
  }

  /** Adds or replaces documents; also writes to a rebuild of the same index in progress. */
  upsert(target: IndexTarget, documents: SearchDocument[]): Promise<BulkResult> {
    return settle(() => this.#upsert(target, documents));
  }

  /** Removes documents by URI; missing ones count as removed. */
  remove(target: IndexTarget, uris: string[]): Promise<BulkResult> {
    return settle(() => this.#remove(target, uris));
  }

  /**
   * Runs a write on behalf of an engine on another connection to the same file (a worker
   * thread's engine for the request thread's): it reaches that engine's rebuilds too, and
   * answers the changes of the facet values that engine holds, for
   * {@link noteWrittenElsewhere}.
   */
  writeHere(write: EngineWrite): Promise<EngineWriteResult> {
    return settle(() => {
      const elsewhere = { rebuilds: write.rebuilds, heldFacets: write.heldFacets, reports: [] };
      const result = write.kind === "upsert"
        ? this.#upsert(write.target, write.documents, elsewhere)
        : this.#remove(write.target, write.uris, elsewhere);
      return { result, facets: elsewhere.reports };
    });
  }

  /** What an engine on another connection needs to write on this one's behalf. */
  writeContext(): WriteContext {
    return { rebuilds: [...this.#activeRebuilds], heldFacets: this.heldFacetFields() };
  }

  /** Per physical index, the fields whose facet values this engine holds in memory. */
  heldFacetFields(): Record<string, string[]> {
    return Object.fromEntries(
      [...this.#facets].map(([name, cache]) => [name, [...cache.columns.keys()]]),
    );
  }

  /**
   * Brings held facet values up to date with writes made on this engine's behalf
   * ({@link writeHere}): applied when they were valid just before each, dropped when they
   * missed a write (read again when asked).
   */
  noteWrittenElsewhere(reports: FacetChanges[]): void {
    for (const report of reports) this.#applyFacetChanges(report);
  }

  #applyFacetChanges(report: FacetChanges): void {
    const cache = this.#facets.get(report.physical);
    // Read after the write committed: the values hold it already.
    if (cache === undefined || cache.writes >= report.writes) return;
    const physical = this.#physical(report.physical);
    if (cache.writes !== report.writes - 1 || physical === undefined) {
      this.#facets.delete(report.physical);
      return;
    }
    const written = report.changes.filter(([, values]) => values !== null).map(([id]) => id);
    for (const [field, column] of cache.columns) {
      const n = report.fields.indexOf(field);
      // Held since the write was sent: its documents' values are read (a few rows by id),
      // so that writes in flight under steady load do not drop the whole column.
      const reread = n < 0 ? this.#facetValuesOf(physical, field, written) : undefined;
      for (const [id, values] of report.changes) {
        if (values === null) column.delete(id);
        else column.set(id, reread ? reread.get(id) ?? [] : values[n]);
      }
    }
    cache.writes = report.writes;
  }

  /** `field`'s values of the documents `ids` of `physical`, as stored now. */
  #facetValuesOf(
    physical: Physical,
    field: string,
    ids: number[],
  ): Map<number, (string | number | boolean)[]> {
    const values = new Map<number, (string | number | boolean)[]>();
    if (ids.length === 0) return values;
    const rows = this.#sql(
      `SELECT x.id AS id, j.value AS value, j.type AS type FROM ${physical.tables.fields} x, ` +
        `json_each(x.fields, ?) j WHERE x.id IN (SELECT value FROM json_each(?))`,
    ).all(jsonPath(field), JSON.stringify(ids)) as unknown as (StoredValue & { id: number })[];
    for (const row of rows) {
      const held = values.get(row.id) ?? [];
      held.push(storedValue(row));
      values.set(row.id, held);
    }
    return values;
  }

  #upsert(
    target: IndexTarget,
    documents: SearchDocument[],
    elsewhere?: WriteElsewhere,
  ): BulkResult {
    const physicals = this.#writeTargets(target, elsewhere?.rebuilds);
    const mappings = indexRefOf(target).mappings;
    const numericFields = numericMappedFields(mappings);
    const failed: BulkFailure[] = [];
    const valid: SearchDocument[] = [];
    for (const document of documents) {
      const problem = documentProblem(document, mappings);
      if (problem) {
        failed.push({
          uri: String(document?.uri ?? ""),
          kind: "invalid-input",
          message: problem,
          retryable: false,
        });
      } else valid.push(document);
    }
    for (let start = 0; start < valid.length; start += WRITE_BATCH) {
      // Rows are made before the transaction: other writers wait only for the SQL.
      const rows = valid.slice(start, start + WRITE_BATCH)
        .map((document) => documentRow(document, numericFields));
      this.#write(() => {
        for (const physical of physicals) {
          const updateFacets = this.#facetsForWrite(physical, elsewhere);
          this.#addLanguages(physical, rows.map(({ document }) => document));
          for (const row of rows) {
            const id = this.#upsertOne(physical.tables, row);
            if (id !== undefined) updateFacets?.(id, row.values);
          }
        }
      }, false);
    }
    return { succeeded: valid.length, failed };
  }

  #remove(target: IndexTarget, uris: string[], elsewhere?: WriteElsewhere): BulkResult {
    const physicals = this.#writeTargets(target, elsewhere?.rebuilds);
    for (let start = 0; start < uris.length; start += WRITE_BATCH) {
      const batch = uris.slice(start, start + WRITE_BATCH);
      this.#write(() => {
        for (const physical of physicals) {
          const updateFacets = this.#facetsForWrite(physical, elsewhere);
          for (const uri of batch) {
            const id = this.#removeOne(physical.tables, uri);
            if (id !== undefined) updateFacets?.(id, undefined);
          }
        }
      }, false);
    }
    return { succeeded: uris.length, failed: [] };
  }

  /** Every document URI, in URI order, in clamped keyset pages. */
  async *listDocumentUris(target: IndexTarget): AsyncIterable<string> {
    const physical = isRebuildTarget(target)
      ? this.#physical(target.physicalName)
      : this.#serving(target.indexName);
    if (physical === undefined) return;
    const window = clampWindow({ from: 0, size: LIST_PAGE }, this.#limits, this.#warn);
    const pageSize = Math.max(1, window.applied.size);
    const page = this.#sql(
      `SELECT uri FROM ${physical.tables.docs} WHERE uri > ? ORDER BY uri LIMIT ?`,
    );
    let after = "";
    while (true) {
      let rows: { uri: string }[];
      try {
        rows = page.all(after, pageSize) as { uri: string }[];
      } catch (error) {
        // Dropped by a rebuild that committed meanwhile: the listing ends with its index.
        if (/no such table/.test(messageOf(error))) return;
        throw searchError(error);
      }
      for (const row of rows) yield row.uri;
      if (rows.length < pageSize) return;
      after = rows[rows.length - 1].uri;
    }
  }

  /** Writes are visible as soon as they commit: nothing to do. */
  refresh(_target: IndexTarget): Promise<void> {
    return Promise.resolve();
  }

  /** Starts filling a new physical index; leftovers of earlier rebuilds are dropped. */
  beginRebuild(index: CollectionIndexRef): Promise<RebuildTarget> {
    return settle(() => {
      this.#ensureIndex(index);
      this.#dropLeftovers(index.indexName);
      const physicalName = this.#write(() => this.#createPhysical(index.indexName, "building"));
      this.#activeRebuilds.add(physicalName);
      return { ref: index, physicalName };
    });
  }

  /**
   * Points the alias at the rebuilt index in one transaction, then drops the old one. The
   * rebuilt index's full-text segments are merged into one first ({@link #compact}).
   */
  async commitRebuild(target: RebuildTarget): Promise<void> {
    await this.#compact(target);
    await settle(() => this.#commitRebuild(target));
  }

  /**
   * Merges every full-text segment of a rebuilt index into one, FTS5's incremental optimize:
   * a step of {@link COMPACT_STEP_PAGES} pages per transaction, requests served between. A job
   * writes a segment per batch; merged, they take less room than the segments an index grows
   * by item writes (measured at 20k items: 18.5 MB, against 20.4 MB as the job left them and
   * 19.9 MB grown by the outbox), so a rebuild gives back at least what it takes, and each
   * word is one segment's list to read.
   */
  async #compact(target: RebuildTarget): Promise<void> {
    const physical = this.#physical(target.physicalName);
    // Gone: the commit answers why.
    if (physical === undefined) return;
    const { fts } = physical.tables;
    // A negative page count takes every segment, as 'optimize' does; a step that changes
    // fewer than two rows found nothing left to merge (FTS5's documented test).
    const merge = this.#sql(`INSERT INTO ${fts}(${fts}, rank) VALUES ('merge', ?)`);
    const changes = this.#sql("SELECT total_changes() AS n");
    const changed = () => (changes.get() as { n: number }).n;
    for (let step = 0; step < COMPACT_MAX_STEPS; step++) {
      const more = this.#write(() => {
        const before = changed();
        merge.run(-COMPACT_STEP_PAGES);
        return changed() - before >= 2;
      }, false);
      if (!more) return;
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }

  #commitRebuild(target: RebuildTarget): void {
    const alias = target.ref.indexName;
    const old = this.#write(() => {
      const state = this.#stateOf(target.physicalName);
      if (state !== "building") throw rebuildNotActiveProblem(target);
      const previous = this.#serving(alias)?.name;
      this.#sql(
        "INSERT INTO search_aliases (alias, physical) VALUES (?, ?) " +
          "ON CONFLICT (alias) DO UPDATE SET physical = excluded.physical",
      ).run(alias, target.physicalName);
      this.#setState(target.physicalName, "serving");
      if (previous !== undefined) this.#setState(previous, "retired");
      return previous;
    });
    this.#activeRebuilds.delete(target.physicalName);
    if (old !== undefined) this.#dropPhysical(old);
  }

  /** Drops the rebuilt index; the alias never saw it. Aborting twice is harmless. */
  abortRebuild(target: RebuildTarget): Promise<void> {
    return settle(() => {
      if (this.#stateOf(target.physicalName) === "serving") throw rebuildNotActiveProblem(target);
      this.#activeRebuilds.delete(target.physicalName);
      this.#dropPhysical(target.physicalName);
    });
  }

  /** Full-text, filtered, sorted and clamped search of a collection's index. */
  search(index: CollectionIndexRef, request: SearchRequest): Promise<SearchResponse> {
    return settle(() => this.#search(index, request));
  }

  #search(index: CollectionIndexRef, request: SearchRequest): SearchResponse {
    const { response, window, facetSize } = startSearch(request, this.#limits, this.#warn);
    const physical = this.#serving(index.indexName);
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
    const threshold = trackTotalHits(this.#limits);
    try {
      const counted = (this.#sql(`SELECT count(*) AS n FROM (${hitsSql} LIMIT ?)`)
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
          page = this.#sql(`${hitsSql} ORDER BY id DESC LIMIT ? OFFSET ?`)
            .all(...hitsParams, window.size, window.from) as typeof page;
        } else if (ranked && !fieldSort) {
          // Relevance over every hit up to the window; beyond it, over the most recently added
          // ones (FTS5 yields rowids in descending order without sorting).
          const ranking = Math.max(RANK_WINDOW, window.from + window.size);
          const order = terms.length > 0 ? terms : ["rank ASC"];
          const inner = ranges.length === 0
            ? `SELECT rowid AS id, bm25(${fts}) AS rank FROM ${fts} WHERE ${fts} MATCH ? ` +
              `ORDER BY rowid DESC LIMIT ?`
            : `SELECT f.rowid AS id, bm25(${fts}) AS rank FROM ${fts} f ` +
              `JOIN ${fields} x ON x.id = f.rowid WHERE ${fts} MATCH ? ` +
              `AND ${rangeSql.join(" AND ")} ORDER BY f.rowid DESC LIMIT ?`;
          // Equal scores: the most recently added first (the URI would cost a row read per hit).
          page = this.#sql(
            `SELECT id, rank FROM (${inner}) ORDER BY ${[...order, "id DESC"].join(", ")} ` +
              "LIMIT ? OFFSET ?",
          ).all(...hitsParams, ranking, window.size, window.from) as typeof page;
        } else if (ranked) {
          if (terms.every((term) => !term.startsWith("rank"))) terms.push("rank ASC");
          page = this.#sql(
            `SELECT d.id AS id, bm25(${fts}) AS rank FROM ${fts} f JOIN ${docs} d ` +
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
          page = this.#sql(
            `SELECT d.id AS id FROM ${docs} d${walk}${join}${where(conditions)} ` +
              `ORDER BY ${[...terms, "d.uri ASC"].join(", ")} LIMIT ? OFFSET ?`,
          ).all(...hitsParams, ...termParams, window.size, window.from) as typeof page;
        }
        const read = this.#sql(`SELECT uri, document FROM ${docs} WHERE id = ?`);
        response.hits = page.map((row): SearchHit => {
          const stored = read.get(row.id) as { uri: string; document: Uint8Array };
          const document = storedDocument(stored.document);
          const hit: SearchHit = {
            uri: stored.uri,
            score: ranked && row.rank !== undefined ? -row.rank : null,
            document,
          };
          if (request.highlight) {
            hit.highlights = q === undefined
              ? {}
              : highlightDocument(document, q, request.language);
          }
          return hit;
        });
      }
      if (facetSize !== undefined && counted > 0) {
        // Beyond the threshold, counted over the most recently added `threshold` hits, so a
        // facet costs what the threshold costs: each count is then a lower bound.
        const hits = this.#hitIds(`${hitsSql} ORDER BY id DESC LIMIT ?`, [
          ...hitsParams,
          threshold,
        ]);
        if (counted > threshold) response.facetsRelation = "gte";
        for (const field of request.facets!) {
          response.facets![field] = this.#facetColumn(physical, field).count(hits, facetSize);
        }
      }
    } catch (error) {
      throw searchError(error);
    }
    return response;
  }

  /** The ids of every hit, for facet counting. */
  #hitIds(sql: string, params: (string | number)[]): Int32Array {
    const statement = this.#sql(sql);
    statement.setReturnArrays(true);
    const rows = statement.all(...params) as unknown as [number][];
    const ids = new Int32Array(rows.length);
    for (let n = 0; n < rows.length; n++) ids[n] = rows[n][0];
    return ids;
  }

  /** `field`'s values in `physical`, read from the flat fields when not held yet. */
  #facetColumn(physical: Physical, field: string): FacetColumn {
    let cache = this.#facets.get(physical.name);
    if (cache === undefined || cache.writes !== physical.writes) {
      cache = { writes: physical.writes, columns: new Map() };
      this.#facets.set(physical.name, cache);
    }
    let column = cache.columns.get(field);
    if (column === undefined) {
      this.#evictFacetColumns();
      column = new FacetColumn();
      const rows = this.#sql(
        `SELECT x.id AS id, j.value AS value, j.type AS type FROM ${physical.tables.fields} x, ` +
          `json_each(x.fields, ?) j ORDER BY x.id`,
      ).iterate(jsonPath(field)) as Iterable<StoredValue & { id: number }>;
      let id = -1;
      let values: (string | number | boolean)[] = [];
      for (const row of rows) {
        if (row.id !== id) {
          if (values.length > 0) column.set(id, values);
          id = row.id;
          values = [];
        }
        values.push(storedValue(row));
      }
      if (values.length > 0) column.set(id, values);
      cache.columns.set(field, column);
    }
    return column;
  }

  /** Drops the facet values held longest when more than {@link FACET_COLUMNS} are held. */
  #evictFacetColumns(): void {
    let held = 0;
    for (const cache of this.#facets.values()) held += cache.columns.size;
    for (const [name, cache] of this.#facets) {
      if (held < FACET_COLUMNS) return;
      held -= cache.columns.size;
      this.#facets.delete(name);
    }
  }

  /**
   * Bumps `physical`'s write counter inside the current write transaction; answers how to
   * update the facet values held with the write (this engine's, or those another engine holds,
   * reported to it), or undefined when none are held or they were stale.
   */
  #facetsForWrite(physical: Physical, elsewhere?: WriteElsewhere): FacetUpdate | undefined {
    const row = this.#sql(
      "UPDATE search_physical_indices SET writes = writes + 1 WHERE name = ? RETURNING writes",
    ).get(physical.name) as { writes: number } | undefined;
    if (row === undefined) return undefined;
    if (elsewhere) {
      const fields = elsewhere.heldFacets[physical.name] ?? [];
      const report: FacetChanges = {
        physical: physical.name,
        writes: row.writes,
        fields,
        changes: [],
      };
      elsewhere.reports.push(report);
      return (id, values) =>
        report.changes.push([
          id,
          values === undefined ? null : fields.map((field) => valuesOf(values, field)),
        ]);
    }
    const cache = this.#facets.get(physical.name);
    if (cache === undefined) return undefined;
    if (cache.writes !== row.writes - 1) {
      this.#facets.delete(physical.name);
      return undefined;
    }
    cache.writes = row.writes;
    return (id, values) =>
      cache.columns.forEach((column, field) =>
        values === undefined ? column.delete(id) : column.set(id, valuesOf(values, field))
      );
  }

  /** Records the search languages of `documents` that `physical` did not hold text in yet. */
  #addLanguages(physical: Physical, documents: SearchDocument[]): void {
    const languages = new Set(physical.languages);
    for (const document of documents) {
      for (const language of documentLanguages(document)) languages.add(language);
    }
    if (languages.size === physical.languages.length) return;
    physical.languages = [...languages].sort();
    this.#sql("UPDATE search_physical_indices SET languages = ? WHERE name = ?")
      .run(physical.languages.join(","), physical.name);
  }

  /** Healthy while the SQLite file answers. */
  health(): Promise<BackendHealth> {
    let health: BackendHealth;
    try {
      this.#sql("SELECT count(*) FROM search_aliases").get();
      health = { ok: true, detail: "embedded search (SQLite FTS5)" };
    } catch (error) {
      health = { ok: false, detail: `embedded search: ${messageOf(error)}` };
    }
    return Promise.resolve(health);
  }

  /** The database belongs to the caller: nothing to release. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  #ensureIndex(index: CollectionIndexRef): void {
    if (!isValidIndexName(index.indexName)) throw invalidIndexNameProblem(index.indexName);
    if (this.#serving(index.indexName) !== undefined) return;
    this.#write(() => {
      if (this.#serving(index.indexName) !== undefined) return;
      const physical = this.#createPhysical(index.indexName, "serving");
      this.#sql("INSERT INTO search_aliases (alias, physical) VALUES (?, ?)")
        .run(index.indexName, physical);
    });
  }

  /** The physical indices a write reaches; `rebuilds`: those another engine runs, as well. */
  #writeTargets(target: IndexTarget, rebuilds: string[] = []): Physical[] {
    if (isRebuildTarget(target)) {
      const physical = this.#physical(target.physicalName);
      if (physical === undefined || this.#stateOf(target.physicalName) !== "building") {
        throw rebuildNotActiveProblem(target);
      }
      return [physical];
    }
    this.#ensureIndex(target);
    const rows = this.#sql(
      "SELECT name FROM search_physical_indices WHERE alias = ? AND state = 'building'",
    ).all(target.indexName) as { name: string }[];
    const building = rows.map((row) => row.name)
      .filter((name) => this.#activeRebuilds.has(name) || rebuilds.includes(name))
      .map((name) => this.#physical(name)!);
    return [this.#serving(target.indexName)!, ...building];
  }

  /** Writes one document; its id, or undefined when a newer state is already there. */
  #upsertOne(tables: IndexTables, row: DocumentRow): number | undefined {
    const { document } = row;
    const existing = this.#sql(`SELECT id, document FROM ${tables.docs} WHERE uri = ?`)
      .get(document.uri) as { id: number; document: Uint8Array } | undefined;
    // Versioned writes (document_version.ts): an older state never replaces a newer one.
    if (existing && isOlderDocument(storedDocument(existing.document), document)) return undefined;
    let id: number;
    if (existing) {
      id = existing.id;
      this.#sql(`UPDATE ${tables.docs} SET document = ? WHERE id = ?`).run(row.stored, id);
      this.#sql(`DELETE FROM ${tables.fts} WHERE rowid = ?`).run(id);
    } else {
      id = Number(
        this.#sql(`INSERT INTO ${tables.docs} (uri, document) VALUES (?, ?)`)
          .run(document.uri, row.stored).lastInsertRowid,
      );
    }
    this.#sql(`INSERT OR REPLACE INTO ${tables.fields} (id, fields) VALUES (?, jsonb(?))`)
      .run(id, row.fields);
    this.#sql(`INSERT INTO ${tables.fts} (rowid, text, stems, keys) VALUES (?, ?, ?, ?)`)
      .run(id, document.text, row.stems, row.keys);
    return id;
  }

  /** Removes one document; its id, or undefined when there was none. */
  #removeOne(tables: IndexTables, uri: string): number | undefined {
    const existing = this.#sql(`SELECT id FROM ${tables.docs} WHERE uri = ?`).get(uri) as
      | { id: number }
      | undefined;
    if (!existing) return undefined;
    this.#sql(`DELETE FROM ${tables.fts} WHERE rowid = ?`).run(existing.id);
    this.#sql(`DELETE FROM ${tables.fields} WHERE id = ?`).run(existing.id);
    this.#sql(`DELETE FROM ${tables.docs} WHERE id = ?`).run(existing.id);
    return existing.id;
  }

  /** Records a new physical index and creates its tables (inside a write transaction). */
  #createPhysical(alias: string, state: "serving" | "building"): string {
    const taken = this.#sql("SELECT 1 FROM search_physical_indices WHERE name = ?");
    let now = Date.now();
    let name = physicalIndexName(alias, now);
    while (taken.get(name)) name = physicalIndexName(alias, ++now);
    const { next } = this.#sql(
      "SELECT coalesce(max(tables), 0) + 1 AS next FROM search_physical_indices",
    ).get() as { next: number };
    this.#sql(
      "INSERT INTO search_physical_indices (name, alias, state, created, tables) " +
        "VALUES (?, ?, ?, ?, ?)",
    ).run(name, alias, state, new Date().toISOString(), next);
    this.#db.exec(createIndexTablesSql(indexTables(next)));
    return name;
  }

  /** Drops physical indices of `alias` that neither serve nor are rebuilt by this process. */
  #dropLeftovers(alias: string): void {
    const rows = this.#sql(
      "SELECT name FROM search_physical_indices WHERE alias = ? AND state <> 'serving'",
    ).all(alias) as { name: string }[];
    for (const { name } of rows) {
      if (!this.#activeRebuilds.has(name)) this.#dropPhysical(name);
    }
  }

  /** Drops a physical index's tables and record, then gives the freed pages back. */
  #dropPhysical(name: string): void {
    this.#write(() => {
      const physical = this.#physical(name);
      if (physical !== undefined) this.#db.exec(dropIndexTablesSql(physical.tables));
      this.#sql("DELETE FROM search_physical_indices WHERE name = ?").run(name);
    });
    this.#facets.delete(name);
    this.#forgetStatements();
    giveBackFreePages(this.#db);
  }

  /** Statements on dropped tables fail; prepared ones are forgotten with them. */
  #forgetStatements(): void {
    for (const text of this.#statements.keys()) {
      if (/search_(docs|fields|fts)_\d+/.test(text)) this.#statements.delete(text);
    }
  }

  #serving(alias: string): Physical | undefined {
    const row = this.#sql(
      "SELECT p.name AS name, p.tables AS tables, p.writes AS writes, p.languages AS languages " +
        "FROM search_aliases a JOIN search_physical_indices p ON p.name = a.physical " +
        "WHERE a.alias = ?",
    ).get(alias) as PhysicalRow | undefined;
    return row && physicalOf(row);
  }

  #physical(name: string): Physical | undefined {
    const row = this.#sql(
      "SELECT name, tables, writes, languages FROM search_physical_indices WHERE name = ?",
    ).get(name) as PhysicalRow | undefined;
    return row && physicalOf(row);
  }

  #stateOf(physical: string): string | undefined {
    const row = this.#sql("SELECT state FROM search_physical_indices WHERE name = ?")
      .get(physical) as { state: string } | undefined;
    return row?.state;
  }

  #setState(physical: string, state: string): void {
    this.#sql("UPDATE search_physical_indices SET state = ? WHERE name = ?").run(
      state,
      physical,
    );
  }

  /**
   * Copies each physical index an earlier version wrote into the shared tables of migration
   * 5 into tables of its own, from its stored documents and typed field rows (no store read,
   * no re-analysis of field types), then drops the shared tables. Runs once, at the first
   * start of this version.
   */
  #upgradeLegacy(): void {
    if (!hasLegacyLayout(this.#db)) return;
    this.#write(() => {
      for (const name of legacyPhysicals(this.#db)) {
        const { next } = this.#db.prepare(
          "SELECT coalesce(max(tables), 0) + 1 AS next FROM search_physical_indices",
        ).get() as { next: number };
        const tables = indexTables(next);
        this.#db.exec(createIndexTablesSql(tables));
        this.#db.prepare("UPDATE search_physical_indices SET tables = ? WHERE name = ?")
          .run(next, name);
        const languages = new Set<string>();
        for (const { document, values } of legacyDocuments(this.#db, name)) {
          this.#upsertOne(tables, rowWithValues(document, values));
          for (const language of documentLanguages(document)) languages.add(language);
        }
        this.#db.prepare("UPDATE search_physical_indices SET languages = ? WHERE name = ?")
          .run([...languages].sort().join(","), name);
      }
      this.#db.exec(DROP_LEGACY_TABLES_SQL);
    });
    this.#statements.clear();
    giveBackFreePages(this.#db);
  }

  /** A prepared statement, prepared once per engine: writes run many per document. */
  #sql(text: string): StatementSync {
    let statement = this.#statements.get(text);
    if (!statement) {
      statement = this.#db.prepare(text);
      this.#statements.set(text, statement);
    }
    return statement;
  }

  /**
   * `synced: false` for document writes: documents are derived from the store, and one lost
   * to a power cut is written again from its outbox entry (whose completion comes after it
   * in the same WAL) or by the job that wrote it; so the loop does not wait for an fsync.
   */
  #write<T>(work: () => T, synced = true): T {
    try {
      return (synced ? inTransaction : inUnsyncedTransaction)(this.#db, work);
    } catch (error) {
      if (error instanceof DomainError) throw error;
      throw searchError(error);
    }
  }
}

/** What one document's write stores, made before the write transaction. */
interface DocumentRow {
  document: SearchDocument;
  /** Its scalars (facet values held in memory are updated from them). */
  values: FieldValue[];
  /** The document as stored: deflated JSON. */
  stored: Uint8Array;
  /** The flat fields object (`field_keys.ts`). */
  fields: string;
  stems: string | null;
  keys: string;
}

function documentRow(document: SearchDocument, numericFields: ReadonlySet<string>): DocumentRow {
  return rowWithValues(document, fieldValues(document, numericFields));
}

function rowWithValues(document: SearchDocument, values: FieldValue[]): DocumentRow {
  // `text_<language>` fields are searched by words and stems only (as on OpenSearch, where
  // they are analysed text with no keyword).
  const kept = values.filter((value) => !LANGUAGE_TEXT.has(value.path));
  return {
    document,
    values,
    stored: deflateRawSync(JSON.stringify(document), { level: 1 }),
    fields: flatFields(kept),
    stems: stemText(document) ?? null,
    keys: keyTokens(kept),
  };
}

/** A row of `search_physical_indices` as {@link Physical} reads it. */
interface PhysicalRow {
  name: string;
  tables: number;
  writes: number;
  languages: string;
}

function physicalOf(row: PhysicalRow): Physical {
  return {
    name: row.name,
    tables: indexTables(row.tables),
    writes: row.writes,
    languages: row.languages === "" ? [] : row.languages.split(","),
  };
}

/** `text_<language>` fields: searched by words and stems, not sorted or counted. */
const LANGUAGE_TEXT = new Set(LANGUAGE_TEXT_FIELDS);

/** The total counted exactly: `trackTotalHits` of the limits, at least 1. */
function trackTotalHits(limits: SearchLimits): number {
  return Math.max(1, limits.trackTotalHits);
}

function where(conditions: string[]): string {
  return conditions.length > 0 ? ` WHERE ${conditions.join(" AND ")}` : "";
}

/**
 * Gives the file's free pages back to the file system when the file is in incremental
 * auto-vacuum mode (files created by this version are: `src/local_database.ts`); older files
 * keep the pages and reuse them for the next index.
 */
function giveBackFreePages(db: DatabaseSync): void {
  const mode = db.prepare("PRAGMA auto_vacuum").get() as { auto_vacuum: number };
  if (mode.auto_vacuum !== 2) return;
  // Stepped to the end: each step frees one page (exec would take only the first).
  db.prepare("PRAGMA incremental_vacuum").all();
  // The file shrinks when the WAL is copied back into it; without readers in the way, now.
  db.prepare("PRAGMA wal_checkpoint(PASSIVE)").get();
}

/** Runs synchronous work as a promise, so that callers see its errors as rejections. */
function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error);
  }
}

function documentProblem(
  document: SearchDocument,
  mappings: Record<string, unknown> | undefined,
): string | undefined {
  if (typeof document !== "object" || document === null) return "the document is not an object";
  if (typeof document.uri !== "string" || document.uri === "") return "the document has no uri";
  if (typeof document.text !== "string") return "the document has no text field";
  return mappingViolation(document, mappings);
}

function searchError(error: unknown): DomainError {
  const message = messageOf(error);
  return /SQLITE_BUSY|database is locked/i.test(message)
    ? new DomainError("search-unavailable", { detail: message })
    : new DomainError("search-error", { detail: message });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A stored document, as written by `#upsertOne` (deflated JSON). */
function storedDocument(stored: Uint8Array): SearchDocument {
  return JSON.parse(inflateRawSync(stored).toString()) as SearchDocument;
}
