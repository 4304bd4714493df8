/**
 * HTTP access to a SPARQL 1.1 endpoint: Query and Update requests with basic auth, an
 * optional CA for HTTPS, per-request timeouts and retries for reads.
 *
 * The outbound edge to the endpoint: the only store module that reads a response status.
 * Failures become domain errors: an endpoint that cannot be reached (or whose gateway says
 * so) is unavailable `store-unavailable`; any other refusal is an {@link EndpointRefusal}
 * (`store-error`, carrying the endpoint's own message and status).
 */
import { displayUrl } from "../log/display_url.ts";
import { BackendFailed, DomainError, Timeout, Unavailable } from "../errors/domain_error.ts";
import type { CircuitBreaker } from "../store/circuit_breaker.ts";

/** Where the endpoint is and how to talk to it. */
export interface SparqlEndpointConfig {
  /** SPARQL 1.1 Query endpoint. */
  queryUrl: string;
  /** SPARQL 1.1 Update endpoint. */
  updateUrl: string;
  /**
   * SPARQL 1.1 Graph Store HTTP Protocol endpoint. Configured but not used: an item is read
   * with its record in one query (sparql.ts), which a Graph Store GET cannot do.
   */
  graphStoreUrl: string;
  /** HTTP basic auth, sent with every request when `username` is set. */
  username?: string;
  password?: string;
  /** PEM CA certificates trusted for HTTPS to the endpoints, besides the default roots. */
  caCertificates?: string[];
  /** Per-request timeout in milliseconds, covering the response body too. */
  timeoutMs: number;
  /** Further attempts of a read after the endpoint was unreachable; updates never retry. */
  retries: number;
  /** Marks the endpoint down after repeated timeouts or refusals (shared by its clients). */
  breaker?: CircuitBreaker;
}

/** Options of one read request. */
export interface SparqlReadOptions {
  /** Overrides the configured timeout; exceeding it is then 504 `query-timeout`. */
  timeoutMs?: number;
  /** Sent as the protocol's `default-graph-uri`. */
  defaultGraphUri?: string;
}

/** SPARQL JSON results for SELECT/ASK, N-Triples for CONSTRUCT/DESCRIBE. */
export const ACCEPT_ANY_RESULT =
  "application/sparql-results+json, application/n-triples;q=0.9, text/turtle;q=0.5";

const MAX_ENDPOINT_MESSAGE = 500;
const MAX_BACKOFF_MS = 2000;

/** `Basic <base64(user:password)>` with the credentials encoded as UTF-8 (RFC 7617). */
export function basicAuthorization(username: string, password: string): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

/** 503 `store-unavailable` naming the endpoint, with the underlying error as its cause. */
export function storeUnavailable(url: string, reason: string, cause?: unknown): DomainError {
  const problem = new Unavailable(
    "store-unavailable",
    "Triple store unavailable",
    `The SPARQL endpoint ${displayUrl(url)} is unavailable: ${reason}`,
  );
  if (cause !== undefined) problem.cause = cause;
  return problem;
}

/** Seconds a client waits before reading an item whose write had an unknown outcome. */
const OUTCOME_RETRY_AFTER_SECONDS = 5;

/**
 * An update that was sent but whose outcome is unknown (no answer in time, the connection
 * broke, or its confirmation could not be read): it may have been applied, or may still
 * be. 503 with Retry-After, and how to find out.
 */
export class WriteOutcomeUnknown extends Unavailable {
  constructor(url: string, reason: string, cause?: unknown) {
    super(
      "write-outcome-unknown",
      "Write outcome unknown",
      `The update was sent to the SPARQL endpoint ${displayUrl(url)}, but its outcome is ` +
        `unknown (${reason}): it may have been applied. Read the item (GET /api/item) and ` +
        "compare its ETag with the one this write would give before writing it again.",
      undefined,
      { retryAfter: OUTCOME_RETRY_AFTER_SECONDS },
    );
    if (cause !== undefined) this.cause = cause;
  }

  /** The endpoint did not answer in time: likely hung, so a read would wait as long. */
  get afterTimeout(): boolean {
    return isTimeout(this.cause);
  }
}

/** Whether a fetch failed before the request went out (the connection was refused). */
function neverSent(error: unknown): boolean {
  const text = `${error instanceof Error ? error.message : String(error)} ${
    error instanceof Error && error.cause instanceof Error ? error.cause.message : ""
  }`;
  return /connection refused|\(Connect\)|dns error|failed to lookup|os error 111/i.test(text);
}

/** Whether the endpoint gave no answer at all (a timeout, a refused or broken connection). */
function isUnanswered(error: unknown): boolean {
  return !(error instanceof DomainError);
}

/**
 * The store problem for an error thrown while talking to `url` (including while reading a
 * response body): problems pass through, timeouts and network failures become 503 (or 504
 * `query-timeout` when `userTimeoutMs` is the limit a query's caller chose).
 */
export function storeProblemFromError(
  error: unknown,
  url: string,
  timeoutMs: number,
  userTimeoutMs?: number,
): DomainError {
  if (error instanceof DomainError) return error;
  if (error instanceof DOMException && error.name === "TimeoutError") {
    if (userTimeoutMs !== undefined) {
      const problem = new Timeout(
        "query-timeout",
        "Query timed out",
        `The SPARQL query did not finish within ${userTimeoutMs} ms`,
      );
      problem.cause = error;
      return problem;
    }
    return storeUnavailable(url, `no answer within ${timeoutMs} ms`, error);
  }
  return storeUnavailable(url, networkReason(error), error);
}

/**
 * What went wrong on the way to the endpoint. Deno's fetch says only "fetch failed" and
 * keeps the reason (refused, unknown certificate issuer, …) in the cause.
 */
function networkReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error
    ? error.cause.message.replace(/^error sending request for url \(.*?\): /, "")
    : "";
  return cause ? `${message}: ${cause}` : message;
}

/** Sends the requests of the SPARQL store; every method throws only DomainErrors. */
export class SparqlHttpClient {
  readonly config: SparqlEndpointConfig;
  #authorization: string | undefined;
  /** Connections that trust the configured CA; the default client without one. */
  readonly #httpClient: Deno.HttpClient | undefined;

  constructor(config: SparqlEndpointConfig) {
    this.config = config;
    this.#authorization = config.username
      ? basicAuthorization(config.username, config.password ?? "")
      : undefined;
    this.#httpClient = config.caCertificates
      ? Deno.createHttpClient({ caCerts: config.caCertificates })
      : undefined;
  }

  /** Closes the connections of the CA-trusting client, if there is one. */
  close(): void {
    this.#httpClient?.close();
  }

  /** Headers every request carries. */
  headers(extra: Record<string, string>): Headers {
    const headers = new Headers(extra);
    if (this.#authorization) headers.set("Authorization", this.#authorization);
    return headers;
  }

  /**
   * Runs a query (POST, form-encoded) and returns the successful response with its body
   * unread; the timeout keeps running while the caller reads it.
   */
  query(sparql: string, accept: string, options: SparqlReadOptions = {}): Promise<Response> {
    const form = new URLSearchParams({ query: sparql });
    if (options.defaultGraphUri) form.set("default-graph-uri", options.defaultGraphUri);
    return this.#read(this.config.queryUrl, options.timeoutMs, () => ({
      method: "POST",
      headers: this.headers({
        "Accept": accept,
        "Content-Type": "application/x-www-form-urlencoded",
      }),
      body: form.toString(),
    }));
  }

  /**
   * Sends one SPARQL Update request. Never retried: an update whose answer was lost may
   * have been applied.
   */
  async update(sparql: string): Promise<void> {
    const url = this.config.updateUrl;
    const timeoutMs = this.config.timeoutMs;
    const breaker = this.config.breaker;
    // Refused before sending: nothing was written, a plain 503.
    breaker?.check();
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: this.headers({ "Content-Type": "application/sparql-update; charset=utf-8" }),
        body: sparql,
        signal: AbortSignal.timeout(timeoutMs),
        client: this.#httpClient,
      });
    } catch (error) {
      const problem = storeProblemFromError(error, url, timeoutMs);
      breaker?.unanswered(problem.message);
      if (neverSent(error)) throw problem;
      throw new WriteOutcomeUnknown(url, problem.message.replace(/^.*?unavailable: /, ""), error);
    }
    breaker?.answered();
    if (!response.ok) throw await endpointProblem(url, response);
    await response.body?.cancel();
  }

  async #read(
    url: string,
    userTimeoutMs: number | undefined,
    init: () => RequestInit,
  ): Promise<Response> {
    const timeoutMs = userTimeoutMs ?? this.config.timeoutMs;
    const breaker = this.config.breaker;
    for (let attempt = 0;; attempt++) {
      breaker?.check();
      let problem: DomainError;
      try {
        const response = await fetch(url, {
          ...init(),
          signal: AbortSignal.timeout(timeoutMs),
          client: this.#httpClient,
        });
        breaker?.answered();
        if (response.ok) return response;
        problem = await endpointProblem(url, response);
      } catch (error) {
        problem = storeProblemFromError(error, url, timeoutMs, userTimeoutMs);
        // A query's own (user-chosen) timeout says nothing about the endpoint's health.
        if (isUnanswered(error) && userTimeoutMs === undefined) {
          breaker?.unanswered(problem.message);
        }
      }
      // Only an unreachable endpoint is worth another try; a timeout already used the
      // caller's whole budget, and a refusal will be refused again.
      const retryable = problem.kind === "unavailable" && !isTimeout(problem.cause);
      if (!retryable || attempt >= this.config.retries) throw problem;
      const backoff = Math.min(MAX_BACKOFF_MS, 100 * 2 ** attempt);
      await new Promise((resolve) => setTimeout(resolve, backoff / 2 + Math.random() * backoff));
    }
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof DOMException && error.name === "TimeoutError";
}

/** The problem for a non-2xx answer; the body is read (trimmed) for the endpoint's words. */
async function endpointProblem(url: string, response: Response): Promise<DomainError> {
  let message = "";
  try {
    message = await response.text();
    // Some servers wrap errors in an HTML page; the words matter, not the markup.
    if (response.headers.get("Content-Type")?.includes("html")) {
      message = message.replace(/<[^>]*>/g, " ");
    }
    message = message.replace(/\s+/g, " ").trim();
  } catch {
    // The status alone has to do.
  }
  if (message.length > MAX_ENDPOINT_MESSAGE) {
    message = `${message.slice(0, MAX_ENDPOINT_MESSAGE)}…`;
  }
  const said = `HTTP ${response.status}${message ? `: ${message}` : ""}`;
  if (response.status === 502 || response.status === 503 || response.status === 504) {
    const problem = storeUnavailable(url, said);
    problem.extensions.endpointStatus = response.status;
    return problem;
  }
  return new EndpointRefusal(
    response.status === 400,
    "store-error",
    "Triple store error",
    `The SPARQL endpoint ${displayUrl(url)} refused the request with ${said}`,
    undefined,
    { endpointStatus: response.status },
  );
}

/**
 * The endpoint refused a request; `badRequest` when it called the request itself wrong
 * (HTTP 400: syntax it does not support, an unknown function), which callers that forward
 * a user's query turn into the user's mistake.
 */
export class EndpointRefusal extends BackendFailed {
  constructor(
    readonly badRequest: boolean,
    ...details: ConstructorParameters<typeof BackendFailed>
  ) {
    super(...details);
  }
}
