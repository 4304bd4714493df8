/**
 * Facet counting without a row per value: per physical index and field, the field's distinct
 * values and, per document, the ordinals of the values it holds, in memory. A search counts
 * a facet by walking its hits' document ids once (what Meilisearch does with per-value
 * bitmaps, in the shape that suits a hit list that comes out of FTS5 as ids). Read lazily from
 * the documents' flat fields on the first facet over a field, kept up to date by the engine's
 * own writes, and read again when another connection wrote (the index's write counter moved).
 */
import { KEYWORD_IGNORE_ABOVE } from "../search/mapped_fields.ts";
import type { FacetValue } from "../search/search_engine.ts";

/** A value as SQLite's json_each answers it. */
export interface StoredValue {
  value: string | number;
  /** json_each's type: `text`, `integer`, `real`, `true`, `false`. */
  type: string;
}

/** One field's values in one physical index. */
export class FacetColumn {
  /** Distinct values, by ordinal. */
  readonly #values: (string | number | boolean)[] = [];
  readonly #ordinals = new Map<string, number>();
  /** Per document id: the ordinal it holds, or several. */
  readonly #documents = new Map<number, number | number[]>();

  /** Sets a document's values (replacing what it held); no values removes it. */
  set(id: number, values: Iterable<string | number | boolean>): void {
    const ordinals: number[] = [];
    for (const value of values) {
      // Strings longer than OpenSearch's keyword limit are full-text only there: not counted.
      if (typeof value === "string" && value.length > KEYWORD_IGNORE_ABOVE) continue;
      const key = `${typeof value}:${value}`;
      let ordinal = this.#ordinals.get(key);
      if (ordinal === undefined) {
        ordinal = this.#values.push(value) - 1;
        this.#ordinals.set(key, ordinal);
      }
      if (!ordinals.includes(ordinal)) ordinals.push(ordinal);
    }
    if (ordinals.length === 0) this.#documents.delete(id);
    else this.#documents.set(id, ordinals.length === 1 ? ordinals[0] : ordinals);
  }

  /** Forgets a document. */
  delete(id: number): void {
    this.#documents.delete(id);
  }

  /**
   * The `size` values most hits hold (count descending, then value ascending: numbers and
   * booleans before strings, as SQLite orders them) among `hits`, every hit's id once.
   */
  count(hits: Iterable<number>, size: number): FacetValue[] {
    const counts = new Uint32Array(this.#values.length);
    for (const id of hits) {
      const held = this.#documents.get(id);
      if (held === undefined) continue;
      if (typeof held === "number") counts[held]++;
      else for (const ordinal of held) counts[ordinal]++;
    }
    const found: number[] = [];
    counts.forEach((count, ordinal) => {
      if (count > 0) found.push(ordinal);
    });
    found.sort((a, b) => counts[b] - counts[a] || compareValues(this.#values[a], this.#values[b]));
    return found.slice(0, size).map((ordinal) => ({
      value: this.#values[ordinal],
      count: counts[ordinal],
    }));
  }
}

/** A json_each value as the document held it. */
export function storedValue(row: StoredValue): string | number | boolean {
  if (row.type === "true") return true;
  if (row.type === "false") return false;
  return row.value;
}

function compareValues(a: string | number | boolean, b: string | number | boolean): number {
  const rank = (value: unknown) => typeof value === "string" ? 1 : 0;
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (typeof a === "string") return a < (b as string) ? -1 : a > (b as string) ? 1 : 0;
  return Number(a) - Number(b);
}
