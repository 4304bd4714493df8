/**
 * Online backup of the service's SQLite file (`--backup DEST`).
 *
 * SQLite's online backup API (`backup()` of `node:sqlite`), in one step (`rate: -1`), copies
 * every page inside one read transaction: in WAL mode that is a consistent snapshot taken
 * while the running service keeps writing, which a file copy of a live database (the main
 * file without its `-wal`) is not. The copy holds everything the file holds: the embedded
 * store's items, the embedded search index, the index outbox and the indexing job history.
 * Not `VACUUM INTO`: it attaches the target as a second database, and Deno allows SQLite to
 * attach databases only to a process with every permission, which neither `deno task backup`
 * nor the compiled executable has ("too many attached databases - max 0").
 *
 * The copy is written beside the destination under a temporary name, checked with
 * `PRAGMA integrity_check`, and only then linked to the destination, so a failed or
 * interrupted backup never leaves a file that looks like a good one, and an existing file
 * is never overwritten.
 */
import { backup, DatabaseSync } from "node:sqlite";
import { existsSync, linkSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { LOCAL_DB_FILE } from "./local_db.ts";

/** What a finished backup wrote. */
export interface BackupReport {
  source: string;
  destination: string;
  bytes: number;
  /** The schema version of the copy: the migrations it has (see local_db.ts). */
  schemaVersion: number;
  items: number;
  integrity: "ok";
  durationMs: number;
}

/** A backup that cannot be made; the message says why and what to do. */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BackupError";
  }
}

/** The value of `--backup DEST` / `--backup=DEST`; undefined when the flag is absent. */
export function backupDestination(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--backup") {
      const value = args[i + 1];
      if (value === undefined || value.startsWith("--")) {
        throw new BackupError("--backup needs the path of the backup file to write");
      }
      return value;
    }
    if (args[i].startsWith("--backup=")) return args[i].slice("--backup=".length);
  }
  return undefined;
}

/** Copies the live database in `dataDir` to `destination`, which must not exist yet. */
export async function backupLocalDatabase(
  dataDir: string,
  destination: string,
): Promise<BackupReport> {
  const started = performance.now();
  if (dataDir === ":memory:") {
    throw new BackupError("service.data.dir is :memory:, nothing to back up");
  }
  const source = resolve(dataDir, LOCAL_DB_FILE);
  const target = resolve(destination);
  if (!existsSync(source)) throw new BackupError(`no database at ${source} (service.data.dir)`);
  if (target === source) throw new BackupError("the backup must not be the live database file");
  if (existsSync(target)) throw new BackupError(`${target} exists; backups never overwrite a file`);
  if (!existsSync(dirname(target))) throw new BackupError(`no directory ${dirname(target)}`);

  const partial = join(dirname(target), `.${crypto.randomUUID()}.backup-partial`);
  try {
    // A plain read-write connection, not openLocalDatabase: a backup never migrates the
    // file. (Read-only connections to a WAL file fail when its -shm cannot be created.)
    const live = new DatabaseSync(source);
    try {
      live.exec("PRAGMA busy_timeout = 5000");
      await backup(live, partial, { rate: -1 });
    } finally {
      live.close();
    }
    const { schemaVersion, items } = verifyCopy(partial);
    // link, not rename: it fails when the destination appeared meanwhile.
    linkSync(partial, target);
    return {
      source,
      destination: target,
      bytes: statSync(target).size,
      schemaVersion,
      items,
      integrity: "ok",
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    for (const suffix of ["", "-wal", "-shm", "-journal"]) {
      rmSync(partial + suffix, { force: true });
    }
  }
}

function verifyCopy(path: string): { schemaVersion: number; items: number } {
  const copy = new DatabaseSync(path);
  try {
    // The pages carry the live file's WAL mode; a backup is one self-contained file (the
    // service turns WAL on again when it opens a restored copy).
    copy.exec("PRAGMA journal_mode = DELETE");
    const problems = (copy.prepare("PRAGMA integrity_check").all() as { integrity_check: string }[])
      .map((row) => row.integrity_check);
    if (problems.length !== 1 || problems[0] !== "ok") {
      throw new BackupError(`the copy failed its integrity check: ${problems.join("; ")}`);
    }
    const version = copy.prepare("SELECT max(version) AS v FROM schema_version").get() as {
      v: number | null;
    };
    const items = copy.prepare("SELECT count(*) AS n FROM items").get() as { n: number };
    return { schemaVersion: version.v ?? 0, items: items.n };
  } finally {
    copy.close();
  }
}
