/**
 * A data directory that cannot take writes (disk full, read-only file system), told apart
 * from other SQLite failures.
 *
 * SQLite's own message stays in the log (once when writes start failing, once when they
 * work again); clients get `507` `storage-full` / `storage-read-only`, naming the data
 * directory by its name only (an absolute path says more about the host than clients need).
 * While writes fail, `/ready` says so ({@link storageReadiness}); it probes the directory,
 * so it turns ready again once space is freed even when no write arrives to prove it.
 *
 * Deno's `node:sqlite` errors carry SQLite's message but not its result code, so the
 * message is what is matched: it is SQLite's fixed text for each code (sqlite3ErrStr).
 */
import type { DatabaseSync } from "node:sqlite";
import { closeSync, fsyncSync, openSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { DomainError } from "../errors/domain_error.ts";
import { log } from "../log/logger.ts";
import { leaveCheckpointsAgain, takeOwnCheckpoints } from "./wal_checkpoints.ts";

/** Why the data directory takes no writes. */
export type StorageFault = "full" | "read-only";

/** SQLite's text for SQLITE_FULL, SQLITE_READONLY and SQLITE_IOERR. */
const FULL = /database or disk is full/i;
const READ_ONLY = /readonly database|read-only file system/i;
const IO_ERROR = /disk I\/O error/i;

/** The bytes the readiness probe writes: enough that a nearly full disk does not pass. */
const PROBE_BYTES = 256 * 1024;

interface FaultState {
  fault: StorageFault;
  /** SQLite's (or the file system's) own message. */
  message: string;
  since: number;
  failures: number;
}

const faults = new WeakMap<DatabaseSync, FaultState>();

/** A write refused because the data directory is full or read-only: `507`. */
export class StorageUnwritable extends DomainError {
  readonly fault: StorageFault;
  constructor(fault: StorageFault, directory: string) {
    super(fault === "full" ? "storage-full" : "storage-read-only", {
      detail: fault === "full"
        ? `The data directory "${directory}" (service.data.dir) is full: nothing was written. ` +
          "Free space there; writes work again at once."
        : `The data directory "${directory}" (service.data.dir) is on a read-only file system: ` +
          "nothing was written. Make it writable; writes work again at once.",
      extensions: { dataDir: directory },
    });
    this.fault = fault;
  }
}

/** The data directory's name (not its path), for messages; undefined for `:memory:`. */
function directoryName(db: DatabaseSync): string | undefined {
  const file = db.location();
  return file ? basename(dirname(file)) : undefined;
}

/**
 * The storage problem `error` is, recorded against `db` (and logged with SQLite's message
 * when writes start failing), or undefined for any other error. A `disk I/O error` is
 * classified by probing the directory, since SQLite reports ENOSPC and EROFS that way too.
 */
export function storageFaultOf(db: DatabaseSync, error: unknown): StorageUnwritable | undefined {
  if (error instanceof StorageUnwritable) return error;
  const directory = directoryName(db);
  if (directory === undefined) return undefined;
  const message = error instanceof Error ? error.message : String(error);
  let fault: StorageFault | undefined;
  if (FULL.test(message) || (error as { code?: string })?.code === "ENOSPC") fault = "full";
  else if (READ_ONLY.test(message) || (error as { code?: string })?.code === "EROFS") {
    fault = "read-only";
  } else if (IO_ERROR.test(message)) fault = probe(db.location()!);
  if (!fault) return undefined;
  noteFault(db, fault, message);
  return new StorageUnwritable(fault, directory);
}

/**
 * After an error SQLite already rolled back the transaction for (SQLITE_FULL may), the
 * work inside it can fail on something secondary (a savepoint that is gone); a probe of
 * the directory then tells whether storage was the cause.
 */
export function storageFaultAfterRollback(
  db: DatabaseSync,
  error: unknown,
): StorageUnwritable | undefined {
  const direct = storageFaultOf(db, error);
  if (direct) return direct;
  const file = db.location();
  const fault = file ? probe(file) : undefined;
  if (!fault) return undefined;
  noteFault(db, fault, error instanceof Error ? error.message : String(error));
  return new StorageUnwritable(fault, directoryName(db)!);
}

/** A write to `db` committed: storage works (again). */
export function noteWriteSucceeded(db: DatabaseSync): void {
  const state = faults.get(db);
  if (!state) return;
  faults.delete(db);
  leaveCheckpointsAgain(db);
  log("info", "storage: writes work again", {
    dataDir: directoryName(db),
    fault: state.fault,
    failedWrites: state.failures,
    durationMs: Date.now() - state.since,
  });
}

/** The fault writes to `db` are failing with, if any. */
export function currentStorageFault(db: DatabaseSync): StorageFault | undefined {
  return faults.get(db)?.fault;
}

/**
 * `/ready`'s view of the data directory: ok unless writes failed for storage; then it
 * probes, and clears the fault once the directory takes a write again.
 */
export function storageReadiness(db: DatabaseSync): { ok: boolean; detail: string } {
  const state = faults.get(db);
  const file = db.location();
  if (!state || !file) return { ok: true, detail: "writable" };
  if (probe(file) === undefined) {
    noteWriteSucceeded(db);
    return { ok: true, detail: "writable" };
  }
  return {
    ok: false,
    detail: `cannot write: the data directory "${directoryName(db)}" is ${
      state.fault === "full" ? "full" : "read-only"
    } (${state.message}; ${state.failures} writes refused)`,
  };
}

function noteFault(db: DatabaseSync, fault: StorageFault, message: string): void {
  // Or the freed space goes to the log, for good (wal_checkpoints.ts).
  if (fault === "full") takeOwnCheckpoints(db);
  const state = faults.get(db);
  if (state) {
    state.failures++;
    return;
  }
  faults.set(db, { fault, message, since: Date.now(), failures: 1 });
  // SQLite's own message, once per outage rather than once per refused write.
  log("error", "storage: writes fail", { dataDir: directoryName(db), fault, error: message });
}

/**
 * Writes, syncs and removes a scratch file beside the database: the fault the directory
 * shows, or undefined when it takes the write. By hand: no library probes a directory.
 */
function probe(databaseFile: string): StorageFault | undefined {
  const path = join(dirname(databaseFile), ".write-probe");
  let fd: number | undefined;
  try {
    fd = openSync(path, "w");
    writeSync(fd, new Uint8Array(PROBE_BYTES));
    fsyncSync(fd);
    return undefined;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOSPC" || code === "EDQUOT") return "full";
    if (code === "EROFS" || code === "EACCES" || code === "EPERM") return "read-only";
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
    try {
      rmSync(path, { force: true });
    } catch {
      // A read-only directory keeps nothing to remove.
    }
  }
}

/**
 * `store` with every failed call that returned a promise checked for storage faults: a
 * storage failure is answered as {@link StorageUnwritable}; anything else passes unchanged.
 * Errors the store already typed (not found, exists, …) are never touched.
 */
export function withStorageFaults<T extends object>(db: DatabaseSync, store: T): T {
  return new Proxy(store, {
    get: (object, property) => {
      const value = Reflect.get(object, property, object);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const result = value.apply(object, args);
        if (!(result instanceof Promise)) return result;
        return result.catch((error) => {
          if (error instanceof DomainError) throw error;
          throw storageFaultOf(db, error) ?? error;
        });
      };
    },
  });
}
