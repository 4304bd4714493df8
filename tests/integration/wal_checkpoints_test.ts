/**
 * What the request thread's connection relies on when it leaves the write-ahead log's
 * checkpoints to the indexing workers (src/sqlite/wal_checkpoints.ts), on real SQLite files:
 * its own commits do not copy the log back into the file; another writing connection's commit
 * does; alone it still checkpoints once the log reaches its fallback size; and after a full
 * disk it takes its own checkpoints until a while after writes work again.
 */
import { strict as assert } from "node:assert";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import {
  checkpointPages,
  FALLBACK_CHECKPOINT_PAGES,
  leaveCheckpointsAgain,
  leaveCheckpointsToOthers,
  SQLITE_CHECKPOINT_PAGES,
  takeOwnCheckpoints,
} from "../../src/sqlite/wal_checkpoints.ts";

const PAGE = 4096;
/** A WAL frame: a page and its header. */
const FRAME = PAGE + 24;

/** A WAL-mode connection on `path`, as the service opens its file (SQLite's default checkpoints). */
function connect(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  db.exec(`PRAGMA page_size = ${PAGE}`);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("CREATE TABLE IF NOT EXISTS t (x BLOB)");
  return db;
}

/** Ten rows of about a page each, in one commit. */
function commitSomePages(db: DatabaseSync): void {
  db.exec("BEGIN IMMEDIATE");
  for (let i = 0; i < 10; i++) db.exec("INSERT INTO t VALUES (randomblob(3500))");
  db.exec("COMMIT");
}

/** A file, its size, and its log's size in frames. */
function files(dir: string) {
  const path = join(dir, "file.db");
  const size = (file: string) => {
    try {
      return Deno.statSync(file).size;
    } catch {
      return 0;
    }
  };
  return {
    path,
    fileBytes: () => size(path),
    walFrames: () => Math.floor(size(`${path}-wal`) / FRAME),
  };
}

Deno.test("wal checkpoints: a connection that leaves them to others does not run them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rcs-wal-" });
  const file = files(dir);
  const requests = connect(file.path);
  const worker = connect(file.path);
  try {
    leaveCheckpointsToOthers(requests, 4000);
    assert.equal(checkpointPages(requests), 4000);
    assert.equal(checkpointPages(worker), 1000, "the other connection keeps SQLite's default");
    const before = file.fileBytes();
    // 200 commits write about 2,200 frames; with SQLite's default the log would have
    // started again from its beginning after 1,000 of them.
    for (let i = 0; i < 200 && file.walFrames() < 1500; i++) commitSomePages(requests);
    assert.ok(file.walFrames() >= 1500, `the log holds only ${file.walFrames()} frames`);
    assert.ok(
      file.fileBytes() - before < 100 * PAGE,
      `the file grew by ${file.fileBytes() - before} bytes: its own commits checkpointed`,
    );

    // The other connection's next commit takes the checkpoint: the rows' pages reach the file
    // (fewer than the frames: each commit writes the table's inner pages again).
    const rows = (requests.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n;
    worker.exec("INSERT INTO t VALUES (1)");
    assert.ok(
      file.fileBytes() - before > rows * 3500,
      `the file grew by only ${file.fileBytes() - before} bytes after the other's commit`,
    );
    // And the log starts again from its beginning instead of growing.
    const frames = file.walFrames();
    for (let i = 0; i < 50; i++) commitSomePages(requests);
    assert.equal(file.walFrames(), frames, "the log kept growing after its checkpoint");
  } finally {
    requests.close();
    worker.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("wal checkpoints: alone, the connection still checkpoints at its fallback size", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rcs-wal-" });
  const file = files(dir);
  const requests = connect(file.path);
  try {
    assert.equal(checkpointPages(requests), 1000);
    leaveCheckpointsToOthers(requests, 2000);
    for (let i = 0; i < 600; i++) commitSomePages(requests);
    // 6,000 pages and more were written; the log never held much more than 2,000.
    assert.ok(file.walFrames() < 2100, `the log holds ${file.walFrames()} frames`);
    assert.ok(file.walFrames() >= 2000, `the log holds only ${file.walFrames()} frames`);
    assert.ok(file.fileBytes() > 4000 * PAGE, "the file did not receive the log's pages");
  } finally {
    requests.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("wal checkpoints: the fallback is 64 MiB of pages, and never zero", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rcs-wal-" });
  const requests = connect(files(dir).path);
  try {
    leaveCheckpointsToOthers(requests);
    assert.equal(checkpointPages(requests) * PAGE, 64 * 1024 * 1024);
    assert.equal(FALLBACK_CHECKPOINT_PAGES, checkpointPages(requests));
    leaveCheckpointsToOthers(requests, 0);
    assert.equal(checkpointPages(requests), 1, "0 would turn checkpoints off altogether");
  } finally {
    requests.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("wal checkpoints: after a full disk the connection takes its own, then leaves them again", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rcs-wal-" });
  const file = files(dir);
  const requests = connect(file.path);
  try {
    leaveCheckpointsToOthers(requests, 4000);
    takeOwnCheckpoints(requests);
    assert.equal(checkpointPages(requests), SQLITE_CHECKPOINT_PAGES);
    // Its own commits now keep the log from growing into freed space.
    for (let i = 0; i < 200; i++) commitSomePages(requests);
    assert.ok(file.walFrames() < 1100, `the log holds ${file.walFrames()} frames`);

    // Writes work again: the setting comes back after the delay, not at once; a new fault
    // meanwhile keeps it.
    leaveCheckpointsAgain(requests, 50);
    takeOwnCheckpoints(requests);
    await new Promise((resolve) => setTimeout(resolve, 120));
    assert.equal(checkpointPages(requests), SQLITE_CHECKPOINT_PAGES, "a new fault keeps them");
    leaveCheckpointsAgain(requests, 50);
    assert.equal(checkpointPages(requests), SQLITE_CHECKPOINT_PAGES);
    await new Promise((resolve) => setTimeout(resolve, 120));
    assert.equal(checkpointPages(requests), 4000, "left to others again");
  } finally {
    requests.close();
    await Deno.remove(dir, { recursive: true });
  }
});
