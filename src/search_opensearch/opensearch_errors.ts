/**
 * OpenSearch's failures read as the service's problems: which mean the engine cannot serve
 * now (503, retry), which refuse the request itself, which may pass when tried again, and
 * the engine's own words for them. With opensearch_engine.ts and the modules it splits its
 * work into, the only place an OpenSearch response status is read.
 */
import { errors } from "@opensearch-project/opensearch";
import { displayUrl } from "../log/display_url.ts";
import { DomainError } from "../errors/domain_error.ts";
import type { CircuitBreaker } from "../backend/circuit_breaker.ts";
import { EngineRefusal } from "../search/search_engine.ts";

/** Which engine a problem is about: its nodes as messages name them, and its breaker. */
export interface EngineSite {
  /** The nodes, without credentials. */
  where: string;
  /** With several nodes, a failure also names the node that failed last. */
  severalNodes: boolean;
  /** Its Retry-After while it is marked down. */
  breaker: CircuitBreaker;
}

/** An error of the client as the problem to answer. */
export function searchProblem(error: unknown, site: EngineSite): DomainError {
  if (error instanceof DomainError) return error;
  if (
    error instanceof errors.ConnectionError || error instanceof errors.NoLivingConnectionsError ||
    error instanceof errors.TimeoutError || error instanceof errors.RequestAbortedError ||
    (error instanceof errors.ResponseError && [429, 502, 503, 504].includes(error.statusCode))
  ) {
    return new DomainError("search-unavailable", {
      detail: `OpenSearch at ${site.where} cannot serve the request: ${
        site.severalNodes ? nodeOf(error) : ""
      }${reasonOf(error)}`,
      extensions: { retryAfter: site.breaker.retryAfterSeconds },
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

/**
 * Whether a document the bulk API refused may be accepted later: overload, a node failing,
 * or an alias that is missing or has no write index for a moment (being created or swapped
 * by another instance).
 */
export function isRetryableItemFailure(status: number, error: unknown): boolean {
  if (status === 429 || status >= 500) return true;
  const type = (error as { type?: string } | undefined)?.type;
  if (type === "index_not_found_exception" || type === "alias_not_found_exception") return true;
  const reason = (error as { reason?: string } | undefined)?.reason ?? "";
  return /no write index/i.test(reason);
}

/** Whether a whole request may pass when sent again: overload, a failing or unreachable node. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof errors.ResponseError) {
    return error.statusCode === 429 || error.statusCode >= 500;
  }
  return error instanceof errors.ConnectionError ||
    error instanceof errors.NoLivingConnectionsError ||
    error instanceof errors.TimeoutError;
}

/** A search OpenSearch cancelled at `cancel_after_time_interval`. */
export function isTaskCancelled(error: unknown): boolean {
  return /task_cancelled_exception/.test(
    error instanceof errors.ResponseError ? JSON.stringify(error.body ?? "") : "",
  );
}

/** The index (or alias) asked for does not exist. */
export function isIndexNotFound(error: unknown): boolean {
  return errorType(error) === "index_not_found_exception";
}

/** OpenSearch answered 404: what was asked for (an alias, an index) does not exist. */
export function isNotFound(error: unknown): boolean {
  return error instanceof errors.ResponseError && error.statusCode === 404;
}

/** The request's timeout on the client's side passed. */
export function isClientTimeout(error: unknown): boolean {
  return error instanceof errors.TimeoutError;
}

/** The engine refused the request as malformed (400). */
export function isBadRequest(error: unknown): boolean {
  return error instanceof errors.ResponseError && error.statusCode === 400;
}

/** The `error.type` of OpenSearch's answer, if it gave one. */
export function errorType(error: unknown): string | undefined {
  if (!(error instanceof errors.ResponseError)) return undefined;
  const body = error.body as { error?: { type?: string } } | undefined;
  return body?.error?.type;
}

/** OpenSearch's reason for a failed request, else the client's message. */
export function reasonOf(error: unknown): string {
  if (error instanceof errors.ResponseError) {
    const cause = (error.body as { error?: unknown } | undefined)?.error;
    return cause ? itemMessage(cause) : `HTTP ${error.statusCode}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** An error object of OpenSearch (`type: reason (cause)`), its causes nested. */
export function itemMessage(error: unknown): string {
  if (typeof error !== "object" || error === null) return String(error ?? "unknown error");
  const { type, reason, caused_by: cause } = error as {
    type?: string;
    reason?: string;
    caused_by?: unknown;
  };
  const own = [type, reason].filter(Boolean).join(": ");
  return cause ? `${own} (${itemMessage(cause)})` : own;
}

/** `<node>: ` for the node the client last sent a failed request to, if it says which. */
function nodeOf(error: unknown): string {
  const meta = (error as { meta?: { meta?: { connection?: { url?: URL } | null } } }).meta;
  const url = meta?.meta?.connection?.url;
  return url ? `${displayUrl(url.href)}: ` : "";
}
