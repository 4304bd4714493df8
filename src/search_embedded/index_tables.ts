/**
 * The three tables of one physical index of the embedded engine, named by its number (the
 * `tables` column of `search_physical_indices`): finding a collection's documents needs no
 * join and no index on a shared table, and dropping an index drops its tables.
 *
 * - `search_docs_<n>`: one row per document: its URI (unique: upserts and URI listings) and
 *   the document as raw-deflated JSON (what hits answer; a third of its size).
 * - `search_fields_<n>`: the document's flat fields as JSONB (ranges, sorts, facet values;
 *   `field_keys.ts`), same id. Apart from the documents so that rows stay small enough for
 *   several to share a page (a 3 KB row takes a 4 KB page of its own), and so that reading
 *   either does not read the other.
 * - `search_fts_<n>`: contentless FTS5 (the words are kept nowhere else), rowid = document
 *   id, columns `text`, `stems`, `keys` and `labels` (`fts_query.ts`); words are folded to
 *   lower case without diacritics (`remove_diacritics 2`: `datova` finds `datová`).
 *
 * The layout of these tables has a number ({@link INDEX_LAYOUT}, the `layout` column of
 * `search_physical_indices`); an index of an older layout is brought to this one at the
 * engine's start (`layout_upgrade.ts`).
 */

/**
 * The tables' layout: 1 had `text`, `stems` and `keys` without folding diacritics; 2 adds
 * `labels` and folds them.
 */
export const INDEX_LAYOUT = 2;

/** The table names of physical index number `n`. */
export interface IndexTables {
  docs: string;
  fields: string;
  fts: string;
}

/** The table names of physical index number `n`. */
export function indexTables(n: number): IndexTables {
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`bad search index number ${n}`);
  return { docs: `search_docs_${n}`, fields: `search_fields_${n}`, fts: `search_fts_${n}` };
}

/** The index of `search_docs_<n>` by URI (SQLite's name for the UNIQUE constraint's). */
export function uriIndex(tables: IndexTables): string {
  return `sqlite_autoindex_${tables.docs}_1`;
}

/** The DDL creating the tables of `tables`. */
export function createIndexTablesSql(tables: IndexTables): string {
  return `
    CREATE TABLE ${tables.docs} (
      id INTEGER PRIMARY KEY,
      uri TEXT NOT NULL UNIQUE,
      document BLOB NOT NULL
    );
    CREATE TABLE ${tables.fields} (id INTEGER PRIMARY KEY, fields BLOB NOT NULL);
    ${createFtsTableSql(tables.fts)}`;
}

/** The DDL creating a full-text table of the current layout named `name`. */
export function createFtsTableSql(name: string): string {
  return `CREATE VIRTUAL TABLE ${name} USING fts5 (
      text, stems, keys, labels, content = '', contentless_delete = 1,
      tokenize = 'unicode61 remove_diacritics 2'
    );`;
}

/** The DDL dropping the tables of `tables`. */
export function dropIndexTablesSql(tables: IndexTables): string {
  return `DROP TABLE IF EXISTS ${tables.fts}; DROP TABLE IF EXISTS ${tables.fields}; ` +
    `DROP TABLE IF EXISTS ${tables.docs};`;
}
