/**
 * The SPARQL store's item writes: create, replace and delete, each the operations of one
 * guarded write (`guarded_writes.ts`) with its precondition in its WHERE clauses, its
 * receipt and its outbox entry. The index outbox lives in the metadata graph
 * (`sparql_index_outbox.ts`): each write's INSERT carries its entry under the write's own
 * guard, so the entry exists exactly when the write was applied, whichever instance sent it
 * and whatever becomes of that instance afterwards.
 */
import { integerLiteral, iriToSparql, stringToSparql } from "../sparql_protocol/terms.ts";
import { whenAbsent } from "../sparql_protocol/portable_sparql.ts";
import type { DomainError } from "../errors/domain_error.ts";
import { itemExists, itemNotFound, preconditionFailed } from "../store/store_problems.ts";
import type { ItemRecord, ItemWrite, WriteCondition } from "../store/triple_store.ts";
import { graphBody } from "./graph_bodies.ts";
import { type GuardedWrites, newReceipt, type WriteOutcome } from "./guarded_writes.ts";
import type { SparqlIndexOutbox } from "./sparql_index_outbox.ts";
import { graphOf, type StoreContext } from "./store_context.ts";

/** Creates, replaces and deletes items through guarded writes. */
export class ItemWrites {
  readonly #context: StoreContext;
  readonly #guarded: GuardedWrites;
  readonly #outbox: SparqlIndexOutbox;
  /** Writes built so far: gives each its own blank node labels. */
  #writesBuilt = 0;

  constructor(context: StoreContext, guarded: GuardedWrites, outbox: SparqlIndexOutbox) {
    this.#context = context;
    this.#guarded = guarded;
    this.#outbox = outbox;
  }

  async createItem(write: ItemWrite): Promise<ItemRecord> {
    const item = iriToSparql(write.uri);
    const graph = iriToSparql(graphOf(this.#context.config, write.uri));
    const body = await graphBody(this.#context, write, this.#blankNodePrefix());
    const now = new Date().toISOString();
    const receipt = newReceipt();
    const absent = whenAbsent(`GRAPH ${this.#context.meta} { ${item} rcs:collection ?any }`);
    // The guard reads only the metadata graph, which only the last operation changes, so
    // every operation sees the same answer.
    const outcome = await this.#guarded.submit(write.uri, receipt, body.staging, [
      // Triples left in the graph by anything but this service would otherwise merge in.
      `DELETE { GRAPH ${graph} { ?s ?p ?o } } WHERE { ${absent} GRAPH ${graph} { ?s ?p ?o } }`,
      body.insert(graph, absent),
      `INSERT { GRAPH ${this.#context.meta} {
          ${item} rcs:collection ${stringToSparql(write.collection)} ; rcs:graph ${graph} ;
            rcs:hash ${stringToSparql(body.hash)} ; rcs:tripleCount ${integerLiteral(body.count)} ;
            rcs:created ${stringToSparql(now)} ; rcs:modified ${stringToSparql(now)} .
          ${receipt} rcs:receiptFor ${item} .
          ${this.#outbox.entryTriples(write.collection, write.uri)} } }
      WHERE { ${absent} }`,
    ]);
    if (!outcome.applied) throw itemExists(write.uri, outcome.collection ?? write.collection);
    return {
      ...pick(write),
      hash: body.hash,
      tripleCount: body.count,
      created: now,
      modified: now,
    };
  }

  async replaceItem(write: ItemWrite, condition: WriteCondition = {}): Promise<ItemRecord> {
    const item = iriToSparql(write.uri);
    const graph = iriToSparql(graphOf(this.#context.config, write.uri));
    const body = await graphBody(this.#context, write, this.#blankNodePrefix());
    const now = new Date().toISOString();
    const receipt = newReceipt();
    const guard = this.#presentGuard(write.collection, item, condition);
    const outcome = await this.#guarded.submit(write.uri, receipt, body.staging, [
      `DELETE { GRAPH ${graph} { ?s ?p ?o } } WHERE { ${guard} GRAPH ${graph} { ?s ?p ?o } }`,
      body.insert(graph, guard),
      `INSERT { GRAPH ${this.#context.meta} { ${receipt} rcs:receiptFor ${item} .
          ${this.#outbox.entryTriples(write.collection, write.uri)} } }
      WHERE { ${guard} }`,
      // One operation per field, each bound on its own: no OPTIONAL whose bindings a store
      // could drop (portable_sparql.ts).
      ...[
        ["hash", stringToSparql(body.hash)],
        ["tripleCount", integerLiteral(body.count)],
        ["modified", stringToSparql(now)],
      ].map(([field, value]) =>
        `DELETE { GRAPH ${this.#context.meta} { ${item} rcs:${field} ?old } }
        INSERT { GRAPH ${this.#context.meta} { ${item} rcs:${field} ${value} } }
        WHERE { GRAPH ${this.#context.meta} { ${receipt} rcs:receiptFor ${item} . ${item} rcs:${field} ?old } }`
      ),
    ]);
    if (!outcome.applied) throw refusal(write.collection, write.uri, condition, outcome);
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
  ): Promise<void> {
    const item = iriToSparql(uri);
    const graph = iriToSparql(graphOf(this.#context.config, uri));
    const receipt = newReceipt();
    const guard = this.#presentGuard(collection, item, condition);
    const outcome = await this.#guarded.submit(uri, receipt, undefined, [
      `DELETE { GRAPH ${graph} { ?s ?p ?o } } WHERE { ${guard} GRAPH ${graph} { ?s ?p ?o } }`,
      `INSERT { GRAPH ${this.#context.meta} { ${receipt} rcs:receiptFor ${item} .
          ${this.#outbox.entryTriples(collection, uri)} } } WHERE { ${guard} }`,
      `DELETE { GRAPH ${this.#context.meta} { ${item} ?p ?o } }
      WHERE { GRAPH ${this.#context.meta} { ${receipt} rcs:receiptFor ${item} . ${item} ?p ?o } }`,
    ]);
    if (!outcome.applied) throw refusal(collection, uri, condition, outcome);
  }

  /** Matches once if the item is in `collection` (with the If-Match hash, when given). */
  #presentGuard(collection: string, item: string, condition: WriteCondition): string {
    const hash = condition.ifMatch === undefined
      ? ""
      : ` ; rcs:hash ${stringToSparql(condition.ifMatch)}`;
    return `GRAPH ${this.#context.meta} { ${item} rcs:collection ${
      stringToSparql(collection)
    }${hash} }`;
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
  if (condition.ifMatch !== undefined && outcome.collection === collection) {
    return preconditionFailed(uri, outcome.hash ?? "");
  }
  return itemNotFound(collection, uri);
}
