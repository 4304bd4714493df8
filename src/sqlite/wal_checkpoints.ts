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
