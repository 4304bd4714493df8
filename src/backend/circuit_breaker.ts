/**
 * Fail fast on an engine that is down or hung (`service.failFast`).
 *
 * Every call to the engine reports how it ended. After `failures` timeouts or refused
 * connections in a row the engine is marked down: calls are refused at once (503 with
 * `Retry-After`) instead of each waiting for its own timeout, which is what piles requests
 * up behind a frozen engine. While down, one call per `probeIntervalMs` is let through as
 * the probe; the first that gets any answer from the engine marks it up again. Any answer
 * counts, an error status too: the engine is reachable, so the error is the request's.
 *
 * Written by hand: the npm circuit breakers wrap one function each and time it themselves,
 * while here the clients keep their own timeouts and several clients share one engine.
 */
import { DomainError } from "../errors/domain_error.ts";
import type { ProblemSlug } from "../errors/problems.ts";
import { log } from "../log/logger.ts";

/** `service.failFast`. */
export interface FailFastOptions {
  /** Timeouts or refused connections in a row that mark the engine down. */
  failures: number;
  /** How often a call is let through to see whether the engine is back. */
  probeIntervalMs: number;
}

/** What the breaker knows of its engine, for `/ready` and the metrics. */
export interface BreakerState {
  up: boolean;
  /** Timeouts or refusals in a row so far. */
  consecutiveFailures: number;
  /** When the engine was marked down (epoch ms). */
  downSince?: number;
}

/** One engine's breaker; see the module comment. */
export class CircuitBreaker {
  readonly #options: FailFastOptions;
  /** How refusals name the engine: a problem of the engine's own kind. */
  readonly #refusal: (retryAfterSeconds: number) => DomainError;
  readonly #name: string;
  #consecutive = 0;
  #downSince: number | undefined;
  #nextProbeAt = 0;
  /** Asks the engine directly, around the breaker; resolves when it answers. */
  #probe?: () => Promise<unknown>;
  #probeTimer?: ReturnType<typeof setInterval>;
  #probing = false;

  constructor(
    name: string,
    refusal: (retryAfterSeconds: number) => DomainError,
    options: FailFastOptions,
  ) {
    this.#name = name;
    this.#refusal = refusal;
    this.#options = options;
  }

  /**
   * Sets how to ask the engine whether it is back; while it is marked down, this runs every
   * `probeIntervalMs`, so that it is seen back even when no request comes to find out.
   */
  setProbe(probe: () => Promise<unknown>): void {
    this.#probe = probe;
  }

  /** Stops probing. */
  close(): void {
    if (this.#probeTimer !== undefined) clearInterval(this.#probeTimer);
    this.#probeTimer = undefined;
  }

  /** Seconds a client should wait before trying again. */
  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.#options.probeIntervalMs / 1000));
  }

  /** The problem to answer at once, or undefined when the call may go (up, or the probe). */
  refusal(): DomainError | undefined {
    if (this.#downSince === undefined) return undefined;
    const now = Date.now();
    // Without a probe of its own, one request per interval goes through to find out.
    if (!this.#probe && now >= this.#nextProbeAt) {
      this.#nextProbeAt = now + this.#options.probeIntervalMs;
      return undefined;
    }
    const problem = this.#refusal(this.retryAfterSeconds);
    problem.extensions.retryAfter = this.retryAfterSeconds;
    return problem;
  }

  /** Throws {@link refusal}'s problem, if any. */
  check(): void {
    const problem = this.refusal();
    if (problem) throw problem;
  }

  /** The engine answered (any status). */
  answered(): void {
    if (this.#downSince !== undefined) {
      log("info", `${this.#name} answers again`, {
        downMs: Date.now() - this.#downSince,
      });
    }
    this.#consecutive = 0;
    this.#downSince = undefined;
    this.close();
  }

  /** The engine did not answer: a timeout or a refused or broken connection. */
  unanswered(reason: string): void {
    this.#consecutive++;
    if (this.#downSince !== undefined) return;
    if (this.#consecutive >= this.#options.failures) {
      this.#downSince = Date.now();
      this.#nextProbeAt = this.#downSince + this.#options.probeIntervalMs;
      log("warn", `${this.#name} marked down: requests that need it fail fast`, {
        failures: this.#consecutive,
        reason,
        probeIntervalMs: this.#options.probeIntervalMs,
      });
      this.#startProbing();
    }
  }

  #startProbing(): void {
    if (!this.#probe || this.#probeTimer !== undefined) return;
    this.#probeTimer = setInterval(async () => {
      if (this.#probing) return;
      this.#probing = true;
      try {
        await this.#probe!();
        this.answered();
      } catch {
        // Still down; the next probe asks again.
      } finally {
        this.#probing = false;
      }
    }, this.#options.probeIntervalMs);
    // A probe never keeps the process alive.
    Deno.unrefTimer(this.#probeTimer as unknown as number);
  }

  /** The state, for `/ready` and the metrics. */
  state(): BreakerState {
    return {
      up: this.#downSince === undefined,
      consecutiveFailures: this.#consecutive,
      downSince: this.#downSince,
    };
  }
}

/** A 503 refusal of a marked-down engine, e.g. `search-unavailable`. */
export function engineDown(slug: ProblemSlug, engine: string) {
  return (retryAfterSeconds: number): DomainError =>
    new DomainError(slug, {
      detail: `${engine} did not answer the last requests and is marked down; requests that ` +
        `need it fail at once until it answers again. Retry after ${retryAfterSeconds} s.`,
    });
}
