/**
 * Item create, read, update and delete: the rules of docs/api.md's Items section, written once
 * over the TripleStore interface.
 */
import type { Quad } from "n3";
import { DomainError, isProblem } from "../errors/domain_error.ts";
import type { Catalog, CollectionEntry } from "../catalog/catalog.ts";
import type { ItemRead, ItemRecord, TripleStore } from "../store/triple_store.ts";
import { chooseItemUri } from "./item_uri.ts";
import { isServiceIri } from "../store/item_keys.ts";
import { distinctQuads } from "../rdf/dedupe.ts";
import { itemNotFound } from "../store/store_problems.ts";
import type { ItemOperation } from "../store/item_history.ts";
import { itemDeleted } from "./deleted_items.ts";

/**
 * Hashes a graph (the items' ETag): SHA-256 over its RDFC-1.0 canonical form. It may
 * answer from a hash computed ahead for the same array (see `RdfWork`).
 */
export type GraphHasher = (quads: Quad[]) => Promise<string>;

/**
 * What the collection holds about the resources an item links to: the item graphs named by
 * `iris` that it has (an IRI it does not hold gives nothing).
 */
export type LinkedItems = (iris: string[]) => Promise<Quad[][]>;

/**
 * Checks a graph against a collection's SHACL shapes; throws a 422 problem on violations.
 * `linked` gives what the collection knows about the resources the graph links to, which
 * shapes such as `sh:class` need (the type of a value is stated in the value's own item).
 */
export interface ShapeValidator {
  validate(entry: CollectionEntry, quads: Quad[], linked: LinkedItems): Promise<void>;
  /** Whether the collection's shapes look at the nodes an item links to. */
  readsLinks(entry: CollectionEntry): boolean;
}

/** How a write is made. */
export interface WriteOptions {
  /** Part of a bulk import (see `ItemWrite.bulk` in the store interface). */
  bulk?: boolean;
  /**
   * The same write again after the store could not say whether the first one was applied
   * (`write-outcome-unknown`): a create that finds the item already holding this very graph
   * (same hash) answers with it instead of `item-exists`.
   */
  again?: boolean;
  /**
   * Part of an import: the document's own items named by IRIs the item links to, which
   * SHACL reads before the store's (they may come later in the document).
   */
  linkedInDocument?: ReadonlyMap<string, Quad[]>;
  /** Who writes, for the item's history (`store/item_history.ts`); `local` when unset. */
  principal?: string;
  /** What the write is for the history; by default `import` for a bulk write, else the call's. */
  operation?: ItemOperation;
}

/** The history's operation of a write made as `call`. */
function operationOf(options: WriteOptions, call: "create" | "update"): ItemOperation {
  return options.operation ?? (options.bulk ? "import" : call);
}

/** The item operations the routes call. */
export class ItemService {
  constructor(
    private readonly store: TripleStore,
    private readonly catalog: Catalog,
    private readonly hash: GraphHasher,
    private readonly shapes?: ShapeValidator,
  ) {}

  /** Creates an item and returns its record (its URI chosen per docs/api.md). */
  async create(
    collection: string,
    itemParameter: string | undefined,
    body: Quad[],
    options: WriteOptions = {},
  ) {
    const entry = this.catalog.collection(collection);
    const quads = itemGraph(body);
    const chosen = chooseItemUri(quads, itemParameter, entry.collection.itemUriTemplate);
    if (isServiceIri(chosen.uri)) throw serviceIriRefused(chosen.uri, itemParameter);
    await this.shapes?.validate(
      entry,
      chosen.quads,
      this.#linkedItems(collection, chosen.uri, options.linkedInDocument),
    );
    const hash = await this.hash(chosen.quads);
    try {
      return await this.store.createItem({
        collection,
        uri: chosen.uri,
        quads: chosen.quads,
        hash,
        bulk: options.bulk,
        principal: options.principal,
        operation: operationOf(options, "create"),
      });
    } catch (error) {
      if (options.again && isProblem(error, "item-exists")) {
        const existing = await this.store.getItem(collection, chosen.uri);
        if (existing?.hash === hash) return existing;
      }
      throw error;
    }
  }

  /** The item's record; 404, or 410 `item-deleted` for a deleted item whose history remains. */
  async record(collection: string, uri: string): Promise<ItemRecord> {
    this.catalog.require(collection);
    const record = await this.store.getItem(collection, uri);
    if (record) return record;
    const latest = await this.store.history.latest(collection, uri);
    throw latest?.operation === "delete" ? itemDeleted(latest) : itemNotFound(collection, uri);
  }

  /**
   * The item's triples (subjects grouped) with the record of their version, or 404. `known`
   * is the record just looked up: the item cache answers with it when it holds that version;
   * otherwise the store's own record comes back, which may be newer. Its hash is the ETag.
   */
  read(known: ItemRecord): Promise<ItemRead> {
    return this.store.readItem(known.collection, known.uri, known);
  }

  /** Replaces the item's whole graph. The body must describe the item. */
  async update(
    collection: string,
    uri: string,
    body: Quad[],
    ifMatch?: string,
    options: WriteOptions = {},
  ) {
    const entry = this.catalog.collection(collection);
    const quads = itemGraph(body);
    if (
      !quads.some((quad) => quad.subject.termType === "NamedNode" && quad.subject.value === uri)
    ) {
      throw new DomainError("item-not-described", {
        detail: `No triple of the body has <${uri}> as its subject.`,
        errors: [{ path: "item", message: "not a subject of the body" }],
      });
    }
    await this.shapes?.validate(
      entry,
      quads,
      this.#linkedItems(collection, uri, options.linkedInDocument),
    );
    return this.store.replaceItem(
      {
        collection,
        uri,
        quads,
        hash: await this.hash(quads),
        bulk: options.bulk,
        principal: options.principal,
        operation: operationOf(options, "update"),
      },
      { ifMatch },
    );
  }

  /** Whether the collection's shapes look at linked nodes (an import then gives them). */
  shapesReadLinks(collection: string): boolean {
    return this.shapes?.readsLinks(this.catalog.collection(collection)) ?? false;
  }

  /**
   * The items named by IRIs an item links to, the item itself left out: an import's own
   * (`inDocument`) first, then the collection's.
   */
  #linkedItems(
    collection: string,
    self: string,
    inDocument?: ReadonlyMap<string, Quad[]>,
  ): LinkedItems {
    return async (iris) => {
      const others = iris.filter((iri) => iri !== self);
      const fromDocument = others.flatMap((iri) => {
        const quads = inDocument?.get(iri);
        return quads ? [quads] : [];
      });
      const rest = others.filter((iri) => !inDocument?.has(iri));
      if (rest.length === 0) return fromDocument;
      const stored = await this.store.readItemGraphs(collection, rest);
      return [...fromDocument, ...stored.map((graph) => graph.quads)];
    };
  }

  /** Deletes the item; `principal` is who, for its history. */
  async delete(
    collection: string,
    uri: string,
    ifMatch?: string,
    principal?: string,
  ): Promise<void> {
    this.catalog.require(collection);
    await this.store.deleteItem(collection, uri, { ifMatch }, { principal });
  }
}

/**
 * An item is one graph: the body's default graph, duplicates removed, never empty. A body
 * without duplicates is returned as it is, so a hash computed ahead for it still applies.
 */
function itemGraph(body: Quad[]): Quad[] {
  const named = body.find((quad) => quad.graph.termType !== "DefaultGraph");
  if (named) {
    throw new DomainError("named-graphs-not-allowed", {
      detail:
        `An item is one graph; the body has triples in the named graph <${named.graph.value}>.`,
      errors: [{ path: "body", message: `named graph ${named.graph.value}` }],
    });
  }
  if (body.length === 0) {
    throw new DomainError("empty-body", {
      detail: "The body holds no triples.",
      errors: [
        { path: "body", message: "no triples" },
      ],
    });
  }
  const distinct = distinctQuads(body);
  return distinct.length === body.length ? body : distinct;
}

/**
 * The service names its own records and the graphs of items that share an IRI in
 * `urn:rdf-content-service:` (`store/item_keys.ts`): an item named there could take one's name.
 */
function serviceIriRefused(uri: string, itemParameter: string | undefined): DomainError {
  return new DomainError("invalid-iri", {
    detail: `<${uri}> is in the service's own namespace (urn:rdf-content-service:), ` +
      "which no item may be named in.",
    errors: [{ path: itemParameter === undefined ? "body" : "item", message: "reserved IRI" }],
  });
}
