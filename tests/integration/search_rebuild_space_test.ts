/**
 * A `clear=true` rebuild on the embedded engine gives the old index's pages back: in a file
 * created by this version (incremental auto-vacuum), the file is no larger after a rebuild of
 * the same documents than before it, and holds no free pages.
 */
import { strict as assert } from "node:assert";
import { openLocalDatabase } from "../../src/local_database.ts";
import { LOCAL_DB_FILE } from "../../src/sqlite/local_db.ts";
import { EmbeddedSearchEngine } from "../../src/search_embedded/embedded_search_engine.ts";
import type { SearchDocument } from "../../src/search/search_engine.ts";

Deno.test("embedded search: a rebuild leaves the file no larger than before it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rcs-rebuild-space-" });
  const db = openLocalDatabase(dir);
  try {
    const engine = new EmbeddedSearchEngine(db, {
      limits: { maxResultsLimit: 100, maxWindow: 100, trackTotalHits: 10_000 },
      warn: () => {},
    });
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
