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
import { OpenSearchEngine } from "../../src/search_opensearch/opensearch_engine.ts";
import { documentId } from "../../src/search_opensearch/bulk_writes.ts";
import {
  INDEX_LAYOUT as OPENSEARCH_LAYOUT,
  indexCreationBody,
} from "../../src/search_opensearch/mappings.ts";
import {
  deleteIndicesWithPrefix,
  OPENSEARCH_DEFAULTS,
  openSearchUrl,
  reportOpenSearchSkipped,
  uniqueIndexPrefix,
} from "../support/opensearch.ts";

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

/**
 * An OpenSearch index created before the layout that folds diacritics and maps the label
 * fields (no `_meta.layout` in its mappings) keeps answering until the engine ensures it or
 * writes to it; then its documents are copied into an index of the current layout, which
 * the alias is swapped to.
 */
const url = openSearchUrl();
if (url === undefined) reportOpenSearchSkipped();
Deno.test({
  name: "OpenSearch: an index of the layout before folding is copied into the current one",
  ignore: url === undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const prefix = uniqueIndexPrefix("layout");
    const alias = `${prefix}old`;
    const physical = `${alias}-19700101000000000`;
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${url}/${path}`, {
        method,
        headers: { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const answer = await response.json();
      assert.ok(response.ok, JSON.stringify(answer));
      return answer;
    };
    const engine = new OpenSearchEngine({
      ...OPENSEARCH_DEFAULTS,
      node: url!,
      limits: { maxResultsLimit: 2, maxWindow: 100, trackTotalHits: 10_000 },
      warn: () => {},
    });
    try {
      // The mappings an earlier version created (no analyser of its own, no `_meta`).
      await call("PUT", physical, {
        mappings: {
          date_detection: false,
          properties: { uri: { type: "keyword" }, text: { type: "text" } },
        },
        aliases: { [alias]: {} },
      });
      const documents = [1, 2, 3].map((n) => ({
        uri: `urn:x:${n}`,
        collection: "c",
        workspace: "w",
        types: [],
        hash: "h",
        modified: "2025-01-01T00:00:00.000Z",
        text: `Datová sada ${n}`,
      }));
      for (const document of documents) {
        await call("PUT", `${physical}/_doc/${documentId(document.uri)}?refresh=true`, document);
      }
      const ref = { collection: "c", indexName: alias };
      assert.equal((await engine.search(ref, { q: "datova" })).total, 0, "not folded yet");

      await engine.ensureIndex(ref);
      // Copied in pages of two (maxResultsLimit): every document, as it was.
      const sort = [{ field: "uri", order: "asc" as const }];
      const first = await engine.search(ref, { q: "datova", sort });
      const second = await engine.search(ref, { q: "datova", sort, from: 2 });
      assert.equal(first.total, 3);
      assert.deepEqual([...first.hits, ...second.hits].map((hit) => hit.document), documents);
      const indices = Object.keys(await call("GET", `${alias}/_alias/${alias}`));
      assert.equal(indices.length, 1);
      assert.notEqual(indices[0], physical, "the old index is gone");
      const mapping = await call("GET", `${alias}/_mapping`);
      assert.equal(mapping[indices[0]].mappings._meta.layout, OPENSEARCH_LAYOUT);
      // Writes reach the upgraded index; a label now weighs.
      await engine.upsert(ref, [{ ...documents[0], uri: "urn:x:9", labels: "Datová sada" }], {
        refresh: true,
      });
      assert.equal((await engine.search(ref, { q: "datova sada" })).hits[0].uri, "urn:x:9");
    } finally {
      await engine.close();
      await deleteIndicesWithPrefix(url!, prefix);
    }
  },
});

/**
 * An OpenSearch index of layout 2 kept a blank node's values as an object under the field's
 * own name, so a field that was an IRI in another document was refused. Upgraded, its
 * documents are copied into layout 3 (objects under `<field>@node`): they read back as they
 * were, a nested path filters as before (also before the upgrade), and a document with the
 * field in both shapes is then indexed.
 */
Deno.test({
  name: "OpenSearch: an index of layout 2 is copied into layout 3, blank nodes beside IRIs",
  ignore: url === undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const prefix = uniqueIndexPrefix("layout2");
    const alias = `${prefix}old`;
    const physical = `${alias}-19700101000000000`;
    const limits = { maxResultsLimit: 2, maxWindow: 100, trackTotalHits: 10_000 };
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${url}/${path}`, {
        method,
        headers: { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const answer = await response.json();
      assert.ok(response.ok, JSON.stringify(answer));
      return answer;
    };
    const engine = new OpenSearchEngine({
      ...OPENSEARCH_DEFAULTS,
      node: url!,
      limits,
      warn: () => {},
    });
    try {
      // The mappings of layout 2: today's, but `_meta.layout` 2.
      const created = indexCreationBody(limits);
      await call("PUT", physical, {
        ...created,
        mappings: { ...created.mappings, _meta: { layout: 2 } },
        aliases: { [alias]: {} },
      });
      const base = {
        collection: "c",
        workspace: "w",
        types: [],
        hash: "h",
        modified: "2025-01-01T00:00:00.000Z",
      };
      const documents = [1, 2, 3].map((n) => ({
        ...base,
        uri: `urn:x:${n}`,
        author: { name: `Author ${n}`, knows: { name: "Ada" } },
        year: 2000 + n,
        text: `Author ${n} Ada`,
      }));
      for (const document of documents) {
        await call("PUT", `${physical}/_doc/${documentId(document.uri)}?refresh=true`, document);
      }
      const ref = { collection: "c", indexName: alias };
      const byName = { filters: [{ field: "author.name", value: "Author 2" }] };
      // Not upgraded yet: the nested path is searched where layout 2 keeps it.
      assert.deepEqual((await engine.search(ref, byName)).hits.map((hit) => hit.uri), [
        "urn:x:2",
      ]);

      await engine.ensureIndex(ref);
      const indices = Object.keys(await call("GET", `${alias}/_alias/${alias}`));
      assert.equal(indices.length, 1);
      assert.notEqual(indices[0], physical, "the old index is gone");
      const mapping = await call("GET", `${alias}/_mapping`);
      const mappings = mapping[indices[0]].mappings;
      assert.equal(mappings._meta.layout, OPENSEARCH_LAYOUT);
      assert.ok("author@node" in mappings.properties, JSON.stringify(mappings.properties));
      assert.ok(!("author" in mappings.properties), "objects left the scalar field's name");
      // Copied in pages of two: every document, read back as it was written.
      const sort = [{ field: "uri", order: "asc" as const }];
      const first = await engine.search(ref, { sort });
      const second = await engine.search(ref, { sort, from: 2 });
      assert.deepEqual([...first.hits, ...second.hits].map((hit) => hit.document), documents);
      assert.deepEqual((await engine.search(ref, byName)).hits.map((hit) => hit.uri), [
        "urn:x:2",
      ]);
      const ada = await engine.search(ref, {
        filters: [{ field: "author.knows.name", value: "Ada" }],
        facets: ["author.knows.name"],
      });
      assert.equal(ada.total, 3);
      assert.deepEqual(ada.facets?.["author.knows.name"], [{ value: "Ada", count: 3 }]);
      // The field as an IRI, and as both, is indexed now.
      const mixed = [
        { ...base, uri: "urn:x:8", author: "urn:person:8", text: "" },
        { ...base, uri: "urn:x:9", author: ["urn:person:9", { name: "Nine" }], text: "" },
      ];
      assert.deepEqual(await engine.upsert(ref, mixed, { refresh: true }), {
        succeeded: 2,
        failed: [],
      });
      const iri = await engine.search(ref, {
        anyOf: [{ field: "author", values: ["urn:person:8", "urn:person:9"] }],
        sort,
      });
      assert.deepEqual(iri.hits.map((hit) => hit.document), mixed);
    } finally {
      await engine.close();
      await deleteIndicesWithPrefix(url!, prefix);
    }
  },
});
