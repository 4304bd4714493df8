/**
 * The SPARQL store's item writes: create, replace and delete, each the operations of one
 * guarded write (`guarded_writes.ts`) with its precondition in its WHERE clauses, its
 * receipt and its outbox entry. The index outbox lives in the metadata graph
 * (`sparql_index_outbox.ts`): each write's INSERT carries its entry under the write's own
 * guard, so the entry exists exactly when the write was applied, whichever instance sent it
 * and whatever becomes of that instance afterwards. The item's version
 * (`sparql_item_history.ts`) is written by the same request too, by operations after the one
 * that leaves the receipt, which they match: a refused write writes none.
 *
 * An item's record and graph are named by its key (`item_records.ts`): a create takes the
 * IRI when no record has it, else the key derived from collection and IRI, each attempt
 * guarded so that two instances creating the same IRI at once never both take one key.
 * Replace and delete find the key in their guards: their WHERE clauses bind it (`?rcsKey`)
 * and the graph the record names, and their templates write through those variables.
 */
import { integerLiteral, iriToSparql, stringToSparql } from "../sparql_protocol/terms.ts";
import { templateGraph, whenAbsent } from "../sparql_protocol/portable_sparql.ts";
import type { DomainError } from "../errors/domain_error.ts";
import { collectionItemKey } from "../store/item_keys.ts";
import { itemExists, itemNotFound, preconditionFailed } from "../store/store_problems.ts";
import { LOCAL_PRINCIPAL } from "../store/item_history.ts";
import type { DeleteOrigin, ItemRecord, ItemWrite, WriteCondition } from "../store/triple_store.ts";
import { type GraphBody, graphBody } from "./graph_bodies.ts";
import { type GuardedWrites, newReceipt, type WriteOutcome } from "./guarded_writes.ts";
import { recordKeys } from "./item_records.ts";
import type { SparqlIndexOutbox } from "./sparql_index_outbox.ts";
import type { SparqlChangeFeed } from "./sparql_change_feed.ts";
import { changeOperation } from "../store/change_feed.ts";
import type { SparqlItemHistory } from "./sparql_item_history.ts";
import { graphOf, type StoreContext } from "./store_context.ts";

/**
 * The variables a replace's or delete's guard binds: the item's key (its record's subject),
 * its graph as templates write into it, and its graph as the record names it, to match in.
 */
const KEY = "?rcsKey";
const GRAPH = "?rcsGraph";
const STORED_GRAPH = "?rcsStoredGraph";

/** Creates, replaces and deletes items through guarded writes. */
export class ItemWrites {
  readonly #context: StoreContext;
  readonly #guarded: GuardedWrites;
  readonly #outbox: SparqlIndexOutbox;
  readonly #history: SparqlItemHistory;
  readonly #changes: SparqlChangeFeed;
  /** Writes built so far: gives each its own blank node labels. */
  #writesBuilt = 0;

  constructor(
    context: StoreContext,
    guarded: GuardedWrites,
    outbox: SparqlIndexOutbox,
    history: SparqlItemHistory,
    changes: SparqlChangeFeed,
  ) {
    this.#context = context;
    this.#guarded = guarded;
    this.#outbox = outbox;
    this.#history = history;
    this.#changes = changes;
  }

  /**
   * Tries the IRI as the new item's key, then, when another collection's record has it, the
   * key derived from collection and IRI (`#createAs`). Each attempt is one guarded write
   * whose guard only asks that records be absent, as every create's did before items were
   * keyed by collection: what keeps two concurrent creates of one key apart on every store
   * tried (a guard that also asked for a record to be present let two creates of one IRI in
   * one collection through on Virtuoso, which reads at "read committed"). A create of an IRI
   * no collection holds is one update and one receipt query, as before.
   */
  async createItem(write: ItemWrite): Promise<ItemRecord> {
    await this.#changes.headReady(write.collection);
    let body = await graphBody(this.#context, write, this.#blankNodePrefix());
    const now = new Date().toISOString();
    const outcome = await this.#createAs(write, write.uri, body, now);
    if (!outcome.applied && !outcome.held) {
      // The IRI's name is another collection's item's. The attempt's request dropped the
      // staging graph, if any: stage again.
      if (body.staging) body = await graphBody(this.#context, write, this.#blankNodePrefix());
      const derived = collectionItemKey(write.collection, write.uri);
      if (!(await this.#createAs(write, derived, body, now)).applied) {
        // This collection's item was there when the guard ran (it may be gone by now).
        throw itemExists(write.uri, write.collection);
      }
    } else if (!outcome.applied) {
      throw itemExists(write.uri, write.collection);
    }
    return {
      ...pick(write),
      hash: body.hash,
      tripleCount: body.count,
      created: now,
      modified: now,
    };
  }

  /**
   * One create attempt under `key` (the item IRI, or the key derived from collection and
   * IRI: `store/item_keys.ts`), guarded so that it applies only when this collection holds
   * no item of the IRI and no record has the key. A record at the derived key is always the
   * collection's; the IRI's own name is free when no record has it and the collection holds
   * none under the derived key.
   */
  async #createAs(
    write: ItemWrite,
    key: string,
    body: GraphBody,
    now: string,
  ): Promise<WriteOutcome> {
    const meta = this.#context.meta;
    const [iri, derived] = recordKeys(write.collection, write.uri);
    const item = iriToSparql(key);
    const graph = iriToSparql(graphOf(this.#context.config, key));
    const recordAt = (subject: string, holder = "?rcsAny") =>
      `GRAPH ${meta} { ${subject} rcs:collection ${holder} }`;
    const guard = key === write.uri
      ? whenAbsent(recordAt(iri), recordAt(derived))
      : whenAbsent(recordAt(derived), recordAt(iri, stringToSparql(write.collection)));
    const receipt = newReceipt();
    // The guard reads only the metadata graph, which only the record's operation changes
    // (the version's operations after it match the receipt, not the guard), so every
    // operation of the guard sees the same answer.
    const outcome = await this.#guarded.submit(write, receipt, body.staging, [
      // Triples left in the graph by anything but this service would otherwise merge in.
      `DELETE { GRAPH ${graph} { ?s ?p ?o } } WHERE { ${guard} GRAPH ${graph} { ?s ?p ?o } }`,
      body.insert(graph, guard),
      `INSERT { GRAPH ${meta} {
          ${item} rcs:collection ${stringToSparql(write.collection)} ;
            rcs:item ${iriToSparql(write.uri)} ; rcs:graph ${graph} ;
            rcs:hash ${stringToSparql(body.hash)} ; rcs:tripleCount ${integerLiteral(body.count)} ;
            rcs:created ${stringToSparql(now)} ; rcs:modified ${stringToSparql(now)} .
          ${receipt} rcs:receiptFor ${item} .
          ${this.#outbox.entryTriples(write.collection, write.uri)} } }
      WHERE { ${guard} }`,
      ...this.#version(receipt, write, body, now, "create"),
    ]);
    if (outcome.applied) this.#committed();
    return outcome;
  }

  async replaceItem(write: ItemWrite, condition: WriteCondition = {}): Promise<ItemRecord> {
    await this.#changes.headReady(write.collection);
    const body = await graphBody(this.#context, write, this.#blankNodePrefix());
    const now = new Date().toISOString();
    const receipt = newReceipt();
    const guard = this.#presentGuard(write.collection, write.uri, condition);
    const outcome = await this.#guarded.submit(write, receipt, body.staging, [
      `DELETE { GRAPH ${GRAPH} { ?s ?p ?o } }
      WHERE { ${guard} GRAPH ${STORED_GRAPH} { ?s ?p ?o } }`,
      body.insert(GRAPH, guard),
      `INSERT { GRAPH ${this.#context.meta} { ${receipt} rcs:receiptFor ${KEY} .
          ${this.#outbox.entryTriples(write.collection, write.uri)} } }
      WHERE { ${guard} }`,
      // One operation per field, each bound on its own: no OPTIONAL whose bindings a store
      // could drop (portable_sparql.ts). The receipt names the key the guard found.
      ...[
        ["hash", stringToSparql(body.hash)],
        ["tripleCount", integerLiteral(body.count)],
        ["modified", stringToSparql(now)],
      ].map(([field, value]) =>
        `DELETE { GRAPH ${this.#context.meta} { ${KEY} rcs:${field} ?old } }
        INSERT { GRAPH ${this.#context.meta} { ${KEY} rcs:${field} ${value} } }
        WHERE { GRAPH ${this.#context.meta} { ${receipt} rcs:receiptFor ${KEY} . ${KEY} rcs:${field} ?old } }`
      ),
      ...this.#version(receipt, write, body, now, "update"),
    ]);
    if (!outcome.applied) throw refusal(write.collection, write.uri, condition, outcome);
    this.#committed();
    return {
      ...pick(write),
      hash: body.hash,
      tripleCount: body.count,
      created: outcome.created ?? now,
      modified: now,
    };
  }

  async deleteItem(
    collection: string,
    uri: string,
    condition: WriteCondition = {},
    origin: DeleteOrigin = {},
  ): Promise<void> {
    await this.#changes.headReady(collection);
    const receipt = newReceipt();
    const guard = this.#presentGuard(collection, uri, condition);
    const time = new Date().toISOString();
    const principal = origin.principal ?? LOCAL_PRINCIPAL;
    const outcome = await this.#guarded.submit({ collection, uri }, receipt, undefined, [
      `DELETE { GRAPH ${GRAPH} { ?s ?p ?o } }
      WHERE { ${guard} GRAPH ${STORED_GRAPH} { ?s ?p ?o } }`,
      `INSERT { GRAPH ${this.#context.meta} { ${receipt} rcs:receiptFor ${KEY} .
          ${this.#outbox.entryTriples(collection, uri)} } } WHERE { ${guard} }`,
      `DELETE { GRAPH ${this.#context.meta} { ${KEY} ?p ?o } }
      WHERE { GRAPH ${this.#context.meta} { ${receipt} rcs:receiptFor ${KEY} . ${KEY} ?p ?o } }`,
      // A version without a graph: what tells a deleted item from one that never was.
      ...this.#history.operations(receipt, {
        collection,
        uri,
        time,
        principal,
        operation: "delete",
      }),
      ...this.#changes.operations(receipt, {
        collection,
        uri,
        operation: "deleted",
        etag: null,
        principal,
        time,
      }),
    ]);
    if (!outcome.applied) throw refusal(collection, uri, condition, outcome);
    this.#committed();
  }

  /** A write was applied: its version counted, the feed's listeners told. */
  #committed(): void {
    this.#history.committed(1);
    this.#changes.committed();
  }

  /**
   * The operations adding the version and the feed's change a create or replace writes,
   * under its receipt.
   */
  #version(
    receipt: string,
    write: ItemWrite,
    body: GraphBody,
    time: string,
    operation: "create" | "update",
  ): string[] {
    const principal = write.principal ?? LOCAL_PRINCIPAL;
    return [
      ...this.#history.operations(receipt, {
        collection: write.collection,
        uri: write.uri,
        graph: body,
        time,
        principal,
        operation: write.operation ?? operation,
      }),
      ...this.#changes.operations(receipt, {
        collection: write.collection,
        uri: write.uri,
        operation: changeOperation(write.operation ?? operation, operation === "update"),
        etag: body.hash,
        principal,
        time,
      }),
    ];
  }

  /**
   * Matches once, binding the item's key and graph, if `collection` holds the item `uri`
   * (with the If-Match hash, when given): its record is at one of the two keys it may have.
   * The graph templates write into is computed from the stored name (`templateGraph`).
   */
  #presentGuard(collection: string, uri: string, condition: WriteCondition): string {
    const hash = condition.ifMatch === undefined
      ? ""
      : ` ; rcs:hash ${stringToSparql(condition.ifMatch)}`;
    return `VALUES ${KEY} { ${recordKeys(collection, uri).join(" ")} }
      GRAPH ${this.#context.meta} { ${KEY} rcs:collection ${stringToSparql(collection)} ;
        rcs:graph ${STORED_GRAPH}${hash} } ${templateGraph(STORED_GRAPH, GRAPH)}`;
  }

  /** Blank node labels of one write, apart from those of the other writes of its group. */
  #blankNodePrefix(): string {
    return `w${(this.#writesBuilt++).toString(36)}_`;
  }
}

function pick(write: ItemWrite): Pick<ItemRecord, "collection" | "uri" | "hash"> {
  return { collection: write.collection, uri: write.uri, hash: write.hash };
}

/** Why a replace or delete did not apply: precondition-failed if the item is there with another hash. */
function refusal(
  collection: string,
  uri: string,
  condition: WriteCondition,
  outcome: WriteOutcome,
): DomainError {
  if (condition.ifMatch !== undefined && outcome.held) {
    return preconditionFailed(uri, outcome.hash ?? "");
  }
  return itemNotFound(collection, uri);
}
