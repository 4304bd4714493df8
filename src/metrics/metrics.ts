/**
 * The service's Prometheus metrics (prom-client), scraped at `GET /metrics`.
 *
 * Measured as they happen: HTTP requests by method, route pattern and status, with their
 * latency; every call to the triple store and the search engine, with its latency and, when
 * it fails for a backend reason (5xx problems, anything unexpected), its problem slug. Read
 * on each scrape: the index outbox backlog, whether an indexing job runs on any instance and
 * the progress of the newest job, and the item cache's hits and misses. Counted by the
 * webhook deliverer: changes delivered, failed attempts and dead letters, per collection.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { DomainError, isSystemFailure } from "../errors/domain_error.ts";
import type { IndexOutboxWorker } from "../indexing/outbox_worker.ts";
import type { IndexJobRunner } from "../indexing/job_runner.ts";
import type { ItemCache } from "../store/item_cache.ts";
import type { ItemHistory } from "../store/item_history.ts";
import { log } from "../log/logger.ts";

/** Latency buckets in seconds: a cache hit (1 ms) to a slow SPARQL query (30 s). */
const SECONDS_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** A backend whose calls are measured. */
export type Backend = "store" | "search";

/** What the scrape-time metrics read. */
export interface ObservedState {
  outbox: Pick<IndexOutboxWorker, "backlog" | "deadLetters">;
  jobs: Pick<IndexJobRunner, "isRunningAnywhere" | "recent">;
  /** Undefined when the item cache is off. */
  cache?: ItemCache;
  /** Undefined when the store keeps no history. */
  history?: Pick<ItemHistory, "versionsWritten" | "versionsPruned">;
}

/** The metrics of one running service, in a registry of its own. */
export class ServiceMetrics {
  readonly registry = new Registry();

  readonly #requests = new Counter({
    name: "rcs_http_requests_total",
    help: "HTTP requests answered, by method, route pattern (unmatched: no route) and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [this.registry],
  });

  readonly #requestSeconds = new Histogram({
    name: "rcs_http_request_duration_seconds",
    help: "Time to answer an HTTP request (until the handler returns; streamed bodies go on)",
    labelNames: ["method", "route"] as const,
    buckets: SECONDS_BUCKETS,
    registers: [this.registry],
  });

  readonly #backendSeconds = new Histogram({
    name: "rcs_backend_call_duration_seconds",
    help: "Duration of calls to the triple store and the search engine, by operation",
    labelNames: ["backend", "operation"] as const,
    buckets: SECONDS_BUCKETS,
    registers: [this.registry],
  });

  readonly #backendErrors = new Counter({
    name: "rcs_backend_errors_total",
    help: "Calls to the triple store or search engine that failed for a backend reason, " +
      "by operation and problem type (error: not a problem the service words)",
    labelNames: ["backend", "operation", "problem"] as const,
    registers: [this.registry],
  });

  readonly #refusals = new Counter({
    name: "rcs_access_refused_total",
    help: "Requests refused access (401, 403, or 404 for a collection the caller may not " +
      "read), by operation and status (docs/SECURITY.md)",
    labelNames: ["operation", "status"] as const,
    registers: [this.registry],
  });

  /** Counts one refused access (src/http/access_audit.ts). */
  recordRefusal(operation: string, status: number): void {
    this.#refusals.inc({ operation, status: String(status) });
  }

  readonly #webhookDeliveries = new Counter({
    name: "rcs_webhook_deliveries_total",
    help: "Changes delivered to a webhook endpoint (answered 2xx), by collection",
    labelNames: ["collection"] as const,
    registers: [this.registry],
  });

  readonly #webhookFailures = new Counter({
    name: "rcs_webhook_failed_attempts_total",
    help: "Webhook delivery attempts that failed (not 2xx, no answer, a redirect), by collection",
    labelNames: ["collection"] as const,
    registers: [this.registry],
  });

  readonly #webhookDeadLetters = new Counter({
    name: "rcs_webhook_dead_letters_total",
    help: "Changes a webhook endpoint refused for service.webhooks.retryForMs, dead-lettered, " +
      "by collection",
    labelNames: ["collection"] as const,
    registers: [this.registry],
  });

  /** Counts a change delivered to a webhook (src/webhooks/webhook_deliverer.ts). */
  webhookDelivered(collection: string): void {
    this.#webhookDeliveries.inc({ collection });
  }

  /** Counts a failed webhook delivery attempt. */
  webhookFailed(collection: string): void {
    this.#webhookFailures.inc({ collection });
  }

  /** Counts a change dead-lettered by a webhook. */
  webhookDeadLettered(collection: string): void {
    this.#webhookDeadLetters.inc({ collection });
  }

  readonly #readiness = new Gauge({
    name: "rcs_ready_check",
    help: "Outcome of each /ready check when /ready was last asked: 1 ok, 0 failed " +
      "(search or outbox at 0 with the store at 1: degraded)",
    labelNames: ["check"] as const,
    registers: [this.registry],
  });

  /** Records the outcome of each check of one `/ready`. */
  recordReadiness(checks: Record<string, { ok: boolean }>): void {
    for (const [check, { ok }] of Object.entries(checks)) {
      this.#readiness.set({ check }, ok ? 1 : 0);
    }
  }

  /** Counts one answered request. */
  recordRequest(method: string, route: string, status: number, seconds: number): void {
    this.#requests.inc({ method, route, status: String(status) });
    this.#requestSeconds.observe({ method, route }, seconds);
  }

  /**
   * `target` with each call that returns a promise timed, and its backend failures counted.
   * Streams (async iterables) pass through unmeasured. Methods run on the target itself, so
   * its private fields work and its calls to itself are not counted twice.
   */
  timed<T extends object>(backend: Backend, target: T): T {
    return new Proxy(target, {
      get: (object, property) => {
        const value = Reflect.get(object, property, object);
        if (typeof value !== "function" || typeof property !== "string") return value;
        return (...args: unknown[]) => {
          const result = value.apply(object, args);
          if (!(result instanceof Promise)) return result;
          const stop = this.#backendSeconds.startTimer({ backend, operation: property });
          return result.then(
            (answer) => {
              stop();
              return answer;
            },
            (error) => {
              stop();
              // Not found, exists, precondition failed, bad query: the backend answered.
              if (!(error instanceof DomainError) || isSystemFailure(error)) {
                const problem = error instanceof DomainError ? error.slug : "error";
                this.#backendErrors.inc({ backend, operation: property, problem });
              }
              throw error;
            },
          );
        };
      },
    });
  }

  /** Registers the metrics read at each scrape from the outbox, the jobs and the cache. */
  observe(state: ObservedState): void {
    const registers = [this.registry];
    new Gauge({
      name: "rcs_index_outbox_backlog",
      help: "Index outbox entries waiting to be applied to the search engine, of every instance",
      registers,
      collect: scraped("outbox backlog", async function (this: Gauge) {
        this.set(await state.outbox.backlog());
      }),
    });
    new Gauge({
      name: "rcs_index_dead_letters",
      help: "Items the search engine refused for good since start, taken out of the outbox " +
        "(/ready's deadLetters names the newest)",
      registers,
      collect() {
        this.set(state.outbox.deadLetters.total);
      },
    });
    new Gauge({
      name: "rcs_index_job_running",
      help: "1 while an indexing job runs on any instance sharing the store, else 0",
      registers,
      collect: scraped("indexing job", async function (this: Gauge) {
        this.set(await state.jobs.isRunningAnywhere() ? 1 : 0);
      }),
    });
    new Gauge({
      name: "rcs_index_job_items",
      help: "Items of the newest indexing job (running or last): processed so far, and total",
      labelNames: ["count"] as const,
      registers,
      collect: scraped("indexing job", async function (this: Gauge<"count">) {
        const [newest] = await state.jobs.recent(1);
        this.set({ count: "processed" }, newest?.processed ?? 0);
        this.set({ count: "total" }, newest?.total ?? 0);
      }),
    });
    const history = state.history;
    if (history) {
      new Counter({
        name: "rcs_item_versions_written_total",
        help: "Item versions this instance wrote (one per acknowledged create, update, delete, " +
          "restore or imported item)",
        registers,
        collect() {
          this.reset();
          this.inc(history.versionsWritten());
        },
      });
    }
    const pruned = history?.versionsPruned?.bind(history);
    if (pruned) {
      new Counter({
        name: "rcs_item_versions_pruned_total",
        help: "Item versions this instance's history pruning removed (outside the retention)",
        registers,
        collect() {
          this.reset();
          this.inc(pruned());
        },
      });
    }
    const cache = state.cache;
    if (!cache) return;
    for (const outcome of ["hits", "misses"] as const) {
      new Counter({
        name: `rcs_item_cache_${outcome}_total`,
        help: `Reads of an item the item cache answered ${
          outcome === "hits" ? "itself" : "by asking the store"
        }`,
        registers,
        collect() {
          // The cache counts; the counter shows its count as it is at the scrape.
          this.reset();
          this.inc(cache.stats()[outcome]);
        },
      });
    }
  }
}

/**
 * A scrape-time reading that keeps the last value when it fails (a backend down), rather
 * than failing the whole scrape; the failure is logged.
 */
function scraped<M>(what: string, read: (this: M) => Promise<void>) {
  return async function (this: M): Promise<void> {
    try {
      await read.call(this);
    } catch (error) {
      log("warn", `metrics: could not read the ${what}`, {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  };
}
