/**
 * A file whose embedded search index was written in the first layout (schema migration 5: one
 * shared documents table, a row per field value, two shared FTS5 tables) is upgraded at the
 * first start of this version: each index is copied into tables of its own with its typed
 * values (numeric strings coerced by the mappings stay numbers), then the shared tables go.
 */
import { strict as assert } from "node:assert";
import { LOCAL_MIGRATIONS, openLocalDatabase } from "../../src/local_database.ts";
import { openMigratedDatabase } from "../../src/sqlite/local_db.ts";
import { EmbeddedSearchEngine } from "../../src/search_embedded/embedded_search_engine.ts";

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
