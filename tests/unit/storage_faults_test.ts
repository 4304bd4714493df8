/**
 * src/sqlite/storage_faults.ts: which SQLite failures are storage faults (by SQLite's
 * fixed message for each code), what clients get for them, and that the data directory is
 * named by its name only. The whole path (a full disk under load) is tests/faults/.
 */
import { strict as assert } from "node:assert";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import {
  currentStorageFault,
  noteWriteSucceeded,
  storageFaultOf,
  storageReadiness,
} from "../../src/sqlite/storage_faults.ts";
import { problemOf } from "../../src/http/problem.ts";

Deno.test("SQLite's full and read-only errors are 507 problems naming the directory", async () => {
  const parent = await Deno.makeTempDir({ prefix: "rcs-storage-faults-" });
  const dir = join(parent, "my-data");
  await Deno.mkdir(dir);
  const db = new DatabaseSync(join(dir, "x.db"));
  try {
    const full = storageFaultOf(db, new Error("database or disk is full"));
    assert.ok(full);
    const problem = problemOf(full)!;
    assert.equal(problem.status, 507);
    assert.equal(problem.slug, "storage-full");
    assert.match(problem.message, /"my-data"/);
    assert.ok(!problem.message.includes(parent), "the absolute path is not shown");
    assert.equal(currentStorageFault(db), "full");
    // The directory takes writes again: readiness probes it and clears the fault.
    assert.deepEqual(storageReadiness(db), { ok: true, detail: "writable" });
    assert.equal(currentStorageFault(db), undefined);

    const readOnly = storageFaultOf(db, new Error("attempt to write a readonly database"));
    assert.equal(problemOf(readOnly)!.slug, "storage-read-only");
    assert.equal(problemOf(readOnly)!.status, 507);
    noteWriteSucceeded(db);
    assert.equal(currentStorageFault(db), undefined);

    // Anything else is not a storage fault (a disk I/O error only when the probe says so).
    assert.equal(storageFaultOf(db, new Error("UNIQUE constraint failed: items.uri")), undefined);
    assert.equal(storageFaultOf(db, new Error("disk I/O error")), undefined);
  } finally {
    db.close();
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("an in-memory database has no data directory to blame", () => {
  const db = new DatabaseSync(":memory:");
  try {
    assert.equal(storageFaultOf(db, new Error("database or disk is full")), undefined);
  } finally {
    db.close();
  }
});
