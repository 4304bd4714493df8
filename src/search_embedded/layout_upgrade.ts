/**
 * Brings the full-text table of every physical index written in an older layout
 * (`index_tables.ts` `INDEX_LAYOUT`) to the current one, at the engine's start: the table is
 * contentless, so a new one is filled from what the index keeps beside it (each document and
 * its flat fields), then takes the old one's name. One write transaction per index; engines
 * on other connections that start at the same time find the work done and skip it.
 *
 * Documents keep what they were built with: one written before the item's labels were part
 * of a document is found by its words, folded, at once, and by its labels once it is indexed
 * again (an indexing job).
 */
import type { SearchDocument } from "../search/search_engine.ts";
import { storedDocument } from "./document_rows.ts";
import { insertFtsRow } from "./document_rows.ts";
import { type FieldValue, keyTokens } from "./field_keys.ts";
import { stemText } from "./fts_query.ts";
import { createFtsTableSql, INDEX_LAYOUT, indexTables } from "./index_tables.ts";
import type { IndexConnection } from "./index_connection.ts";
import { log } from "../log/logger.ts";

/** Upgrades every index of an older layout; true when one was. */
export function upgradeLayouts(connection: IndexConnection): boolean {
  const older = () =>
    connection.db.prepare(
      "SELECT name, tables FROM search_physical_indices WHERE layout < ? AND tables IS NOT NULL",
    ).all(INDEX_LAYOUT) as { name: string; tables: number }[];
  if (older().length === 0) return false;
  connection.write(() => {
    for (const { name, tables: n } of older()) {
      // Minutes at 250,000 documents, once, before the service listens: say so.
      const started = performance.now();
      log("info", "search index: bringing the full-text table to the current layout", {
        index: name,
        toLayout: INDEX_LAYOUT,
      });
      const tables = indexTables(n);
      const fresh = `${tables.fts}_upgrade`;
      connection.db.exec(`DROP TABLE IF EXISTS ${fresh}; ${createFtsTableSql(fresh)}`);
      const rows = connection.db.prepare(
        `SELECT d.id AS id, d.document AS document, json(x.fields) AS fields ` +
          `FROM ${tables.docs} d JOIN ${tables.fields} x ON x.id = d.id`,
      ).iterate() as Iterable<{ id: number; document: Uint8Array; fields: string }>;
      for (const row of rows) {
        const document: SearchDocument = storedDocument(row.document);
        insertFtsRow(connection, fresh, row.id, {
          document,
          stems: stemText(document) ?? null,
          keys: keyTokens(valuesOf(row.fields)),
        });
      }
      connection.db.exec(`DROP TABLE ${tables.fts}; ALTER TABLE ${fresh} RENAME TO ${tables.fts};`);
      connection.db.prepare("UPDATE search_physical_indices SET layout = ? WHERE name = ?")
        .run(INDEX_LAYOUT, name);
      log("info", "search index: layout upgraded", {
        index: name,
        durationMs: Math.round(performance.now() - started),
      });
    }
  });
  connection.forgetAllStatements();
  return true;
}

/** The scalars of a flat fields object (`field_keys.ts` `flatFields`), as they were kept. */
function valuesOf(fields: string): FieldValue[] {
  const flat = JSON.parse(fields) as Record<string, (string | number | boolean)[]>;
  return Object.entries(flat).flatMap(([path, values]) => values.map((value) => ({ path, value })));
}
