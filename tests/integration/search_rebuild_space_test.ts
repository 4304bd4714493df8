/**
 * A `clear=true` rebuild on the embedded engine gives the old index's pages back: in a file
 * created by this version (incremental auto-vacuum), the file is no larger after a rebuild of
 * the same documents than before it, and holds no free pages.
 */
import { strict as assert } from "node:assert";
import type { DatabaseSync } from "node:sqlite";
import { openLocalDatabase } from "../../src/local_database.ts";
import { LOCAL_DB_FILE } from "../../src/sqlite/local_db.ts";
import { EmbeddedSearchEngine } from "../../src/search_embedded/embedded_search_engine.ts";
import type { SearchDocument } from "../../src/search/search_engine.ts";

/** An engine on `db` with small limits and no clamp warnings. */
function quietEngine(db: DatabaseSync): EmbeddedSearchEngine {
  return new EmbeddedSearchEngine(db, {
    limits: { maxResultsLimit: 100, maxWindow: 100, trackTotalHits: 10_000 },
    warn: () => {},
  });
}

Deno.test("embedded search: a rebuild leaves the file no larger than before it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rcs-rebuild-space-" });
  const db = openLocalDatabase(dir);
  try {
    const engine = quietEngine(db);
    const ref = { collection: "c", indexName: "space" };
    const documents: SearchDocument[] = Array.from({ length: 2000 }, (_, n) => ({
      uri: `urn:x:${n}`,
      collection: "c",
      workspace: "w",
      types: ["urn:T"],
      hash: String(n),
      modified: "m",
      title: `title ${n} ${"word ".repeat(n % 50)}`,
      text: `title ${n} ${"word ".repeat(n % 50)}`,
    }));
    await engine.upsert(ref, documents);
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    const size = () => Deno.statSync(`${dir}/${LOCAL_DB_FILE}`).size;
    const before = size();
    for (let round = 0; round < 2; round++) {
      const target = await engine.beginRebuild(ref);
      await engine.upsert(target, documents);
      await engine.commitRebuild(target);
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      assert.ok(size() <= before, `after rebuild ${round + 1}: ${size()} bytes, ${before} before`);
      const free = db.prepare("PRAGMA freelist_count").get() as { freelist_count: number };
      assert.equal(free.freelist_count, 0);
    }
    assert.equal((await engine.search(ref, { q: "title" })).total, 2000);
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("embedded search: a rebuild's full-text segments are merged into one before it serves", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rcs-rebuild-compact-" });
  const db = openLocalDatabase(dir);
  try {
    const engine = quietEngine(db);
    const ref = { collection: "c", indexName: "compact" };
    const target = await engine.beginRebuild(ref);
    // Forty batches, as a job writes them: a segment each.
    for (let batch = 0; batch < 40; batch++) {
      await engine.upsert(
        target,
        Array.from({ length: 50 }, (_, i): SearchDocument => {
          const n = batch * 50 + i;
          const text = `title ${n} colour${n % 7} ${"word ".repeat(n % 20)}`;
          return {
            uri: `urn:x:${n}`,
            collection: "c",
            workspace: "w",
            types: [],
            hash: String(n),
            modified: "m",
            text,
          };
        }),
      );
    }
    const { tables } = db.prepare("SELECT tables FROM search_physical_indices WHERE name = ?")
      .get(target.physicalName) as { tables: number };
    const fts = `search_fts_${tables}`;
    // What is left to merge: the rows one more full merge step changes (fewer than 2: nothing).
    const leftToMerge = () => {
      const changes = () => (db.prepare("SELECT total_changes() AS n").get() as { n: number }).n;
      const before = changes();
      db.prepare(`INSERT INTO ${fts}(${fts}, rank) VALUES ('merge', -100000)`).run();
      return changes() - before;
    };
    db.exec("SAVEPOINT probe");
    assert.ok(leftToMerge() >= 2, "the batches left several segments");
    db.exec("ROLLBACK TO probe; RELEASE probe");
    await engine.commitRebuild(target);
    assert.ok(leftToMerge() < 2, "segments left to merge after the commit");
    assert.equal((await engine.search(ref, { q: "colour3" })).total, 286);
    assert.equal((await engine.search(ref, { size: 0 })).total, 2000);
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});
