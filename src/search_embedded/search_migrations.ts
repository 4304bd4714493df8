/**
 * The embedded search engine's migrations of the service's SQLite file (listed in
 * `src/local_database.ts` with every other owner's).
 */
import type { Migration } from "../sqlite/local_db.ts";

/**
 * The engine's tables. Migration 5: the shared tables of the first layout. Migration 7: each
 * physical index gets tables of its own (named by `tables`), a counter of its writes
 * (`writes`: facet values held in memory are stale once another connection wrote) and the
 * search languages it holds text in (`languages`, comma-separated: `q` is stemmed in those); the
 * engine copies each index out of the shared tables at its first start, then drops them.
 * Migration 11: the layout of each index's tables (`layout`, `index_tables.ts`): indices
 * written before it are layout 1 and are brought to the current one at the engine's start
 * (`layout_upgrade.ts`). Migration 5 `IF NOT EXISTS`: before they were versioned, the engine
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
}, {
  version: 11,
  description: "embedded search: the layout of each index's tables",
  sql: `
  ALTER TABLE search_physical_indices ADD COLUMN layout INTEGER NOT NULL DEFAULT 1;
`,
}];
