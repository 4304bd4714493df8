/**
 * Who copies the SQLite file's write-ahead log back into the file (a checkpoint).
 *
 * SQLite runs a checkpoint on the connection whose commit takes the log past
 * `wal_autocheckpoint` pages (1,000 by default), inside that commit's call: on the request
 * thread, the store's group commit then copies the log and syncs the file while requests
 * wait (measured: a third of the request thread's commit time under 16 writing clients).
 * When indexing workers write the same file on connections of their own, they keep the
 * default and take the checkpoints; the request thread's connection only checkpoints when
 * the log has grown far past it, so the log stays bounded when no worker writes (an outbox
 * with nothing to index, workers stopped).
 *
 * A full disk breaks that split: the workers' commits fail, so they take no checkpoints,
 * and once space is freed the request thread's writes grow the log into it until the disk
 * is full again, for good: a checkpoint needs room to grow the file, and the log holds it
 * all (measured on a 12 MB data directory: the log took all of it, the index never caught
 * up). So a connection refused for a full disk takes its own checkpoints until a while
 * after writes work again ({@link takeOwnCheckpoints}), and every connection cuts the log
 * file back to {@link KEPT_LOG_BYTES} when it starts over, which gives a burst's space back.
 */
import type { DatabaseSync } from "node:sqlite";

/** The log's size, in pages, at which a connection that leaves checkpoints to others still runs one: 64 MiB of 4 KiB pages. */
export const FALLBACK_CHECKPOINT_PAGES = 16_384;

/**
 * Leaves the log's checkpoints to the file's other writing connections; `db` itself
 * checkpoints only once the log holds `fallbackPages` pages.
 */
export function leaveCheckpointsToOthers(
  db: DatabaseSync,
  fallbackPages = FALLBACK_CHECKPOINT_PAGES,
): void {
  db.exec(`PRAGMA wal_autocheckpoint = ${Math.max(1, Math.floor(fallbackPages))}`);
}

/** The log's size, in pages, at which `db`'s commits run a checkpoint. */
export function checkpointPages(db: DatabaseSync): number {
  const row = db.prepare("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number };
  return row.wal_autocheckpoint;
}

/** What is left of the log file on disk when it starts over (`journal_size_limit`): 4 MiB. */
export const KEPT_LOG_BYTES = 4 * 1024 * 1024;

/** SQLite's own `wal_autocheckpoint`, in pages. */
export const SQLITE_CHECKPOINT_PAGES = 1000;
/** How long after a full disk is freed a connection still takes its own checkpoints. */
export const OWN_CHECKPOINTS_AFTER_FULL_MS = 60_000;

/** The setting a connection had before a full disk made it take its own checkpoints. */
const leftToOthers = new WeakMap<
  DatabaseSync,
  { pages: number; restore?: ReturnType<typeof setTimeout> }
>();

/**
 * A write on `db` was refused for a full disk: from now on `db` takes its own checkpoints
 * at SQLite's default, so that once space is freed its commits copy the log back and start
 * it over instead of growing it into the freed space.
 */
export function takeOwnCheckpoints(db: DatabaseSync): void {
  const held = leftToOthers.get(db);
  if (held) {
    clearTimeout(held.restore);
    held.restore = undefined;
    return;
  }
  const pages = checkpointPages(db);
  if (pages <= SQLITE_CHECKPOINT_PAGES) return;
  leftToOthers.set(db, { pages });
  db.exec(`PRAGMA wal_autocheckpoint = ${SQLITE_CHECKPOINT_PAGES}`);
}

/**
 * Writes on `db` work again: after `afterMs` (long enough for the indexing workers to take
 * over again), `db` leaves its checkpoints to others as before {@link takeOwnCheckpoints}.
 */
export function leaveCheckpointsAgain(
  db: DatabaseSync,
  afterMs = OWN_CHECKPOINTS_AFTER_FULL_MS,
): void {
  const held = leftToOthers.get(db);
  if (!held || held.restore !== undefined) return;
  const restore = setTimeout(() => {
    leftToOthers.delete(db);
    if (db.isOpen) leaveCheckpointsToOthers(db, held.pages);
  }, afterMs);
  held.restore = restore;
  Deno.unrefTimer(restore);
}
