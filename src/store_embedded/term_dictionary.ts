/**
 * The embedded store's term dictionary: every RDF term once, in its N3.js id text
 * (`term_ids.ts`), under an integer id that the quad rows and their indexes hold instead.
 *
 * Looked up by a 53-bit hash of the text, not by a unique index on the text itself: such an
 * index would store every term's text a second time (most of the dictionary's bytes are long
 * literals). Two texts with one hash are both kept; a look-up compares the texts.
 *
 * A term is keyed by its identity (`termIdentity`: a literal's language tag in lower case,
 * as RDF compares tags) and stored as first written: `"a"@en-US` is stored so and read back
 * so, and `"a"@en-us` (the same RDF term) finds it. Terms stored before tags were kept as
 * written hold lower-case tags, which is their identity too: they are found as before.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { termIdentity } from "../rdf/language_tags.ts";

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

/** Terms per look-up or insert statement of {@link TermDictionary.idsOf}. */
const BATCH = 200;

/** Term texts to ids, and back, on one connection. */
export class TermDictionary {
  readonly #db: DatabaseSync;
  readonly #find: StatementSync;
  /** Batch statements by row count. */
  readonly #batchFinds = new Map<number, StatementSync>();
  readonly #batchInserts = new Map<number, StatementSync>();
  /** Ids of terms known to be committed (see {@link forgetUncommitted}). */
  #cache = new Map<string, number>();
  /** The next id to give, while this connection is the writer (see {@link forgetUncommitted}). */
  #nextId?: number;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#find = db.prepare(`SELECT id, ${termColumn("term")} AS term FROM terms WHERE hash = ?`);
  }

  /**
   * The ids of `texts`, new ones added, inside the caller's write transaction: one look-up
   * statement and one insert per {@link BATCH} terms the memory does not hold, instead of two
   * statements per term (an item's literals are mostly new). A term already stored under
   * another spelling of its language tag keeps the stored one.
   */
  idsOf(written: string[]): number[] {
    const ids = new Array<number>(written.length);
    const missing = new Map<string, number[]>();
    const spelled = new Map<string, string>();
    const texts = written.map((text) => {
      const key = termIdentity(text);
      if (key !== text && !spelled.has(key)) spelled.set(key, text);
      return key;
    });
    texts.forEach((text, i) => {
      const cached = this.#cache.get(text);
      if (cached !== undefined) ids[i] = cached;
      else missing.get(text)?.push(i) ?? missing.set(text, [i]);
    });
    if (missing.size === 0) return ids;
    const unknown = [...missing.keys()];
    const hashes = unknown.map(termHash);
    const found = new Map<string, number>();
    for (let start = 0; start < unknown.length; start += BATCH) {
      const chunk = [...new Set(hashes.slice(start, start + BATCH))];
      const rows = this.#batch(
        this.#batchFinds,
        chunk.length,
        (n) =>
          `SELECT id, ${termColumn("term")} AS term FROM terms WHERE hash IN (${
            new Array(n).fill("?").join(", ")
          })`,
      ).all(...chunk) as { id: number; term: string | Uint8Array }[];
      for (const row of rows) found.set(termIdentity(termText(row.term)), row.id);
    }
    const added: (number | string)[][] = [];
    unknown.forEach((text, i) => {
      let id = found.get(text);
      if (id === undefined) {
        this.#nextId ??= this.#firstFreeId();
        id = this.#nextId++;
        added.push([id, hashes[i], spelled.get(text) ?? text]);
      }
      this.#remember(text, id);
      for (const position of missing.get(text)!) ids[position] = id;
    });
    for (let start = 0; start < added.length; start += BATCH) {
      const chunk = added.slice(start, start + BATCH);
      this.#batch(
        this.#batchInserts,
        chunk.length,
        (n) =>
          `INSERT INTO terms (id, hash, term) VALUES ${new Array(n).fill("(?, ?, ?)").join(", ")}`,
      )
        .run(...chunk.flat());
    }
    return ids;
  }

  #firstFreeId(): number {
    const row = this.#db.prepare("SELECT coalesce(max(id), 0) + 1 AS id FROM terms").get() as {
      id: number;
    };
    return row.id;
  }

  #batch(
    statements: Map<number, StatementSync>,
    rows: number,
    sql: (rows: number) => string,
  ): StatementSync {
    let statement = statements.get(rows);
    if (!statement) statements.set(rows, statement = this.#db.prepare(sql(rows)));
    return statement;
  }

  /** The id of `text`, or undefined when no stored quad ever held it. */
  find(written: string): number | undefined {
    const text = termIdentity(written);
    const cached = this.#cache.get(text);
    if (cached !== undefined) return cached;
    const rows = this.#find.all(termHash(text)) as { id: number; term: string | Uint8Array }[];
    for (const row of rows) {
      if (termIdentity(termText(row.term)) === text) {
        this.#remember(text, row.id);
        return row.id;
      }
    }
    return undefined;
  }

  /** The id of `text`, added to the dictionary when new; inside the caller's transaction. */
  idOf(text: string): number {
    return this.idsOf([text])[0];
  }

  /**
   * Forgets every remembered id and the next free one: after a rollback, an id handed out
   * inside the rolled-back part no longer exists (and may be given to another term).
   */
  forgetUncommitted(): void {
    this.#cache = new Map();
    this.#nextId = undefined;
  }

  #remember(text: string, id: number): void {
    if (this.#cache.size >= CACHE_ENTRIES) this.#cache = new Map();
    this.#cache.set(text, id);
  }
}
