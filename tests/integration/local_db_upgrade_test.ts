/**
 * A database written before the schema became one migration list (version 4, the embedded
 * search engine's tables made unversioned, or absent where OpenSearch was used) opens with
 * this code: it is brought to SCHEMA_VERSION and every row written before is still read by
 * the real store, search engine and job stores.
 */
import { strict as assert } from "node:assert";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { DataFactory } from "n3";
import { LOCAL_MIGRATIONS, openLocalDatabase, SCHEMA_VERSION } from "../../src/local_database.ts";
import { LOCAL_DB_FILE, openMigratedDatabase } from "../../src/sqlite/local_db.ts";
import { EmbeddedTripleStore } from "../../src/store_embedded/embedded_triple_store.ts";
import { ITEM_VERSIONS_MIGRATION } from "../../src/store_embedded/sqlite_item_history.ts";
import { ITEM_CHANGES_MIGRATION } from "../../src/store_embedded/sqlite_change_feed.ts";
import { SqliteWebhookState } from "../../src/webhooks/sqlite_webhook_state.ts";
import { EmbeddedSearchEngine } from "../../src/search_embedded/embedded_search_engine.ts";
import type { SearchDocument } from "../../src/search/search_engine.ts";
import { SqliteJobStore } from "../../src/job_stores/sqlite_job_store.ts";
import { GROUP_COMMIT } from "../support/config_defaults.ts";

const FIXTURE = new URL("../fixtures/local-db/schema-v4.sql", import.meta.url);
const COLLECTION = "https://data.example.org/collection/upgrade";
const ITEM = "https://data.example.org/id/upgrade/1";
const LIMITS = { maxResultsLimit: 100, maxWindow: 10_000, trackTotalHits: 10_000 };
const REF = { collection: COLLECTION, indexName: "upgrade-test" };

/**
 * Opens a file at schema `version` (14 or below) for today's store to write as the code of then
 * did: the store records versions and changes, so the tables of later releases are there while
 * it writes and are dropped after, leaving the file as that release wrote it.
 */
function olderFile(dir: string, version: number): { db: DatabaseSync; done: () => void } {
  const db = openMigratedDatabase(dir, LOCAL_MIGRATIONS.filter((m) => m.version <= version));
  const later = [ITEM_VERSIONS_MIGRATION, ITEM_CHANGES_MIGRATION].filter((m) =>
    m.version > version
  );
  for (const migration of later) db.exec(migration.sql);
  return {
    db,
    done: () => {
      if (version < 13) db.exec("DROP TABLE item_versions");
      if (version < 14) db.exec("DROP TABLE item_changes; DROP TABLE change_horizons");
      db.close();
    },
  };
}

/** A file at schema version `schema` (12 or above) holding one item written as that release did. */
async function olderFileWithItem(dir: string, schema: number): Promise<void> {
  const { db: old, done } = olderFile(dir, schema);
  assert.equal(version(old), schema);
  const before = new EmbeddedTripleStore(old, join(dir, LOCAL_DB_FILE), GROUP_COMMIT);
  await before.createItem({
    collection: COLLECTION,
    uri: ITEM,
    quads: [quad(namedNode(ITEM), TITLE.predicate, literal("Old"))],
    hash: "h1",
  });
  await before.close();
  done();
}

/** A data directory holding a version-4 file: with the search tables or without. */
async function versionFourFile(withSearchTables: boolean): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "rcs-upgrade-" });
  const sql = await Deno.readTextFile(FIXTURE);
  const db = new DatabaseSync(join(dir, LOCAL_DB_FILE));
  db.exec(withSearchTables ? sql : sql.slice(0, sql.indexOf("-- search:")));
  db.close();
  return dir;
}

function version(db: DatabaseSync): number {
  return (db.prepare("SELECT max(version) AS v FROM schema_version").get() as { v: number }).v;
}

const { namedNode, literal, quad } = DataFactory;
const TITLE = quad(
  namedNode(ITEM),
  namedNode("http://purl.org/dc/terms/title"),
  literal("Upgraded fox", "en"),
);

const PART = "https://example.org/part";
const NOTE = "https://example.org/note";

const DOCUMENT: SearchDocument = {
  uri: ITEM,
  collection: COLLECTION,
  workspace: "https://data.example.org/workspace",
  types: [],
  hash: "0".repeat(64),
  modified: "2025-01-01T00:00:00.000Z",
  text: "Upgraded fox",
};

Deno.test("a version-4 file with the embedded search tables upgrades with its data", async () => {
  const dir = await versionFourFile(true);
  try {
    // Written at version 4, with the tables as the code of then laid them out.
    const old = new DatabaseSync(join(dir, LOCAL_DB_FILE));
    // Migration 1's text triples, as the store of then wrote them (N3.js term ids).
    const { id } = old.prepare(
      `INSERT INTO items (collection, uri, hash, triple_count, created, modified)
       VALUES (?, ?, 'h1', 3, '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z') RETURNING id`,
    ).get(COLLECTION, ITEM) as { id: number };
    const insert = old.prepare("INSERT INTO triples (item_id, s, p, o) VALUES (?, ?, ?, ?)");
    insert.run(id, ITEM, TITLE.predicate.value, '"Upgraded fox"@en');
    insert.run(id, ITEM, PART, "_:b0");
    insert.run(id, "_:b0", NOTE, '"nul\u0000inside"');
    // The search index as the engine of then wrote it (shared tables, one row per field).
    old.prepare("INSERT INTO search_physical_indices VALUES (?, ?, 'serving', 'now')")
      .run(`${REF.indexName}-1`, REF.indexName);
    old.prepare("INSERT INTO search_aliases VALUES (?, ?)").run(
      REF.indexName,
      `${REF.indexName}-1`,
    );
    old.prepare("INSERT INTO search_documents VALUES (1, ?, ?, ?)")
      .run(`${REF.indexName}-1`, ITEM, JSON.stringify(DOCUMENT));
    old.prepare("INSERT INTO search_text (rowid, text) VALUES (1, ?)").run(DOCUMENT.text);
    old.prepare(
      `INSERT INTO index_jobs (id, scope_type, scope_uri, clear, state, started_at, finished_at)
       VALUES ('job-1', 'collection', ?, 0, 'succeeded', '2025-01-01T00:00:00Z',
         '2025-01-01T00:01:00Z')`,
    ).run(COLLECTION);
    const outbox = (old.prepare("SELECT count(*) AS n FROM index_outbox").get() as { n: number })
      .n;
    assert.equal(version(old), 4);
    old.close();

    const db = openLocalDatabase(dir);
    try {
      assert.equal(version(db), SCHEMA_VERSION);
      const store = new EmbeddedTripleStore(db, undefined, GROUP_COMMIT);
      const read = await store.readItem(COLLECTION, ITEM);
      assert.equal(read.record.hash, "h1");
      const quads = [];
      for await (const q of read.quads) quads.push(q);
      assert.equal(quads.length, 3);
      assert.ok(quads.some((q) => q.equals(TITLE)));
      const blank = quads.find((q) => q.predicate.value === PART)!.object;
      const note = quads.find((q) => q.predicate.value === NOTE)!;
      assert.ok(note.subject.equals(blank), "the blank node is one node after the upgrade");
      assert.equal(note.object.value, "nul\u0000inside");
      // The converted quads answer SPARQL; the item's blank node is the one node.
      const answer = await store.query(
        `SELECT ?note WHERE { GRAPH <${ITEM}> { <${ITEM}> <${PART}> ?part . ?part <${NOTE}> ?note } }`,
        { limit: 10, timeoutMs: 10_000 },
      );
      assert.equal(answer.kind, "bindings");
      if (answer.kind === "bindings") {
        assert.equal(answer.rows.length, 1);
        assert.equal(answer.rows[0].get("note")?.value, "nul\u0000inside");
      }
      await store.close();
      assert.equal(
        (db.prepare("SELECT count(*) AS n FROM index_outbox").get() as { n: number }).n,
        outbox,
      );
      const engine = new EmbeddedSearchEngine(db, { limits: LIMITS, warn: () => {} });
      const found = await engine.search(REF, { q: "fox" });
      assert.deepEqual(found.hits.map((hit) => hit.document), [DOCUMENT]);
      await engine.close();
      const job = await new SqliteJobStore(db).get("job-1");
      assert.equal(job?.state, "succeeded");
    } finally {
      db.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a version-4 file without the search tables gets them", async () => {
  const dir = await versionFourFile(false);
  try {
    const db = openLocalDatabase(dir);
    try {
      assert.equal(version(db), SCHEMA_VERSION);
      const engine = new EmbeddedSearchEngine(db, { limits: LIMITS, warn: () => {} });
      await engine.ensureIndex(REF);
      await engine.upsert(REF, [DOCUMENT]);
      await engine.refresh(REF);
      assert.equal((await engine.search(REF, { q: "fox" })).total, 1);
      await engine.close();
    } finally {
      db.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a version-11 file (the release before items were keyed by collection) keeps every item", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rcs-upgrade-11-" });
  const OTHER = "https://data.example.org/collection/other";
  const blank = DataFactory.blankNode("b0");
  const graphOf = (n: number) => [
    quad(namedNode(`${ITEM}-${n}`), TITLE.predicate, literal(`Item ${n}`, "en-GB")),
    quad(namedNode(`${ITEM}-${n}`), namedNode(PART), blank),
    quad(blank, namedNode(NOTE), literal(`note ${n}`)),
  ];
  try {
    // Written by the store on the schema of then (migration 1's `uri UNIQUE` in force).
    const { db: old, done } = olderFile(dir, 11);
    assert.equal(version(old), 11);
    const before = new EmbeddedTripleStore(old, join(dir, LOCAL_DB_FILE), GROUP_COMMIT);
    for (let n = 1; n <= 3; n++) {
      await before.createItem({
        collection: n === 3 ? OTHER : COLLECTION,
        uri: `${ITEM}-${n}`,
        quads: graphOf(n),
        hash: `h${n}`,
      });
    }
    await assert.rejects(
      before.createItem({ collection: OTHER, uri: `${ITEM}-1`, quads: graphOf(1), hash: "x" }),
      /UNIQUE constraint failed: items.uri/, // the schema of then
    );
    await before.close();
    done();

    const db = openLocalDatabase(dir);
    try {
      assert.equal(version(db), SCHEMA_VERSION);
      const store = new EmbeddedTripleStore(db, join(dir, LOCAL_DB_FILE), GROUP_COMMIT);
      const listed = [];
      for await (const record of store.listItems(COLLECTION)) listed.push(record.uri);
      assert.deepEqual(listed, [`${ITEM}-1`, `${ITEM}-2`]);
      for (let n = 1; n <= 3; n++) {
        const read = await store.readItem(n === 3 ? OTHER : COLLECTION, `${ITEM}-${n}`);
        assert.equal(read.record.hash, `h${n}`);
        const quads = [];
        for await (const q of read.quads) quads.push(q);
        assert.equal(quads.length, 3);
        assert.ok(quads.some((q) => q.object.value === `note ${n}`));
      }
      // Now the same IRI may be an item of a second collection, in a graph of its own.
      const second = [quad(namedNode(`${ITEM}-1`), TITLE.predicate, literal("Second copy"))];
      await store.createItem({ collection: OTHER, uri: `${ITEM}-1`, quads: second, hash: "h1b" });
      assert.equal((await store.getItem(OTHER, `${ITEM}-1`))?.hash, "h1b");
      assert.equal((await store.getItem(COLLECTION, `${ITEM}-1`))?.hash, "h1");
      // The upgraded item kept its graph name (the IRI); the new one is named apart.
      const answer = await store.query(
        `SELECT ?g ?title WHERE { GRAPH ?g { <${ITEM}-1> <${TITLE.predicate.value}> ?title } }`,
        { limit: 10, timeoutMs: 10_000 },
      );
      assert.equal(answer.kind, "bindings");
      if (answer.kind === "bindings") {
        const graphs = Object.fromEntries(
          answer.rows.map((row) => [row.get("title")!.value, row.get("g")!.value]),
        );
        assert.deepEqual(Object.keys(graphs).sort(), ["Item 1", "Second copy"]);
        assert.equal(graphs["Item 1"], `${ITEM}-1`);
        assert.match(graphs["Second copy"], /^urn:rdf-content-service:item:/);
      }
      await store.close();
    } finally {
      db.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a version-12 file (the release before item history) keeps its items; their history starts at the next write", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rcs-upgrade-12-" });
  const path = join(dir, LOCAL_DB_FILE);
  const titled = (title: string) => [quad(namedNode(ITEM), TITLE.predicate, literal(title))];
  try {
    await olderFileWithItem(dir, 12);
    const plain = new DatabaseSync(path);
    const tables = plain.prepare("SELECT name FROM sqlite_master WHERE name = 'item_versions'");
    assert.equal(tables.all().length, 0, "a version-12 file has no history table");
    plain.close();

    const db = openLocalDatabase(dir);
    try {
      assert.equal(version(db), SCHEMA_VERSION);
      const store = new EmbeddedTripleStore(db, path, GROUP_COMMIT);
      assert.equal((await store.getItem(COLLECTION, ITEM))?.hash, "h1");
      // Written before history was kept: no version of it is known.
      assert.deepEqual(await store.history.list(COLLECTION, ITEM, { limit: 10 }), []);
      assert.equal(await store.history.latest(COLLECTION, ITEM), undefined);
      await store.replaceItem({
        collection: COLLECTION,
        uri: ITEM,
        quads: titled("New"),
        hash: "h2",
        principal: "token:e",
      });
      await store.deleteItem(COLLECTION, ITEM, {}, { principal: "user:ann" });
      const versions = await store.history.list(COLLECTION, ITEM, { limit: 10 });
      assert.deepEqual(
        versions.map((v) => [v.version, v.operation, v.hash, v.principal, v.tripleCount]),
        [[2, "delete", null, "user:ann", 0], [1, "update", "h2", "token:e", 1]],
      );
      const first = await store.history.read(COLLECTION, ITEM, 1);
      assert.deepEqual(first?.quads.map((q) => q.object.value), ["New"]);
      await store.close();
    } finally {
      db.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a version-13 file (the release before the change feed) keeps items and history; the feed starts at the next write", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rcs-upgrade-13-" });
  const path = join(dir, LOCAL_DB_FILE);
  const titled = (title: string) => [quad(namedNode(ITEM), TITLE.predicate, literal(title))];
  try {
    await olderFileWithItem(dir, 13);

    const db = openLocalDatabase(dir);
    try {
      assert.equal(version(db), SCHEMA_VERSION);
      const store = new EmbeddedTripleStore(db, path, GROUP_COMMIT);
      assert.equal((await store.getItem(COLLECTION, ITEM))?.hash, "h1");
      const history = await store.history.list(COLLECTION, ITEM, { limit: 10 });
      assert.deepEqual(history.map((v) => [v.version, v.operation, v.hash]), [[1, "create", "h1"]]);
      // Written before the feed was kept: not in it; the next write is.
      assert.deepEqual((await store.changes.read(COLLECTION, undefined, 10)).changes, []);
      await store.replaceItem({
        collection: COLLECTION,
        uri: ITEM,
        quads: titled("New"),
        hash: "h2",
        principal: "token:e",
      });
      const { changes } = await store.changes.read(COLLECTION, undefined, 10);
      assert.deepEqual(
        changes.map((c) => [c.item, c.operation, c.etag, c.principal]),
        [[ITEM, "updated", "h2", "token:e"]],
      );
      await store.close();
    } finally {
      db.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a version-14 file (the release before webhooks) keeps its feed; a webhook starts after it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rcs-upgrade-14-" });
  const path = join(dir, LOCAL_DB_FILE);
  const titled = (title: string) => [quad(namedNode(ITEM), TITLE.predicate, literal(title))];
  const hook = { collection: COLLECTION, url: "https://hooks.example.org/in" };
  try {
    await olderFileWithItem(dir, 14);
    const plain = new DatabaseSync(path);
    const tables = plain.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'webhook_%'");
    assert.equal(tables.all().length, 0, "a version-14 file has no webhook tables");
    plain.close();

    const db = openLocalDatabase(dir);
    try {
      assert.equal(version(db), SCHEMA_VERSION);
      const store = new EmbeddedTripleStore(db, path, GROUP_COMMIT);
      const kept = (await store.changes.read(COLLECTION, undefined, 10)).changes;
      assert.deepEqual(kept.map((c) => [c.item, c.operation]), [[ITEM, "created"]]);
      // An endpoint configured now starts at the feed's end: what was written before the
      // upgrade is not sent to it, the next write is.
      const state = new SqliteWebhookState(db);
      const opened = await state.open(hook, () => store.changes.end(COLLECTION));
      assert.equal(opened.position, kept[0].cursor);
      assert.deepEqual((await store.changes.read(COLLECTION, opened.position, 10)).changes, []);
      await store.replaceItem({
        collection: COLLECTION,
        uri: ITEM,
        quads: titled("New"),
        hash: "h2",
        principal: "token:e",
      });
      const due = (await store.changes.read(COLLECTION, opened.position, 10)).changes;
      assert.deepEqual(due.map((c) => c.operation), ["updated"]);
      const at = new Date().toISOString();
      await state.delivered(hook, { change: due[0] }, { at, status: 204, error: null });
      const [after] = await state.states();
      assert.equal(after.position, due[0].cursor);
      assert.deepEqual(after.last, { at, status: 204, error: null });
      await store.close();
    } finally {
      db.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("migrations are applied once, in order; a gap or a clash is refused", () => {
  const all = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
  assert.deepEqual(LOCAL_MIGRATIONS.map((m) => m.version), all);
  assert.equal(SCHEMA_VERSION, LOCAL_MIGRATIONS.length);
  const db = openLocalDatabase(":memory:");
  const rows = db.prepare("SELECT version FROM schema_version ORDER BY version").all();
  assert.deepEqual(rows.map((row) => row.version), all);
  db.close();
  const clash = [...LOCAL_MIGRATIONS, { ...LOCAL_MIGRATIONS[0] }];
  assert.throws(() => openMigratedDatabase(":memory:", clash), /out of sequence/);
  const gap = LOCAL_MIGRATIONS.filter((m) => m.version !== 3);
  assert.throws(() => openMigratedDatabase(":memory:", gap), /out of sequence/);
});
