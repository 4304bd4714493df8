/**
 * The OpenSearch search engine, through `@opensearch-project/opensearch`: the
 * `SearchEngine` (and raw query DSL) over the parts this folder splits it into: the
 * collections' aliases and rebuilds (index_aliases.ts), bulk writes (bulk_writes.ts), the
 * search body and its answer (search_body.ts), the index mappings (mappings.ts), the
 * client's transport with timeouts and fail-fast (guarded_transport.ts), errors read as
 * problems (opensearch_errors.ts) and the query DSL gate (dsl_gate.ts). Only core APIs are
 * used (no `_delete_by_query`, no scripts), so the engine runs against the plain
 * integ-test distribution as well as a full cluster.
 */
import { displayUrl } from "../log/display_url.ts";
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
import { fieldResolver } from "./mappings.ts";
import { resolveLabelSort } from "../search/label_fields.ts";
import { LayoutUpgrades } from "./layout_upgrade.ts";
import { guardedTransport, type OpenSearchTimeouts, PROBE_OPTIONS } from "./guarded_transport.ts";
import { CircuitBreaker, engineDown, type FailFastOptions } from "../backend/circuit_breaker.ts";
import { startSearch } from "../search/facets.ts";
import {
  type BulkResult,
  type CollectionIndexRef,
  type IndexTarget,
  isRebuildTarget,
  type RawSearchCapable,
  type RawSearchResult,
  type RebuildTarget,
  type SearchDocument,
  type SearchEngine,
  type SearchRequest,
  type SearchResponse,
  type WriteOptions,
} from "../search/search_engine.ts";
import { IndexAliases } from "./index_aliases.ts";
import {
  type BulkPolicy,
  BulkWriter,
  DEFAULT_BULK_POLICY,
  deleteOperations,
  upsertOperations,
} from "./bulk_writes.ts";
import { fieldsOf, readSearchAnswer, searchBody } from "./search_body.ts";
import { nameHitsByIndex, shardFailure, sortAcrossIndices } from "./multi_index.ts";
import { namedHits } from "../search/merge_parts.ts";
import {
  type EngineSite,
  isBadRequest,
  isClientTimeout,
  isIndexNotFound,
  isTaskCancelled,
  reasonOf,
  searchProblem,
} from "./opensearch_errors.ts";

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

/** URIs per page of {@link OpenSearchEngine.listDocumentUris}, before clamping. */
const LIST_PAGE = 1000;
/** How much longer than the search budget the client waits for the answer. */
const RAW_SEARCH_GRACE_MS = 500;
/** The module holding the language analyzers (absent from the minimal distribution). */
const ANALYSIS_MODULE = "analysis-common";

/** Search on an OpenSearch node or cluster. */
export class OpenSearchEngine implements SearchEngine, RawSearchCapable {
  /** Which engine this is. */
  readonly kind = "opensearch" as const;
  readonly #client: Client;
  /** Marks the engine down after repeated timeouts or refusals (service.failFast). */
  readonly breaker: CircuitBreaker;
  /** Where the engine is, as its problems name it. */
  readonly #site: EngineSite;
  readonly #limits: SearchLimits;
  readonly #warn?: ClampWarning;
  readonly #rawSearchTimeoutMs: number;
  readonly #dslGate?: DslGateOptions;
  readonly #indices: IndexAliases;
  readonly #bulk: BulkWriter;
  readonly #layouts: LayoutUpgrades;

  /** Connects lazily: nothing is sent before the first call. */
  constructor(options: OpenSearchEngineOptions) {
    const nodes = typeof options.node === "string" ? [options.node] : options.node;
    const where = nodes.map(displayUrl).join(", ");
    this.#limits = options.limits;
    this.#warn = options.warn;
    const { timeouts } = options;
    this.breaker = new CircuitBreaker(
      `OpenSearch at ${where}`,
      engineDown("search-unavailable", `OpenSearch at ${where}`),
      options.failFast,
    );
    this.#site = { where, severalNodes: nodes.length > 1, breaker: this.breaker };
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
    const problem = (error: unknown) => searchProblem(error, this.#site);
    this.#indices = new IndexAliases(this.#client, this.#limits, problem);
    this.#layouts = new LayoutUpgrades({
      client: this.#client,
      pageSize: Math.max(1, clampWindow({ size: LIST_PAGE }, this.#limits, () => {}).applied.size),
      begin: (index) => this.#indices.beginUpgrade(index),
      upsert: (target, documents) => this.upsert(target, documents),
      commit: (target) => this.#indices.commitRebuild(target),
      abort: (target) => this.#indices.abortRebuild(target),
    });
    this.#bulk = new BulkWriter(this.#client, { ...DEFAULT_BULK_POLICY, ...options.bulk }, {
      requestTimeoutMs: timeouts.bulkMs,
      problem,
      onRetryableFailure: () => this.#indices.forgetEnsured(),
    });
  }

  /**
   * Creates `<alias>-<timestamp>` with the alias in one request if the alias is missing; an
   * index of an older layout is copied into one of the current layout (`layout_upgrade.ts`).
   */
  async ensureIndex(index: CollectionIndexRef): Promise<void> {
    await this.#indices.ensureIndex(index);
    await this.#upgradeLayout(index);
  }

  /** Upgrades `target`'s index if it is of an older layout (once per alias and process). */
  async #upgradeLayout(target: IndexTarget): Promise<void> {
    if (isRebuildTarget(target)) return;
    try {
      await this.#layouts.upgrade(target);
    } catch (error) {
      throw error instanceof DomainError ? error : this.#problem(error);
    }
  }

  /** Indexes documents in bounded, retried batches; failures are reported per document. */
  async upsert(
    target: IndexTarget,
    documents: SearchDocument[],
    options: WriteOptions = {},
  ): Promise<BulkResult> {
    await this.#upgradeLayout(target);
    const indices = await this.#indices.writeTargets(target, options.findRebuilds);
    const { operations, failed } = upsertOperations(documents, indices);
    const result = await this.#bulk.run(operations, options);
    return { succeeded: result.succeeded, failed: [...failed, ...result.failed] };
  }

  /** Deletes documents by URI in bounded, retried batches; missing ones count as removed. */
  async remove(
    target: IndexTarget,
    uris: string[],
    options: WriteOptions = {},
  ): Promise<BulkResult> {
    await this.#upgradeLayout(target);
    const indices = await this.#indices.writeTargets(target, options.findRebuilds);
    return await this.#bulk.run(deleteOperations(uris, indices), options);
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
    const names = (await this.#indices.writeTargets(target)).map(({ name }) => name);
    try {
      await this.#client.indices.refresh({ index: names, ignore_unavailable: true });
    } catch (error) {
      throw this.#problem(error);
    }
  }

  /** A new physical index behind the rebuilding alias (index_aliases.ts). */
  beginRebuild(index: CollectionIndexRef): Promise<RebuildTarget> {
    return this.#indices.beginRebuild(index);
  }

  /** Swaps the alias to the rebuilt index and drops the old one. */
  commitRebuild(target: RebuildTarget): Promise<void> {
    return this.#indices.commitRebuild(target);
  }

  /** Deletes the rebuilt index; the alias never pointed at it. */
  abortRebuild(target: RebuildTarget): Promise<void> {
    return this.#indices.abortRebuild(target);
  }

  /** Full-text, filtered, sorted and clamped search of a collection's index. */
  async search(index: CollectionIndexRef, request: SearchRequest): Promise<SearchResponse> {
    // `sort=label` sorts on the label sort key of the reader's language (label_fields.ts).
    request = { ...request, sort: resolveLabelSort(request.sort, request.language) };
    const { response, window, facetSize } = startSearch(request, this.#limits, this.#warn);
    try {
      const mappings = await this.#fieldMappings(index.indexName, fieldsOf(request));
      const body = searchBody(request, {
        window,
        facetSize,
        resolve: fieldResolver(mappings),
        trackTotalHits: this.#limits.trackTotalHits,
      });
      const answer = (await this.#client.search({ index: index.indexName, body })).body;
      return readSearchAnswer(answer, request, response);
    } catch (error) {
      if (isIndexNotFound(error)) return response;
      throw this.#problem(error);
    }
  }

  /**
   * Searches several collections' aliases in one request (`multi_index.ts`): OpenSearch ranks
   * and counts them as one, each index scoring by its own term statistics. A missing alias is
   * skipped, as one alias's search answers nothing for it.
   */
  async searchMany(
    indices: readonly CollectionIndexRef[],
    request: SearchRequest,
  ): Promise<SearchResponse> {
    if (indices.length === 1) {
      return namedHits(await this.search(indices[0], request), indices[0].collection);
    }
    request = { ...request, sort: resolveLabelSort(request.sort, request.language) };
    const { response, window, facetSize } = startSearch(request, this.#limits, this.#warn);
    if (indices.length === 0) return response;
    const names = indices.map((index) => index.indexName);
    try {
      const mappings = await this.#fieldMappings(names, fieldsOf(request));
      const body = searchBody(request, {
        window,
        facetSize,
        resolve: fieldResolver(mappings),
        trackTotalHits: this.#limits.trackTotalHits,
      });
      sortAcrossIndices(body, request, mappings);
      const answer = (await this.#client.search({ index: names, body, ignore_unavailable: true }))
        .body;
      const failure = shardFailure(answer);
      if (failure) throw failure;
      return nameHitsByIndex(answer, readSearchAnswer(answer, request, response), indices);
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
      if (isClientTimeout(error) || isTaskCancelled(error)) {
        throw this.#searchTimeout();
      }
      if (isBadRequest(error)) {
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
        `node ${node.name ?? id} of OpenSearch at ${this.#site.where} lacks the ` +
        `${ANALYSIS_MODULE} module, whose language analyzers the search mappings use`
      );
  }

  /** Cluster health: red or unreachable is not ok. */
  async health(): Promise<BackendHealth> {
    try {
      const { status } = (await this.#client.cluster.health({ timeout: "2s" })).body;
      return { ok: status !== "red", detail: `opensearch at ${this.#site.where}: ${status}` };
    } catch (error) {
      return { ok: false, detail: this.#problem(error).message };
    }
  }

  /** Closes the client's connections. */
  async close(): Promise<void> {
    this.breaker.close();
    await this.#client.close();
  }

  /** The fields' mappings in `alias` (or in every one of several, missing ones skipped). */
  async #fieldMappings(
    alias: string | string[],
    fields: string[],
  ): Promise<Record<string, unknown>> {
    if (fields.length === 0) return {};
    const several = Array.isArray(alias) ? { ignore_unavailable: true } : {};
    const body = (await this.#client.indices.getFieldMapping({ index: alias, fields, ...several }))
      .body;
    const merged: Record<string, unknown> = {};
    for (const physical of Object.values(body)) Object.assign(merged, physical.mappings ?? {});
    return merged;
  }

  #searchTimeout(): DomainError {
    return new DomainError("search-timeout", {
      detail: `The query did not finish within ${this.#rawSearchTimeoutMs} ms ` +
        "(service.search.opensearch.dsl.timeoutMs); narrow it down.",
    });
  }

  #problem(error: unknown): DomainError {
    return searchProblem(error, this.#site);
  }
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
