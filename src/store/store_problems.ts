/** The problems every TripleStore implementation answers with, worded once. */
import { DomainError } from "../errors/domain_error.ts";

/** not-found for an item the collection does not hold. */
export function itemNotFound(collection: string, uri: string): DomainError {
  return new DomainError("item-not-found", {
    detail: `The collection <${collection}> holds no item <${uri}>.`,
  });
}

/** conflict for a URI that already names an item. */
export function itemExists(uri: string, collection: string): DomainError {
  return new DomainError("item-exists", {
    detail: `The item <${uri}> already exists in collection <${collection}>.`,
  });
}

/** precondition-failed when `If-Match` names another version. */
export function preconditionFailed(uri: string, current: string): DomainError {
  return new DomainError("precondition-failed", {
    detail: `The item <${uri}> has changed: its current ETag is "${current}".`,
  });
}
