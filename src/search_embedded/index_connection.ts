/**
 * The embedded search engine's connection to the SQLite file: statements prepared once (a
 * document write runs several), write transactions whose SQLite failures become the search
 * problems, and how those failures read.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { inTransaction, inUnsyncedTransaction } from "../sqlite/local_db.ts";
import { DomainError } from "../errors/domain_error.ts";

/** One engine's connection: its statements and its transactions. */
export class IndexConnection {
  readonly db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();

  constructor(db: DatabaseSync) {
    this.db = db;
  }

  /** A prepared statement, prepared once per engine: writes run many per document. */
  sql(text: string): StatementSync {
    let statement = this.#statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.#statements.set(text, statement);
    }
    return statement;
  }

  /**
   * `synced: false` for document writes: documents are derived from the store, and one lost
   * to a power cut is written again from its outbox entry (whose completion comes after it
   * in the same WAL) or by the job that wrote it; so the loop does not wait for an fsync.
   */
  write<T>(work: () => T, synced = true): T {
    try {
      return (synced ? inTransaction : inUnsyncedTransaction)(this.db, work);
    } catch (error) {
      if (error instanceof DomainError) throw error;
      throw searchError(error);
    }
  }

  /** Statements on dropped tables fail; prepared ones are forgotten with them. */
  forgetIndexStatements(): void {
    for (const text of this.#statements.keys()) {
      if (/search_(docs|fields|fts)_\d+/.test(text)) this.#statements.delete(text);
    }
  }

  /** Forgets every prepared statement (the tables changed under all of them). */
  forgetAllStatements(): void {
    this.#statements.clear();
  }

  /**
   * Gives the file's free pages back to the file system when the file is in incremental
   * auto-vacuum mode (files created by this version are: `src/local_database.ts`); older files
   * keep the pages and reuse them for the next index.
   */
  giveBackFreePages(): void {
    const mode = this.db.prepare("PRAGMA auto_vacuum").get() as { auto_vacuum: number };
    if (mode.auto_vacuum !== 2) return;
    // Stepped to the end: each step frees one page (exec would take only the first).
    this.db.prepare("PRAGMA incremental_vacuum").all();
    // The file shrinks when the WAL is copied back into it; without readers in the way, now.
    this.db.prepare("PRAGMA wal_checkpoint(PASSIVE)").get();
  }
}

/** A SQLite failure as a search problem: busy is unavailable (try again), else an error. */
export function searchError(error: unknown): DomainError {
  const message = messageOf(error);
  return /SQLITE_BUSY|database is locked/i.test(message)
    ? new DomainError("search-unavailable", { detail: message })
    : new DomainError("search-error", { detail: message });
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs synchronous work as a promise, so that callers see its errors as rejections. */
export function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error);
  }
}
