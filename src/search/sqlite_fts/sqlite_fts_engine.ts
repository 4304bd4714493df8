/**
 * The embedded search engine: SQLite FTS5 tables in the service's own SQLite file.
 *
 * It mirrors OpenSearch's index/alias model so that rebuilds behave the same: documents
 * belong to a physical index, `search_aliases` maps a collection's index name to the one
 * physical index readers see, and a rebuild swaps that row in one transaction.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import {
  inTransaction,
  inUnsyncedTransaction,
  type Migration,
} from "../../store/sqlite/local_db.ts";
import { BackendFailed, DomainError, Unavailable } from "../../errors/domain_error.ts";
import type { BackendHealth } from "../../store/triple_store.ts";
import { isOlderDocument } from "../document_version.ts";
import { type ClampWarning, clampWindow, type SearchLimits } from "../clamp.ts";
import { fieldRows, searchSql, stemText, textMatch } from "./fts_query.ts";
import { startSearch } from "../facets.ts";
import { highlightDocument } from "../highlight.ts";
import { mappingViolation, numericMappedFields } from "../declared_mappings.ts";
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
} from "../search_engine.ts";

/** Options of {@link EmbeddedSearchEngine}. */
export interface EmbeddedSearchEngineOptions {
  limits: SearchLimits;
  /** Receives clamp warnings; one JSON line on stderr by default. */
  warn?: ClampWarning;
}

/**
 * The engine's tables (migration 5). `IF NOT EXISTS`: before they were versioned, the engine
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
}];

/** Documents written per transaction, so that other writers are never blocked for long. */
const WRITE_BATCH = 500;
/** URIs per page of {@link EmbeddedSearchEngine.listDocumentUris}, before clamping. */
const LIST_PAGE = 1000;

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

  /**
   * `db` must have been opened with `openLocalDatabase` (it holds the tables); it stays the
   * caller's to close.
   */
  constructor(db: DatabaseSync, options: EmbeddedSearchEngineOptions) {
    this.#db = db;
    this.#limits = options.limits;
    this.#warn = options.warn;
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

  #upsert(target: IndexTarget, documents: SearchDocument[]): BulkResult {
    const physicals = this.#writeTargets(target);
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
      const batch = valid.slice(start, start + WRITE_BATCH);
      this.#write(() => {
        for (const physical of physicals) {
          for (const document of batch) this.#upsertOne(physical, document, numericFields);
        }
      }, false);
    }
    return { succeeded: valid.length, failed };
  }

  #remove(target: IndexTarget, uris: string[]): BulkResult {
    const physicals = this.#writeTargets(target);
    for (let start = 0; start < uris.length; start += WRITE_BATCH) {
      const batch = uris.slice(start, start + WRITE_BATCH);
      this.#write(() => {
        for (const physical of physicals) {
          for (const uri of batch) this.#removeOne(physical, uri);
        }
      }, false);
    }
    return { succeeded: uris.length, failed: [] };
  }

  /** Every document URI, in URI order, in clamped keyset pages. */
  async *listDocumentUris(target: IndexTarget): AsyncIterable<string> {
    const physical = isRebuildTarget(target)
      ? target.physicalName
      : this.#servingPhysical(target.indexName);
    if (physical === undefined) return;
    const window = clampWindow({ from: 0, size: LIST_PAGE }, this.#limits, this.#warn);
    const pageSize = Math.max(1, window.applied.size);
    const page = this.#sql(
      "SELECT uri FROM search_documents WHERE physical = ? AND uri > ? ORDER BY uri LIMIT ?",
    );
    let after = "";
    while (true) {
      const rows = page.all(physical, after, pageSize) as { uri: string }[];
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

  /** Points the alias at the rebuilt index in one transaction, then drops the old one. */
  commitRebuild(target: RebuildTarget): Promise<void> {
    return settle(() => this.#commitRebuild(target));
  }

  #commitRebuild(target: RebuildTarget): void {
    const alias = target.ref.indexName;
    const old = this.#write(() => {
      const state = this.#stateOf(target.physicalName);
      if (state !== "building") throw rebuildNotActiveProblem(target);
      const previous = this.#servingPhysical(alias);
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
    const physical = this.#servingPhysical(index.indexName);
    const q = request.q?.trim() ? request.q : undefined;
    const match = q === undefined ? undefined : textMatch(q, request.language);
    if (physical === undefined || (q !== undefined && match === undefined)) return response;
    const sql = searchSql(physical, request, match, window);
    try {
      const count = this.#sql(sql.count).get(...sql.countParams) as { total: number };
      response.total = count.total;
      if (window.size > 0 && window.from < count.total) {
        const rows = this.#sql(sql.page).all(...sql.pageParams) as {
          uri: string;
          document: string;
          rank?: number;
        }[];
        response.hits = rows.map((row): SearchHit => {
          const document = JSON.parse(row.document) as SearchDocument;
          const hit: SearchHit = {
            uri: row.uri,
            score: sql.ranked ? -(row.rank ?? 0) : null,
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
      for (const field of facetSize !== undefined && count.total > 0 ? request.facets! : []) {
        const facet = sql.facet(field, facetSize!);
        const rows = this.#sql(facet.sql).all(...facet.params) as {
          value: string | number;
          kind: "s" | "n" | "b";
          count: number;
        }[];
        response.facets![field] = rows.map((row) => ({
          value: row.kind === "b" ? row.value === 1 : row.value,
          count: row.count,
        }));
      }
    } catch (error) {
      throw searchError(error);
    }
    return response;
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
    if (this.#servingPhysical(index.indexName) !== undefined) return;
    this.#write(() => {
      if (this.#servingPhysical(index.indexName) !== undefined) return;
      const physical = this.#createPhysical(index.indexName, "serving");
      this.#sql("INSERT INTO search_aliases (alias, physical) VALUES (?, ?)")
        .run(index.indexName, physical);
    });
  }

  #writeTargets(target: IndexTarget): string[] {
    if (isRebuildTarget(target)) {
      if (this.#stateOf(target.physicalName) !== "building") throw rebuildNotActiveProblem(target);
      return [target.physicalName];
    }
    this.#ensureIndex(target);
    const rows = this.#sql(
      "SELECT name FROM search_physical_indices WHERE alias = ? AND state = 'building'",
    ).all(target.indexName) as { name: string }[];
    const building = rows.map((row) => row.name).filter((name) => this.#activeRebuilds.has(name));
    return [this.#servingPhysical(target.indexName)!, ...building];
  }

  #upsertOne(physical: string, document: SearchDocument, numericFields: Set<string>): void {
    const json = JSON.stringify(document);
    const existing = this.#sql(
      "SELECT id, document FROM search_documents WHERE physical = ? AND uri = ?",
    ).get(physical, document.uri) as { id: number; document: string } | undefined;
    // Versioned writes (document_version.ts): an older state never replaces a newer one.
    if (existing && isOlderDocument(JSON.parse(existing.document), document)) return;
    let id: number;
    if (existing) {
      id = existing.id;
      this.#sql("UPDATE search_documents SET document = ? WHERE id = ?").run(json, id);
      this.#sql("DELETE FROM search_fields WHERE document_id = ?").run(id);
      this.#sql("DELETE FROM search_text WHERE rowid = ?").run(id);
      this.#sql("DELETE FROM search_stems WHERE rowid = ?").run(id);
    } else {
      id = Number(
        this.#sql("INSERT INTO search_documents (physical, uri, document) VALUES (?, ?, ?)")
          .run(physical, document.uri, json).lastInsertRowid,
      );
    }
    this.#sql("INSERT INTO search_text (rowid, text) VALUES (?, ?)").run(id, document.text);
    const stems = stemText(document);
    if (stems !== undefined) {
      this.#sql("INSERT INTO search_stems (rowid, stems) VALUES (?, ?)").run(id, stems);
    }
    const insertField = this.#sql(
      "INSERT INTO search_fields (document_id, path, value, kind, text) VALUES (?, ?, ?, ?, ?)",
    );
    for (const row of fieldRows(document, numericFields)) {
      insertField.run(id, row.path, row.value, row.kind, row.text);
    }
  }

  #removeOne(physical: string, uri: string): void {
    const existing = this.#sql(
      "SELECT id FROM search_documents WHERE physical = ? AND uri = ?",
    ).get(physical, uri) as { id: number } | undefined;
    if (!existing) return;
    this.#sql("DELETE FROM search_fields WHERE document_id = ?").run(existing.id);
    this.#sql("DELETE FROM search_text WHERE rowid = ?").run(existing.id);
    this.#sql("DELETE FROM search_stems WHERE rowid = ?").run(existing.id);
    this.#sql("DELETE FROM search_documents WHERE id = ?").run(existing.id);
  }

  #createPhysical(alias: string, state: "serving" | "building"): string {
    const taken = this.#sql("SELECT 1 FROM search_physical_indices WHERE name = ?");
    let now = Date.now();
    let name = physicalIndexName(alias, now);
    while (taken.get(name)) name = physicalIndexName(alias, ++now);
    this.#sql(
      "INSERT INTO search_physical_indices (name, alias, state, created) VALUES (?, ?, ?, ?)",
    ).run(name, alias, state, new Date().toISOString());
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

  #dropPhysical(physical: string): void {
    this.#write(() => {
      const documents = "SELECT id FROM search_documents WHERE physical = ?";
      this.#sql(`DELETE FROM search_fields WHERE document_id IN (${documents})`).run(
        physical,
      );
      this.#sql(`DELETE FROM search_text WHERE rowid IN (${documents})`).run(physical);
      this.#sql(`DELETE FROM search_stems WHERE rowid IN (${documents})`).run(physical);
      this.#sql("DELETE FROM search_documents WHERE physical = ?").run(physical);
      this.#sql("DELETE FROM search_physical_indices WHERE name = ?").run(physical);
    });
  }

  #servingPhysical(alias: string): string | undefined {
    const row = this.#sql("SELECT physical FROM search_aliases WHERE alias = ?").get(
      alias,
    ) as
      | { physical: string }
      | undefined;
    return row?.physical;
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
    ? new Unavailable("search-unavailable", "Search unavailable", message)
    : new BackendFailed("search-error", "Search failed", message);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
