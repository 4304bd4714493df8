/**
 * The search index contract: one index per collection, documents keyed by item URI.
 *
 * Two engines, each in a folder beside this one: `src/search_embedded/` (SQLite FTS5 in the
 * service's own file) and `src/search_opensearch/`. Routes, indexing jobs and the outbox worker
 * only see this interface.
 *
 * Readers always go through the collection's index name, which is an alias for one
 * physical index. A rebuild (`clear=true`) fills a new physical index and then swaps the
 * alias in one atomic step, so searches keep answering from the old index until the new
 * one is complete, and a failed rebuild leaves the old one serving.
 */
import { DomainError, type ErrorKind } from "../errors/domain_error.ts";
import type { ClampChange, SearchWindow } from "./clamp.ts";

/**
 * The engine refused the request itself (a mapping it cannot apply, an analyzer it lacks):
 * sent again, it will be refused again. The outbox dead-letters the items it concerned
 * instead of retrying them (src/indexing/dead_letters.ts).
 */
export class EngineRefusal extends DomainError {}
import type { BackendHealth } from "../backend/backend_health.ts";

/** The collection an index belongs to and how it is named. */
export interface CollectionIndexRef {
  collection: string;
  /** customer.yml `index` with the configured prefix: the alias readers query. */
  indexName: string;
  /**
   * The collection's declared field types (customer.yml `mappings` merged over what its
   * fields imply), in the mapping syntax the configuration speaks: OpenSearch creates new
   * physical indices from them, both engines read typed fields from them
   * (`declared_mappings.ts`).
   */
  mappings?: Record<string, unknown>;
}

/** A physical index being filled by a rebuild; write to it, then commit or abort it. */
export interface RebuildTarget {
  readonly ref: CollectionIndexRef;
  readonly physicalName: string;
}

/** Where writes go: a collection's index (and any rebuild in progress), or one rebuild. */
export type IndexTarget = CollectionIndexRef | RebuildTarget;

/** A JSON value stored in a search document. */
export type SearchFieldValue =
  | string
  | number
  | boolean
  | SearchFieldValue[]
  | { [field: string]: SearchFieldValue };

/** One item as the search index sees it (see `documents.ts`). */
export interface SearchDocument {
  [field: string]: SearchFieldValue;
  uri: string;
  collection: string;
  workspace: string;
  /** rdf:type IRIs of the item. */
  types: string[];
  hash: string;
  /** ISO 8601. */
  modified: string;
  /** Every literal of the item's graph: what `q` searches. */
  text: string;
}

/** A document the engine refused; the others of the same call were still written. */
export interface BulkFailure {
  uri: string;
  /**
   * Why: `invalid-input` when the document breaks the index's field types (or has no URI),
   * `unavailable` when the engine was overloaded or unreachable, `backend-failed` otherwise.
   */
  kind: ErrorKind;
  message: string;
  /**
   * True when the same write may succeed later (engine overloaded or unreachable, an
   * index or alias being created or swapped by another instance); false when the engine
   * will refuse this document every time.
   */
  retryable: boolean;
}

/** The outcome of a bulk write: failures are reported per document, never thrown. */
export interface BulkResult {
  succeeded: number;
  failed: BulkFailure[];
}

/** Options of a write. */
export interface WriteOptions {
  /** Make the write visible to searches before answering (slower; for tests and `wait`). */
  refresh?: boolean;
  /**
   * Epoch milliseconds after which no request of this write may start (retries stop, and a
   * request's timeout ends by then): the caller's claim on the items ends soon after.
   */
  deadline?: number;
  /**
   * Writes to a collection's index also reach rebuilds of it that other service instances
   * started (looked up in the engine: one more request per call). Writers that run beside
   * indexing jobs, i.e. the outbox, need it; a job itself holds the one-job lock, so no other
   * rebuild runs meanwhile. Rebuilds this engine object started are always written to.
   */
  findRebuilds?: boolean;
}

/** An exact-match condition `field:value`; `field` may be a dotted path into nested objects. */
export interface SearchFilter {
  field: string;
  value: string;
}

/**
 * At least one of `values` must match `field` exactly (an OR within the field); several
 * of these, and plain filters, must all hold.
 */
export interface SearchAnyFilter {
  field: string;
  values: string[];
}

/**
 * An inclusive range on `field`; an absent bound is open. Number values compare as numbers
 * when both given bounds are numbers, every other value compares as a string (ISO 8601
 * dates in one form compare in time order).
 */
export interface SearchRange {
  field: string;
  gte?: string;
  lte?: string;
}

/** A sort key; several sort keys apply in order, the URI breaks remaining ties. */
export interface SearchSort {
  field: string;
  order: "asc" | "desc";
}

/** A search as the service's own search route asks it. */
export interface SearchRequest {
  /**
   * Full-text query: every word must occur in the item's literals, or (in the same language)
   * its stem in the literals tagged with a search language. Absent or blank matches
   * everything.
   */
  q?: string;
  /** Matches `q` only against literals tagged with this search language, by stem. */
  language?: string;
  filters?: SearchFilter[];
  anyOf?: SearchAnyFilter[];
  ranges?: SearchRange[];
  sort?: SearchSort[];
  from?: number;
  size?: number;
  /** Fields to count values of over every hit (not only the page). */
  facets?: string[];
  /** Most values per facet, before clamping to `maxResultsLimit`. */
  facetSize?: number;
  /** Adds each hit's matched fragments of `text` (needs `q`). */
  highlight?: boolean;
}

/**
 * One result. `score` is the relevance when `q` was given, else null (also null on the embedded
 * engine when more hits than `trackTotalHits` match: they come most recently added first).
 */
export interface SearchHit {
  uri: string;
  /** The collection whose index holds the hit; set by {@link SearchEngine.searchMany}. */
  collection?: string;
  score: number | null;
  document: SearchDocument;
  /**
   * With `highlight`: fragments of the matched fields, HTML-escaped, the matched words in
   * `<em>…</em>`; empty when there is no `q`.
   */
  highlights?: Record<string, string[]>;
}

/** One value of a facet and how many hits hold it. */
export interface FacetValue {
  value: string | number | boolean;
  count: number;
}

/** docs/api.md's search response. `from` and `size` are the applied (clamped) values. */
export interface SearchResponse {
  /** Hits, counted exactly up to the configured `trackTotalHits`; see `totalRelation`. */
  total: number;
  /** `eq` when `total` is exact, `gte` when more hits than `total` match. */
  totalRelation: "eq" | "gte";
  from: number;
  size: number;
  clamped: null | { requested: SearchWindow; applied: SearchWindow };
  hits: SearchHit[];
  /**
   * With `facets`: per field, its most frequent values among all hits, most hits first, then
   * by value. A field no hit holds has an empty list.
   */
  facets?: Record<string, FacetValue[]>;
  /**
   * With `facets`: `eq` when each count is exact; `gte` when the engine counted a sample of
   * the hits (the embedded engine beyond `trackTotalHits`: the most recently added ones), so
   * each count is a lower bound.
   */
  facetsRelation?: "eq" | "gte";
  /** With `facets`: set when `facetSize` was clamped to `maxResultsLimit`. */
  facetsClamped?: null | { requested: number; applied: number };
}

/** A query DSL search's answer: the engine's response, and what clamping changed. */
export interface RawSearchResult {
  response: Record<string, unknown>;
  changes: ClampChange[];
}

/**
 * A search engine holding one index per collection.
 *
 * Errors are DomainErrors (`src/errors/`): unavailable `search-unavailable` when the engine
 * cannot be reached, backend-failed `search-error` when it fails unexpectedly, invalid-input
 * `invalid-search-query` for a query DSL body the engine refuses.
 *
 * What every engine does is here; running a raw query DSL body is an optional capability
 * ({@link RawSearchCapable}, OpenSearch only) that callers reach through {@link rawSearch}.
 */
export interface SearchEngine {
  readonly kind: "embedded" | "opensearch";
  /** Creates the collection's index (a physical index behind its alias) if missing. */
  ensureIndex(index: CollectionIndexRef): Promise<void>;
  /**
   * Adds or replaces documents (keyed by `uri`). Writes to a collection's index also go to a
   * rebuild of it in progress, so the rebuilt index misses no update.
   */
  upsert(
    index: IndexTarget,
    documents: SearchDocument[],
    options?: WriteOptions,
  ): Promise<BulkResult>;
  /** Removes documents by item URI; a URI with no document counts as removed. */
  remove(index: IndexTarget, uris: string[], options?: WriteOptions): Promise<BulkResult>;
  /** Every document URI of an index, in URI order, read in clamped pages. */
  listDocumentUris(index: IndexTarget): AsyncIterable<string>;
  /** Makes every write so far visible to searches. */
  refresh(index: IndexTarget): Promise<void>;
  /** Starts a rebuild: a new, empty physical index that readers do not see yet. */
  beginRebuild(index: CollectionIndexRef): Promise<RebuildTarget>;
  /** Atomically points the collection's index at the rebuilt one and drops the old one. */
  commitRebuild(target: RebuildTarget): Promise<void>;
  /** Drops a rebuild; the old index keeps serving. */
  abortRebuild(target: RebuildTarget): Promise<void>;
  /** Searches a collection's index; the window is clamped (see `clamp.ts`). */
  search(index: CollectionIndexRef, request: SearchRequest): Promise<SearchResponse>;
  /**
   * Searches several collections' indices as one: one ranking, each hit naming its
   * `collection`; the window and facet size are clamped once, for the whole answer; `total`
   * adds up the indices' hits (counted exactly up to `trackTotalHits` in all, as one index's);
   * facets add up their counts. One index answers as {@link search} does, its hits named;
   * none answers an empty result.
   */
  searchMany(
    indices: readonly CollectionIndexRef[],
    request: SearchRequest,
  ): Promise<SearchResponse>;
  /**
   * What the engine lacks that the service needs to run on it at all, one sentence each (e.g.
   * an OpenSearch node without the module of the mappings' analyzers): start-up refuses to
   * serve when any is named. Absent when nothing can be missing (the embedded engine); throws
   * when the engine cannot be asked now (an outage, not a misconfiguration).
   */
  missingCapabilities?(): Promise<string[]>;
  /** The engine's state for `/ready`. */
  health(): Promise<BackendHealth>;
  /** Releases connections; the engine is unusable afterwards. */
  close(): Promise<void>;
}

/** The optional capability of running a raw query DSL body (OpenSearch has it). */
export interface RawSearchCapable {
  /** Runs a query DSL body after clamping it. */
  rawSearch(index: CollectionIndexRef, body: Record<string, unknown>): Promise<RawSearchResult>;
}

/** True when `engine` can run raw query DSL bodies. */
export function hasRawSearch(
  engine: SearchEngine,
): engine is SearchEngine & RawSearchCapable {
  return typeof (engine as Partial<RawSearchCapable>).rawSearch === "function";
}

/**
 * Runs a query DSL body on `engine`; an engine without the capability (the embedded one)
 * refuses with not-implemented `not-implemented`.
 */
export function rawSearch(
  engine: SearchEngine,
  index: CollectionIndexRef,
  body: Record<string, unknown>,
): Promise<RawSearchResult> {
  if (hasRawSearch(engine)) return engine.rawSearch(index, body);
  return Promise.reject(
    new DomainError("not-implemented", {
      detail:
        `Query DSL search needs the opensearch search backend; this service uses the ${engine.kind} one.`,
    }),
  );
}

/** True when `target` is a rebuild rather than a collection's index. */
export function isRebuildTarget(target: IndexTarget): target is RebuildTarget {
  return "physicalName" in target;
}

/** The collection index a write target belongs to. */
export function indexRefOf(target: IndexTarget): CollectionIndexRef {
  return isRebuildTarget(target) ? target.ref : target;
}

/**
 * Whether `name` can name an index on both engines (OpenSearch's rules): lowercase, no
 * `\ / * ? " < > | , # :` or white space, not starting with `-`, `_` or `+`, not `.`/`..`,
 * at most 200 bytes so the timestamped physical names stay under OpenSearch's 255.
 */
export function isValidIndexName(name: string): boolean {
  return name.length > 0 &&
    new TextEncoder().encode(name).length <= 200 &&
    name === name.toLowerCase() &&
    !/[\\/*?"<>|,#:\s]/.test(name) &&
    !/^[-_+]/.test(name) &&
    name !== "." && name !== "..";
}

/**
 * The name of a new physical index behind alias `indexName`: `<indexName>-<UTC timestamp>`
 * (`yyyymmddhhmmssSSS`) at `now`. Callers try a later `now` when the name is taken.
 */
export function physicalIndexName(indexName: string, now = Date.now()): string {
  const stamp = new Date(now).toISOString().replace(/[-:TZ.]/g, "");
  return `${indexName}-${stamp}`;
}

/** Whether `physicalName` is a physical index of alias `indexName` as named above. */
export function isPhysicalIndexOf(indexName: string, physicalName: string): boolean {
  return physicalName.startsWith(`${indexName}-`) &&
    /^\d{17}$/.test(physicalName.slice(indexName.length + 1));
}

/** A conflict: a write, commit or abort naming a rebuild that is not in progress. */
export function rebuildNotActiveProblem(target: RebuildTarget): DomainError {
  return new DomainError("rebuild-not-active", {
    detail: `Index ${target.physicalName} is not being rebuilt for ${target.ref.indexName}.`,
  });
}

/** An internal fault: a configured index name no engine accepts (see {@link isValidIndexName}). */
export function invalidIndexNameProblem(name: string): DomainError {
  return new DomainError("invalid-index-name", {
    detail: `"${name}" cannot name a search index: use lowercase letters, digits, - and _.`,
  });
}
