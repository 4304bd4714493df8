/**
 * Webhook delivery state in the service's SQLite file (`webhook_state.ts`), for the embedded
 * store: one instance delivers, so one connection writes it, and it holds every lease (its
 * claims always succeed; the writes' holder is not checked).
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { inTransaction, type Migration } from "../sqlite/local_db.ts";
import type {
  AttemptOutcome,
  DeadLetter,
  DeliveryState,
  DueChange,
  EndpointKey,
  WebhookStateStore,
} from "./webhook_state.ts";

/** Migration 15: each endpoint's position and failures, and the changes it gave up on. */
export const WEBHOOK_STATE_MIGRATION: Migration = {
  version: 15,
  description: "webhooks: each endpoint's delivery position, and its dead letters",
  sql: `CREATE TABLE webhook_positions (
     collection TEXT NOT NULL,
     url TEXT NOT NULL,
     position TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     failing_since TEXT,
     next_attempt TEXT,
     last_at TEXT,
     last_status INTEGER,
     last_error TEXT,
     PRIMARY KEY (collection, url)
   );
   CREATE TABLE webhook_dead_letters (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     collection TEXT NOT NULL,
     url TEXT NOT NULL,
     change TEXT NOT NULL,
     state TEXT NOT NULL,
     attempts INTEGER NOT NULL,
     dead_at TEXT NOT NULL,
     last_at TEXT NOT NULL,
     last_status INTEGER,
     last_error TEXT
   );
   CREATE INDEX webhook_dead_letters_by_endpoint ON webhook_dead_letters (collection, url, state, id);`,
};

interface PositionRow {
  collection: string;
  url: string;
  position: string;
  attempts: number;
  failing_since: string | null;
  next_attempt: string | null;
  last_at: string | null;
  last_status: number | null;
  last_error: string | null;
}

interface LetterRow {
  id: number;
  collection: string;
  url: string;
  change: string;
  state: "dead" | "queued";
  attempts: number;
  dead_at: string;
  last_at: string;
  last_status: number | null;
  last_error: string | null;
}

function toState(row: PositionRow): DeliveryState {
  return {
    collection: row.collection,
    url: row.url,
    position: row.position,
    attempts: row.attempts,
    failingSince: row.failing_since,
    nextAttempt: row.next_attempt,
    last: row.last_at === null
      ? null
      : { at: row.last_at, status: row.last_status, error: row.last_error },
    lease: null,
  };
}

function toLetter(row: LetterRow): DeadLetter {
  return {
    id: row.id,
    collection: row.collection,
    url: row.url,
    change: JSON.parse(row.change),
    state: row.state,
    attempts: row.attempts,
    deadAt: row.dead_at,
    last: { at: row.last_at, status: row.last_status, error: row.last_error },
  };
}

/** The SQLite delivery state. */
export class SqliteWebhookState implements WebhookStateStore {
  readonly #db: DatabaseSync;
  readonly #statements: Record<string, StatementSync>;

  /** `db` must have been opened with `openLocalDatabase` (it holds the tables). */
  constructor(db: DatabaseSync) {
    this.#db = db;
    const clearFailure = "attempts = 0, failing_since = NULL, next_attempt = NULL";
    const last = "last_at = ?, last_status = ?, last_error = ?";
    this.#statements = {
      get: db.prepare("SELECT * FROM webhook_positions WHERE collection = ? AND url = ?"),
      insert: db.prepare(
        `INSERT INTO webhook_positions (collection, url, position) VALUES (?, ?, ?)
         ON CONFLICT DO NOTHING`,
      ),
      queued: db.prepare(
        `SELECT * FROM webhook_dead_letters WHERE collection = ? AND url = ? AND state = 'queued'
         ORDER BY id LIMIT 1`,
      ),
      advance: db.prepare(
        `UPDATE webhook_positions SET position = ?, ${clearFailure}, ${last}
         WHERE collection = ? AND url = ?`,
      ),
      settle: db.prepare(
        `UPDATE webhook_positions SET ${clearFailure}, ${last} WHERE collection = ? AND url = ?`,
      ),
      failed: db.prepare(
        `UPDATE webhook_positions SET attempts = attempts + 1,
           failing_since = COALESCE(failing_since, ?), next_attempt = ?, ${last}
         WHERE collection = ? AND url = ?`,
      ),
      removeLetter: db.prepare("DELETE FROM webhook_dead_letters WHERE id = ?"),
      insertLetter: db.prepare(
        `INSERT INTO webhook_dead_letters
           (collection, url, change, state, attempts, dead_at, last_at, last_status, last_error)
         VALUES (?, ?, ?, 'dead', ?, ?, ?, ?, ?)`,
      ),
      buryLetter: db.prepare(
        `UPDATE webhook_dead_letters SET state = 'dead', attempts = attempts + ?, dead_at = ?,
           last_at = ?, last_status = ?, last_error = ?
         WHERE id = ?`,
      ),
      requeue: db.prepare(
        "UPDATE webhook_dead_letters SET state = 'queued' WHERE id = ? RETURNING *",
      ),
      states: db.prepare("SELECT * FROM webhook_positions ORDER BY collection, url"),
      letters: db.prepare("SELECT * FROM webhook_dead_letters ORDER BY id"),
    };
  }

  /** One instance: the endpoint is always its own. */
  claim(_key: EndpointKey, _holder: string): Promise<boolean> {
    return Promise.resolve(true);
  }

  release(_key: EndpointKey, _holder: string): Promise<void> {
    return Promise.resolve();
  }

  async open(key: EndpointKey, position: () => Promise<string>): Promise<DeliveryState> {
    const found = this.#statements.get.get(key.collection, key.url) as PositionRow | undefined;
    if (found) return toState(found);
    this.#statements.insert.run(key.collection, key.url, await position());
    return toState(this.#statements.get.get(key.collection, key.url) as unknown as PositionRow);
  }

  queuedLetter(key: EndpointKey): Promise<DeadLetter | undefined> {
    const row = this.#statements.queued.get(key.collection, key.url) as LetterRow | undefined;
    return Promise.resolve(row ? toLetter(row) : undefined);
  }

  delivered(key: EndpointKey, due: DueChange, outcome: AttemptOutcome): Promise<void> {
    this.#transaction(() => {
      if (due.letter !== undefined) this.#statements.removeLetter.run(due.letter);
      this.#movePast(key, due, outcome);
    });
    return Promise.resolve();
  }

  failed(key: EndpointKey, outcome: AttemptOutcome, nextAttempt: string): Promise<void> {
    this.#statements.failed.run(
      outcome.at,
      nextAttempt,
      ...lastOf(outcome),
      key.collection,
      key.url,
    );
    return Promise.resolve();
  }

  deadLettered(key: EndpointKey, due: DueChange, outcome: AttemptOutcome): Promise<void> {
    this.#transaction(() => {
      const state = this.#statements.get.get(key.collection, key.url) as unknown as PositionRow;
      const attempts = state.attempts + 1;
      if (due.letter !== undefined) {
        this.#statements.buryLetter.run(attempts, outcome.at, ...lastOf(outcome), due.letter);
      } else {
        this.#statements.insertLetter.run(
          key.collection,
          key.url,
          JSON.stringify(due.change),
          attempts,
          outcome.at,
          ...lastOf(outcome),
        );
      }
      this.#movePast(key, due, outcome);
    });
    return Promise.resolve();
  }

  /**
   * The endpoint is done with `due`: a redelivered letter only settles the endpoint's
   * failures; a feed change also moves its position past the change.
   */
  #movePast(key: EndpointKey, due: DueChange, outcome: AttemptOutcome): void {
    if (due.letter !== undefined) {
      this.#statements.settle.run(...lastOf(outcome), key.collection, key.url);
    } else {
      this.#statements.advance.run(due.change.cursor, ...lastOf(outcome), key.collection, key.url);
    }
  }

  skipTo(key: EndpointKey, position: string, outcome: AttemptOutcome): Promise<void> {
    this.#statements.advance.run(position, ...lastOf(outcome), key.collection, key.url);
    return Promise.resolve();
  }

  redeliver(id: number): Promise<DeadLetter | undefined> {
    const row = this.#statements.requeue.get(id) as LetterRow | undefined;
    return Promise.resolve(row ? toLetter(row) : undefined);
  }

  states(): Promise<DeliveryState[]> {
    return Promise.resolve(
      (this.#statements.states.all() as unknown as PositionRow[]).map(toState),
    );
  }

  deadLetters(): Promise<DeadLetter[]> {
    return Promise.resolve(
      (this.#statements.letters.all() as unknown as LetterRow[]).map(toLetter),
    );
  }

  /** Synchronous: no other write of this connection comes between its statements. */
  #transaction(work: () => void): void {
    inTransaction(this.#db, work);
  }
}

function lastOf(outcome: AttemptOutcome): [string, number | null, string | null] {
  return [outcome.at, outcome.status, outcome.error];
}
