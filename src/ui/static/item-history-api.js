/**
 * The item history calls of the item page (docs/api.md, Item history), the seam between the
 * page and those routes: a page of versions (following the API's `next` link), one version's
 * graph, the change between two versions, and a restore conditional on the ETag the page
 * shows. Failures are ApiErrors carrying the API's problem.
 */
import { api, apiJson, ensureOk, withQuery } from "./workbench.js";

/** Versions a page of the history lists. */
export const VERSIONS_PER_PAGE = 20;

/**
 * A page of the history: `{versions, next}`, newest first; `next` is the API's URL of the
 * older page (null at the oldest), passed back as `path` to read it.
 */
export function historyPage(collection, item, path) {
  return apiJson(
    path ?? withQuery("/api/item/history", { collection, item, limit: VERSIONS_PER_PAGE }),
  );
}

/** Version `version`'s graph as Turtle. */
export async function versionTurtle(collection, item, version) {
  const response = await ensureOk(
    await api(withQuery("/api/item", { collection, item, version }), {
      headers: { Accept: "text/turtle" },
    }),
  );
  return await response.text();
}

/** `{removed, added}` from version `from` to `to`: N-Triples statements each. */
export function versionDiff(collection, item, from, to) {
  return apiJson(withQuery("/api/item/diff", { collection, item, from, to }));
}

/**
 * Writes version `version` as the item's new version. `etag` is the item's current ETag as
 * the page read it (a 412 when someone wrote since); none for a deleted item, which has none:
 * its undelete asks `If-None-Match: *` instead (a 412 when the item exists again).
 */
export async function restoreVersion(collection, item, version, etag) {
  const response = await api(withQuery("/api/item/restore", { collection, item, version }), {
    method: "POST",
    headers: etag ? { "If-Match": etag } : { "If-None-Match": "*" },
  });
  await ensureOk(response);
  await response.body?.cancel();
  return response.headers.get("etag");
}
