/**
 * A deleted item whose history remains: `410 item-deleted`, pointing at that history (the
 * HTTP edge sends the `history` member as a `Link` too). Its own file because both the item
 * service (a read of the deleted item) and the history (a read of a delete version) raise it.
 */
import { DomainError } from "../errors/domain_error.ts";
import type { ItemVersion } from "../store/item_history.ts";

/** The path of an item's history (what a deleted item's `410` links to). */
export function historyPath(collection: string, uri: string): string {
  return `/api/item/history?collection=${encodeURIComponent(collection)}&item=${
    encodeURIComponent(uri)
  }`;
}

/** 410 for an item whose newest version (`deletion`) deleted it. */
export function itemDeleted(deletion: ItemVersion): DomainError {
  return new DomainError("item-deleted", {
    detail: `The item <${deletion.uri}> of <${deletion.collection}> was deleted at ` +
      `${deletion.time} (version ${deletion.version}); its history remains.`,
    extensions: {
      history: historyPath(deletion.collection, deletion.uri),
      deletedVersion: deletion.version,
    },
  });
}
