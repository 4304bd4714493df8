/**
 * The SPARQL store's guarded writes: each write's operations carry their own precondition,
 * a receipt and the write's outbox entry; writes go in groups, one update request each
 * (`group_commit.ts`), and one query after it confirms what became of each.
 *
 * Every write is one SPARQL Update request, which the endpoint applies atomically (Fuseki
 * runs a request in one write transaction), so no reader ever sees half an item. The
 * request checks its own precondition (absent for create; present in the collection, and
 * with the If-Match hash, for replace and delete; `item_writes.ts`) in its WHERE clauses,
 * inside that transaction: no other write can slip in between check and write. SPARQL Update
 * does not say whether a guarded operation matched, so a write whose guard held also leaves
 * a receipt (`<urn:rdf-content-service:receipt:UUID> rcs:receiptFor <key>`, the key of the
 * record it wrote: `item_records.ts`); a query for the receipt then tells success from
 * conflict/not-found/precondition-failed exactly, even if another write changes the item in
 * the meantime. Receipts are deleted by the next update this store sends.
 *
 * A write that fails with unavailable may still have been applied when the connection broke
 * after the request was sent (an update is never retried for that reason); the item's state
 * on the endpoint is then either the old or the new one, never a mix.
 */
import { DomainError, isErrorKind } from "../errors/domain_error.ts";
import { WriteOutcomeUnknown } from "../sparql_protocol/client.ts";
import { selectRows } from "../sparql_protocol/bounded_queries.ts";
import { isBound, mergeRows } from "../sparql_protocol/portable_sparql.ts";
import type { SparqlRow } from "../sparql_protocol/results_json.ts";
import { METADATA_NAMESPACE, PROLOGUE } from "../sparql_protocol/service_vocabulary.ts";
import { iriToSparql, stringToSparql } from "../sparql_protocol/terms.ts";
import { GroupCommitter, type WriteOutcome as Settled } from "../store/group_commit.ts";
import { recordKeys } from "./item_records.ts";
import type { StoreContext } from "./store_context.ts";

const RECEIPT_PREFIX = `${METADATA_NAMESPACE}receipt:`;
/** Attempts of the read that confirms a group's writes, and the backoff step between them. */
const CONFIRM_ATTEMPTS = 3;
const CONFIRM_BACKOFF_MS = 250;
/** A write with less of its time budget left than this is not sent (it could not finish). */
const MIN_REQUEST_MS = 100;
/**
 * Most bytes of a group's request, whatever `groupCommit.maxBytes` says: Virtuoso refuses
 * requests of much more than 1,400 triples (a refused group is sent again write by write,
 * which is correct but slow). A write's text is mostly its operations, not its triples: a
 * write of a one-triple item is about 8.5 KB (record, receipt, outbox entry, version and
 * change), 28 triples; so 96 KB hold about 11 such writes (300 triples), or 7 of 50-triple
 * items (about 540), well below the refusal.
 */
const MAX_GROUP_BYTES = 96 << 10;
/** The receipts query's answer for a group of a few hundred writes is far below this. */
const MAX_RECEIPTS_BYTES = 4 << 20;

/** What a guarded write found afterwards. */
export interface WriteOutcome {
  applied: boolean;
  /** The collection holds the item now (a record of it at either of its keys). */
  held: boolean;
  /** The item's hash and creation time now, when the collection holds it. */
  hash?: string;
  created?: string;
}

/** The item a write is about. */
export interface WriteTarget {
  collection: string;
  uri: string;
}

/** One write of a group: its operations, and the receipt its guard leaves. */
interface GuardedWrite {
  /** The keys the item's record may have, as SPARQL (`item_records.ts`). */
  keys: string[];
  /** The item's collection, as SPARQL. */
  collection: string;
  receipt: string;
  text: string;
  /** When the write was queued (`performance.now()`): its time budget starts there. */
  queuedAt: number;
}

/** A new receipt IRI, as SPARQL: what a write's guard leaves when it holds. */
export function newReceipt(): string {
  return `<${RECEIPT_PREFIX}${crypto.randomUUID()}>`;
}

/** Item writes, sent in groups and confirmed by their receipts. */
export class GuardedWrites {
  readonly #context: StoreContext;
  /** Receipts of verified writes, deleted as part of the next update. */
  #settledReceipts: string[] = [];
  /** Item writes, sent in groups (see `group_commit.ts`). */
  readonly #writes: GroupCommitter<GuardedWrite, WriteOutcome>;

  constructor(context: StoreContext) {
    this.#context = context;
    const group = context.config.groupCommit;
    this.#writes = new GroupCommitter(
      (writes) => this.#commitGroup(writes),
      { ...group, maxBytes: Math.min(group.maxBytes, MAX_GROUP_BYTES) },
    );
  }

  /** How the writes were grouped so far. */
  get stats(): GroupCommitter<GuardedWrite, WriteOutcome>["stats"] {
    return this.#writes.stats;
  }

  /**
   * Queues a write's `operations` (guarded; they carry its receipt, left for the key of the
   * record they write, and its outbox entry) for the next group, and tells whether its
   * guard held ({@link #commitGroup}). A staging graph is dropped by the same request, or
   * after it when the request failed.
   */
  async submit(
    target: WriteTarget,
    receipt: string,
    staging: string | undefined,
    operations: string[],
  ): Promise<WriteOutcome> {
    if (staging) operations = [...operations, `DROP SILENT GRAPH ${iriToSparql(staging)}`];
    const text = operations.join(" ;\n");
    try {
      return await this.#writes.submit(
        {
          keys: recordKeys(target.collection, target.uri),
          collection: stringToSparql(target.collection),
          receipt,
          text,
          queuedAt: performance.now(),
        },
        text.length,
      );
    } catch (error) {
      if (staging) {
        await this.#context.client.update(`DROP SILENT GRAPH ${iriToSparql(staging)}`, {
          idempotent: true,
        }).catch(() => {}); // a leftover staging graph is harmless, and named as such
      }
      throw error;
    }
  }

  /**
   * One group: every write's operations in one update request, which the endpoint applies
   * atomically and in order (each guard sees the writes before it), then one query that
   * tells, per write, whether its receipt exists (its guard held) and what the item looks
   * like now. A request the endpoint refuses as a whole (an error answer: nothing of it was
   * applied) is sent again write by write, so that only the write that spoils it fails; one
   * refused for a passing reason (a deadlock, 503) is retried as it was (it is guarded and
   * its receipts tell what happened, so a second application is harmless). A request whose
   * fate is unknown (unavailable: the connection broke) fails every write of it, as a
   * single write does, and is never sent again.
   */
  async #commitGroup(writes: GuardedWrite[]): Promise<Settled<WriteOutcome>[]> {
    // A write waits at most the store timeout in all, queue included: behind commits that
    // hang (a frozen store not yet marked down), what is left of it bounds the request.
    const oldest = Math.min(...writes.map((write) => write.queuedAt));
    const budgetMs = Math.floor(this.#context.config.timeoutMs - (performance.now() - oldest));
    if (budgetMs < MIN_REQUEST_MS) throw this.#budgetSpent();
    const settled = this.#settledReceipts.splice(0);
    try {
      await this.#context.client.update(
        `${PROLOGUE}${this.#deleteReceipts(settled)}${
          writes.map((write) => write.text).join(" ;\n")
        }`,
        { idempotent: true, timeoutMs: budgetMs },
      );
    } catch (error) {
      this.#settledReceipts.push(...settled);
      // Sent, but no answer: the receipts may already tell (else each write is unknown).
      if (error instanceof WriteOutcomeUnknown) return await this.#confirmUnknown(writes, error);
      if (writes.length === 1 || !isRefusal(error)) throw error;
      const alone: Settled<WriteOutcome>[] = [];
      for (const write of writes) {
        try {
          alone.push(...await this.#commitGroup([write]));
        } catch (single) {
          alone.push({ ok: false, error: single });
        }
      }
      return alone;
    }
    let rows: SparqlRow[];
    try {
      rows = await this.#receipts(writes);
    } catch (error) {
      // Applied, but how each guard fared cannot be read.
      const unknown = new WriteOutcomeUnknown(
        this.#context.config.queryUrl,
        `the update was applied, its confirmation could not be read: ${
          error instanceof Error ? error.message : String(error)
        }`,
        error,
      );
      return writes.map(() => ({ ok: false, error: unknown }));
    }
    return this.#outcomes(writes, rows);
  }

  /** A write whose time ran out in the queue: never sent, so nothing of it was written. */
  #budgetSpent(): DomainError {
    return new DomainError("store-unavailable", {
      detail: `The SPARQL store did not answer the writes ahead of this one within ` +
        `${this.#context.config.timeoutMs} ms; this write was not sent.`,
      extensions: { retryAfter: 1 },
    });
  }

  /**
   * After an update with no answer: the writes whose receipts exist were applied; the rest
   * are unknown (the update may still be applied later), never reported as failed.
   */
  async #confirmUnknown(
    writes: GuardedWrite[],
    unknown: WriteOutcomeUnknown,
  ): Promise<Settled<WriteOutcome>[]> {
    // After a timeout the endpoint is likely hung: reading would only make the client wait
    // as long again.
    if (unknown.afterTimeout) return writes.map(() => ({ ok: false, error: unknown }));
    let rows: SparqlRow[];
    try {
      rows = await this.#receipts(writes);
    } catch {
      return writes.map(() => ({ ok: false, error: unknown }));
    }
    return this.#outcomes(writes, rows).map((outcome) =>
      outcome.ok && outcome.value.applied ? outcome : { ok: false, error: unknown }
    );
  }

  /**
   * The confirming read: per write, its receipt and the item as it is now. Retried a few
   * times (the endpoint may be busy just after a large update) before giving up.
   */
  async #receipts(writes: GuardedWrite[]): Promise<SparqlRow[]> {
    for (let attempt = 1;; attempt++) {
      try {
        return await this.#receiptsOnce(writes);
      } catch (error) {
        if (attempt >= CONFIRM_ATTEMPTS || !isErrorKind(error, "unavailable")) throw error;
        await new Promise((resolve) => setTimeout(resolve, CONFIRM_BACKOFF_MS * attempt));
      }
    }
  }

  #receiptsOnce(writes: GuardedWrite[]): Promise<SparqlRow[]> {
    // Each fact in a branch of its own, merged per write: no OPTIONAL order to rely on. A
    // row per key the item may have: the receipt names the one written, and only a record
    // of the write's collection is the item's.
    const values = writes.flatMap((write, n) =>
      write.keys.map((key) => `(${n} ${write.receipt} ${key} ${write.collection})`)
    );
    return selectRows(
      this.#context.client,
      `SELECT ?n ?key ?applied ?hash ?created WHERE {
         VALUES (?n ?receipt ?key ?collection) { ${values.join(" ")} }
         { GRAPH ${this.#context.meta} { ?receipt rcs:receiptFor ?key } BIND(true AS ?applied) }
         UNION { GRAPH ${this.#context.meta} { ?key rcs:collection ?collection ; rcs:hash ?hash } }
         UNION { GRAPH ${this.#context.meta} { ?key rcs:collection ?collection ;
           rcs:created ?created } } }`,
      MAX_RECEIPTS_BYTES,
    );
  }

  /** Each write's outcome from the receipts read; applied receipts are deleted later. */
  #outcomes(writes: GuardedWrite[], rows: SparqlRow[]): Settled<WriteOutcome>[] {
    const receiptKeys = new Map<string, string>();
    for (const row of rows) {
      const [n, key] = [row.get("n")?.value, row.get("key")?.value];
      if (n !== undefined && key !== undefined && isBound(row, "applied")) receiptKeys.set(n, key);
    }
    const byIndex = mergeRows(rows, "n");
    return writes.map((write, n) => {
      const row = byIndex.get(String(n));
      const receiptKey = receiptKeys.get(String(n));
      if (receiptKey !== undefined) {
        this.#settledReceipts.push(`${write.receipt} rcs:receiptFor ${iriToSparql(receiptKey)} .`);
      }
      const hash = row?.get("hash")?.value;
      return {
        ok: true,
        value: {
          applied: receiptKey !== undefined,
          held: hash !== undefined,
          hash,
          created: row?.get("created")?.value,
        },
      };
    });
  }

  /** A `DELETE DATA` operation (and separator) for these receipt triples, "" for none. */
  #deleteReceipts(receipts: string[]): string {
    if (receipts.length === 0) return "";
    return `DELETE DATA { GRAPH ${this.#context.meta} {\n${receipts.join("\n")}\n} } ;\n`;
  }

  /** Waits for the writes in flight, then deletes the receipts not deleted yet. */
  async close(): Promise<void> {
    await this.#writes.idle();
    const receipts = this.#settledReceipts.splice(0);
    if (receipts.length === 0) return;
    try {
      await this.#context.client.update(`${PROLOGUE}${this.#deleteReceipts(receipts)}`);
    } catch {
      // Leftover receipts are a few harmless triples; closing must not fail over them.
    }
  }
}

/** An answer of the endpoint that refused a request: nothing of it was applied. */
function isRefusal(error: unknown): boolean {
  return isErrorKind(error, "backend-failed");
}
