/**
 * The SPARQL store's item history (`store/item_history.ts`): every version of an item, in the
 * metadata graph beside the item's record, written by the write's own update request.
 *
 * Layout (all in the metadata graph, which `/sparql` does not show: `user_queries.ts` refuses
 * the graph by name and drops from answers the rows and triples naming the service's IRIs):
 * - a history head per (collection, IRI), `rcs:history:<collection>:<IRI>` (both parts
 *   percent-encoded), holding the last version number (`rcs:versions`) and its time
 *   (`rcs:lastTime`). A delete removes the item's record but never its head, so a deleted
 *   item created again goes on counting;
 * - a node per version, `rcs:version:<collection>:<IRI>:<n>`: `rcs:versionOf` the head, its
 *   number, time, hash (`""` for a delete), triple count, principal, operation, and its graph
 *   as the embedded store keeps it (`version_content.ts`: deflated N-Triples, blank node
 *   labels as written) in one `xsd:base64Binary` literal. A version is a handful of triples
 *   whatever the graph's size; a delete has no content.
 *
 * A version is written by {@link SparqlItemHistory.operations}, which the write's guarded
 * request (`item_writes.ts`) carries after the operation that leaves its receipt: it matches
 * that receipt, so a refused write (no receipt) writes no version and an applied one always
 * has one, whatever becomes of the request's answer. The number and the
 * time are computed by the store from the head inside the request (each operation sees the
 * ones before it), so two writes of one item in one group, or from two instances, number
 * right. The time is never earlier than the version before it (a clock set back, or another
 * instance's clock ahead).
 *
 * Forms chosen for Virtuoso 7.2 (`portable_sparql.ts`): the head's absence is a `UNION`
 * branch ({@link whenAbsent}) that starts the count at 0, so the numbering needs no `OPTIONAL`;
 * the time comparison is made on `STR()` of both sides (Virtuoso's `IF(?t > "…", ?t, "…")`
 * answers `?t` for a stored `""`).
 */
import { Buffer } from "node:buffer";
import { nodeFields } from "../sparql_protocol/node_fields.ts";
import { selectRows } from "../sparql_protocol/bounded_queries.ts";
import { whenAbsent } from "../sparql_protocol/portable_sparql.ts";
import type { SparqlRow } from "../sparql_protocol/results_json.ts";
import { METADATA_NAMESPACE, PROLOGUE } from "../sparql_protocol/service_vocabulary.ts";
import { integerLiteral, iriToSparql, stringToSparql } from "../sparql_protocol/terms.ts";
import type {
  ItemCount,
  ItemHistory,
  ItemOperation,
  ItemPage,
  ItemVersion,
  PruneRule,
  PruneStep,
  StatePage,
  VersionContent,
  VersionPageRequest,
  VersionWrite,
} from "../store/item_history.ts";
import { decodeVersionContent, encodeVersionContent } from "../store/version_content.ts";
import type { StoreContext } from "./store_context.ts";

const HEAD_PREFIX = `${METADATA_NAMESPACE}history:`;
const VERSION_PREFIX = `${METADATA_NAMESPACE}version:`;
const BASE64 = "http://www.w3.org/2001/XMLSchema#base64Binary";
/** A head's time before its first version: below every ISO 8601 time. */
const NO_TIME = "0";
/** The listing's answer: at most 1,000 versions of a few hundred bytes each. */
const MAX_LIST_BYTES = 4 << 20;
/** One version's answer: its graph, deflated and in base64, may be large. */
const MAX_CONTENT_BYTES = 256 << 20;

/** The item's history head, as SPARQL. */
function headOf(collection: string, uri: string): string {
  return iriToSparql(`${HEAD_PREFIX}${itemPart(collection, uri)}`);
}

/** The prefix of the item's version IRIs; the number follows. */
function versionPrefix(collection: string, uri: string): string {
  return `${VERSION_PREFIX}${itemPart(collection, uri)}:`;
}

/** Collection and IRI percent-encoded: no two items share it, and it is a valid IRI part. */
function itemPart(collection: string, uri: string): string {
  return `${encodeURIComponent(collection)}:${encodeURIComponent(uri)}`;
}

/** The field each version predicate holds, by the names {@link toVersion} reads. */
const FIELD_OF: Record<string, string> = {
  [`${METADATA_NAMESPACE}version`]: "n",
  [`${METADATA_NAMESPACE}versionTime`]: "time",
  [`${METADATA_NAMESPACE}versionHash`]: "hash",
  [`${METADATA_NAMESPACE}versionTriples`]: "count",
  [`${METADATA_NAMESPACE}principal`]: "principal",
  [`${METADATA_NAMESPACE}operation`]: "operation",
};
/** The triples of an item's version nodes, content left out: a few hundred bytes each. */
const MAX_VERSION_TRIPLES_BYTES = 64 << 20;

/** The fields every version has, bound as the listing reads them. */
const FIELDS = `rcs:version ?n ; rcs:versionTime ?time ; rcs:versionHash ?hash ;
  rcs:versionTriples ?count ; rcs:principal ?principal ; rcs:operation ?operation`;

/** Versions in the metadata graph; writes are operations of the item write's request. */
export class SparqlItemHistory implements ItemHistory {
  readonly #context: StoreContext;
  /** Versions of writes confirmed applied (their receipts found). */
  #written = 0;
  /** Versions this process's pruning removed. */
  #pruned = 0;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  /**
   * The operations that add `write`'s version, for its guarded request after the operation
   * that leaves `receipt` (`item_writes.ts`): nothing happens unless the receipt is there.
   */
  operations(receipt: string, write: VersionWrite): string[] {
    const meta = this.#context.meta;
    const head = headOf(write.collection, write.uri);
    const applied = `GRAPH ${meta} { ${receipt} rcs:receiptFor ?rcsVersionKey }`;
    const now = stringToSparql(write.time);
    const content = write.graph
      ? ` ; rcs:content "${
        Buffer.from(encodeVersionContent(write.graph.quads)).toString("base64")
      }"^^<${BASE64}>`
      : "";
    // One operation per write: a missing head is a branch of the WHERE that counts from 0,
    // not an operation of its own that makes the head first.
    return [
      `DELETE { GRAPH ${meta} { ${head} rcs:versions ?rcsLast ; rcs:lastTime ?rcsLastTime } }
      INSERT { GRAPH ${meta} { ${head} rcs:versions ?rcsNext ; rcs:lastTime ?rcsTime .
          ?rcsVersion rcs:versionOf ${head} ; rcs:version ?rcsNext ; rcs:versionTime ?rcsTime ;
            rcs:versionHash ${stringToSparql(write.graph?.hash ?? "")} ;
            rcs:versionTriples ${
        integerLiteral(write.graph?.count ?? write.graph?.quads.length ?? 0)
      } ;
            rcs:principal ${stringToSparql(write.principal)} ;
            rcs:operation ${stringToSparql(write.operation)}${content} } }
      WHERE { ${applied}
        { GRAPH ${meta} { ${head} rcs:versions ?rcsLast ; rcs:lastTime ?rcsLastTime } }
        UNION { ${whenAbsent(`GRAPH ${meta} { ${head} rcs:versions ?rcsAny }`)}
          BIND(0 AS ?rcsLast) BIND(${stringToSparql(NO_TIME)} AS ?rcsLastTime) }
        BIND(?rcsLast + 1 AS ?rcsNext)
        BIND(IF(STR(?rcsLastTime) > ${now}, STR(?rcsLastTime), ${now}) AS ?rcsTime)
        BIND(IRI(CONCAT(${
        stringToSparql(versionPrefix(write.collection, write.uri))
      }, STR(?rcsNext))) AS ?rcsVersion) }`,
    ];
  }

  /** Counts `count` versions of writes confirmed applied. */
  committed(count: number): void {
    this.#written += count;
  }

  versionsWritten(): number {
    return this.#written;
  }

  async list(collection: string, uri: string, page: VersionPageRequest): Promise<ItemVersion[]> {
    const before = page.before ?? Number.MAX_SAFE_INTEGER;
    return await this.#versions(collection, uri, (v) => v.version < before, page.limit);
  }

  async read(
    collection: string,
    uri: string,
    version: number,
  ): Promise<VersionContent | undefined> {
    const node = iriToSparql(`${versionPrefix(collection, uri)}${version}`);
    const meta = this.#context.meta;
    // Content in a branch of its own: a delete has none, and no OPTIONAL is relied on.
    const rows = await selectRows(
      this.#context.client,
      `SELECT ?n ?time ?hash ?count ?principal ?operation ?content WHERE {
         { GRAPH ${meta} { ${node} ${FIELDS} } }
         UNION { GRAPH ${meta} { ${node} rcs:content ?content } } }`,
      MAX_CONTENT_BYTES,
    );
    const merged: SparqlRow = new Map();
    for (const row of rows) for (const [name, term] of row) merged.set(name, term);
    if (!merged.has("n")) return undefined;
    const content = merged.get("content")?.value;
    return {
      version: toVersion(collection, uri, merged),
      quads: content === undefined ? [] : decodeVersionContent(Buffer.from(content, "base64")),
    };
  }

  async at(collection: string, uri: string, instant: Date): Promise<ItemVersion | undefined> {
    const at = instant.toISOString();
    const [version] = await this.#versions(collection, uri, (v) => v.time <= at, 1);
    return version;
  }

  async latest(collection: string, uri: string): Promise<ItemVersion | undefined> {
    const [version] = await this.#versions(collection, uri, () => true, 1);
    return version;
  }

  /**
   * The collection as it stood at `instant`, a page of items at a time ({@link #itemPage}).
   * Each item then costs two small queries (the version at the instant, its graph): enough
   * for an export, not a scan.
   */
  async stateAt(collection: string, instant: Date, page: ItemPage): Promise<StatePage> {
    const uris = await this.#itemPage(collection, page);
    const versions: VersionContent[] = [];
    for (const uri of uris) {
      const then = await this.at(collection, uri, instant);
      if (!then || then.operation === "delete") continue;
      const content = await this.read(collection, uri, then.version);
      if (content) versions.push(content);
    }
    return { versions, last: uris.at(-1) };
  }

  async countItems(collection: string, page: ItemPage): Promise<ItemCount> {
    const uris = await this.#itemPage(collection, page);
    return { items: uris.length, last: uris.at(-1) };
  }

  /**
   * Removes the versions `rule` does not keep from the page's items, in one update; never an
   * item's newest version (the head's number). The count is read just before: a write
   * between the two only adds newer versions, which the rule's bounds here do not reach.
   */
  async prune(collection: string, rule: PruneRule, page: ItemPage): Promise<PruneStep> {
    const uris = await this.#itemPage(collection, page);
    if (uris.length === 0) return { items: 0, removed: 0 };
    const heads = uris.map((uri) => headOf(collection, uri)).join(" ");
    const unkept = "keepLast" in rule
      ? `FILTER(?rcsN <= ?rcsLast - ${Math.max(1, Math.floor(rule.keepLast))})`
      : `FILTER(STR(?rcsTime) < ${stringToSparql(rule.keepSince.toISOString())} && ` +
        "?rcsN < ?rcsLast)";
    const match = `VALUES ?rcsHead { ${heads} } GRAPH ${this.#context.meta} {
        ?rcsHead rcs:versions ?rcsLast .
        ?rcsVersion rcs:versionOf ?rcsHead ; rcs:version ?rcsN ; rcs:versionTime ?rcsTime .
        ${unkept} }`;
    const [row] = await selectRows(
      this.#context.client,
      `SELECT (COUNT(?rcsVersion) AS ?removed) WHERE { ${match} }`,
      MAX_LIST_BYTES,
    );
    const removed = Number(row?.get("removed")?.value ?? 0);
    if (removed > 0) {
      await this.#context.client.update(
        `${PROLOGUE}DELETE { GRAPH ${this.#context.meta} { ?rcsVersion ?p ?o } }
         WHERE { ${match} GRAPH ${this.#context.meta} { ?rcsVersion ?p ?o } }`,
        { idempotent: true },
      );
    }
    this.#pruned += removed;
    return { items: uris.length, removed, last: uris.at(-1) };
  }

  versionsPruned(): number {
    return this.#pruned;
  }

  /**
   * The collection's items with versions, a page at a time, in the order of their history
   * heads' IRIs (collection and IRI percent-encoded): one order, the same from page to page,
   * which `page.after` continues.
   */
  async #itemPage(collection: string, page: ItemPage): Promise<string[]> {
    const prefix = `${HEAD_PREFIX}${encodeURIComponent(collection)}:`;
    const after = page.after === undefined
      ? ""
      : `&& STR(?head) > ${stringToSparql(`${prefix}${encodeURIComponent(page.after)}`)}`;
    const rows = await selectRows(
      this.#context.client,
      `SELECT ?head WHERE { GRAPH ${this.#context.meta} { ?head rcs:versions ?last }
         FILTER(STRSTARTS(STR(?head), ${stringToSparql(prefix)}) ${after}) }
       ORDER BY STR(?head) LIMIT ${Math.max(1, Math.floor(page.limit))}`,
      MAX_LIST_BYTES,
    );
    return rows.map((row) => decodeURIComponent(row.get("head")!.value.slice(prefix.length)));
  }

  /**
   * The item's versions that `keep`, newest first, at most `limit`. Read as the plain triples
   * of the item's version nodes (the content left out) and put together here: a star of a
   * pattern per field is one Virtuoso's cost estimate can refuse outright ("estimated
   * execution time … exceeds the limit"), seen for a GET of a missing item under the suites.
   */
  async #versions(
    collection: string,
    uri: string,
    keep: (version: ItemVersion) => boolean,
    limit: number,
  ): Promise<ItemVersion[]> {
    const rows = await selectRows(
      this.#context.client,
      `SELECT ?v ?p ?o WHERE { GRAPH ${this.#context.meta} {
         ?v rcs:versionOf ${headOf(collection, uri)} . ?v ?p ?o
         FILTER(?p != rcs:content) } }`,
      MAX_VERSION_TRIPLES_BYTES,
    );
    return [...nodeFields(rows, "v", FIELD_OF).values()].filter((fields) => fields.has("n"))
      .map((fields) => toVersion(collection, uri, fields))
      .filter(keep)
      .sort((a, b) => b.version - a.version)
      .slice(0, limit);
  }
}

/** A version from a row binding the {@link FIELDS}. */
function toVersion(collection: string, uri: string, row: SparqlRow): ItemVersion {
  const hash = row.get("hash")?.value ?? "";
  return {
    collection,
    uri,
    version: Number(row.get("n")?.value),
    hash: hash === "" ? null : hash,
    tripleCount: Number(row.get("count")?.value ?? 0),
    time: row.get("time")?.value ?? "",
    principal: row.get("principal")?.value ?? "",
    operation: (row.get("operation")?.value ?? "update") as ItemOperation,
  };
}
