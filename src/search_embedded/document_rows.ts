/**
 * One document in a physical index's tables (`index_tables.ts`): the row made of it before a
 * write transaction (deflated JSON, flat fields, stems, keys), and its write and removal
 * inside one.
 */
import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { SearchDocument } from "../search/search_engine.ts";
import { isOlderDocument } from "../search/document_version.ts";
import { mappingViolation } from "../search/declared_mappings.ts";
import { LABELS_FIELD, LANGUAGE_TEXT_FIELDS } from "../fields/field_names.ts";
import { type FieldValue, fieldValues, flatFields, keyTokens } from "./field_keys.ts";
import { stemText } from "./fts_query.ts";
import type { IndexTables } from "./index_tables.ts";
import type { IndexConnection } from "./index_connection.ts";

/** What one document's write stores, made before the write transaction. */
export interface DocumentRow {
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

/** `text_<language>` fields: searched by words and stems, not sorted or counted. */
const LANGUAGE_TEXT = new Set(LANGUAGE_TEXT_FIELDS);

export function documentRow(
  document: SearchDocument,
  numericFields: ReadonlySet<string>,
): DocumentRow {
  return rowWithValues(document, fieldValues(document, numericFields));
}

export function rowWithValues(document: SearchDocument, values: FieldValue[]): DocumentRow {
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

/** A stored document, as written by {@link writeDocument} (deflated JSON). */
export function storedDocument(stored: Uint8Array): SearchDocument {
  return JSON.parse(inflateRawSync(stored).toString()) as SearchDocument;
}

/** Why the index refuses `document` (not an object, no URI or text, a field type broken). */
export function documentProblem(
  document: SearchDocument,
  mappings: Record<string, unknown> | undefined,
): string | undefined {
  if (typeof document !== "object" || document === null) return "the document is not an object";
  if (typeof document.uri !== "string" || document.uri === "") return "the document has no uri";
  if (typeof document.text !== "string") return "the document has no text field";
  return mappingViolation(document, mappings);
}

/** Writes one document; its id, or undefined when a newer state is already there. */
export function writeDocument(
  connection: IndexConnection,
  tables: IndexTables,
  row: DocumentRow,
): number | undefined {
  const sql = (text: string) => connection.sql(text);
  const { document } = row;
  const existing = sql(`SELECT id, document FROM ${tables.docs} WHERE uri = ?`)
    .get(document.uri) as { id: number; document: Uint8Array } | undefined;
  // Versioned writes (document_version.ts): an older state never replaces a newer one.
  if (existing && isOlderDocument(storedDocument(existing.document), document)) return undefined;
  let id: number;
  if (existing) {
    id = existing.id;
    sql(`UPDATE ${tables.docs} SET document = ? WHERE id = ?`).run(row.stored, id);
    sql(`DELETE FROM ${tables.fts} WHERE rowid = ?`).run(id);
  } else {
    id = Number(
      sql(`INSERT INTO ${tables.docs} (uri, document) VALUES (?, ?)`)
        .run(document.uri, row.stored).lastInsertRowid,
    );
  }
  sql(`INSERT OR REPLACE INTO ${tables.fields} (id, fields) VALUES (?, jsonb(?))`)
    .run(id, row.fields);
  insertFtsRow(connection, tables.fts, id, row);
  return id;
}

/** The full-text row of a document: its words, stems, keys and labels. */
export function insertFtsRow(
  connection: IndexConnection,
  fts: string,
  id: number,
  row: Pick<DocumentRow, "document" | "stems" | "keys">,
): void {
  const labels = row.document[LABELS_FIELD];
  connection.sql(`INSERT INTO ${fts} (rowid, text, stems, keys, labels) VALUES (?, ?, ?, ?, ?)`)
    .run(id, row.document.text, row.stems, row.keys, typeof labels === "string" ? labels : null);
}

/** Removes one document; its id, or undefined when there was none. */
export function removeDocument(
  connection: IndexConnection,
  tables: IndexTables,
  uri: string,
): number | undefined {
  const sql = (text: string) => connection.sql(text);
  const existing = sql(`SELECT id FROM ${tables.docs} WHERE uri = ?`).get(uri) as
    | { id: number }
    | undefined;
  if (!existing) return undefined;
  sql(`DELETE FROM ${tables.fts} WHERE rowid = ?`).run(existing.id);
  sql(`DELETE FROM ${tables.fields} WHERE id = ?`).run(existing.id);
  sql(`DELETE FROM ${tables.docs} WHERE id = ?`).run(existing.id);
  return existing.id;
}
