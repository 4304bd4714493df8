/**
 * The embedded engine's register of physical indices: `search_physical_indices` (each
 * index's alias, state, tables, write counter and text languages) and `search_aliases` (the
 * one physical index readers see per collection index name), and the creation and dropping
 * of an index's tables (`index_tables.ts`).
 */
import {
  type CollectionIndexRef,
  invalidIndexNameProblem,
  isValidIndexName,
  physicalIndexName,
  type SearchDocument,
} from "../search/search_engine.ts";
import { documentLanguages } from "./fts_query.ts";
import {
  createIndexTablesSql,
  dropIndexTablesSql,
  INDEX_LAYOUT,
  type IndexTables,
  indexTables,
} from "./index_tables.ts";
import type { IndexConnection } from "./index_connection.ts";

/** A physical index: its name, its tables, its write counter and its text's languages. */
export interface Physical {
  name: string;
  tables: IndexTables;
  writes: number;
  languages: string[];
}

/** What a physical index is doing: readers see it, a rebuild fills it, or a commit replaced it. */
export type PhysicalState = "serving" | "building" | "retired";

/** The physical indices of one engine's connection. */
export class PhysicalIndexes {
  readonly #connection: IndexConnection;

  constructor(connection: IndexConnection) {
    this.#connection = connection;
  }

  /** The index readers of `alias` see, if any. */
  serving(alias: string): Physical | undefined {
    const row = this.#connection.sql(
      "SELECT p.name AS name, p.tables AS tables, p.writes AS writes, p.languages AS languages " +
        "FROM search_aliases a JOIN search_physical_indices p ON p.name = a.physical " +
        "WHERE a.alias = ?",
    ).get(alias) as PhysicalRow | undefined;
    return row && physicalOf(row);
  }

  /** The physical index `name`, if it exists. */
  physical(name: string): Physical | undefined {
    const row = this.#connection.sql(
      "SELECT name, tables, writes, languages FROM search_physical_indices WHERE name = ?",
    ).get(name) as PhysicalRow | undefined;
    return row && physicalOf(row);
  }

  stateOf(physical: string): string | undefined {
    const row = this.#connection.sql("SELECT state FROM search_physical_indices WHERE name = ?")
      .get(physical) as { state: string } | undefined;
    return row?.state;
  }

  setState(physical: string, state: PhysicalState): void {
    this.#connection.sql("UPDATE search_physical_indices SET state = ? WHERE name = ?").run(
      state,
      physical,
    );
  }

  /** The names of `alias`'s indices being rebuilt (by any engine on the file). */
  building(alias: string): string[] {
    const rows = this.#connection.sql(
      "SELECT name FROM search_physical_indices WHERE alias = ? AND state = 'building'",
    ).all(alias) as { name: string }[];
    return rows.map((row) => row.name);
  }

  /** The names of `alias`'s indices that readers do not see. */
  notServing(alias: string): string[] {
    const rows = this.#connection.sql(
      "SELECT name FROM search_physical_indices WHERE alias = ? AND state <> 'serving'",
    ).all(alias) as { name: string }[];
    return rows.map((row) => row.name);
  }

  /** Points `alias` at `physical` (inside a write transaction). */
  pointAlias(alias: string, physical: string): void {
    this.#connection.sql(
      "INSERT INTO search_aliases (alias, physical) VALUES (?, ?) " +
        "ON CONFLICT (alias) DO UPDATE SET physical = excluded.physical",
    ).run(alias, physical);
  }

  /** Creates the collection's alias and its first physical index if missing. */
  ensure(index: CollectionIndexRef): void {
    if (!isValidIndexName(index.indexName)) throw invalidIndexNameProblem(index.indexName);
    if (this.serving(index.indexName) !== undefined) return;
    this.#connection.write(() => {
      if (this.serving(index.indexName) !== undefined) return;
      const physical = this.create(index.indexName, "serving");
      this.#connection.sql("INSERT INTO search_aliases (alias, physical) VALUES (?, ?)")
        .run(index.indexName, physical);
    });
  }

  /** Records a new physical index and creates its tables (inside a write transaction). */
  create(alias: string, state: "serving" | "building"): string {
    const taken = this.#connection.sql("SELECT 1 FROM search_physical_indices WHERE name = ?");
    let now = Date.now();
    let name = physicalIndexName(alias, now);
    while (taken.get(name)) name = physicalIndexName(alias, ++now);
    const next = this.nextTables();
    this.#connection.sql(
      "INSERT INTO search_physical_indices (name, alias, state, created, tables, layout) " +
        "VALUES (?, ?, ?, ?, ?, ?)",
    ).run(name, alias, state, new Date().toISOString(), next, INDEX_LAYOUT);
    this.#connection.db.exec(createIndexTablesSql(indexTables(next)));
    return name;
  }

  /** The number of the next physical index's tables. */
  nextTables(): number {
    const { next } = this.#connection.sql(
      "SELECT coalesce(max(tables), 0) + 1 AS next FROM search_physical_indices",
    ).get() as { next: number };
    return next;
  }

  /**
   * Drops a physical index's tables and record, then gives the freed pages back; statements
   * prepared on its tables are forgotten.
   */
  drop(name: string): void {
    this.#connection.write(() => {
      const physical = this.physical(name);
      if (physical !== undefined) this.#connection.db.exec(dropIndexTablesSql(physical.tables));
      this.#connection.sql("DELETE FROM search_physical_indices WHERE name = ?").run(name);
    });
    this.#connection.forgetIndexStatements();
    this.#connection.giveBackFreePages();
  }

  /**
   * Bumps `physical`'s write counter inside the current write transaction; its new value, or
   * undefined when the index is gone.
   */
  countWrite(physical: Physical): number | undefined {
    const row = this.#connection.sql(
      "UPDATE search_physical_indices SET writes = writes + 1 WHERE name = ? RETURNING writes",
    ).get(physical.name) as { writes: number } | undefined;
    return row?.writes;
  }

  /** Records the search languages of `documents` that `physical` did not hold text in yet. */
  addLanguages(physical: Physical, documents: SearchDocument[]): void {
    const languages = new Set(physical.languages);
    for (const document of documents) {
      for (const language of documentLanguages(document)) languages.add(language);
    }
    if (languages.size === physical.languages.length) return;
    physical.languages = [...languages].sort();
    this.#connection.sql("UPDATE search_physical_indices SET languages = ? WHERE name = ?")
      .run(physical.languages.join(","), physical.name);
  }
}

/** A row of `search_physical_indices` as {@link Physical} reads it. */
interface PhysicalRow {
  name: string;
  tables: number;
  writes: number;
  languages: string;
}

function physicalOf(row: PhysicalRow): Physical {
  return {
    name: row.name,
    tables: indexTables(row.tables),
    writes: row.writes,
    languages: row.languages === "" ? [] : row.languages.split(","),
  };
}
