/**
 * The stored catalog in the service's SQLite file (table `catalog`), for the embedded store.
 * One instance owns the file; the version is SQLite's own count of committed writes to the
 * table, kept in a one-row table so that reading it is one indexed lookup.
 */
import type { DatabaseSync } from "node:sqlite";
import { inTransaction, type Migration } from "../sqlite/local_db.ts";
import {
  type CatalogRecord,
  type CatalogStore,
  newRevision,
  type ReplaceOutcome,
} from "./catalog_store.ts";

/** The `catalog` and `catalog_version` tables (migration 6). */
export const CATALOG_MIGRATIONS: Migration[] = [{
  version: 6,
  description: "workspaces and collections made at run time",
  sql: `CREATE TABLE catalog (
     seq INTEGER PRIMARY KEY,
     uri TEXT NOT NULL UNIQUE,
     kind TEXT NOT NULL,
     workspace TEXT,
     settings TEXT NOT NULL,
     revision TEXT NOT NULL
   );
   CREATE TABLE catalog_version (id INTEGER PRIMARY KEY CHECK (id = 1), version TEXT NOT NULL);
   INSERT INTO catalog_version (id, version) VALUES (1, 'initial');`,
}];

interface Row {
  uri: string;
  kind: CatalogRecord["kind"];
  workspace: string | null;
  settings: string;
  revision: string;
}

/** Catalog records in SQLite; every write is one transaction with the version bump. */
export class SqliteCatalogStore implements CatalogStore {
  readonly #db: DatabaseSync;

  /** `db` must have been opened with `openLocalDatabase` (it holds the tables). */
  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  version(): Promise<string> {
    const row = this.#db.prepare("SELECT version FROM catalog_version WHERE id = 1").get() as
      | { version: string }
      | undefined;
    return Promise.resolve(row?.version ?? "");
  }

  list(): Promise<CatalogRecord[]> {
    const rows = this.#db.prepare(
      `SELECT uri, kind, workspace, settings, revision FROM catalog
       ORDER BY kind = 'collection', seq`,
    ).all() as unknown as Row[];
    return Promise.resolve(rows.map((row) => ({
      kind: row.kind,
      uri: row.uri,
      ...(row.workspace === null ? {} : { workspace: row.workspace }),
      settings: JSON.parse(row.settings),
      revision: row.revision,
    })));
  }

  insert(record: CatalogRecord): Promise<boolean> {
    return Promise.resolve(this.#write(() => {
      const result = this.#db.prepare(
        `INSERT INTO catalog (uri, kind, workspace, settings, revision) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (uri) DO NOTHING`,
      ).run(
        record.uri,
        record.kind,
        record.workspace ?? null,
        JSON.stringify(record.settings),
        record.revision,
      );
      return Number(result.changes) === 1;
    }));
  }

  replace(record: CatalogRecord, expectedRevision?: string): Promise<ReplaceOutcome> {
    return Promise.resolve(this.#write(() => {
      const row = this.#db.prepare("SELECT revision FROM catalog WHERE uri = ?").get(
        record.uri,
      ) as { revision: string } | undefined;
      if (!row) return "missing";
      if (expectedRevision !== undefined && row.revision !== expectedRevision) return "stale";
      this.#db.prepare(
        "UPDATE catalog SET workspace = ?, settings = ?, revision = ? WHERE uri = ?",
      ).run(record.workspace ?? null, JSON.stringify(record.settings), record.revision, record.uri);
      return "replaced";
    }));
  }

  remove(uri: string): Promise<boolean> {
    return Promise.resolve(this.#write(() => {
      const result = this.#db.prepare("DELETE FROM catalog WHERE uri = ?").run(uri);
      return Number(result.changes) === 1;
    }));
  }

  /** Runs `work` in a transaction that also moves the version on when it changed something. */
  #write<T>(work: () => T): T {
    return inTransaction(this.#db, () => {
      const result = work();
      if (result === true || result === "replaced") {
        this.#db.prepare("UPDATE catalog_version SET version = ? WHERE id = 1").run(newRevision());
      }
      return result;
    });
  }
}
