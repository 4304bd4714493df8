/**
 * The one permission decision (docs/SECURITY.md): may this principal read, or write, this
 * collection? Every surface asks it (item routes, downloads, search, `/sparql`, exports,
 * imports, indexing jobs, listings, the workbench), so they cannot disagree.
 *
 * - A global `admin` may do everything.
 * - A collection without `access` keeps the global roles: `reader` reads, `editor` writes,
 *   exports, imports and indexing stay an admin's.
 * - A collection with `access` is read (and exported) by its readers and editors, and
 *   written, imported and indexed by its editors, whatever their global role.
 */
import type { CollectionConfig } from "../config/schema.ts";

/** A caller's global role, weakest first. */
export type Role = "reader" | "editor" | "admin";

const RANK: Record<Role, number> = { reader: 0, editor: 1, admin: 2 };

/** Whether `role` is at least `needed`. */
export function hasRole(role: Role | undefined, needed: Role): boolean {
  return role !== undefined && RANK[role] >= RANK[needed];
}

/** Who is calling, once authenticated. */
export interface Principal {
  /** A configured token, a JWT identity, or anyone on loopback when no security is set. */
  kind: "token" | "user" | "local";
  /** The token's name or the JWT's subject. */
  name: string;
  /** The JWT's groups; none for tokens. */
  groups: readonly string[];
  /** The global role; none for a JWT identity whose groups map to no role. */
  role?: Role;
}

/**
 * What a caller wants to do with a collection: `read` (items, downloads, search, `/sparql`),
 * `write` (item writes, initialise), `export` (exports and seeing the collection's jobs) and
 * `maintain` (imports and indexing). Granted, readers `read` and `export`, editors everything;
 * without grants the global roles decide as they always did: `reader` reads, `editor` writes,
 * and exports, jobs, imports and indexing are an `admin`'s.
 */
export type CollectionRight = "read" | "write" | "export" | "maintain";

/** The global role each right needs on a collection without grants. */
const ROLE_WITHOUT_GRANTS: Record<CollectionRight, Role> = {
  read: "reader",
  write: "editor",
  export: "admin",
  maintain: "admin",
};

/** Whether a right is a reader's under grants (the others are editors'). */
const READERS_MAY: Record<CollectionRight, boolean> = {
  read: true,
  write: false,
  export: true,
  maintain: false,
};

/** How a principal is named in grants, logs and messages: `token:NAME`, `user:SUB`. */
export function principalName(principal: Principal): string {
  return principal.kind === "user" ? `user:${principal.name}` : `token:${principal.name}`;
}

/**
 * Who wrote, as item history records it: {@link principalName}, or `local` for the caller of
 * a service without security (every caller is then the same local admin).
 */
export function authorName(principal: Principal): string {
  return principal.kind === "local" ? "local" : principalName(principal);
}

/** Whether one grant entry names `principal`. */
function names(entry: string, principal: Principal): boolean {
  if (entry === "authenticated") return true;
  if (entry.startsWith("group:")) return principal.groups.includes(entry.slice(6));
  if (entry.startsWith("user:")) {
    return principal.kind === "user" && entry.slice(5) === principal.name;
  }
  if (entry.startsWith("token:")) {
    return principal.kind === "token" && entry.slice(6) === principal.name;
  }
  return false;
}

/** Whether `principal` may `right` the collection. */
export function mayAccess(
  principal: Principal,
  collection: Pick<CollectionConfig, "access">,
  right: CollectionRight,
): boolean {
  if (principal.role === "admin") return true;
  const access = collection.access;
  if (access === undefined) return hasRole(principal.role, ROLE_WITHOUT_GRANTS[right]);
  if (access.editors.some((entry) => names(entry, principal))) return true;
  return READERS_MAY[right] && access.readers.some((entry) => names(entry, principal));
}

/**
 * The collections of `collections` that `principal` may read; undefined when that is all of
 * them (no restriction to apply).
 */
export function readableCollections(
  principal: Principal,
  collections: readonly CollectionConfig[],
): string[] | undefined {
  if (principal.role === "admin") return undefined;
  const readable = collections.filter((collection) => mayAccess(principal, collection, "read"));
  return readable.length === collections.length ? undefined : readable.map((c) => c.uri);
}
