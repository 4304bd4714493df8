/**
 * Versioned items for the fault suites: N-Triples bodies of a fixed size that differ per
 * version, and the reads that tell which version (if any) the service holds.
 *
 * Every call takes the service's base URL, so it works for an in-process service and for
 * one running as its own OS process. Literals are plain strings, which every store keeps
 * as written (TDB2 would rewrite typed numbers), so a served graph hashes to its ETag.
 */
import { strict as assert } from "node:assert";
import { DEMO_COLLECTION, itemQuery } from "./service.ts";

/** N-Triples of `triples` statements about `uri`, all carrying `word` and the version. */
export function versionBody(uri: string, version: number, word: string, triples = 100): string {
  const lines = [`<${uri}> <http://purl.org/dc/terms/title> "${word} version ${version}" .`];
  for (let i = 1; i < triples; i++) {
    lines.push(`<${uri}> <https://example.org/fault/p${i}> "${word} v${version} value ${i}" .`);
  }
  return lines.join("\n") + "\n";
}

/** The hash (ETag value, unquoted) the service gives an N-Triples body. */
export async function hashOf(baseUrl: string, ntriples: string): Promise<string> {
  const response = await fetch(
    `${baseUrl}/api/item/hash?collection=${encodeURIComponent(DEMO_COLLECTION)}`,
    { method: "POST", headers: { "Content-Type": "application/n-triples" }, body: ntriples },
  );
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text).hash;
}

/** An item as served: its ETag (unquoted) and N-Triples; undefined for 404 or 410. */
export interface ServedItem {
  hash: string;
  ntriples: string;
}

/**
 * Reads an item as N-Triples; fails on anything but 200, 404 and 410 (a deleted item whose
 * history a store keeps: absent as well).
 */
export async function readServedItem(
  baseUrl: string,
  uri: string,
): Promise<ServedItem | undefined> {
  const response = await fetch(`${baseUrl}/api/item?${itemQuery(uri)}`, {
    headers: { Accept: "application/n-triples" },
  });
  const text = await response.text();
  if (response.status === 404 || response.status === 410) return undefined;
  assert.equal(response.status, 200, `GET ${uri}: ${text}`);
  return { hash: (response.headers.get("etag") ?? "").replaceAll('"', ""), ntriples: text };
}

/**
 * Asserts the served item is whole: its graph hashes to its ETag and has `triples`
 * statements, so metadata and graph belong to the same write.
 */
export async function assertWhole(
  baseUrl: string,
  uri: string,
  served: ServedItem,
  triples: number,
): Promise<void> {
  const lines = served.ntriples.split("\n").filter((line) => line.trim() !== "");
  assert.equal(lines.length, triples, `${uri}: ${lines.length} triples served`);
  assert.equal(await hashOf(baseUrl, served.ntriples), served.hash, `${uri}: graph ≠ ETag`);
}

/** A search hit as the fault suites read it. */
export interface Hit {
  uri: string;
  document: Record<string, unknown>;
}

/** Every hit of a full-text search for `word` in the demo collection (up to 1000). */
export async function searchWord(baseUrl: string, word: string): Promise<Hit[]> {
  const response = await fetch(
    `${baseUrl}/api/search?collection=${encodeURIComponent(DEMO_COLLECTION)}&q=${word}&size=1000`,
  );
  const text = await response.text();
  assert.equal(response.status, 200, text);
  const body = JSON.parse(text) as { total: number; hits: Hit[] };
  assert.equal(body.hits.length, body.total, "all hits fit one page");
  return body.hits;
}

/** A word no other test writes, so a full-text search finds only this test's items. */
export function uniqueWord(): string {
  return `run${crypto.randomUUID().replaceAll("-", "")}`;
}
