/**
 * The SPARQL store's item writes: create, replace and delete, each the operations of one
 * guarded write (`guarded_writes.ts`) with its precondition in its WHERE clauses, its
 * receipt and its outbox entry. The index outbox lives in the metadata graph
 * (`sparql_index_outbox.ts`): each write's INSERT carries its entry under the write's own
 * guard, so the entry exists exactly when the write was applied, whichever instance sent it
 * and whatever becomes of that instance afterwards.
 *
 * An item's record and graph are named by its key (`item_records.ts`), which a create
 * chooses inside its own guard, in the one update request, so two instances creating the
 * same IRI in two collections at once cannot both take the IRI's name: the IRI when no
 * record has it, else the key derived from collection and IRI. Replace and delete find the
 * key the same way, in their guards: their WHERE clauses bind it (`?rcsKey`) and the graph
 * the record names (`?rcsGraph`), and their templates write through those variables.
 */
import { integerLiteral, iriToSparql, stringToSparql } from "../sparql_protocol/terms.ts";
import { templateGraph } from "../sparql_protocol/portable_sparql.ts";
import type { DomainError } from "../errors/domain_error.ts";
import { collectionItemKey } from "../store/item_keys.ts";
import { itemExists, itemNotFound, preconditionFailed } from "../store/store_problems.ts";
import type { ItemRecord, ItemWrite, WriteCondition } from "../store/triple_store.ts";
import { graphBody } from "./graph_bodies.ts";
import { type GuardedWrites, newReceipt, type WriteOutcome } from "./guarded_writes.ts";
import { recordKeys } from "./item_records.ts";
import type { SparqlIndexOutbox } from "./sparql_index_outbox.ts";
import { graphOf, type StoreContext } from "./store_context.ts";

/**
 * The variables a guard binds: the item's key (its record's subject), its graph as templates
 * write into it, and (replace, delete) its graph as the record names it, to match in.
 */
const KEY = "?rcsKey";
const GRAPH = "?rcsGraph";
const STORED_GRAPH = "?rcsStoredGraph";

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
    const body = await graphBody(this.#context, write, this.#blankNodePrefix());
    const now = new Date().toISOString();
    const receipt = newReceipt();
    const guard = this.#newKeyGuard(write.collection, write.uri);
    // The guard reads only the metadata graph, which only the last operation changes, so
    // every operation sees the same answer.
    const outcome = await this.#guarded.submit(write, receipt, body.staging, [
      // Triples left in the graph by anything but this service would otherwise merge in.
      `DELETE { GRAPH ${GRAPH} { ?s ?p ?o } } WHERE { ${guard} GRAPH ${GRAPH} { ?s ?p ?o } }`,
      body.insert(GRAPH, guard),
      `INSERT { GRAPH ${this.#context.meta} {
          ${KEY} rcs:collection ${stringToSparql(write.collection)} ;
            rcs:item ${iriToSparql(write.uri)} ; rcs:graph ${GRAPH} ;
            rcs:hash ${stringToSparql(body.hash)} ; rcs:tripleCount ${integerLiteral(body.count)} ;
            rcs:created ${stringToSparql(now)} ; rcs:modified ${stringToSparql(now)} .
          ${receipt} rcs:receiptFor ${KEY} .
          ${this.#outbox.entryTriples(write.collection, write.uri)} } }
      WHERE { ${guard} }`,
    ]);
    // The guard fails only when the collection holds the IRI already.
    if (!outcome.applied) throw itemExists(write.uri, write.collection);
    return {
      ...pick(write),
      hash: body.hash,
      tripleCount: body.count,
      created: now,
      modified: now,
    };
  }

  async replaceItem(write: ItemWrite, condition: WriteCondition = {}): Promise<ItemRecord> {
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
    const receipt = newReceipt();
    const guard = this.#presentGuard(collection, uri, condition);
    const outcome = await this.#guarded.submit({ collection, uri }, receipt, undefined, [
      `DELETE { GRAPH ${GRAPH} { ?s ?p ?o } }
      WHERE { ${guard} GRAPH ${STORED_GRAPH} { ?s ?p ?o } }`,
      `INSERT { GRAPH ${this.#context.meta} { ${receipt} rcs:receiptFor ${KEY} .
          ${this.#outbox.entryTriples(collection, uri)} } } WHERE { ${guard} }`,
      `DELETE { GRAPH ${this.#context.meta} { ${KEY} ?p ?o } }
      WHERE { GRAPH ${this.#context.meta} { ${receipt} rcs:receiptFor ${KEY} . ${KEY} ?p ?o } }`,
    ]);
    if (!outcome.applied) throw refusal(collection, uri, condition, outcome);
  }

  /**
   * Matches once, binding the new item's key and graph, if `collection` holds no item
   * `uri`: the IRI and its graph when no record has the IRI as its key, else the key derived
   * from both (`store/item_keys.ts`). A record at the derived key is always the
   * collection's, so the IRI is free when no record is at either key, and the derived key
   * is taken when a record at the IRI is another collection's. Each branch starts with its
   * `VALUES` row, so Virtuoso evaluates its filters (`whenAbsent`).
   */
  #newKeyGuard(collection: string, uri: string): string {
    const meta = this.#context.meta;
    const [iri, derived] = recordKeys(collection, uri);
    const graphOfKey = (key: string) => iriToSparql(graphOf(this.#context.config, key));
    const recordAt = (key: string, holder = "?rcsAny") =>
      `GRAPH ${meta} { ${key} rcs:collection ${holder} }`;
    const ownRecordAt = (key: string) => recordAt(key, stringToSparql(collection));
    return `{ VALUES (${KEY} ${GRAPH}) { (${iri} ${graphOfKey(uri)}) }
        FILTER NOT EXISTS { ${recordAt(iri)} } FILTER NOT EXISTS { ${recordAt(derived)} } }
      UNION { VALUES (${KEY} ${GRAPH}) { (${derived} ${
      graphOfKey(collectionItemKey(collection, uri))
    }) }
        FILTER EXISTS { ${recordAt(iri)} } FILTER NOT EXISTS { ${ownRecordAt(iri)} }
        FILTER NOT EXISTS { ${recordAt(derived)} } }`;
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
