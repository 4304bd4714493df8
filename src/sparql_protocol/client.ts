/**
 * HTTP access to a SPARQL 1.1 endpoint: Query, Update and Graph Store requests with basic
 * or digest auth (`digest_auth.ts`), an optional CA for HTTPS, per-request timeouts, retries
 * for reads and, for updates the caller calls idempotent, for transient refusals.
 *
 * The outbound edge to the endpoint: the only store module that reads a response status.
 * Failures become domain errors: an endpoint that cannot be reached (or whose gateway says
 * so) is unavailable `store-unavailable`; any other refusal is an {@link EndpointRefusal}
 * (`store-error`, carrying the endpoint's own message and status).
 */
import { displayUrl } from "../log/display_url.ts";
import { DomainError, type ProblemOptions } from "../errors/domain_error.ts";
import type { CircuitBreaker } from "../backend/circuit_breaker.ts";
import { DigestCredentials } from "./digest_auth.ts";

/** Where the endpoint is and how to talk to it. */
export interface SparqlEndpointConfig {
  /** SPARQL 1.1 Query endpoint. */
  queryUrl: string;
  /** SPARQL 1.1 Update endpoint. */
  updateUrl: string;
  /**
   * SPARQL 1.1 Graph Store HTTP Protocol endpoint: large items are staged through it
   * (sparql_triple_store.ts); reads are queries, which carry the item's record along.
   */
  graphStoreUrl: string;
  /**
   * Credentials, sent with every request when `username` is set: HTTP basic auth, or digest
   * (RFC 7616) when `authScheme` says so or the endpoint answers basic with a digest challenge.
   */
  username?: string;
  password?: string;
  authScheme?: "basic" | "digest";
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
/**
 * Attempts of an idempotent update the endpoint refused as transient (deadlock, 503) made
 * whatever the time; past them, attempts go on while the request's timeout lasts.
 */
const TRANSIENT_ATTEMPTS = 6;

/** `Basic <base64(user:password)>` with the credentials encoded as UTF-8 (RFC 7617). */
export function basicAuthorization(username: string, password: string): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

/** 503 `store-unavailable` naming the endpoint, with the underlying error as its cause. */
export function storeUnavailable(url: string, reason: string, cause?: unknown): DomainError {
  return new DomainError("store-unavailable", {
    detail: `The SPARQL endpoint ${displayUrl(url)} is unavailable: ${reason}`,
    cause,
  });
}

/** Seconds a client waits before reading an item whose write had an unknown outcome. */
const OUTCOME_RETRY_AFTER_SECONDS = 5;

/**
 * An update that was sent but whose outcome is unknown (no answer in time, the connection
 * broke, or its confirmation could not be read): it may have been applied, or may still
 * be. 503 with Retry-After, and how to find out.
 */
export class WriteOutcomeUnknown extends DomainError {
  constructor(url: string, reason: string, cause?: unknown) {
    super("write-outcome-unknown", {
      detail: `The update was sent to the SPARQL endpoint ${displayUrl(url)}, but its outcome ` +
        `is unknown (${reason}): it may have been applied. Read the item (GET /api/item) and ` +
        "compare its ETag with the one this write would give before writing it again.",
      extensions: { retryAfter: OUTCOME_RETRY_AFTER_SECONDS },
      cause,
    });
  }

  /** The endpoint did not answer in time: likely hung, so a read would wait as long. */
  get afterTimeout(): boolean {
    return isTimeout(this.cause);
  }
}

/**
 * Whether a fetch failed before the request went out (the connection was refused). Only on a
 * connection that was never reused: on a reused one, the fetch may have sent the request,
 * lost the connection, and failed to connect for its silent second try.
 */
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
      return new DomainError("query-timeout", {
        detail: `The SPARQL query did not finish within ${userTimeoutMs} ms`,
        cause: error,
      });
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
  /** Digest credentials, once the scheme is digest (configured, or challenged for). */
  #digest: DigestCredentials | undefined;
  /** Connections that trust the configured CA; the default client without one. */
  readonly #httpClient: Deno.HttpClient | undefined;
  /**
   * Connections for requests that write (updates, Graph Store PUTs), each used once: made on
   * the first write, closed with the client. Deno's fetch silently sends a request again on
   * a new connection when a reused one closes before the answer (hyper's retry of
   * "canceled" requests): a write the endpoint applied and then died on would be sent twice,
   * and the second try's "connection refused" would pass for "never sent" (a 503 for an
   * applied write). A connection that was never reused is never retried.
   */
  #writeHttpClient: Deno.HttpClient | undefined;
  /** The endpoint's `Server` header, as last seen: the store's product and version. */
  server: string | undefined;

  constructor(config: SparqlEndpointConfig) {
    this.config = config;
    this.#authorization = config.username && config.authScheme !== "digest"
      ? basicAuthorization(config.username, config.password ?? "")
      : undefined;
    this.#httpClient = config.caCertificates
      ? Deno.createHttpClient({ caCerts: config.caCertificates })
      : undefined;
  }

  /** Closes the connections of the CA-trusting client, if there is one. */
  close(): void {
    this.#httpClient?.close();
    this.#writeHttpClient?.close();
    this.#writeHttpClient = undefined;
  }

  /** The client for a request that writes: no connection of it is ever reused. */
  #writeClient(): Deno.HttpClient {
    this.#writeHttpClient ??= Deno.createHttpClient({
      poolMaxIdlePerHost: 0,
      ...(this.config.caCertificates ? { caCerts: this.config.caCertificates } : {}),
    });
    return this.#writeHttpClient;
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
      // The credentials are added per attempt (#fetch): basic, or digest once challenged.
      headers: { "Accept": accept, "Content-Type": "application/x-www-form-urlencoded" },
      body: form.toString(),
    }));
  }

  /**
   * Sends one SPARQL Update request. Never retried when its answer was lost (it may have
   * been applied). With `idempotent` (a guarded update, which a second application leaves
   * as the first did), an answer that says the endpoint did not apply it for a transient
   * reason (a deadlock, a serialisation failure, 503) is retried with backoff. `timeoutMs`
   * shortens the configured timeout for this request (what is left of a caller's budget).
   */
  async update(
    sparql: string,
    options: { idempotent?: boolean; timeoutMs?: number } = {},
  ): Promise<void> {
    await this.#withTransientRetries(
      options.idempotent === true,
      options.timeoutMs ?? this.config.timeoutMs,
      (timeoutMs) =>
        this.#send(this.config.updateUrl, {
          method: "POST",
          headers: { "Content-Type": "application/sparql-update; charset=utf-8" },
          body: sparql,
        }, timeoutMs),
    );
  }

  /**
   * Replaces the graph `graph` with `ntriples` through the Graph Store Protocol (PUT). The
   * graph is one the caller owns alone (a staging graph), so a retry is harmless.
   */
  async putGraph(graph: string, ntriples: string): Promise<void> {
    const url = graphStoreTarget(this.config.graphStoreUrl, graph);
    await this.#withTransientRetries(true, this.config.timeoutMs, (timeoutMs) =>
      this.#send(url, {
        method: "PUT",
        headers: { "Content-Type": "application/n-triples; charset=utf-8" },
        body: ntriples,
      }, timeoutMs));
  }

  /**
   * Runs `send` (each attempt with the whole `timeoutMs`), again after a transient refusal
   * when `retry` (see {@link update}): at least {@link TRANSIENT_ATTEMPTS} times, then for
   * as long as `timeoutMs` since the first attempt. A store under a steady write load
   * (Virtuoso escalating the locks of a large delete) can deadlock a write many times in a
   * row; a refusal comes back fast, and the time the caller agreed to wait, not a count of
   * refusals, is what bounds the tries.
   */
  async #withTransientRetries(
    retry: boolean,
    timeoutMs: number,
    send: (timeoutMs: number) => Promise<void>,
  ): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    for (let attempt = 1;; attempt++) {
      try {
        return await send(timeoutMs);
      } catch (error) {
        if (!retry || !isTransientRefusal(error)) throw error;
        const backoff = Math.min(MAX_BACKOFF_MS, 50 * 2 ** Math.min(attempt, 6));
        const wait = backoff / 2 + Math.random() * backoff;
        if (attempt >= TRANSIENT_ATTEMPTS && performance.now() + wait > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  /** One request whose answer is not needed beyond success. */
  async #send(url: string, init: RequestInit, timeoutMs = this.config.timeoutMs): Promise<void> {
    const breaker = this.config.breaker;
    // Refused before sending: nothing was written, a plain 503.
    breaker?.check();
    let response: Response;
    try {
      response = await this.#fetch(url, init, timeoutMs, this.#writeClient());
    } catch (error) {
      const problem = storeProblemFromError(error, url, timeoutMs);
      breaker?.unanswered(problem.message);
      // True only because the connection was new (#writeClient): see there.
      if (neverSent(error)) throw problem;
      throw new WriteOutcomeUnknown(url, problem.message.replace(/^.*?unavailable: /, ""), error);
    }
    breaker?.answered();
    if (!response.ok) throw await endpointProblem(url, response);
    await response.body?.cancel();
  }

  /**
   * A fetch with the credentials: a 401 carrying a digest challenge is answered once (and
   * the challenge kept for the next requests).
   */
  async #fetch(
    url: string,
    init: RequestInit,
    timeoutMs: number,
    client = this.#httpClient,
  ): Promise<Response> {
    const signal = AbortSignal.timeout(timeoutMs);
    const method = init.method ?? "GET";
    const attempt = () => {
      const headers = this.headers(init.headers as Record<string, string>);
      const digest = this.#digest?.authorization(method, url);
      if (digest) headers.set("Authorization", digest);
      return fetch(url, { ...init, headers, signal, client });
    };
    let response = await attempt();
    if (response.status === 401 && this.config.username) {
      let challenge = response.headers.get("WWW-Authenticate");
      if (!/^\s*Digest\s/i.test(challenge ?? "") && this.#authorization) {
        // Virtuoso answers basic credentials with a bare 401; asked without any, it
        // challenges for digest. Nothing is applied without credentials.
        await response.body?.cancel();
        const headers = new Headers(init.headers as Record<string, string>);
        headers.delete("Authorization");
        response = await fetch(url, { ...init, headers, signal, client });
        challenge = response.headers.get("WWW-Authenticate");
      }
      const digest = this.#digest ??
        new DigestCredentials(this.config.username, this.config.password ?? "");
      if (digest.accept(challenge)) {
        await response.body?.cancel();
        this.#digest = digest;
        this.#authorization = undefined; // never send the password in the clear again
        response = await attempt();
      }
    }
    this.server = response.headers.get("Server") ?? this.server;
    return response;
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
        const response = await this.#fetch(url, init(), timeoutMs);
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
      // An unreachable endpoint is worth another try, and so is a refusal for a passing
      // reason (Virtuoso aborts reads too when its lock escalation deadlocks: 40001): a read
      // changes nothing. A timeout already used the caller's whole budget, and any other
      // refusal will be refused again.
      const retryable = isTransientRefusal(problem) ||
        (problem.kind === "unavailable" && !isTimeout(problem.cause));
      if (!retryable || attempt >= this.config.retries) throw problem;
      const backoff = Math.min(MAX_BACKOFF_MS, 100 * 2 ** attempt);
      await new Promise((resolve) => setTimeout(resolve, backoff / 2 + Math.random() * backoff));
    }
  }
}

/** The Graph Store Protocol URL of `graph` (indirect identification, `?graph=`). */
function graphStoreTarget(endpoint: string, graph: string): string {
  const url = new URL(endpoint);
  url.searchParams.set("graph", graph);
  return url.toString();
}

/**
 * An answer saying the endpoint did not apply a request for a passing reason: 503, or a
 * deadlock or serialisation failure (SQLSTATE 40001; Virtuoso answers `40001 SR172:
 * Transaction deadlocked` with HTTP 500).
 */
export function isTransientRefusal(error: unknown): boolean {
  if (!(error instanceof DomainError)) return false;
  const status = error.extensions.endpointStatus;
  if (status === 503) return true;
  return error instanceof EndpointRefusal && /\b40001\b|deadlock|serializ/i.test(error.message);
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
  return new EndpointRefusal(response.status === 400, {
    detail: `The SPARQL endpoint ${displayUrl(url)} refused the request with ${said}`,
    extensions: { endpointStatus: response.status },
  });
}

/**
 * The endpoint refused a request; `badRequest` when it called the request itself wrong
 * (HTTP 400: syntax it does not support, an unknown function), which callers that forward
 * a user's query turn into the user's mistake.
 */
export class EndpointRefusal extends DomainError {
  constructor(readonly badRequest: boolean, options: ProblemOptions) {
    super("store-error", options);
  }
}
