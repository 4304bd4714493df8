/**
 * Index outbox entries the search engine refuses for good (a document it will not take, an
 * index it cannot create with the collection's mappings): recorded here and taken out of
 * the outbox, so that they never hold up the rest of the backlog. Shown in `/ready`
 * (`deadLetters`) and in `/metrics` (`rcs_index_dead_letters`). Kept by this instance since
 * it started, the newest {@link MAX_KEPT}; fixing the cause and running an indexing job for
 * the collection indexes them.
 */

/** One refused item. */
export interface DeadLetter {
  collection: string;
  uri: string;
  /** The failure's kind (`invalid-input`, `backend-failed`). */
  kind: string;
  message: string;
  at: string;
}

/** How many dead letters are kept for display; the count goes on. */
const MAX_KEPT = 100;

/** The dead letters of this instance. */
export class DeadLetters {
  #total = 0;
  readonly #kept: DeadLetter[] = [];

  add(letter: Omit<DeadLetter, "at">): void {
    this.#total++;
    this.#kept.push({ ...letter, at: new Date().toISOString() });
    if (this.#kept.length > MAX_KEPT) this.#kept.shift();
  }

  /** Items refused for good since start. */
  get total(): number {
    return this.#total;
  }

  /** The newest dead letters, newest last. */
  list(): readonly DeadLetter[] {
    return this.#kept;
  }

  /** One line for `/ready`: the count and the newest. */
  describe(): string {
    const last = this.#kept.at(-1);
    if (!last) return "none";
    return `${this.#total} items not indexed, refused for good by the search engine; newest: ` +
      `<${last.uri}> in <${last.collection}>: ${last.message}`;
  }
}
