/**
 * Per-collection access at the HTTP edge (docs/SECURITY.md): the catalog's collections seen
 * through the one decision of `src/catalog/access_policy.ts`.
 *
 * A collection the caller may not read answers exactly as an unknown one (`404
 * collection-not-found`), so neither it nor its items' existence leak; a write the caller may
 * not make answers `403` when the caller may read the collection. Every refusal is audited.
 */
import type { Context } from "hono";
import type { AppEnv } from "./app_env.ts";
import { type CollectionEntry, collectionNotFound } from "../catalog/catalog.ts";
import { type CollectionRight, mayAccess, principalName } from "../catalog/access_policy.ts";
import type { CollectionGate } from "./collection_gate.ts";
import { DomainError } from "../errors/domain_error.ts";
import { requirePrincipal } from "./auth.ts";
import { refusal } from "./access_audit.ts";
import type { QueryScope } from "../sparql_protocol/query_types.ts";

/** What a refused right is called in messages. */
const VERBS: Record<CollectionRight, string> = {
  read: "read",
  write: "write",
  export: "export",
  maintain: "import into or index",
};

/** The gate of the request at hand (set for every request by the app). */
function gateOf(c: Context<AppEnv>): CollectionGate {
  const gate = c.get("collections");
  if (!gate) throw new Error("no collection gate: the app sets one for every request");
  return gate;
}

/**
 * The collection, when the caller may `right` it: an unknown or unreadable one is `404
 * collection-not-found`, a readable one the caller may not write `403 forbidden`.
 */
export function requireCollection(
  c: Context<AppEnv>,
  uri: string,
  right: CollectionRight,
): CollectionEntry {
  const principal = requirePrincipal(c);
  const entry = gateOf(c).catalog.collection(uri);
  if (mayAccess(principal, entry.collection, right)) return entry;
  if (right !== "read" && mayAccess(principal, entry.collection, "read")) {
    refusal(c, { status: 403, collection: uri });
    throw new DomainError("forbidden", {
      detail: `${principalName(principal)} may read <${uri}> but not ${VERBS[right]} it.`,
    });
  }
  refusal(c, { status: 404, collection: uri });
  throw collectionNotFound(uri);
}

/** Whether the caller may `right` the collection (false for an unknown one). */
export function mayUseCollection(
  c: Context<AppEnv>,
  uri: string,
  right: CollectionRight,
): boolean {
  return gateOf(c).may(requirePrincipal(c), uri, right);
}

/** The collections the caller may read, or undefined for all of them. */
export function readableScope(c: Context<AppEnv>): string[] | undefined {
  return gateOf(c).readable(requirePrincipal(c));
}

/** A query scope of the readable collections; unset when the caller reads them all. */
export function scopeOf(collections: string[] | undefined): QueryScope | undefined {
  return collections === undefined ? undefined : { collections };
}
