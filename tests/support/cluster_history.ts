/**
 * The history audit of a cluster run (issue 41: "every acknowledged write has exactly one
 * version, no version exists for a refused or failed write"): each item the write load wrote
 * one write at a time is read back through `/api/item/history` and held against the ledger.
 *
 * Walking the item's writes in the order sent beside its versions, oldest first: an
 * acknowledged write must be the next version; a refused one must not be; one with an unknown
 * outcome may be or not. A version is matched by its hash (a delete by having none): every
 * body the load sends is distinct, and the hash of a write that was not acknowledged is asked
 * of the service (`POST /api/item/hash`). Versions left over match no write.
 */
import { Parser, Writer } from "n3";
import type { Cluster, LedgerWrite, WriteLedger } from "./cluster.ts";

interface ListedVersion {
  version: number;
  hash: string | null;
  operation: string;
}

/** What the audit found: problems (empty when every history agrees) and what it read. */
export interface HistoryAudit {
  /** Items audited; undefined when the store keeps no history (501). */
  items?: number;
  versions: number;
  problems: string[];
  /** Not audited at this check (a later one of the scenario does). */
  skipped?: boolean;
}

/** Items audited at once: one at a time, 2,000 items took over a minute on a SPARQL store. */
const AUDIT_CONCURRENCY = 8;

/** Audits the history of every item of `ledger` written one write at a time. */
export async function auditHistory(cluster: Cluster, ledger: WriteLedger): Promise<HistoryAudit> {
  const base = cluster.live()[0].url;
  const audit: HistoryAudit = { items: 0, versions: 0, problems: [] };
  const entries = [...ledger.entries.values()].filter((entry) => (entry.writes?.length ?? 0) > 0);
  let unsupported = false;
  let next = 0;
  const auditor = async () => {
    while (!unsupported && next < entries.length) {
      const entry = entries[next++];
      const versions = await listVersions(base, cluster, entry.uri);
      if (versions === undefined) {
        unsupported = true;
        return;
      }
      audit.items!++;
      audit.versions += versions.length;
      const problem = await matchWrites(base, cluster, entry.uri, entry.writes!, versions);
      if (problem) audit.problems.push(problem);
    }
  };
  await Promise.all(Array.from({ length: AUDIT_CONCURRENCY }, auditor));
  return unsupported ? { versions: 0, problems: [] } : audit;
}

/** The item's versions, oldest first; undefined when the store keeps no history. */
async function listVersions(
  base: string,
  cluster: Cluster,
  uri: string,
): Promise<ListedVersion[] | undefined> {
  const versions: ListedVersion[] = [];
  let before: number | undefined;
  for (;;) {
    const page = `/api/item/history?collection=${encodeURIComponent(cluster.collection)}` +
      `&item=${encodeURIComponent(uri)}&limit=1000${before ? `&before=${before}` : ""}`;
    const response = await fetch(`${base}${page}`, { signal: AbortSignal.timeout(30_000) });
    if (response.status === 501) {
      await response.body?.cancel();
      return undefined;
    }
    if (response.status === 404) {
      await response.body?.cancel();
      return versions.reverse(); // never had a version
    }
    if (!response.ok) {
      throw new Error(`history of ${uri}: ${response.status} ${await response.text()}`);
    }
    const body = await response.json() as { versions: ListedVersion[]; next: string | null };
    versions.push(...body.versions);
    if (!body.next || body.versions.length === 0) return versions.reverse();
    before = body.versions[body.versions.length - 1].version;
  }
}

/** The first disagreement between an item's writes and its versions, or undefined. */
async function matchWrites(
  base: string,
  cluster: Cluster,
  uri: string,
  writes: LedgerWrite[],
  versions: ListedVersion[],
): Promise<string | undefined> {
  let next = 0;
  for (const [n, write] of writes.entries()) {
    const expected = write.operation === "delete"
      ? null
      : write.etag ?? await hashOf(base, cluster, write.body!);
    const version = versions[next];
    const matches = version !== undefined &&
      (expected === null ? version.hash === null : version.hash === expected);
    const what = `${uri}: write ${n + 1} (${write.operation}, ${write.outcome})`;
    if (matches) {
      if (write.outcome === "refused") return `${what} has version ${version.version}`;
      next++;
    } else if (write.outcome === "acked") {
      return `${what} has no version (next version: ${JSON.stringify(version ?? null)})`;
    }
  }
  if (next < versions.length) {
    return `${uri}: ${versions.length - next} versions match no write (first: ${
      JSON.stringify(versions[next])
    })`;
  }
  return undefined;
}

/**
 * The service's hash of a body (the ETag its write would have). The hash operation takes no
 * Turtle: a Turtle body goes as the N-Triples of its graph.
 */
async function hashOf(
  base: string,
  cluster: Cluster,
  body: { contentType: string; text: string },
): Promise<string> {
  const sent = body.contentType === "text/turtle"
    ? {
      contentType: "application/n-triples",
      text: new Writer({ format: "N-Triples" }).quadsToString(new Parser().parse(body.text)),
    }
    : body;
  const response = await fetch(
    `${base}/api/item/hash?collection=${encodeURIComponent(cluster.collection)}`,
    {
      method: "POST",
      headers: { "Content-Type": sent.contentType },
      body: sent.text,
      signal: AbortSignal.timeout(30_000),
    },
  );
  if (!response.ok) throw new Error(`hash: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { hash: string }).hash;
}
