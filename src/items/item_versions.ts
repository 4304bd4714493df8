/**
 * An item's past: its versions, one version's graph, the version current at an instant, and
 * restore (docs/api.md, Item history), over the store's {@link ItemHistory}.
 *
 * A restore is a write like any other, made through the {@link ItemService} (shapes checked,
 * the index outbox and so the search index following), with the operation `restore`.
 */
import type { Quad } from "n3";
import type { Catalog } from "../catalog/catalog.ts";
import { DomainError, isProblem } from "../errors/domain_error.ts";
import type { ItemHistory, ItemVersion, VersionPageRequest } from "../store/item_history.ts";
import type { ItemRead, ItemRecord, TripleStore } from "../store/triple_store.ts";
import { itemNotFound, preconditionFailed } from "../store/store_problems.ts";
import { groupBySubject } from "../rdf/subject_groups.ts";
import type { ItemService } from "./item_service.ts";
import { itemDeleted } from "./deleted_items.ts";
import { type GraphChange, graphChange } from "./version_diff.ts";

/** The most versions one listing gives. */
export const MAX_VERSIONS_PER_PAGE = 1000;

/** A version with its graph, as the item routes serve it (`ItemRead`'s shape). */
export interface VersionRead {
  version: ItemVersion;
  read: ItemRead;
}

/** The history operations the routes call. */
export class ItemVersions {
  constructor(
    private readonly store: TripleStore,
    private readonly catalog: Catalog,
    private readonly items: ItemService,
  ) {}

  /** The item's versions, newest first; 404 for an item that neither is nor ever was. */
  async list(collection: string, uri: string, page: VersionPageRequest): Promise<ItemVersion[]> {
    const history = this.#history(collection);
    const versions = await history.list(collection, uri, page);
    if (versions.length === 0 && !(await this.store.getItem(collection, uri))) {
      // A page past the first version of a known item is empty, not missing.
      if (!(await history.latest(collection, uri))) throw itemNotFound(collection, uri);
    }
    return versions;
  }

  /** One version and its graph; 404 for no such version, 410 for a delete. */
  async read(collection: string, uri: string, version: number): Promise<VersionRead> {
    const content = await this.#history(collection).read(collection, uri, version);
    if (!content) throw versionNotFound(collection, uri, version, "version");
    if (content.version.operation === "delete") throw itemDeleted(content.version);
    return { version: content.version, read: asRead(content.version, content.quads) };
  }

  /**
   * The version current at `instant` (a Memento TimeGate's choice): 404 when the item had
   * no version yet, 410 when it was deleted then.
   */
  async at(collection: string, uri: string, instant: Date): Promise<VersionRead> {
    const found = await this.#history(collection).at(collection, uri, instant);
    if (!found) {
      throw new DomainError("item-not-found", {
        detail: `The item <${uri}> of <${collection}> had no version at ${instant.toISOString()}.`,
      });
    }
    return await this.read(collection, uri, found.version);
  }

  /**
   * What changed from version `from` to version `to` (either may be older); a delete version
   * is the empty graph. 404 `version-not-found` naming the parameter of a missing one.
   */
  async diff(
    collection: string,
    uri: string,
    from: number,
    to: number,
  ): Promise<GraphChange & { from: ItemVersion; to: ItemVersion }> {
    const history = this.#history(collection);
    const [first, second] = await Promise.all([
      history.read(collection, uri, from),
      history.read(collection, uri, to),
    ]);
    for (const [name, found, version] of [["from", first, from], ["to", second, to]] as const) {
      if (!found) throw versionNotFound(collection, uri, version, name);
    }
    return {
      ...graphChange(first!.quads, second!.quads),
      from: first!.version,
      to: second!.version,
    };
  }

  /**
   * Writes version `version`'s graph as the item's new version (operation `restore`), its
   * ETag the version's: over the current item (`ifMatch` its ETag when given), or bringing
   * a deleted one back (a given `ifMatch` then matches nothing: 412). With `ifAbsent`
   * (`If-None-Match: *`) it only brings a deleted item back: an item that exists now, or is
   * created meanwhile, is a 412, so an undelete never overwrites a write made since.
   */
  async restore(
    collection: string,
    uri: string,
    version: number,
    condition: { ifMatch?: string; ifAbsent?: boolean },
    principal: string,
  ): Promise<ItemRecord> {
    const { ifMatch, ifAbsent } = condition;
    const { read } = await this.read(collection, uri, version).catch((error) => {
      if (isProblem(error, "item-deleted")) {
        throw new DomainError("invalid-parameter", {
          detail: `Version ${version} of <${uri}> is its deletion: there is no graph to restore.`,
          errors: [{ path: "version", message: "a delete version" }],
        });
      }
      throw error;
    });
    const quads = await Array.fromAsync(read.quads);
    const options = { principal, operation: "restore" as const };
    const current = await this.store.getItem(collection, uri);
    if (current) {
      if (ifAbsent) throw preconditionFailed(uri, current.hash);
      return await this.items.update(collection, uri, quads, ifMatch, options);
    }
    if (ifMatch !== undefined) throw preconditionFailed(uri, "(none: the item is deleted)");
    try {
      return await this.items.create(collection, uri, quads, options);
    } catch (error) {
      // Created meanwhile: for an undelete that asked for an absent item, its precondition.
      if (ifAbsent && isProblem(error, "item-exists")) {
        const now = await this.store.getItem(collection, uri);
        throw preconditionFailed(uri, now?.hash ?? "(unknown)");
      }
      throw error;
    }
  }

  #history(collection: string): ItemHistory {
    this.catalog.require(collection);
    return this.store.history;
  }
}

/** 404 for a version the item does not have; `parameter` names where it was asked for. */
function versionNotFound(
  collection: string,
  uri: string,
  version: number,
  parameter: string,
): DomainError {
  return new DomainError("version-not-found", {
    detail: `The item <${uri}> of <${collection}> has no version ${version}.`,
    errors: [{ path: parameter, message: "no such version" }],
  });
}

/** A version as an item read: the record of that version and its triples, subjects grouped. */
function asRead(version: ItemVersion, quads: Quad[]): ItemRead {
  const record: ItemRecord = {
    collection: version.collection,
    uri: version.uri,
    hash: version.hash!,
    tripleCount: version.tripleCount,
    created: version.time,
    modified: version.time,
  };
  const grouped = groupBySubject(quads);
  // Iterable again and again: a large version is read twice for RDF/XML (rdf_response.ts).
  return {
    record,
    quads: {
      async *[Symbol.asyncIterator]() {
        yield* grouped;
      },
    },
  };
}
