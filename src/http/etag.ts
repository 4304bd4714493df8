/** ETags are the item's content hash, quoted as a strong validator. */

/** The ETag header value for a hash. */
export function formatEtag(hash: string): string {
  return `"${hash}"`;
}

/**
 * The hash an `If-Match` / `If-None-Match` header names: undefined for no header or `*`
 * (any current version), else the first entity tag with quotes and `W/` removed.
 */
export function parseEtagCondition(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const first = header.split(",")[0].trim();
  if (first === "*" || first === "") return undefined;
  return first.replace(/^W\//, "").replace(/^"|"$/g, "");
}

/** True when an `If-None-Match` header matches the current hash (answer 304). */
export function noneMatchHits(header: string | undefined, hash: string): boolean {
  if (!header) return false;
  return header.split(",").some((tag) => {
    const value = tag.trim();
    return value === "*" || value.replace(/^W\//, "").replace(/^"|"$/g, "") === hash;
  });
}
