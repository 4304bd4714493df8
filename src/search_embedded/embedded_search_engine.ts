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
 * bm25 over every hit up to `RANK_WINDOW` (`search_query.ts`) hits, then over the
 * `max(RANK_WINDOW, from + size)` most recently added hits (FTS5 scores each row it ranks),
 * and beyond `trackTotalHits` hits the most recently added come first, unscored (bm25 reads
 * each word's whole document list to weigh it); facets are counted from per-field values held
 * in memory (`facet_values.ts`) over every hit up to `trackTotalHits`, and beyond over the
 * `trackTotalHits` most recently added (`facetsRelation: gte`).
 *
 * This class is the one public engine; its concerns are files beside it: the migrations
 * (`search_migrations.ts`), the connection's statements and transactions
 * (`index_connection.ts`), the register of physical indices and aliases
 * (`physical_indexes.ts`), a document's row and its write (`document_rows.ts`), the held facet
 * values (`held_facets.ts`), a search (`search_query.ts`) and a search over several indices
 * (`search_indices.ts`).
 */
import type { DatabaseSync } from "node:sqlite";
import type { BackendHealth } from "../backend/backend_health.ts";
import { type ClampWarning, clampWindow, type SearchLimits } from "../search/clamp.ts";
import { numericMappedFields } from "../search/declared_mappings.ts";
import {
  type BulkFailure,
  type BulkResult,
  type CollectionIndexRef,
  indexRefOf,
  type IndexTarget,
  isRebuildTarget,
  rebuildNotActiveProblem,
  type RebuildTarget,
  type SearchDocument,
  type SearchEngine,
  type SearchRequest,
  type SearchResponse,
} from "../search/search_engine.ts";
import { documentLanguages } from "./fts_query.ts";
import { createIndexTablesSql, INDEX_LAYOUT, indexTables } from "./index_tables.ts";
import { upgradeLayouts } from "./layout_upgrade.ts";
import {
  DROP_LEGACY_TABLES_SQL,
  hasLegacyLayout,
  legacyDocuments,
  legacyPhysicals,
} from "./legacy_layout.ts";
import { IndexConnection, messageOf, searchError, settle } from "./index_connection.ts";
import { type Physical, PhysicalIndexes } from "./physical_indexes.ts";
import {
  type FacetChanges,
  HeldFacets,
  type WriteContext,
  type WriteElsewhere,
} from "./held_facets.ts";
import {
  documentProblem,
  documentRow,
  removeDocument,
  rowWithValues,
  writeDocument,
} from "./document_rows.ts";
import { searchIndex, type SearchSite } from "./search_query.ts";
import { searchIndices } from "./search_indices.ts";

/** Options of {@link EmbeddedSearchEngine}. */
export interface EmbeddedSearchEngineOptions {
  limits: SearchLimits;
  /** Receives clamp warnings; one JSON line on stderr by default. */
  warn?: ClampWarning;
}

/** A document write, as an engine's upsert or remove asks it. */
export type EngineWriteRequest =
  | { kind: "upsert"; target: IndexTarget; documents: SearchDocument[] }
  | { kind: "remove"; target: IndexTarget; uris: string[] };

/** A document write made on another engine's behalf. */
export type EngineWrite = EngineWriteRequest & WriteContext;

/** The answer to an {@link EngineWrite}. */
export interface EngineWriteResult {
  result: BulkResult;
  facets: FacetChanges[];
}

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

/** SQLite FTS5 search over the service's SQLite file. */
export class EmbeddedSearchEngine implements SearchEngine {
  /** Which engine this is. */
  readonly kind = "embedded" as const;
  readonly #connection: IndexConnection;
  readonly #indexes: PhysicalIndexes;
  readonly #facets: HeldFacets;
  readonly #limits: SearchLimits;
  readonly #warn?: ClampWarning;
  /** Physical indices being rebuilt by this process; other non-serving ones are leftovers. */
  readonly #activeRebuilds = new Set<string>();
  /** What a search reads. */
  readonly #searchSite: SearchSite;

  /**
   * `db` must have been opened with `openLocalDatabase` (it holds the tables); it stays the
   * caller's to close. Indices written by an earlier version are copied into tables of their
   * own here, once (`#upgradeLegacy`).
   */
  constructor(db: DatabaseSync, options: EmbeddedSearchEngineOptions) {
    this.#connection = new IndexConnection(db);
    this.#indexes = new PhysicalIndexes(this.#connection);
    this.#facets = new HeldFacets(this.#connection, this.#indexes);
    this.#limits = options.limits;
    this.#warn = options.warn;
    this.#searchSite = {
      connection: this.#connection,
      indexes: this.#indexes,
      facets: this.#facets,
      limits: this.#limits,
      warn: this.#warn,
    };
    this.#upgradeLegacy();
    upgradeLayouts(this.#connection);
  }

  /** Creates the collection's alias and its first physical index if missing. */
  ensureIndex(index: CollectionIndexRef): Promise<void> {
    return settle(() => this.#indexes.ensure(index));
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
    return this.#facets.heldFields();
  }

  /**
   * Brings held facet values up to date with writes made on this engine's behalf
   * ({@link writeHere}): applied when they were valid just before each, dropped when they
   * missed a write (read again when asked).
   */
  noteWrittenElsewhere(reports: FacetChanges[]): void {
    for (const report of reports) this.#facets.apply(report);
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
      this.#connection.write(() => {
        for (const physical of physicals) {
          const updateFacets = this.#facets.forWrite(physical, elsewhere);
          this.#indexes.addLanguages(physical, rows.map(({ document }) => document));
          for (const row of rows) {
            const id = writeDocument(this.#connection, physical.tables, row);
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
      this.#connection.write(() => {
        for (const physical of physicals) {
          const updateFacets = this.#facets.forWrite(physical, elsewhere);
          for (const uri of batch) {
            const id = removeDocument(this.#connection, physical.tables, uri);
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
      ? this.#indexes.physical(target.physicalName)
      : this.#indexes.serving(target.indexName);
    if (physical === undefined) return;
    const window = clampWindow({ from: 0, size: LIST_PAGE }, this.#limits, this.#warn);
    const pageSize = Math.max(1, window.applied.size);
    const page = this.#connection.sql(
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
      this.#indexes.ensure(index);
      this.#dropLeftovers(index.indexName);
      const physicalName = this.#connection.write(() =>
        this.#indexes.create(index.indexName, "building")
      );
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
    const physical = this.#indexes.physical(target.physicalName);
    // Gone: the commit answers why.
    if (physical === undefined) return;
    const { fts } = physical.tables;
    // A negative page count takes every segment, as 'optimize' does; a step that changes
    // fewer than two rows found nothing left to merge (FTS5's documented test).
    const merge = this.#connection.sql(`INSERT INTO ${fts}(${fts}, rank) VALUES ('merge', ?)`);
    const changes = this.#connection.sql("SELECT total_changes() AS n");
    const changed = () => (changes.get() as { n: number }).n;
    for (let step = 0; step < COMPACT_MAX_STEPS; step++) {
      const more = this.#connection.write(() => {
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
    const old = this.#connection.write(() => {
      const state = this.#indexes.stateOf(target.physicalName);
      if (state !== "building") throw rebuildNotActiveProblem(target);
      const previous = this.#indexes.serving(alias)?.name;
      this.#indexes.pointAlias(alias, target.physicalName);
      this.#indexes.setState(target.physicalName, "serving");
      if (previous !== undefined) this.#indexes.setState(previous, "retired");
      return previous;
    });
    this.#activeRebuilds.delete(target.physicalName);
    if (old !== undefined) this.#dropPhysical(old);
  }

  /** Drops the rebuilt index; the alias never saw it. Aborting twice is harmless. */
  abortRebuild(target: RebuildTarget): Promise<void> {
    return settle(() => {
      if (this.#indexes.stateOf(target.physicalName) === "serving") {
        throw rebuildNotActiveProblem(target);
      }
      this.#activeRebuilds.delete(target.physicalName);
      this.#dropPhysical(target.physicalName);
    });
  }

  /** Full-text, filtered, sorted and clamped search of a collection's index. */
  search(index: CollectionIndexRef, request: SearchRequest): Promise<SearchResponse> {
    return settle(() => searchIndex(this.#searchSite, index, request));
  }

  /** Searches several collections' indices as one (`search_indices.ts`). */
  searchMany(
    indices: readonly CollectionIndexRef[],
    request: SearchRequest,
  ): Promise<SearchResponse> {
    return settle(() => searchIndices(this.#searchSite, indices, request));
  }

  /** Healthy while the SQLite file answers. */
  health(): Promise<BackendHealth> {
    let health: BackendHealth;
    try {
      this.#connection.sql("SELECT count(*) FROM search_aliases").get();
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

  /** The physical indices a write reaches; `rebuilds`: those another engine runs, as well. */
  #writeTargets(target: IndexTarget, rebuilds: string[] = []): Physical[] {
    if (isRebuildTarget(target)) {
      const physical = this.#indexes.physical(target.physicalName);
      if (physical === undefined || this.#indexes.stateOf(target.physicalName) !== "building") {
        throw rebuildNotActiveProblem(target);
      }
      return [physical];
    }
    this.#indexes.ensure(target);
    const building = this.#indexes.building(target.indexName)
      .filter((name) => this.#activeRebuilds.has(name) || rebuilds.includes(name))
      .map((name) => this.#indexes.physical(name)!);
    return [this.#indexes.serving(target.indexName)!, ...building];
  }

  /** Drops physical indices of `alias` that neither serve nor are rebuilt by this process. */
  #dropLeftovers(alias: string): void {
    for (const name of this.#indexes.notServing(alias)) {
      if (!this.#activeRebuilds.has(name)) this.#dropPhysical(name);
    }
  }

  /** Drops a physical index and the facet values held for it. */
  #dropPhysical(name: string): void {
    this.#indexes.drop(name);
    this.#facets.forget(name);
  }

  /**
   * Copies each physical index an earlier version wrote into the shared tables of migration
   * 5 into tables of its own, from its stored documents and typed field rows (no store read,
   * no re-analysis of field types), then drops the shared tables. Runs once, at the first
   * start of this version.
   */
  #upgradeLegacy(): void {
    const { db } = this.#connection;
    if (!hasLegacyLayout(db)) return;
    this.#connection.write(() => {
      for (const name of legacyPhysicals(db)) {
        const next = this.#indexes.nextTables();
        const tables = indexTables(next);
        db.exec(createIndexTablesSql(tables));
        db.prepare("UPDATE search_physical_indices SET tables = ?, layout = ? WHERE name = ?")
          .run(next, INDEX_LAYOUT, name);
        const languages = new Set<string>();
        for (const { document, values } of legacyDocuments(db, name)) {
          writeDocument(this.#connection, tables, rowWithValues(document, values));
          for (const language of documentLanguages(document)) languages.add(language);
        }
        db.prepare("UPDATE search_physical_indices SET languages = ? WHERE name = ?")
          .run([...languages].sort().join(","), name);
      }
      db.exec(DROP_LEGACY_TABLES_SQL);
    });
    this.#connection.forgetAllStatements();
    this.#connection.giveBackFreePages();
  }
}
