/**
 * The SPARQL store's change feed (`store/change_feed.ts`): every applied write of an item, per
 * collection, in the metadata graph, written by the write's own update request. Shared by
 * every instance on the store.
 *
 * Layout (metadata graph, hidden from `/sparql` like the rest of it):
 * - a feed head per collection, `rcs:changes:<collection>` (percent-encoded), holding the
 *   number of the collection's last change (`rcs:changeCount`) and, once pruning removed
 *   some, the last number removed (`rcs:changesPrunedThrough`);
 * - a node per change, `rcs:change:<collection>:<n>`: `rcs:changeOf` the head, its number,
 *   item, operation, ETag (`""` for a delete), principal and time.
 *
 * {@link SparqlChangeFeed.operations} adds a change in the write's guarded request, after the
 * operation that leaves its receipt, which it matches: a refused write (no receipt) adds no
 * change, an applied one always has one, whatever becomes of the request's answer. The
 * number is the head's plus one, computed by the store inside the request (each operation
 * sees the ones before it), so the numbers of a collection are 1, 2, 3, … in the order the
 * store applied the writes: the store runs each request as one transaction (Fuseki one
 * writer at a time; Virtuoso locks the head's row, and a deadlock is retried). A cursor is
 * the number; a page after it is the nodes numbered after it, up to the head's count, looked
 * up by name (no scan of the feed, whatever its length).
 *
 * Other instances' changes are learnt by polling the heads (one small query) while some
 * reader listens; this instance's own are told at once.
 */
import { nodeFields } from "../sparql_protocol/node_fields.ts";
import { selectRows } from "../sparql_protocol/bounded_queries.ts";
import { whenAbsent } from "../sparql_protocol/portable_sparql.ts";
import type { SparqlRow } from "../sparql_protocol/results_json.ts";
import { METADATA_NAMESPACE, PROLOGUE } from "../sparql_protocol/service_vocabulary.ts";
import { integerLiteral, iriToSparql, stringToSparql } from "../sparql_protocol/terms.ts";
import {
  type ChangeFeed,
  type ChangeOperation,
  type ChangePage,
  type ChangeWrite,
  cursorExpired,
  cursorNumber,
  invalidCursor,
  type ItemChange,
} from "../store/change_feed.ts";
import { log } from "../log/logger.ts";
import type { StoreContext } from "./store_context.ts";

const HEAD_PREFIX = `${METADATA_NAMESPACE}changes:`;
const CHANGE_PREFIX = `${METADATA_NAMESPACE}change:`;
/** A page's answer: at most 1,000 changes of a few hundred bytes each. */
const MAX_PAGE_BYTES = 8 << 20;
/** The heads of every collection: a handful of triples each. */
const MAX_HEADS_BYTES = 4 << 20;
/** Changes removed per pruning update: 7 triples each, under Virtuoso's ~1,400 per request. */
const PRUNE_CHUNK = 150;
/** How often other instances' changes are looked for while a reader listens. */
export const CHANGE_POLL_MS = 250;

/** The collection's feed head, as SPARQL. */
function headOf(collection: string): string {
  return iriToSparql(`${HEAD_PREFIX}${encodeURIComponent(collection)}`);
}

/** The prefix of the collection's change IRIs; the number follows. */
function changePrefix(collection: string): string {
  return `${CHANGE_PREFIX}${encodeURIComponent(collection)}:`;
}

/** The field each change predicate holds. */
const FIELD_OF: Record<string, keyof ItemChange | "n"> = {
  [`${METADATA_NAMESPACE}changeNumber`]: "n",
  [`${METADATA_NAMESPACE}changeItem`]: "item",
  [`${METADATA_NAMESPACE}changeOperation`]: "operation",
  [`${METADATA_NAMESPACE}changeEtag`]: "etag",
  [`${METADATA_NAMESPACE}changePrincipal`]: "principal",
  [`${METADATA_NAMESPACE}changeTime`]: "time",
};

/** A collection's head: its last change's number and the last one pruned. */
interface Head {
  count: number;
  prunedThrough: number;
}

/** The feed in the metadata graph; changes are written by the item writes' requests. */
export class SparqlChangeFeed implements ChangeFeed {
  readonly #context: StoreContext;
  readonly #listeners = new Set<() => void>();
  readonly #pollMs: number;
  #poll?: ReturnType<typeof setTimeout>;
  /** The heads' counts as last polled, to tell when another instance wrote. */
  #seen = "";
  /** The collections whose head exists (or is being made): {@link headReady}. */
  readonly #headsReady = new Map<string, Promise<void>>();

  constructor(context: StoreContext, pollMs = CHANGE_POLL_MS) {
    this.#context = context;
    this.#pollMs = pollMs;
  }

  /**
   * The operation that adds `change` for a guarded request, after the operation that leaves
   * `receipt`: nothing happens unless the receipt is there. The head exists
   * ({@link headReady}); were it missing, a branch of the WHERE counts from 0.
   */
  operations(receipt: string, change: ChangeWrite): string[] {
    const meta = this.#context.meta;
    const head = headOf(change.collection);
    return [
      `DELETE { GRAPH ${meta} { ${head} rcs:changeCount ?rcsLastChange } }
      INSERT { GRAPH ${meta} { ${head} rcs:changeCount ?rcsChangeNumber .
          ?rcsChange rcs:changeOf ${head} ; rcs:changeNumber ?rcsChangeNumber ;
            rcs:changeItem ${iriToSparql(change.uri)} ;
            rcs:changeOperation ${stringToSparql(change.operation)} ;
            rcs:changeEtag ${stringToSparql(change.etag ?? "")} ;
            rcs:changePrincipal ${stringToSparql(change.principal)} ;
            rcs:changeTime ${stringToSparql(change.time)} } }
      WHERE { GRAPH ${meta} { ${receipt} rcs:receiptFor ?rcsChangeKey }
        { GRAPH ${meta} { ${head} rcs:changeCount ?rcsLastChange } }
        UNION { ${whenAbsent(`GRAPH ${meta} { ${head} rcs:changeCount ?rcsAnyChange }`)}
          BIND(0 AS ?rcsLastChange) }
        BIND(?rcsLastChange + 1 AS ?rcsChangeNumber)
        BIND(IRI(CONCAT(${
        stringToSparql(changePrefix(change.collection))
      }, STR(?rcsChangeNumber))) AS ?rcsChange) }`,
    ];
  }

  /**
   * Creates the collection's head at 0 unless it exists, once per collection and process,
   * before the first write to it that this instance sends. Then every write's operation
   * updates an existing head: on Virtuoso, two first writes from two instances each found no
   * head to lock, and both took number 1. Two instances creating it at once write the same
   * triple, and a head is never removed, so once made it stays made.
   */
  headReady(collection: string): Promise<void> {
    let ready = this.#headsReady.get(collection);
    if (ready === undefined) {
      const meta = this.#context.meta;
      const head = headOf(collection);
      ready = this.#context.client.update(
        `${PROLOGUE}INSERT { GRAPH ${meta} { ${head} rcs:changeCount 0 } }
         WHERE { ${whenAbsent(`GRAPH ${meta} { ${head} rcs:changeCount ?rcsAnyChange }`)} }`,
        { idempotent: true },
      ).catch((error) => {
        this.#headsReady.delete(collection);
        throw error;
      });
      this.#headsReady.set(collection, ready);
    }
    return ready;
  }

  /** Writes of this instance were applied: listeners look at once. */
  committed(): void {
    this.#tell();
  }

  async read(collection: string, after: string | undefined, limit: number): Promise<ChangePage> {
    const from = after === undefined ? undefined : cursorNumber(after);
    if (after !== undefined && from === undefined) throw invalidCursor("after", after);
    const head = await this.#head(collection);
    if (from !== undefined && from < head.prunedThrough) {
      throw cursorExpired(collection, after!, String(head.prunedThrough));
    }
    const start = from ?? head.prunedThrough;
    const end = Math.min(head.count, start + Math.max(0, Math.floor(limit)));
    const changes = end > start ? await this.#changes(collection, start, end) : [];
    return { changes, next: changes.at(-1)?.cursor ?? after ?? String(head.prunedThrough) };
  }

  async end(collection: string): Promise<string> {
    const head = await this.#head(collection);
    return String(Math.max(head.count, head.prunedThrough));
  }

  /** Numbers run 1, 2, 3 … per collection: the number `count` below the head's. */
  async beforeNewest(collection: string, count: number): Promise<string> {
    const head = await this.#head(collection);
    return String(Math.max(head.count - count, head.prunedThrough));
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    if (this.#listeners.size === 1) this.#schedulePoll();
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) {
        clearTimeout(this.#poll);
        this.#poll = undefined;
      }
    };
  }

  /**
   * Removes the changes stamped before `before`, per collection from its oldest kept change
   * up to the first one stamped at or after `before` (a change another instance's clock
   * stamped earlier than one before it waits for a later pass: the horizon never passes a
   * kept change). Each collection's oldest changes are read by name, a chunk at a time, so a
   * pass costs what it removes, not the whole feed; each chunk goes in one update that also
   * raises the head's `rcs:changesPrunedThrough`.
   */
  async prune(before: Date): Promise<number> {
    const cutoff = before.toISOString();
    let removed = 0;
    for (const [collection, head] of await this.#heads()) {
      let from = head.prunedThrough;
      while (from < head.count) {
        const to = await this.#stampedBefore(collection, from, head.count, cutoff);
        if (to === from) break;
        await this.#pruneRange(collection, from, to);
        removed += to - from;
        from = to;
      }
    }
    return removed;
  }

  /**
   * The last of the changes numbered `from + 1` onwards (at most a chunk, none past `count`)
   * that are all stamped before `cutoff`; `from` when the first is not (or is missing).
   */
  async #stampedBefore(
    collection: string,
    from: number,
    count: number,
    cutoff: string,
  ): Promise<number> {
    const to = Math.min(count, from + PRUNE_CHUNK);
    const rows = await selectRows(
      this.#context.client,
      `SELECT ?change ?time WHERE { VALUES ?change { ${this.#names(collection, from, to)} }
         GRAPH ${this.#context.meta} { ?change rcs:changeTime ?time } }`,
      MAX_PAGE_BYTES,
    );
    const prefix = changePrefix(collection);
    const times = new Map<number, string>();
    for (const row of rows) {
      const name = row.get("change")?.value;
      const time = row.get("time")?.value;
      if (name !== undefined && time !== undefined) {
        times.set(Number(name.slice(prefix.length)), time);
      }
    }
    let through = from;
    while (through < to) {
      const time = times.get(through + 1);
      if (time === undefined || time >= cutoff) break;
      through++;
    }
    return through;
  }

  /** Removes the changes numbered `from + 1` to `to` and raises the horizon to `to`. */
  async #pruneRange(collection: string, from: number, to: number): Promise<void> {
    const meta = this.#context.meta;
    const head = headOf(collection);
    await this.#context.client.update(
      `${PROLOGUE}DELETE { GRAPH ${meta} { ?rcsChange ?p ?o } }
       WHERE { VALUES ?rcsChange { ${this.#names(collection, from, to)} }
         GRAPH ${meta} { ?rcsChange ?p ?o } } ;
       DELETE { GRAPH ${meta} { ${head} rcs:changesPrunedThrough ?rcsOld } }
       INSERT { GRAPH ${meta} { ${head} rcs:changesPrunedThrough ?rcsNew } }
       WHERE { { GRAPH ${meta} { ${head} rcs:changesPrunedThrough ?rcsOld } }
         UNION { ${whenAbsent(`GRAPH ${meta} { ${head} rcs:changesPrunedThrough ?rcsAny }`)}
           BIND(0 AS ?rcsOld) }
         BIND(IF(?rcsOld > ${integerLiteral(to)}, ?rcsOld, ${integerLiteral(to)}) AS ?rcsNew) }`,
      { idempotent: true },
    );
  }

  /** The change IRIs numbered `from + 1` to `to`, as SPARQL. */
  #names(collection: string, from: number, to: number): string {
    const prefix = changePrefix(collection);
    const names: string[] = [];
    for (let n = from + 1; n <= to; n++) names.push(iriToSparql(`${prefix}${n}`));
    return names.join(" ");
  }

  /** Every collection's head: one small query, two facts per collection. */
  async #heads(): Promise<Map<string, Head>> {
    const rows = await selectRows(
      this.#context.client,
      `SELECT ?head ?count ?pruned WHERE {
         { GRAPH ${this.#context.meta} { ?head rcs:changeCount ?count } }
         UNION { GRAPH ${this.#context.meta} { ?head rcs:changesPrunedThrough ?pruned } } }`,
      MAX_HEADS_BYTES,
    );
    const heads = new Map<string, Head>();
    for (const row of rows) {
      const iri = row.get("head")?.value;
      if (!iri?.startsWith(HEAD_PREFIX)) continue;
      const collection = decodeURIComponent(iri.slice(HEAD_PREFIX.length));
      const head = heads.get(collection) ?? { count: 0, prunedThrough: 0 };
      mergeHeadRow(head, row);
      heads.set(collection, head);
    }
    return heads;
  }

  /** The collection's head; zeros before its first change. */
  async #head(collection: string): Promise<Head> {
    const head = headOf(collection);
    const meta = this.#context.meta;
    // Two facts that may be missing independently: branches of a UNION, merged here.
    const rows = await selectRows(
      this.#context.client,
      `SELECT ?count ?pruned WHERE {
         { GRAPH ${meta} { ${head} rcs:changeCount ?count } }
         UNION { GRAPH ${meta} { ${head} rcs:changesPrunedThrough ?pruned } } }`,
      MAX_HEADS_BYTES,
    );
    const merged = { count: 0, prunedThrough: 0 };
    for (const row of rows) mergeHeadRow(merged, row);
    return merged;
  }

  /**
   * The changes numbered `from + 1` to `to`, looked up by name, oldest first. Stops before
   * the first one missing (pruned meanwhile: the next read says expired), never skips one.
   */
  async #changes(collection: string, from: number, to: number): Promise<ItemChange[]> {
    const rows = await selectRows(
      this.#context.client,
      `SELECT ?change ?p ?o WHERE { VALUES ?change { ${this.#names(collection, from, to)} }
         GRAPH ${this.#context.meta} { ?change ?p ?o } }`,
      MAX_PAGE_BYTES,
    );
    const nodes = nodeFields(rows, "change", FIELD_OF);
    const prefix = changePrefix(collection);
    const changes: ItemChange[] = [];
    for (let n = from + 1; n <= to; n++) {
      const fields = nodes.get(`${prefix}${n}`);
      if (!fields?.has("item")) break;
      const etag = fields.get("etag")?.value ?? "";
      changes.push({
        cursor: String(n),
        time: fields.get("time")?.value ?? "",
        collection,
        item: fields.get("item")!.value,
        operation: (fields.get("operation")?.value ?? "updated") as ChangeOperation,
        etag: etag === "" ? null : etag,
        principal: fields.get("principal")?.value ?? "",
      });
    }
    return changes;
  }

  #schedulePoll(): void {
    this.#poll = setTimeout(async () => {
      try {
        await this.#pollHeads();
      } catch (error) {
        log("warn", "change feed poll failed; it tries again", {
          error: error instanceof Error ? error.message : String(error),
        });
      }
      if (this.#listeners.size > 0) this.#schedulePoll();
    }, this.#pollMs);
    Deno.unrefTimer(this.#poll);
  }

  /** Tells listeners when a head moved since the last poll (another instance wrote). */
  async #pollHeads(): Promise<void> {
    const rows = await selectRows(
      this.#context.client,
      `SELECT ?head ?count WHERE { GRAPH ${this.#context.meta} { ?head rcs:changeCount ?count } }`,
      MAX_HEADS_BYTES,
    );
    const seen = rows.map((row) => `${row.get("head")?.value} ${row.get("count")?.value}`)
      .sort().join("\n");
    if (seen === this.#seen) return;
    this.#seen = seen;
    this.#tell();
  }

  #tell(): void {
    for (const listener of this.#listeners) listener();
  }
}

/**
 * Adds one answer row's fact to a head: `count` or `pruned`, each the largest seen (two
 * instances that pruned at once may each have written theirs).
 */
function mergeHeadRow(head: Head, row: SparqlRow): void {
  const count = row.get("count")?.value;
  const pruned = row.get("pruned")?.value;
  if (count !== undefined) head.count = Math.max(head.count, Number(count));
  if (pruned !== undefined) head.prunedThrough = Math.max(head.prunedThrough, Number(pruned));
}
