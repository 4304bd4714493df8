/**
 * A file whose embedded search index was written in the first layout (schema migration 5: one
 * shared documents table, a row per field value, two shared FTS5 tables) is upgraded at the
 * first start of this version: each index is copied into tables of its own with its typed
 * values (numeric strings coerced by the mappings stay numbers), then the shared tables go.
 * One written in layout 1 (no folding, no labels) is brought to the current layout.
 */
import { strict as assert } from "node:assert";
import { LOCAL_MIGRATIONS, openLocalDatabase } from "../../src/local_database.ts";
import { openMigratedDatabase } from "../../src/sqlite/local_db.ts";
import { deflateRawSync } from "node:zlib";
import { EmbeddedSearchEngine } from "../../src/search_embedded/embedded_search_engine.ts";
import { fieldValues, flatFields, keyTokens } from "../../src/search_embedded/field_keys.ts";
import { INDEX_LAYOUT } from "../../src/search_embedded/index_tables.ts";

Deno.test("embedded search: an index of the first layout is copied into its own tables", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rcs-search-upgrade-" });
  try {
    const old = openMigratedDatabase(dir, LOCAL_MIGRATIONS.filter((step) => step.version <= 5));
    const document = {
      uri: "urn:x:1",
      collection: "c",
      workspace: "w",
      types: ["urn:T"],
      hash: "h",
      modified: "m",
      pages: "42",
      open: true,
      text: "hello world",
      text_en: "running dogs",
    };
    old.exec(`
      INSERT INTO search_physical_indices VALUES ('legacy-1', 'legacy', 'serving', 'now');
      INSERT INTO search_aliases VALUES ('legacy', 'legacy-1');`);
    old.prepare("INSERT INTO search_documents VALUES (7, 'legacy-1', 'urn:x:1', ?)")
      .run(JSON.stringify(document));
    const field = old.prepare("INSERT INTO search_fields VALUES (7, ?, ?, ?, ?)");
    field.run("pages", 42, "n", "42");
    field.run("open", 1, "b", "true");
    field.run("types", "urn:T", "s", "urn:T");
    old.exec(`INSERT INTO search_text (rowid, text) VALUES (7, 'hello world');
      INSERT INTO search_stems (rowid, stems) VALUES (7, 'enrun endog');`);
    old.close();

    const db = openLocalDatabase(dir);
    try {
      const engine = new EmbeddedSearchEngine(db, {
        limits: { maxResultsLimit: 100, maxWindow: 100, trackTotalHits: 10_000 },
        warn: () => {},
      });
      const ref = { collection: "c", indexName: "legacy" };
      const found = await engine.search(ref, { q: "runs", facets: ["pages", "open"] });
      assert.deepEqual(found.hits.map((hit) => hit.document), [document]);
      assert.deepEqual(found.facets, {
        pages: [{ value: 42, count: 1 }],
        open: [{ value: true, count: 1 }],
      });
      assert.equal(
        (await engine.search(ref, { filters: [{ field: "pages", value: "42" }] })).total,
        1,
      );
      assert.equal(
        (await engine.search(ref, { ranges: [{ field: "pages", gte: "40" }] })).total,
        1,
      );
      const tables = db.prepare(
        "SELECT name FROM sqlite_schema WHERE name IN ('search_documents', 'search_fields')",
      ).all();
      assert.deepEqual(tables, [], "the shared tables are gone");
    } finally {
      db.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * An index written before the full-text table folded diacritics and held labels (layout 1,
 * before schema migration 11) is brought to the current layout at the engine's start: its
 * words, stems and field keys come back from the documents and fields kept beside it.
 */
Deno.test("embedded search: an index of layout 1 answers folded words after the upgrade", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rcs-search-layout-" });
  try {
    const old = openMigratedDatabase(dir, LOCAL_MIGRATIONS.filter((step) => step.version <= 10));
    const document = {
      uri: "urn:x:1",
      collection: "c",
      workspace: "w",
      types: ["urn:T"],
      hash: "h",
      modified: "2025-01-01T00:00:00.000Z",
      genre: "Sada",
      text: "Datová sada",
      text_en: "running dogs",
    };
    old.exec(`
      INSERT INTO search_physical_indices (name, alias, state, created, tables)
        VALUES ('old-1', 'old', 'serving', 'now', 1);
      INSERT INTO search_aliases VALUES ('old', 'old-1');
      CREATE TABLE search_docs_1 (id INTEGER PRIMARY KEY, uri TEXT NOT NULL UNIQUE,
        document BLOB NOT NULL);
      CREATE TABLE search_fields_1 (id INTEGER PRIMARY KEY, fields BLOB NOT NULL);
      CREATE VIRTUAL TABLE search_fts_1 USING fts5 (text, stems, keys, content = '',
        contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0');`);
    const values = fieldValues(document);
    old.prepare("INSERT INTO search_docs_1 VALUES (4, 'urn:x:1', ?)")
      .run(deflateRawSync(JSON.stringify(document)));
    old.prepare("INSERT INTO search_fields_1 VALUES (4, jsonb(?))").run(flatFields(values));
    old.prepare("INSERT INTO search_fts_1 (rowid, text, stems, keys) VALUES (4, ?, ?, ?)")
      .run(document.text, "enrun endog", keyTokens(values));
    assert.equal(
      old.prepare("SELECT count(*) AS n FROM search_fts_1 WHERE search_fts_1 MATCH 'datova'")
        .get()!.n,
      0,
      "layout 1 does not fold",
    );
    old.close();

    const db = openLocalDatabase(dir);
    try {
      const engine = new EmbeddedSearchEngine(db, {
        limits: { maxResultsLimit: 100, maxWindow: 100, trackTotalHits: 10_000 },
        warn: () => {},
      });
      const ref = { collection: "c", indexName: "old" };
      const found = await engine.search(ref, { q: "datova" });
      assert.deepEqual(found.hits.map((hit) => hit.document), [document]);
      assert.equal((await engine.search(ref, { q: "dog", language: "en" })).total, 1);
      assert.equal(
        (await engine.search(ref, { filters: [{ field: "genre", value: "Sada" }] })).total,
        1,
      );
      const { layout } = db.prepare("SELECT layout FROM search_physical_indices").get() as {
        layout: number;
      };
      assert.equal(layout, INDEX_LAYOUT);
      // New documents of the upgraded index carry their labels.
      await engine.upsert(ref, [{ ...document, uri: "urn:x:2", labels: "Datová sada" }]);
      assert.equal((await engine.search(ref, { q: "DATOVA SADA" })).hits[0].uri, "urn:x:2");
    } finally {
      db.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
