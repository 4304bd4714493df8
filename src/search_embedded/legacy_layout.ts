/**
 * The first layout of the embedded search index (schema migration 5): one `search_documents`
 * table shared by every physical index, a `search_fields` row per field value (with its type,
 * as the collection's mappings coerced it), and two shared FTS5 tables. Read once, at the first
 * start of a version with tables per index, to copy each index over; then dropped.
 */
import type { DatabaseSync } from "node:sqlite";
import type { SearchDocument } from "../search/search_engine.ts";
import type { FieldValue } from "./field_keys.ts";

/** Whether the file still holds the first layout's tables. */
export function hasLegacyLayout(db: DatabaseSync): boolean {
  return db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'search_documents'").get() !==
    undefined;
}

/** The physical indices whose documents are still in the shared tables only. */
export function legacyPhysicals(db: DatabaseSync): string[] {
  const rows = db.prepare("SELECT name FROM search_physical_indices WHERE tables IS NULL").all();
  return (rows as { name: string }[]).map((row) => row.name);
}

/** A physical index's documents with their typed field values, in the order they were added. */
export function* legacyDocuments(
  db: DatabaseSync,
  physical: string,
): Iterable<{ document: SearchDocument; values: FieldValue[] }> {
  const documents = db.prepare(
    "SELECT id, document FROM search_documents WHERE physical = ? ORDER BY id",
  ).iterate(physical) as Iterable<{ id: number; document: string }>;
  const fields = db.prepare("SELECT path, value, kind FROM search_fields WHERE document_id = ?");
  for (const { id, document } of documents) {
    const rows = fields.all(id) as { path: string; value: string | number; kind: string }[];
    yield {
      document: JSON.parse(document) as SearchDocument,
      values: rows.map((row) => ({
        path: row.path,
        value: row.kind === "b" ? row.value === 1 : row.value,
      })),
    };
  }
}

/** Drops the first layout's tables. */
export const DROP_LEGACY_TABLES_SQL = `
  DROP TABLE search_fields; DROP TABLE search_text; DROP TABLE search_stems;
  DROP TABLE search_documents;`;
