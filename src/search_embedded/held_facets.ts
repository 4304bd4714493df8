/**
 * The facet values an embedded engine holds in memory (`facet_values.ts`), per physical index
 * and field: read on the first facet over a field, kept up to date by the engine's writes and
 * by writes made on its behalf on another connection (reported back as {@link FacetChanges}),
 * and dropped when the index's write counter shows a write they missed.
 */
import { FacetColumn, type StoredValue, storedValue } from "./facet_values.ts";
import type { FieldValue } from "./field_keys.ts";
import { jsonPath } from "./fts_query.ts";
import type { IndexConnection } from "./index_connection.ts";
import type { Physical, PhysicalIndexes } from "./physical_indexes.ts";

/**
 * What an engine knows that another engine on the same file does not, for writes made on
 * its behalf (`EmbeddedSearchEngine.writeHere`): the rebuilds it runs (written to as well)
 * and the facet values it holds, per physical index (their changes reported back, so they
 * stay valid instead of being read again).
 */
export interface WriteContext {
  rebuilds: string[];
  heldFacets: Record<string, string[]>;
}

/** What one write transaction changed in held facet fields of one physical index. */
export interface FacetChanges {
  physical: string;
  /** The index's write counter after the transaction. */
  writes: number;
  /** The fields reported, in the order of each change's values. */
  fields: string[];
  /**
   * Every document written or removed, by id: each reported field's values, or null when the
   * document was removed. Fields held but not reported (made after the write was sent) are
   * read again for these ids.
   */
  changes: [number, (string | number | boolean)[][] | null][];
}

/** A write made on another engine's behalf: its context, and the reports made for it. */
export interface WriteElsewhere extends WriteContext {
  reports: FacetChanges[];
}

/** Updates facet values for one written document (its values) or removed one (undefined). */
export type FacetUpdate = (id: number, values: FieldValue[] | undefined) => void;

/** Facet fields whose values are held in memory at once, over all indices. */
const FACET_COLUMNS = 32;

/** The facet values held for one physical index, valid at write counter `writes`. */
interface FacetCache {
  writes: number;
  columns: Map<string, FacetColumn>;
}

const valuesOf = (values: FieldValue[], field: string) =>
  values.filter((value) => value.path === field).map((value) => value.value);

/** One engine's held facet values, per physical index name. */
export class HeldFacets {
  readonly #connection: IndexConnection;
  readonly #indexes: PhysicalIndexes;
  readonly #caches = new Map<string, FacetCache>();

  constructor(connection: IndexConnection, indexes: PhysicalIndexes) {
    this.#connection = connection;
    this.#indexes = indexes;
  }

  /** Per physical index, the fields whose facet values are held. */
  heldFields(): Record<string, string[]> {
    return Object.fromEntries(
      [...this.#caches].map(([name, cache]) => [name, [...cache.columns.keys()]]),
    );
  }

  /** Drops what is held for a physical index (dropped itself). */
  forget(physical: string): void {
    this.#caches.delete(physical);
  }

  /** `field`'s values in `physical`, read from the flat fields when not held yet. */
  column(physical: Physical, field: string): FacetColumn {
    let cache = this.#caches.get(physical.name);
    if (cache === undefined || cache.writes !== physical.writes) {
      cache = { writes: physical.writes, columns: new Map() };
      this.#caches.set(physical.name, cache);
    }
    let column = cache.columns.get(field);
    if (column === undefined) {
      this.#evict();
      column = new FacetColumn();
      const rows = this.#connection.sql(
        `SELECT x.id AS id, j.value AS value, j.type AS type FROM ${physical.tables.fields} x, ` +
          `json_each(x.fields, ?) j ORDER BY x.id`,
      ).iterate(jsonPath(field)) as Iterable<StoredValue & { id: number }>;
      let id = -1;
      let values: (string | number | boolean)[] = [];
      for (const row of rows) {
        if (row.id !== id) {
          if (values.length > 0) column.set(id, values);
          id = row.id;
          values = [];
        }
        values.push(storedValue(row));
      }
      if (values.length > 0) column.set(id, values);
      cache.columns.set(field, column);
    }
    return column;
  }

  /** Drops the facet values held longest when more than {@link FACET_COLUMNS} are held. */
  #evict(): void {
    let held = 0;
    for (const cache of this.#caches.values()) held += cache.columns.size;
    for (const [name, cache] of this.#caches) {
      if (held < FACET_COLUMNS) return;
      held -= cache.columns.size;
      this.#caches.delete(name);
    }
  }

  /**
   * Bumps `physical`'s write counter inside the current write transaction; answers how to
   * update the facet values held with the write (this engine's, or those another engine holds,
   * reported to it), or undefined when none are held or they were stale.
   */
  forWrite(physical: Physical, elsewhere?: WriteElsewhere): FacetUpdate | undefined {
    const writes = this.#indexes.countWrite(physical);
    if (writes === undefined) return undefined;
    if (elsewhere) {
      const fields = elsewhere.heldFacets[physical.name] ?? [];
      const report: FacetChanges = { physical: physical.name, writes, fields, changes: [] };
      elsewhere.reports.push(report);
      return (id, values) =>
        report.changes.push([
          id,
          values === undefined ? null : fields.map((field) => valuesOf(values, field)),
        ]);
    }
    const cache = this.#caches.get(physical.name);
    if (cache === undefined) return undefined;
    if (cache.writes !== writes - 1) {
      this.#caches.delete(physical.name);
      return undefined;
    }
    cache.writes = writes;
    return (id, values) =>
      cache.columns.forEach((column, field) =>
        values === undefined ? column.delete(id) : column.set(id, valuesOf(values, field))
      );
  }

  /**
   * Brings held values up to date with a write made on this engine's behalf: applied when
   * they were valid just before it, dropped when they missed a write (read again when asked).
   */
  apply(report: FacetChanges): void {
    const cache = this.#caches.get(report.physical);
    // Read after the write committed: the values hold it already.
    if (cache === undefined || cache.writes >= report.writes) return;
    const physical = this.#indexes.physical(report.physical);
    if (cache.writes !== report.writes - 1 || physical === undefined) {
      this.#caches.delete(report.physical);
      return;
    }
    const written = report.changes.filter(([, values]) => values !== null).map(([id]) => id);
    for (const [field, column] of cache.columns) {
      const n = report.fields.indexOf(field);
      // Held since the write was sent: its documents' values are read (a few rows by id),
      // so that writes in flight under steady load do not drop the whole column.
      const reread = n < 0 ? this.#valuesOf(physical, field, written) : undefined;
      for (const [id, values] of report.changes) {
        if (values === null) column.delete(id);
        else column.set(id, reread ? reread.get(id) ?? [] : values[n]);
      }
    }
    cache.writes = report.writes;
  }

  /** `field`'s values of the documents `ids` of `physical`, as stored now. */
  #valuesOf(
    physical: Physical,
    field: string,
    ids: number[],
  ): Map<number, (string | number | boolean)[]> {
    const values = new Map<number, (string | number | boolean)[]>();
    if (ids.length === 0) return values;
    const rows = this.#connection.sql(
      `SELECT x.id AS id, j.value AS value, j.type AS type FROM ${physical.tables.fields} x, ` +
        `json_each(x.fields, ?) j WHERE x.id IN (SELECT value FROM json_each(?))`,
    ).all(jsonPath(field), JSON.stringify(ids)) as unknown as (StoredValue & { id: number })[];
    for (const row of rows) {
      const held = values.get(row.id) ?? [];
      held.push(storedValue(row));
      values.set(row.id, held);
    }
    return values;
  }
}
