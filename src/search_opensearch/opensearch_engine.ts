/**
 * The OpenSearch search engine, through `@opensearch-project/opensearch`.
 *
 * Each collection index is an alias over one physical index `<alias>-<timestamp>`; readers
 * only ever query the alias. A rebuild creates a new physical index and swaps the alias with
 * one `_aliases` request. Only core APIs are used (no `_delete_by_query`, no scripts), so the
 * engine runs against the plain integ-test distribution as well as a full cluster.
 *
 * Several service instances share the indices, so every fact about them lives in the
 * cluster, not in one instance's memory:
 * - The first physical index of an alias has a fixed name (`<alias>-19700101000000000`):
 *   instances that create it at once collide on the name, and exactly one index (with the
 *   alias, in the same request) results. Writes that arrive while the alias is missing or
 *   being swapped fail as retryable, never as refused.
 * - A rebuild's index carries a second alias, `<alias>.rebuilding`, from its creation on,
 *   so every instance's writes to the collection also go to it, and no instance takes it
 *   for a leftover while its job lives (leftovers are dropped only by the next rebuild,
 *   which runs under the indexing job lock, or by the clean-up of a dead job).
 */
import { displayUrl } from "../log/display_url.ts";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { Client, errors } from "@opensearch-project/opensearch";
import { DomainError } from "../errors/domain_error.ts";
import type { BackendHealth } from "../backend/backend_health.ts";
import { type DslGateOptions, gateQueryBody } from "./dsl_gate.ts";
import {
  clampQueryBody,
  clampResponseBuckets,
  type ClampWarning,
  clampWindow,
  type SearchLimits,
} from "../search/clamp.ts";
import { fieldResolver, indexCreationBody } from "./mappings.ts";
import { documentVersion } from "../search/document_version.ts";
import { guardedTransport, type OpenSearchTimeouts, PROBE_OPTIONS } from "./guarded_transport.ts";
import { CircuitBreaker, engineDown, type FailFastOptions } from "../backend/circuit_breaker.ts";
import { startSearch } from "../search/facets.ts";
import { languageTextField, SEARCH_LANGUAGES } from "../fields/languages.ts";
import {
  type BulkFailure,
  type BulkResult,
  type CollectionIndexRef,
  EngineRefusal,
  type FacetValue,
  indexRefOf,
  type IndexTarget,
  invalidIndexNameProblem,
  isPhysicalIndexOf,
  isRebuildTarget,
  isValidIndexName,
  physicalIndexName,
  type RawSearchCapable,
  type RawSearchResult,
  rebuildNotActiveProblem,
  type RebuildTarget,
  type SearchDocument,
  type SearchEngine,
  type SearchHit,
  type SearchRequest,
  type SearchResponse,
  type WriteOptions,
} from "../search/search_engine.ts";

/** How bulk writes are cut and retried. */
export interface BulkPolicy {
  /** Most documents per bulk request. */
  maxDocuments: number;
  /** Most bytes of documents per bulk request. */
  maxBytes: number;
  /** Attempts per batch when the engine answers 429 or 5xx or cannot be reached. */
  maxAttempts: number;
  /** First backoff; doubles per attempt up to `maxBackoffMs`. */
  initialBackoffMs: number;
  maxBackoffMs: number;
}

/** Options of {@link OpenSearchEngine}. */
export interface OpenSearchEngineOptions {
  /**
   * Base URL of the node, e.g. `http://127.0.0.1:9200`, or of every node of the cluster:
   * requests then go round the nodes, and one that cannot be reached is tried on the next.
   */
  node: string | string[];
  /** HTTP basic auth, sent to every node. */
  username?: string;
  password?: string;
  /** PEM CA certificates trusted for HTTPS to the nodes, besides the default roots. */
  caCertificates?: string[];
  limits: SearchLimits;
  /** Receives clamp warnings; one JSON line on stderr by default. */
  warn?: ClampWarning;
  /**
   * Client-side timeouts by kind of request (search, bulk, admin): every request is aborted
   * when its own passes (guarded_transport.ts). `service.search.opensearch.timeouts`.
   */
  timeouts: OpenSearchTimeouts;
  /** When to mark the engine down and fail fast (`service.failFast`). */
  failFast: FailFastOptions;
  /** Search-side budget of a query DSL body (`service.search.opensearch.dsl.timeoutMs`). */
  rawSearchTimeoutMs: number;
  /**
   * The gate every query DSL body passes before it reaches OpenSearch
   * (`service.search.opensearch.dsl.expensiveQueries`). The service always sets it; left out,
   * bodies go to OpenSearch unchecked, which only tests of OpenSearch's own refusals want.
   */
  dslGate?: DslGateOptions;
  bulk?: Partial<BulkPolicy>;
}

/** The default {@link BulkPolicy}. */
export const DEFAULT_BULK_POLICY: BulkPolicy = {
  maxDocuments: 500,
  maxBytes: 5 * 1024 * 1024,
  maxAttempts: 5,
  initialBackoffMs: 200,
  maxBackoffMs: 5000,
};

/** The suffix of the alias that marks the physical indices being rebuilt. */
const REBUILDING_SUFFIX = ".rebuilding";

/** The alias of the indices being rebuilt behind collection alias `alias`. */
export function rebuildingAlias(alias: string): string {
  return `${alias}${REBUILDING_SUFFIX}`;
}

/** URIs per page of {@link OpenSearchEngine.listDocumentUris}, before clamping. */
const LIST_PAGE = 1000;
/** How much longer than the search budget the client waits for the answer. */
const RAW_SEARCH_GRACE_MS = 500;
/** The module holding the language analyzers (absent from the minimal distribution). */
const ANALYSIS_MODULE = "analysis-common";
/** OpenSearch refuses longer `_id`s. */
const MAX_ID_BYTES = 512;

/** Bulk lines go pre-serialised; the client passes strings through as NDJSON lines. */
type BulkBody = Parameters<Client["bulk"]>[0]["body"];

interface BulkOperation {
  uri: string;
  lines: string[];
  bytes: number;
  isDelete: boolean;
}

/** Search on an OpenSearch node or cluster. */
export class OpenSearchEngine implements SearchEngine, RawSearchCapable {
  /** Which engine this is. */
  readonly kind = "opensearch" as const;
  readonly #client: Client;
  /** Marks the engine down after repeated timeouts or refusals (service.failFast). */
  readonly breaker: CircuitBreaker;
  /** The nodes as messages name them: without credentials. */
  readonly #where: string;
  /** With several nodes, a failure also names the node that failed last. */
  readonly #severalNodes: boolean;
  readonly #limits: SearchLimits;
  readonly #warn?: ClampWarning;
  readonly #bulk: BulkPolicy;
  readonly #requestTimeoutMs: number;
  readonly #rawSearchTimeoutMs: number;
  readonly #dslGate?: DslGateOptions;
  /** Aliases known to exist, so that writes do not ask every time. */
  readonly #ensured = new Set<string>();
  readonly #ensuring = new Map<string, Promise<void>>();
  /** Alias → physical indices this process is rebuilding. */
  readonly #rebuilds = new Map<string, Set<string>>();

  /** Connects lazily: nothing is sent before the first call. */
  constructor(options: OpenSearchEngineOptions) {
    const nodes = typeof options.node === "string" ? [options.node] : options.node;
    this.#where = nodes.map(displayUrl).join(", ");
    this.#severalNodes = nodes.length > 1;
    this.#limits = options.limits;
    this.#warn = options.warn;
    this.#bulk = { ...DEFAULT_BULK_POLICY, ...options.bulk };
    const { timeouts } = options;
    this.#requestTimeoutMs = timeouts.bulkMs;
    this.breaker = new CircuitBreaker(
      `OpenSearch at ${this.#where}`,
      engineDown("search-unavailable", `OpenSearch at ${this.#where}`),
      options.failFast,
    );
    this.#rawSearchTimeoutMs = options.rawSearchTimeoutMs;
    this.#dslGate = options.dslGate;
    this.#client = new Client({
      nodes,
      auth: options.username
        ? { username: options.username, password: options.password ?? "" }
        : undefined,
      ssl: options.caCertificates ? { ca: options.caCertificates } : undefined,
      // Failover: a request that failed on one node (no connection, timeout, 502-504) is
      // tried once on each other node. Bulk writes keep their own backoff on top of it.
      maxRetries: nodes.length - 1,
      requestTimeout: timeouts.adminMs,
      Transport: guardedTransport(timeouts, this.breaker),
    });
    // Any answer, an error status too, means the node is back.
    this.breaker.setProbe(() =>
      this.#client.ping({}, PROBE_OPTIONS).catch((error) => {
        if (!(error instanceof errors.ResponseError)) throw error;
      })
    );
  }

  /** Creates `<alias>-<timestamp>` with the alias in one request if the alias is missing. */
  ensureIndex(index: CollectionIndexRef): Promise<void> {
    if (this.#ensured.has(index.indexName)) return Promise.resolve();
    let pending = this.#ensuring.get(index.indexName);
    if (!pending) {
      pending = this.#createIfMissing(index).finally(() => this.#ensuring.delete(index.indexName));
      this.#ensuring.set(index.indexName, pending);
    }
    return pending;
  }

  /** Indexes documents in bounded, retried batches; failures are reported per document. */
  async upsert(
    target: IndexTarget,
    documents: SearchDocument[],
    options: WriteOptions = {},
  ): Promise<BulkResult> {
    const indices = await this.#writeTargets(target, options.findRebuilds);
    const failed: BulkFailure[] = [];
    const operations: BulkOperation[] = [];
    for (const document of documents) {
      if (typeof document?.uri !== "string" || document.uri === "") {
        failed.push({
          uri: String(document?.uri ?? ""),
          kind: "invalid-input",
          message: "the document has no uri",
          retryable: false,
        });
        continue;
      }
      const source = JSON.stringify(document);
      const version = documentVersion(document);
      const lines = indices.flatMap(({ name, alias }) => [
        JSON.stringify({
          index: {
            _index: name,
            _id: documentId(document.uri),
            ...(alias ? { require_alias: true } : {}),
            // An older state of the item never replaces a newer one (document_version.ts).
            ...(version === undefined ? {} : { version, version_type: "external_gte" }),
          },
        }),
        source,
      ]);
      operations.push({
        uri: document.uri,
        lines,
        bytes: Buffer.byteLength(source) * indices.length,
        isDelete: false,
      });
    }
    const result = await this.#runBulk(operations, options);
    return { succeeded: result.succeeded, failed: [...failed, ...result.failed] };
  }

  /** Deletes documents by URI in bounded, retried batches; missing ones count as removed. */
  async remove(
    target: IndexTarget,
    uris: string[],
    options: WriteOptions = {},
  ): Promise<BulkResult> {
    const indices = await this.#writeTargets(target, options.findRebuilds);
    // Versioned as of now: a delete that arrives late loses to a document written after it.
    const version = Date.now();
    const operations = uris.map((uri): BulkOperation => {
      const lines = indices.map(({ name }) =>
        JSON.stringify({
          delete: { _index: name, _id: documentId(uri), version, version_type: "external_gte" },
        })
      );
      return { uri, lines, bytes: lines.join("").length, isDelete: true };
    });
    return await this.#runBulk(operations, options);
  }

  /** Every document URI in URI order, in clamped `search_after` pages. */
  async *listDocumentUris(target: IndexTarget): AsyncIterable<string> {
    const index = isRebuildTarget(target) ? target.physicalName : target.indexName;
    const window = clampWindow({ from: 0, size: LIST_PAGE }, this.#limits, this.#warn);
    const size = Math.max(1, window.applied.size);
    let after: unknown[] | undefined;
    while (true) {
      const body: Record<string, unknown> = {
        size,
        _source: false,
        query: { match_all: {} },
        sort: [{ uri: "asc" }],
        ...(after ? { search_after: after } : {}),
      };
      let hits: { sort?: unknown[] }[];
      try {
        hits = (await this.#client.search({ index, body })).body.hits.hits;
      } catch (error) {
        if (isIndexNotFound(error)) return;
        throw this.#problem(error);
      }
      for (const hit of hits) yield String(hit.sort?.[0]);
      if (hits.length < size) return;
      after = hits[hits.length - 1].sort;
    }
  }

  /** Makes writes visible to searches (the index and any rebuild of it). */
  async refresh(target: IndexTarget): Promise<void> {
    const names = (await this.#writeTargets(target)).map(({ name }) => name);
    try {
      await this.#client.indices.refresh({ index: names, ignore_unavailable: true });
    } catch (error) {
      throw this.#problem(error);
    }
  }

  /**
   * Creates a new physical index behind the rebuilding alias only; leftovers of older
   * rebuilds go first. Only the one running indexing job may call it (the job lock makes
   * every other rebuild index a leftover of a job that died), except that rebuilds this
   * engine object started itself are kept.
   */
  async beginRebuild(index: CollectionIndexRef): Promise<RebuildTarget> {
    await this.ensureIndex(index);
    try {
      const serving = new Set(await this.#aliasIndices(index.indexName));
      const active = this.#rebuilds.get(index.indexName) ?? new Set();
      const existing = (await this.#client.cat.indices({
        index: `${index.indexName}-*`,
        format: "json",
        h: ["index"],
      }))
        .body as { index: string }[];
      const leftovers = existing.map((row) => row.index).filter((name) =>
        isPhysicalIndexOf(index.indexName, name) && !serving.has(name) && !active.has(name)
      );
      if (leftovers.length > 0) await this.#client.indices.delete({ index: leftovers });
      const physicalName = await this.#createPhysical(index, rebuildingAlias(index.indexName));
      this.#rebuilds.set(index.indexName, new Set([...active, physicalName]));
      return { ref: index, physicalName };
    } catch (error) {
      throw this.#problem(error);
    }
  }

  /** Refreshes the rebuilt index, swaps the alias in one `_aliases` request, drops the old. */
  async commitRebuild(target: RebuildTarget): Promise<void> {
    const alias = target.ref.indexName;
    if (!this.#rebuilds.get(alias)?.has(target.physicalName)) throw rebuildNotActiveProblem(target);
    try {
      await this.#client.indices.refresh({ index: target.physicalName });
      const previous = await this.#aliasIndices(alias);
      const concrete = previous.length === 0 &&
        (await this.#client.indices.exists({ index: alias })).body === true;
      await this.#client.indices.updateAliases({
        body: {
          actions: [
            ...previous.map((index) => ({ remove: { index, alias } })),
            ...(concrete ? [{ remove_index: { index: alias } }] : []),
            { add: { index: target.physicalName, alias } },
            { remove: { index: target.physicalName, alias: rebuildingAlias(alias) } },
          ],
        },
      });
      this.#rebuilds.get(alias)?.delete(target.physicalName);
      this.#ensured.add(alias);
      if (previous.length > 0) await this.#client.indices.delete({ index: previous });
    } catch (error) {
      throw this.#problem(error);
    }
  }

  /** Deletes the rebuilt index; the alias never pointed at it. */
  async abortRebuild(target: RebuildTarget): Promise<void> {
    const alias = target.ref.indexName;
    let live = false;
    try {
      live = (await this.#aliasIndices(alias)).includes(target.physicalName);
    } catch {
      // Unreachable: the check cannot be made, but the abort must still stop dual writes.
    }
    if (live) throw rebuildNotActiveProblem(target);
    // Forget the rebuild first, so later writes stop going to it even if the delete fails
    // (the leftover index then only takes disk space until an operator removes it).
    this.#rebuilds.get(alias)?.delete(target.physicalName);
    try {
      await this.#client.indices.delete({ index: target.physicalName, ignore_unavailable: true });
    } catch (error) {
      throw this.#problem(error);
    }
  }

  /** Full-text, filtered, sorted and clamped search of a collection's index. */
  async search(index: CollectionIndexRef, request: SearchRequest): Promise<SearchResponse> {
    const { response, window, facetSize } = startSearch(request, this.#limits, this.#warn);
    const q = request.q?.trim() ? request.q : undefined;
    try {
      const fields = [
        ...[...request.filters ?? [], ...request.anyOf ?? [], ...request.ranges ?? []]
          .map((entry) => entry.field),
        ...(request.sort ?? []).map((entry) => entry.field),
        ...request.facets ?? [],
      ];
      const resolve = fieldResolver(await this.#fieldMappings(index.indexName, fields));
      const sort = (request.sort ?? []).map(resolve.sort);
      const body: Record<string, unknown> = {
        from: window.from,
        size: window.size,
        track_total_hits: this.#limits.trackTotalHits,
        track_scores: q !== undefined,
        query: {
          bool: {
            must: [textQuery(q, request.language)],
            filter: [
              ...(request.filters ?? []).map(resolve.filter),
              ...(request.anyOf ?? []).map(resolve.anyOf),
              ...(request.ranges ?? []).map(resolve.range),
            ],
          },
        },
        sort: [...sort, ...(q !== undefined && sort.length === 0 ? ["_score"] : []), {
          uri: "asc",
        }],
      };
      // Aggregations are named by position: field names may hold any character.
      const facetFields = (request.facets ?? []).map(resolve.facetField);
      if (facetSize !== undefined) {
        const aggs: Record<string, unknown> = {};
        facetFields.forEach((field, position) => {
          if (field === undefined || facetSize === 0) return;
          aggs[`facet${position}`] = { terms: { field, size: facetSize } };
        });
        if (Object.keys(aggs).length > 0) body.aggs = aggs;
      }
      if (request.highlight && q !== undefined) {
        body.highlight = {
          encoder: "html",
          pre_tags: ["<em>"],
          post_tags: ["</em>"],
          fields: Object.fromEntries(TEXT_FIELDS.map((field) => [field, {}])),
        };
      }
      const answer = (await this.#client.search({ index: index.indexName, body })).body;
      const result = answer.hits;
      response.total = typeof result.total === "number" ? result.total : result.total?.value ?? 0;
      if (typeof result.total === "object" && result.total?.relation === "gte") {
        response.totalRelation = "gte";
      }
      response.hits = result.hits.map((hit) => {
        const found: SearchHit = {
          uri: (hit._source as SearchDocument).uri,
          score: q === undefined ? null : hit._score ?? null,
          document: hit._source as SearchDocument,
        };
        if (request.highlight) {
          found.highlights = (hit.highlight ?? {}) as Record<string, string[]>;
        }
        return found;
      });
      const aggregations = (answer.aggregations ?? {}) as Record<string, unknown>;
      (request.facets ?? []).forEach((field, position) => {
        response.facets![field] = facetValues(aggregations[`facet${position}`]);
      });
      return response;
    } catch (error) {
      if (isIndexNotFound(error)) return response;
      throw this.#problem(error);
    }
  }

  /**
   * Runs a query DSL body (already through the gate) against the collection's alias after
   * clamping it, within the search timeout: OpenSearch's own `timeout` and a cancellation of
   * the search task at the same time, so a slow query stops using the cluster, and the
   * client's timeout on the request a little later. A timeout is 504 `search-timeout`, also
   * when OpenSearch answers partial results with `timed_out: true`: they are not the answer
   * to the query asked.
   */
  async rawSearch(
    index: CollectionIndexRef,
    body: Record<string, unknown>,
  ): Promise<RawSearchResult> {
    if (this.#dslGate) refuseGated(body, this.#dslGate);
    const clamped = clampQueryBody(body, this.#limits, this.#warn);
    const budget = `${this.#rawSearchTimeoutMs}ms`;
    try {
      const result = await this.#client.search(
        {
          index: index.indexName,
          body: { ...clamped.body, timeout: budget },
          cancel_after_time_interval: budget,
        },
        // No failover here: a retry on the next node would double the time a caller waits.
        { requestTimeout: this.#rawSearchTimeoutMs + RAW_SEARCH_GRACE_MS, maxRetries: 0 },
      );
      const response = result.body as Record<string, unknown>;
      if (response.timed_out === true) throw this.#searchTimeout();
      const buckets = clampResponseBuckets(response, this.#limits, this.#warn);
      return { response: buckets.response, changes: [...clamped.changes, ...buckets.changes] };
    } catch (error) {
      if (error instanceof errors.TimeoutError || isTaskCancelled(error)) {
        throw this.#searchTimeout();
      }
      if (error instanceof errors.ResponseError && error.statusCode === 400) {
        throw new DomainError("invalid-search-query", { detail: reasonOf(error) });
      }
      if (isIndexNotFound(error)) {
        throw new DomainError("search-index-not-found", { detail: reasonOf(error) });
      }
      throw this.#problem(error);
    }
  }

  /**
   * What the default mappings need that a node lacks: the `analysis-common` module (its
   * language analyzers: `german`, `english`, …), missing from the minimal distribution.
   * Names each such node; empty when every node has it.
   */
  async missingCapabilities(): Promise<string[]> {
    const { body } = await this.#client.nodes.info({
      metric: ["plugins"],
      filter_path: "nodes.*.name,nodes.*.modules.name,nodes.*.plugins.name",
    });
    const nodes = (body as {
      nodes?: Record<
        string,
        { name?: string; modules?: { name: string }[]; plugins?: { name: string }[] }
      >;
    }).nodes ?? {};
    return Object.entries(nodes)
      .filter(([, node]) =>
        ![...(node.modules ?? []), ...(node.plugins ?? [])].some((m) => m.name === ANALYSIS_MODULE)
      )
      .map(([id, node]) =>
        `node ${node.name ?? id} of OpenSearch at ${this.#where} lacks the ${ANALYSIS_MODULE} ` +
        "module, whose language analyzers the search mappings use"
      );
  }

  /** Cluster health: red or unreachable is not ok. */
  async health(): Promise<BackendHealth> {
    try {
      const { status } = (await this.#client.cluster.health({ timeout: "2s" })).body;
      return { ok: status !== "red", detail: `opensearch at ${this.#where}: ${status}` };
    } catch (error) {
      return { ok: false, detail: this.#problem(error).message };
    }
  }

  /** Closes the client's connections. */
  async close(): Promise<void> {
    this.breaker.close();
    await this.#client.close();
  }

  async #createIfMissing(index: CollectionIndexRef): Promise<void> {
    if (!isValidIndexName(index.indexName)) throw invalidIndexNameProblem(index.indexName);
    try {
      const exists =
        (await this.#client.indices.existsAlias({ name: index.indexName })).body === true ||
        (await this.#client.indices.exists({ index: index.indexName })).body === true;
      if (!exists) await this.#createFirst(index);
      this.#ensured.add(index.indexName);
    } catch (error) {
      throw this.#problem(error);
    }
  }

  /**
   * The alias's first physical index, under its fixed name: when several instances create
   * it at once, one request wins and the others find it taken, with the alias already on it
   * (created in the same request). An index of that name without the alias (the alias was
   * removed by hand) gets the alias back.
   */
  async #createFirst(index: CollectionIndexRef): Promise<void> {
    const name = physicalIndexName(index.indexName, 0);
    try {
      await this.#client.indices.create({
        index: name,
        body: {
          ...indexCreationBody(this.#limits, index.mappings),
          aliases: { [index.indexName]: {} },
        },
      });
      return;
    } catch (error) {
      if (errorType(error) !== "resource_already_exists_exception") throw error;
    }
    if ((await this.#client.indices.existsAlias({ name: index.indexName })).body === true) return;
    await this.#client.indices.updateAliases({
      body: { actions: [{ add: { index: name, alias: index.indexName } }] },
    });
  }

  /** A new physical index with alias `alias`; a taken name moves on a millisecond. */
  async #createPhysical(index: CollectionIndexRef, alias: string): Promise<string> {
    const body = {
      ...indexCreationBody(this.#limits, index.mappings),
      aliases: { [alias]: {} },
    };
    let now = Date.now();
    while (true) {
      const name = physicalIndexName(index.indexName, now++);
      try {
        await this.#client.indices.create({ index: name, body });
        return name;
      } catch (error) {
        if (errorType(error) !== "resource_already_exists_exception") throw error;
      }
    }
  }

  /** The alias (which must exist) and the physical indices being rebuilt behind it. */
  async #writeTargets(
    target: IndexTarget,
    findRebuilds = false,
  ): Promise<{ name: string; alias: boolean }[]> {
    if (isRebuildTarget(target)) {
      if (!this.#rebuilds.get(target.ref.indexName)?.has(target.physicalName)) {
        throw rebuildNotActiveProblem(target);
      }
      return [{ name: target.physicalName, alias: false }];
    }
    await this.ensureIndex(target);
    const alias = indexRefOf(target).indexName;
    const rebuilding = (this.#rebuilds.get(alias)?.size ?? 0) > 0 ||
      (findRebuilds && (await this.#aliasIndices(rebuildingAlias(alias))).length > 0);
    // A rebuild is written to through its alias, never by its physical name: a rebuild
    // index dropped meanwhile (aborted, or a dead job's cleaned up) then answers 404 instead
    // of being created again empty by OpenSearch's automatic index creation.
    return [
      { name: target.indexName, alias: true },
      ...(rebuilding ? [{ name: rebuildingAlias(alias), alias: true }] : []),
    ];
  }

  async #aliasIndices(alias: string): Promise<string[]> {
    try {
      return Object.keys((await this.#client.indices.getAlias({ name: alias })).body);
    } catch (error) {
      if (error instanceof errors.ResponseError && error.statusCode === 404) return [];
      throw error;
    }
  }

  async #fieldMappings(alias: string, fields: string[]): Promise<Record<string, unknown>> {
    if (fields.length === 0) return {};
    const body = (await this.#client.indices.getFieldMapping({ index: alias, fields })).body;
    const merged: Record<string, unknown> = {};
    for (const physical of Object.values(body)) Object.assign(merged, physical.mappings ?? {});
    return merged;
  }

  async #runBulk(operations: BulkOperation[], options: WriteOptions): Promise<BulkResult> {
    const result: BulkResult = { succeeded: 0, failed: [] };
    let batch: BulkOperation[] = [];
    let bytes = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      const outcome = await this.#bulkWithRetries(batch, options);
      result.succeeded += outcome.succeeded;
      result.failed.push(...outcome.failed);
      batch = [];
      bytes = 0;
    };
    for (const operation of operations) {
      if (
        batch.length >= this.#bulk.maxDocuments ||
        (batch.length > 0 && bytes + operation.bytes > this.#bulk.maxBytes)
      ) {
        await flush();
      }
      batch.push(operation);
      bytes += operation.bytes;
    }
    await flush();
    return result;
  }

  /** One batch; items the engine rejected with 429 are sent again, alone, after a backoff. */
  async #bulkWithRetries(operations: BulkOperation[], options: WriteOptions): Promise<BulkResult> {
    const result: BulkResult = { succeeded: 0, failed: [] };
    let pending = operations;
    for (let attempt = 1; pending.length > 0; attempt++) {
      const lastAttempt = attempt >= this.#bulk.maxAttempts;
      const timeout = this.#timeoutBefore(options.deadline);
      let items: Record<string, { status: number; error?: unknown }>[];
      try {
        const body = pending.flatMap((operation) => operation.lines) as unknown as BulkBody;
        items = (await this.#client.bulk(
          { body, refresh: options.refresh ? "wait_for" : undefined },
          timeout === undefined ? undefined : { requestTimeout: timeout },
        )).body.items;
      } catch (error) {
        if (lastAttempt || !isRetryable(error)) throw this.#problem(error);
        await this.#backoff(attempt);
        continue;
      }
      const retry: BulkOperation[] = [];
      let cursor = 0;
      for (const operation of pending) {
        const outcomes = items.slice(
          cursor,
          cursor + operation.lines.length / (operation.isDelete ? 1 : 2),
        );
        cursor += outcomes.length;
        // The first target decides: a rebuild's copy (the others) that fails is made good
        // by the job's re-queue after its swap, and one dropped meanwhile answers 404.
        const outcome = Object.values(outcomes[0] ?? {})[0];
        // 409: the index holds a newer (or the same) version already; nothing to write.
        if (
          !outcome || outcome.status < 300 || outcome.status === 409 ||
          (operation.isDelete && outcome.status === 404)
        ) {
          result.succeeded++;
        } else if (!lastAttempt && outcome.status === 429) {
          retry.push(operation);
        } else {
          const retryable = isRetryableItemFailure(outcome.status, outcome.error);
          if (retryable) this.#ensured.clear(); // the alias may be gone: look again
          result.failed.push({
            uri: operation.uri,
            kind: retryable
              ? "unavailable"
              : outcome.status === 400
              ? "invalid-input"
              : "backend-failed",
            message: itemMessage(outcome.error),
            retryable,
          });
        }
      }
      pending = retry;
      if (pending.length > 0) await this.#backoff(attempt);
    }
    return result;
  }

  /**
   * The request timeout that ends a request by `deadline` (undefined: the client's own);
   * a deadline already past is 503, so no request starts after it.
   */
  #timeoutBefore(deadline: number | undefined): number | undefined {
    if (deadline === undefined) return undefined;
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new DomainError("search-unavailable", {
        detail: "The write's deadline passed before OpenSearch accepted it.",
      });
    }
    return Math.min(left, this.#requestTimeoutMs);
  }

  #searchTimeout(): DomainError {
    return new DomainError("search-timeout", {
      detail: `The query did not finish within ${this.#rawSearchTimeoutMs} ms ` +
        "(service.search.opensearch.dsl.timeoutMs); narrow it down.",
    });
  }

  #backoff(attempt: number): Promise<void> {
    const delay = Math.min(
      this.#bulk.maxBackoffMs,
      this.#bulk.initialBackoffMs * 2 ** (attempt - 1),
    );
    return new Promise((resolve) => setTimeout(resolve, delay * (0.5 + Math.random() / 2)));
  }

  #problem(error: unknown): DomainError {
    if (error instanceof DomainError) return error;
    if (
      error instanceof errors.ConnectionError || error instanceof errors.NoLivingConnectionsError ||
      error instanceof errors.TimeoutError || error instanceof errors.RequestAbortedError ||
      (error instanceof errors.ResponseError && [429, 502, 503, 504].includes(error.statusCode))
    ) {
      return new DomainError("search-unavailable", {
        detail: `OpenSearch at ${this.#where} cannot serve the request: ${
          this.#severalNodes ? nodeOf(error) : ""
        }${reasonOf(error)}`,
        extensions: { retryAfter: this.breaker.retryAfterSeconds },
      });
    }
    const message = `OpenSearch: ${reasonOf(error)}`;
    // A 4xx other than overload or a missing index: the request itself is refused.
    if (
      error instanceof errors.ResponseError && error.statusCode >= 400 &&
      error.statusCode < 500 && ![404, 408, 409, 429].includes(error.statusCode)
    ) {
      return new EngineRefusal("search-error", { detail: message });
    }
    return new DomainError("search-error", { detail: message });
  }
}

/** The `_id` of an item's document: its URI, or a SHA-256 of it when too long for OpenSearch. */
export function documentId(uri: string): string {
  return Buffer.byteLength(uri) <= MAX_ID_BYTES
    ? uri
    : `sha256:${createHash("sha256").update(uri).digest("hex")}`;
}

/**
 * Whether a document the bulk API refused may be accepted later: overload, a node failing,
 * or an alias that is missing or has no write index for a moment (being created or swapped
 * by another instance).
 */
function isRetryableItemFailure(status: number, error: unknown): boolean {
  if (status === 429 || status >= 500) return true;
  const type = (error as { type?: string } | undefined)?.type;
  if (type === "index_not_found_exception" || type === "alias_not_found_exception") return true;
  const reason = (error as { reason?: string } | undefined)?.reason ?? "";
  return /no write index/i.test(reason);
}

/** `<node>: ` for the node the client last sent a failed request to, if it says which. */
function nodeOf(error: unknown): string {
  const meta = (error as { meta?: { meta?: { connection?: { url?: URL } | null } } }).meta;
  const url = meta?.meta?.connection?.url;
  return url ? `${displayUrl(url.href)}: ` : "";
}

function isRetryable(error: unknown): boolean {
  if (error instanceof errors.ResponseError) {
    return error.statusCode === 429 || error.statusCode >= 500;
  }
  return error instanceof errors.ConnectionError ||
    error instanceof errors.NoLivingConnectionsError ||
    error instanceof errors.TimeoutError;
}

/** A search OpenSearch cancelled at `cancel_after_time_interval`. */
function isTaskCancelled(error: unknown): boolean {
  return /task_cancelled_exception/.test(
    error instanceof errors.ResponseError ? JSON.stringify(error.body ?? "") : "",
  );
}

function isIndexNotFound(error: unknown): boolean {
  return errorType(error) === "index_not_found_exception";
}

function errorType(error: unknown): string | undefined {
  if (!(error instanceof errors.ResponseError)) return undefined;
  const body = error.body as { error?: { type?: string } } | undefined;
  return body?.error?.type;
}

function reasonOf(error: unknown): string {
  if (error instanceof errors.ResponseError) {
    const cause = (error.body as { error?: unknown } | undefined)?.error;
    return cause ? itemMessage(cause) : `HTTP ${error.statusCode}`;
  }
  return error instanceof Error ? error.message : String(error);
}

function itemMessage(error: unknown): string {
  if (typeof error !== "object" || error === null) return String(error ?? "unknown error");
  const { type, reason, caused_by: cause } = error as {
    type?: string;
    reason?: string;
    caused_by?: unknown;
  };
  const own = [type, reason].filter(Boolean).join(": ");
  return cause ? `${own} (${itemMessage(cause)})` : own;
}

/** The fields `q` searches: every literal, and the literals of each search language. */
const TEXT_FIELDS = ["text", ...SEARCH_LANGUAGES.map(languageTextField)];

/** `q` as a query: every word in one of {@link TEXT_FIELDS}, or in one language's field. */
function textQuery(q: string | undefined, language: string | undefined): Record<string, unknown> {
  if (q === undefined) return { match_all: {} };
  if (language !== undefined) {
    return { match: { [languageTextField(language)]: { query: q, operator: "and" } } };
  }
  return { multi_match: { query: q, fields: TEXT_FIELDS, operator: "and" } };
}

/**
 * A `terms` aggregation's buckets as facet values: numbers as numbers, booleans and dates as
 * OpenSearch prints them (`true`, ISO 8601), strings as they are.
 */
function facetValues(aggregation: unknown): FacetValue[] {
  const buckets = (aggregation as { buckets?: unknown[] } | undefined)?.buckets ?? [];
  return buckets.map((entry) => {
    const bucket = entry as { key: string | number; key_as_string?: string; doc_count: number };
    let value: string | number | boolean = bucket.key_as_string ?? bucket.key;
    if (bucket.key_as_string === "true" || bucket.key_as_string === "false") {
      value = bucket.key_as_string === "true";
    }
    return { value, count: bucket.doc_count };
  });
}

/** Refuses, as 400 `search-query-refused` naming where, a body the DSL gate does not let in. */
function refuseGated(body: Record<string, unknown>, options: DslGateOptions): void {
  const gate = gateQueryBody(body, options);
  if (gate.ok) return;
  throw new DomainError("search-query-refused", {
    detail: `The query DSL body is refused at ${gate.path}: ${gate.message}.`,
    errors: [{ path: gate.path, message: gate.message }],
  });
}
