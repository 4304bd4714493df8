/**
 * The embedded store's term dictionary: every RDF term once, in its N3.js id text
 * (`term_ids.ts`), under an integer id that the quad rows and their indexes hold instead.
 *
 * Looked up by a 53-bit hash of the text, not by a unique index on the text itself: such an
 * index would store every term's text a second time (most of the dictionary's bytes are long
 * literals). Two texts with one hash are both kept; a look-up compares the texts.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

/**
 * The term column as a SELECT list entry. node:sqlite reads TEXT only up to its first U+0000,
 * which literals may hold (RDF allows it): such a value is read as a BLOB instead, whole, and
 * decoded by {@link termText}.
 */
export function termColumn(column: string): string {
  return `CASE WHEN instr(CAST(${column} AS BLOB), x'00') > 0 ` +
    `THEN CAST(${column} AS BLOB) ELSE ${column} END`;
}

const utf8 = new TextDecoder();

/** A term column read through {@link termColumn} as text. */
export function termText(value: string | Uint8Array): string {
  return typeof value === "string" ? value : utf8.decode(value);
}

/**
 * A 53-bit hash of `text` (two 32-bit multiply-xorshift lanes, cyrb53's construction): fast
 * in JavaScript, an exact integer in SQLite, and collisions are resolved by comparing texts.
 * Hand-written because no dependency hashes a string to a safe integer synchronously.
 */
export function termHash(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** Most ids remembered by a dictionary; beyond that the memory starts over. */
const CACHE_ENTRIES = 200_000;

/** Term texts to ids, and back, on one connection. */
export class TermDictionary {
  readonly #find: StatementSync;
  readonly #insert: StatementSync;
  /** Ids of terms known to be committed (see {@link forgetUncommitted}). */
  #cache = new Map<string, number>();

  constructor(db: DatabaseSync) {
    this.#find = db.prepare(`SELECT id, ${termColumn("term")} AS term FROM terms WHERE hash = ?`);
    this.#insert = db.prepare("INSERT INTO terms (hash, term) VALUES (?, ?) RETURNING id");
  }

  /** The id of `text`, or undefined when no stored quad ever held it. */
  find(text: string): number | undefined {
    const cached = this.#cache.get(text);
    if (cached !== undefined) return cached;
    const rows = this.#find.all(termHash(text)) as { id: number; term: string | Uint8Array }[];
    for (const row of rows) {
      if (termText(row.term) === text) {
        this.#remember(text, row.id);
        return row.id;
      }
    }
    return undefined;
  }

  /** The id of `text`, added to the dictionary when new; inside the caller's transaction. */
  idOf(text: string): number {
    const found = this.find(text);
    if (found !== undefined) return found;
    const { id } = this.#insert.get(termHash(text), text) as { id: number };
    this.#remember(text, id);
    return id;
  }

  /**
   * Forgets every remembered id: after a rollback, an id handed out inside the rolled-back
   * part no longer exists (and SQLite may give it to another term).
   */
  forgetUncommitted(): void {
    this.#cache = new Map();
  }

  #remember(text: string, id: number): void {
    if (this.#cache.size >= CACHE_ENTRIES) this.#cache = new Map();
    this.#cache.set(text, id);
  }
}
