/**
 * Which collections a `GET /api/search` covers (docs/api.md, Search): the listed ones
 * (`collection`, repeated) or every collection of a `workspace`, as the caller may read them.
 * A listed collection the caller may not read answers exactly as an unknown one (404
 * `collection-not-found`, audited), so its existence does not leak; a workspace is narrowed
 * to its readable collections without a word, which is what searching a workspace means
 * (none readable: nothing to search, an empty answer).
 */
import type { Context } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import { mayUseCollection, requireCollection } from "../http/collection_access.ts";
import { DomainError } from "../errors/domain_error.ts";
import type { AppDeps } from "./app_deps.ts";

/** The URIs of the collections searched, in the order given (a workspace's: as configured). */
export function searchedCollections(
  c: Context<AppEnv>,
  deps: AppDeps,
  collections: readonly string[],
  workspace: string | undefined,
): string[] {
  if (collections.length === 0 && workspace === undefined) {
    throw new DomainError("missing-parameter", {
      detail: "A search needs `collection` (repeated for several) or `workspace`.",
      errors: [{ path: "collection", message: "required unless workspace is given" }],
    });
  }
  if (collections.length > 0 && workspace !== undefined) {
    throw new DomainError("invalid-parameter", {
      detail: "A search takes `collection` (repeated for several) or `workspace`, not both.",
      errors: [{ path: "workspace", message: "not with collection" }],
    });
  }
  if (workspace === undefined) {
    const listed = [...new Set(collections)];
    for (const uri of listed) requireCollection(c, uri, "read");
    return listed;
  }
  return deps.catalog.workspace(workspace).collections
    .map((entry) => entry.uri)
    .filter((uri) => mayUseCollection(c, uri, "read"));
}
