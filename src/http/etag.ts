/**
 * Entity tags and the conditional requests that use them: items' ETags are their content
 * hash, quoted as a strong validator; `notModified` is the one conditional-GET answer every
 * route that offers one gives (the service sends no Last-Modified, so If-None-Match is the
 * only condition a GET can carry).
 */
import type { Context } from "hono";
import type { AppEnv } from "./app_env.ts";

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

/** An entity tag without `W/` and quotes: what two tags are compared by (weak comparison). */
function opaqueTag(tag: string): string {
  return tag.trim().replace(/^W\//, "").replace(/^"|"$/g, "");
}

/** True when an `If-None-Match` header matches the current ETag (answer 304). */
function noneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const current = opaqueTag(etag);
  return header.split(",").some((tag) => tag.trim() === "*" || opaqueTag(tag) === current);
}

/**
 * A GET's conditional answer: 304 with `etag` (and `headers`) when If-None-Match names the
 * current version, otherwise undefined and the route answers in full.
 */
export function notModified(
  c: Context<AppEnv>,
  etag: string,
  headers: Record<string, string> = {},
): Response | undefined {
  if (!noneMatchHits(c.req.header("if-none-match"), etag)) return undefined;
  return c.body(null, 304, { ...headers, ETag: etag });
}
