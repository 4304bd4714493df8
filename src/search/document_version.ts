/**
 * The version of a search document: its item's `modified` time in milliseconds. Index
 * writes carry it (OpenSearch external versions; the embedded engine compares), so that a
 * document built from an older state of the item never replaces one built from a newer
 * state, however late its write arrives (an outbox retry, a bulk request that outlived its
 * timeout). Equal versions replace (`external_gte`): re-indexing the same state is harmless.
 */
import type { SearchDocument } from "./search_engine.ts";

/** The document's version, or undefined when it carries no `modified` time. */
export function documentVersion(document: Pick<SearchDocument, "modified">): number | undefined {
  const modified = (document as { modified?: unknown }).modified;
  if (typeof modified !== "string") return undefined;
  const version = Date.parse(modified);
  return Number.isFinite(version) && version >= 0 ? version : undefined;
}

/** Whether `incoming` is older than `stored` (then it must not replace it). */
export function isOlderDocument(
  stored: Pick<SearchDocument, "modified">,
  incoming: Pick<SearchDocument, "modified">,
): boolean {
  const before = documentVersion(stored);
  const after = documentVersion(incoming);
  return before !== undefined && after !== undefined && after < before;
}
